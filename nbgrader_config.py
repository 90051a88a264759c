"""nbgrader configuration of this course: everything comes from course.yml.

Stock nbgrader commands (``nbgrader generate_assignment 01_scores_softmax``,
``nbgrader autograde 01_scores_softmax``) therefore agree with ``autograder``.
"""
import os
import sys
from pathlib import Path

from autograder.config import load_course
from autograder.grading.nbconfig import nbgrader_config

_here = Path(__file__).resolve().parent

# nbgrader creates a new gradebook by running `alembic` as a subprocess; make the one
# installed beside this interpreter findable when the virtual environment is not activated
# (`.venv/bin/nbgrader ...` would otherwise fail with FileNotFoundError: 'alembic').
_bin = str(Path(sys.executable).parent)
if _bin not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = os.pathsep.join([_bin, os.environ.get("PATH", "")])
c = get_config()  # noqa: F821 (provided by traitlets when it runs this file)
c.merge(nbgrader_config(load_course(_here), _here))
