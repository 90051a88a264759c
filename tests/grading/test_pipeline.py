"""End to end on the mini course: parallel grading equals serial stock nbgrader, cell by cell;
the reports; broken submissions; stripped metadata put back; unchanged submissions skipped and --force."""
from __future__ import annotations

import csv
import json

import nbformat
import pytest
from .conftest import N_STUDENTS, comments, copy_course, grades

from autograder import api
from autograder.grading.minicourse import ASSIGNMENT

pytestmark = pytest.mark.slow
HONEST = [f"s{i:02d}" for i in range(N_STUDENTS)]


def _outputs(course_dir, sid):
    nb = nbformat.read(course_dir / "autograded" / sid / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    return [(c.source, [{k: v for k, v in o.items() if k != "execution_count"} for o in c.get("outputs", [])])
            for c in nb.cells]


def test_parallel_equals_stock_nbgrader_cell_by_cell(stock_graded, parallel_graded):
    root, summary = parallel_graded
    ours, stock = grades(root), grades(stock_graded)
    assert {k: v for k, v in ours.items() if k[0] in HONEST} == stock
    assert {k: v for k, v in comments(root).items() if k[0] in HONEST} == comments(stock_graded)
    for sid in HONEST:
        assert _outputs(root, sid) == _outputs(stock_graded, sid)
    assert "image/png" in _outputs(root, "s00")[-1][1][0]["data"]  # the plot, as stock shows it
    # the class really has every kind of outcome
    assert {stock[(s, "square_hidden")][0] for s in HONEST} == {0.0, 2.0}


def test_reports(parallel_graded):
    root, summary = parallel_graded
    assert (summary.graded, summary.failed, summary.skipped, summary.errors) == (N_STUDENTS + 1, 1, 0, [])
    with open(root / "reports" / "grades.csv", newline="") as fh:
        rows = {r["student_id"]: r for r in csv.DictReader(fh)}
    assert list(next(iter(rows.values()))) == ["student_id", "ps1", "total", "not_submitted", "needs_manual_grading",
                                               "flags"]
    # complete, einsum, wrong (only square(2) == 4 holds), blank
    assert {s: rows[s]["ps1"] for s in HONEST} == {"s00": "3", "s01": "3", "s02": "1", "s03": "0"}
    assert rows["s00"]["total"] == "3" and rows["s00"]["flags"] == ""
    report = json.loads((root / "reports" / "results.json").read_text())
    assert report["course_id"] == "mini" and report["seed_policy"] == "fresh per run"
    subs = {s["student_id"]: s for s in report["submissions"]}
    assert set(subs) == set(HONEST) | {"z_text", "z_stripped"}
    wrong = subs["s02"]
    assert (wrong["status"], wrong["score"], wrong["max_score"]) == ("graded", 1.0, 4.0)
    cells = {c["grade_id"]: c for c in wrong["cells"]}
    assert [c["grade_id"] for c in wrong["cells"]] == ["square_two", "square_hidden", "why"]
    assert cells["square_two"] == {"grade_id": "square_two", "task": None, "score": 1.0, "max_score": 1.0,
                                   "passed": True, "message": None, "misconception": None,
                                   "nbgrader_score": 1.0, "verified_score": None, "manual": False,
                                   # the gradebook's word (no hand grade yet)
                                   "manual_score": None, "extra_credit": None, "needs_manual_grade": False,
                                   "comment": None}
    assert cells["square_hidden"]["passed"] is False and cells["square_hidden"]["message"] == "AssertionError"
    assert cells["why"]["manual"] and cells["why"]["passed"] is None
    blank = {c["grade_id"]: c for c in subs["s03"]["cells"]}
    assert blank["square_two"]["message"] == "NameError: name 'square' is not defined"


def test_broken_submissions_fail_with_a_reason(parallel_graded):
    root, _ = parallel_graded
    subs = {s["student_id"]: s for s in json.loads((root / "reports" / "results.json").read_text())["submissions"]}
    assert subs["z_text"]["status"] == "failed" and "plain text, not JSON" in subs["z_text"]["reason"]
    assert subs["z_text"]["score"] == 0.0
    assert all(v == (0.0, False) for (s, _), v in grades(root).items() if s == "z_text")
    assert not (root / "autograded" / "z_text").exists()


def test_stripped_metadata_is_put_back_and_graded(parallel_graded):
    """Issue 13 (4): the complete answer with every nbgrader metadata removed (another editor saved it) was
    failed as "metadata stripped"; its cells match the release by cell id, so it is graded like s00."""
    root, _ = parallel_graded
    subs = {s["student_id"]: s for s in json.loads((root / "reports" / "results.json").read_text())["submissions"]}
    assert subs["z_stripped"]["status"] == "graded", subs["z_stripped"]["reason"]
    assert subs["z_stripped"]["score"] == subs["s00"]["score"] == 3.0
    ours = grades(root)
    assert {g: v for (s, g), v in ours.items() if s == "z_stripped"} == {g: v for (s, g), v in ours.items() if s == "s00"}


def test_unchanged_submissions_are_skipped_and_force_regrades(parallel_graded, tmp_path):
    # A copy: s03 resubmits here, and the session's graded course is every other test's reference.
    root = copy_course(parallel_graded[0], tmp_path / "course")
    before = grades(root)
    # one student resubmits: only that one is graded again
    path = root / "submitted" / "s03" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = nbformat.read(path, as_version=4)
    nb.cells[1].source = "def square(x):\n    return x ** 2"
    nbformat.write(nb, path)
    again = api.grade(root, workers=2, progress=False, verify=False)
    assert (again.graded, again.failed, again.skipped) == (1, 0, N_STUDENTS + 1)
    after = grades(root)
    assert after[("s03", "square_hidden")] == (2.0, False)
    assert {k: v for k, v in after.items() if k[0] != "s03"} == {k: v for k, v in before.items() if k[0] != "s03"}
    forced = api.grade(root, assignments=[ASSIGNMENT], workers=2, progress=False, verify=False, force=True)
    assert (forced.graded, forced.failed, forced.skipped) == (N_STUDENTS + 1, 1, 0)
    assert grades(root) == after
    # one record per submission in the report, however often it was graded
    report = json.loads((root / "reports" / "results.json").read_text())
    assert len(report["submissions"]) == N_STUDENTS + 2
