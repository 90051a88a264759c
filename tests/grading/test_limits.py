"""A submission that never ends is stopped at the wall-clock limit and the class is graded; a
verification result that disagrees with nbgrader becomes the recorded score and a flag."""
from __future__ import annotations

import csv
import json

import nbformat
import pytest
from .conftest import copy_course, grades

from autograder import api
from autograder.grading import verification
from autograder.grading.minicourse import ASSIGNMENT, COURSE_YML

pytestmark = pytest.mark.slow


def _fake_verifier(assignment_id, notebook_bytes, seed, limits, trusted=False):
    # "Verification" that fails the hidden test of everybody: a stand-in for a tampered kernel.
    assert assignment_id == ASSIGNMENT and isinstance(seed, int) and limits["memory_mb"] > 0
    # Every auto-graded cell needs a verdict: one without is withheld (fail closed).
    return {"verdicts": [{"grade_id": "square_two", "passed": True, "message": None, "misconception": None,
                          "task": "square"},
                         {"grade_id": "square_hidden", "passed": False, "message": "wrong outside the kernel",
                          "misconception": "square.doubles", "task": "square"}], "flags": []}


def test_wall_clock_limit_and_verified_scores(generated_course, tmp_path, monkeypatch):
    root = copy_course(generated_course, tmp_path / "course")
    (root / "course.yml").write_text(COURSE_YML.replace("  cell_timeout: 20\n",
                                                        "  cell_timeout: 600\n  submission_timeout: 20\n"))
    for sid in ("s01", "s02", "s03"):
        (root / "submitted" / sid / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").unlink()
    path = root / "submitted" / "s01" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = nbformat.read(root / "submitted" / "s00" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    # endless but idle (the machine is shared); the limit is generous for a loaded machine
    nb.cells[1].source = "import time\ndef square(x):\n    return x * x\nwhile True:\n    time.sleep(0.1)"
    nbformat.write(nb, path)
    monkeypatch.setattr(verification, "load_verifier", lambda: _fake_verifier)  # workers are forked

    summary = api.grade(root, workers=2, progress=False)
    assert (summary.graded, summary.failed, summary.errors) == (1, 1, [])
    subs = {s["student_id"]: s for s in json.loads((root / "reports" / "results.json").read_text())["submissions"]}
    assert subs["s01"]["status"] == "failed" and "wall-clock limit of 20 s" in subs["s01"]["reason"]
    s00 = subs["s00"]
    hidden = next(c for c in s00["cells"] if c["grade_id"] == "square_hidden")
    assert (hidden["nbgrader_score"], hidden["verified_score"], hidden["score"]) == (2.0, 0.0, 0.0)
    assert hidden["misconception"] == "square.doubles" and s00["verified"] is True
    assert [f["kind"] for f in s00["flags"]] == ["possible tampering"]
    assert grades(root)[("s00", "square_hidden")] == (0.0, False)  # the gradebook holds the verified score
    with open(root / "reports" / "grades.csv", newline="") as fh:
        rows = {r["student_id"]: r for r in csv.DictReader(fh)}
    assert rows["s00"]["ps1"] == "1" and "possible tampering: ps1/square_hidden" in rows["s00"]["flags"]
