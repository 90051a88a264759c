"""Odd and broken files beside honest controls: each is recorded with its reason, nobody else is touched.

The cases the red team and the "every submission recorded" issue found: a ``timestamp.txt``
that is not a date (it crashed the batch's commit, every run), one that is not UTF-8, a notebook
larger than ``grading.max_submission_mb``, JSON nested 20,000 deep and an integer of 5,000
digits (they raised past the JSON error handler: "grader error" forever).
"""
from __future__ import annotations

import json

import pytest

from autograder import api
from autograder.grading.minicourse import ASSIGNMENT, COURSE_YML

from .conftest import copy_course, grades

pytestmark = pytest.mark.slow

ODD = {
    "deep": b'{"cells": [], "metadata": {"x": ' + b"[" * 20_000 + b"]" * 20_000 + b'}, "nbformat": 4}',
    "bigint": b'{"cells": [], "metadata": {"x": ' + b"7" * 5000 + b'}, "nbformat": 4, "nbformat_minor": 5}',
    "huge": None,  # the complete answer padded past the size limit
}
STAMPS = {"badstamp": b"the night before the deadline", "bytestamp": b"\xff\xfe2024"}


@pytest.fixture(scope="module")
def odd_class(generated_course, tmp_path_factory):
    root = copy_course(generated_course, tmp_path_factory.mktemp("odd") / "course")
    (root / "course.yml").write_text(COURSE_YML.replace("grading:\n", "grading:\n  max_submission_mb: 0.05\n"))
    complete = (root / "submitted" / "s00" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_bytes()
    for sid, data in ODD.items():
        if data is None:
            nb = json.loads(complete)
            nb["cells"].append({"cell_type": "markdown", "id": "pad", "metadata": {}, "source": "x" * 100_000})
            data = json.dumps(nb).encode()
        path = root / "submitted" / sid / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
    nb = json.loads(complete)  # the solution cell copied above itself, the copy wrong: the last one wins
    solution = next(i for i, c in enumerate(nb["cells"]) if c.get("metadata", {}).get("nbgrader", {}).get("solution")
                    and c["cell_type"] == "code")
    copy = json.loads(json.dumps(nb["cells"][solution]))
    copy["id"], copy["source"] = "my-first-try", "def square(x):\n    return x + x"
    nb["cells"].insert(solution, copy)
    path = root / "submitted" / "duplicated" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(nb))
    nb = json.loads(complete)  # every test cell deleted / blanked / moved to the end
    tests = [c for c in nb["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade")
             and not c["metadata"]["nbgrader"].get("solution")]
    variants = {"no_tests": [c for c in nb["cells"] if c not in tests],
                "blank_tests": [dict(c, source="") if c in tests else c for c in nb["cells"]],
                "tests_last": [c for c in nb["cells"] if c not in tests] + tests}
    for sid, cells in variants.items():
        path = root / "submitted" / sid / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(dict(nb, cells=cells)))
    for sid, stamp in STAMPS.items():
        path = root / "submitted" / sid / ASSIGNMENT
        path.mkdir(parents=True)
        (path / f"{ASSIGNMENT}.ipynb").write_bytes(complete)
        (path / "timestamp.txt").write_bytes(stamp)
    summary = api.grade(root, workers=2, progress=False, verify=False)
    subs = {s["student_id"]: s for s in json.loads((root / "reports" / "results.json").read_text())["submissions"]}
    return root, summary, subs


def test_nothing_is_a_grader_error_and_everyone_is_recorded(odd_class, generated_course):
    root, summary, subs = odd_class
    assert summary.errors == []
    honest = {p.parent.parent.name for p in (generated_course / "submitted").glob(f"*/{ASSIGNMENT}/*.ipynb")}
    assert set(subs) == honest | set(ODD) | set(STAMPS) | {"duplicated", "no_tests", "blank_tests", "tests_last"}
    assert {s for s, _ in grades(root)} == set(subs)  # in the gradebook too


def test_an_unreadable_timestamp_is_flagged_and_graded_on_time(odd_class):
    _, _, subs = odd_class
    complete = subs["s00"]
    for sid in STAMPS:
        sub = subs[sid]
        assert sub["status"] == "graded" and sub["score"] == complete["score"] > 0
        flag = next(f for f in sub["flags"] if f["kind"] == "timestamp unreadable")
        assert "timestamp.txt is not a date" in flag["evidence"] and "on time" in flag["evidence"]
        assert not sub.get("late_penalty")


@pytest.mark.parametrize("sid, reason", [("deep", "nested too deeply"), ("bigint", "cannot be read"),
                                         ("huge", "max_submission_mb")])
def test_a_broken_file_is_recorded_as_failed_with_its_reason(odd_class, sid, reason):
    _, _, subs = odd_class
    assert subs[sid]["status"] == "failed" and reason in subs[sid]["reason"]
    assert subs[sid]["score"] == 0.0


def test_a_duplicated_solution_cell_is_graded_like_run_all(odd_class):
    """Issue 13 (4): nbgrader refused two cells with one grade_id ("nbgrader update ."), a 0; the last wins."""
    _, _, subs = odd_class
    assert subs["duplicated"]["status"] == "graded", subs["duplicated"]["reason"]
    assert subs["duplicated"]["score"] == subs["s00"]["score"] > 0


@pytest.mark.parametrize("sid", ["no_tests", "blank_tests", "tests_last"])
def test_deleted_blanked_or_moved_test_cells_do_not_matter(odd_class, sid):
    """Issue 13 (4): deleting the test placeholders failed the notebook as "metadata stripped"."""
    _, _, subs = odd_class
    assert subs[sid]["status"] == "graded", subs[sid]["reason"]
    auto = {c["grade_id"]: c["score"] for c in subs[sid]["cells"] if not c.get("manual")}
    assert auto == {c["grade_id"]: c["score"] for c in subs["s00"]["cells"] if not c.get("manual")}
