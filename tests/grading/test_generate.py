"""``autograder generate`` is nbgrader's generate_assignment, deterministic; and the real course
notebooks grade through the whole pipeline (when they are written)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from .conftest import grades

from autograder import api
from autograder.grading.minicourse import ASSIGNMENT

REPO = Path(__file__).resolve().parents[2]
REAL = "01_scores_softmax"


def test_generate_is_deterministic_and_strips_solutions(generated_course, tmp_path):
    first = (generated_course / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_bytes()
    root = shutil.copytree(generated_course, tmp_path / "again")
    api.generate(root)
    assert (root / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_bytes() == first
    text = first.decode()
    assert "raise NotImplementedError()" in text
    assert "return x * x" not in text and "-1.5" not in text  # solution and hidden test removed


def _real_course(tmp_path: Path) -> Path:
    root = tmp_path / "course"
    root.mkdir()
    for name in ("course.yml", "nbgrader_config.py"):
        shutil.copy(REPO / name, root)
    shutil.copytree(REPO / "solutions" / REAL, root / "solutions" / REAL)
    return root


def test_generate_matches_committed_release(tmp_path):
    root = _real_course(tmp_path)
    api.generate(root, [REAL])
    committed = REPO / "assignments" / REAL / f"{REAL}.ipynb"
    assert (root / "assignments" / REAL / f"{REAL}.ipynb").read_bytes() == committed.read_bytes()


@pytest.mark.slow
def test_real_notebook_solution_full_marks_blank_zero_verified(tmp_path):
    root = _real_course(tmp_path)
    api.generate(root, [REAL])
    for sid, src in {"solved": root / "solutions" / REAL, "blank": root / "assignments" / REAL}.items():
        (root / "submitted" / sid / REAL).mkdir(parents=True)
        shutil.copy(src / f"{REAL}.ipynb", root / "submitted" / sid / REAL)
    summary = api.grade(root, assignments=[REAL], workers=2, progress=False)
    assert (summary.graded, summary.errors) == (2, [])
    subs = {s["student_id"]: s for s in json.loads((root / "reports" / "results.json").read_text())["submissions"]}
    solved, blank = subs["solved"], subs["blank"]
    auto = [c for c in solved["cells"] if not c["manual"]]
    assert auto and all(c["passed"] for c in auto), [c for c in auto if not c["passed"]]
    assert all(c["score"] == 0 for c in blank["cells"])
    assert not [f for f in solved["flags"] if f["kind"] == "possible tampering"]
    if solved["verified"]:  # the sandbox of issue 5 is installed
        assert all(c["verified_score"] == c["max_score"] for c in auto)
        assert all(c["task"] for c in auto)
    assert {v for (s, _), v in grades(root).items() if s == "blank"} == {(0.0, False)}
