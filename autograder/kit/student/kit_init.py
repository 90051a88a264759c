"""The student kit of the course (built by the instructor with ``autograder kit``).

``public`` judges the visible checks from ``data/<assignment>.json`` and ``.npz``; ``KIT`` says
what this kit is (the course, its mode, the assignments it releases, when it was built).
"""
import json
from pathlib import Path

KIT = json.loads((Path(__file__).resolve().parent / "kit.json").read_text())
