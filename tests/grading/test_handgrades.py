"""Hand grades, missing submissions, due dates and rubrics, without a kernel (issue 15, items 2-6)."""
from __future__ import annotations

import csv
import json
import warnings

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.config import CourseConfigError, parse_course
from autograder.feedback import FORBIDDEN, render_feedback
from autograder.grading.handgrades import CellGrade, NotebookGrades, gradebook_rows, overlay
from autograder.grading.nbconfig import alembic_on_path
from autograder.grading.reports import grade_rows, write_reports
from autograder.notebook.rubrics import RemoveRubrics, insert_rubrics, rubrics_of

COURSE = """\
course_id: c
title: t
assignments:
  - {id: a1, title: A1, notebooks: [a1], points: 4}
  - {id: a2, title: A2, notebooks: [a2], points: 4}
  - {id: b, title: Bonus, notebooks: [b], points: 1, bonus: true}
"""


def _record(sid, aid, cells, status="graded", penalty=None):
    return {"student_id": sid, "assignment_id": aid, "notebook_id": aid, "status": status, "reason": None,
            "sha256": "x", "verified": True, "score": sum(c["score"] for c in cells),
            "max_score": sum(c["max_score"] for c in cells), "late_penalty": penalty, "cells": cells, "flags": []}


def _cell(gid, score, max_score, manual=False):
    return {"grade_id": gid, "task": gid, "score": score, "max_score": max_score,
            "passed": None if manual else score == max_score, "message": None, "misconception": None,
            "nbgrader_score": None if manual else score, "verified_score": None, "manual": manual}


def test_grade_score_is_nbgraders_rule():
    assert CellGrade(2.0, None, None, False).score == 2.0
    assert CellGrade(2.0, 0.5, None, True).score == 0.5  # a manual score overrides the auto score
    assert CellGrade(None, 1.0, 0.5, False).score == 1.5  # extra credit adds
    assert CellGrade(None, None, None, True).score == 0.0


def test_overlay_takes_the_gradebooks_word():
    rec = _record("s", "a1", [_cell("q", 3.0, 3.0), _cell("why", 0.0, 1.0, manual=True)])
    rows = NotebookGrades(cells={"q": CellGrade(3.0, 2.0, None, True, "override"),
                                 "why": CellGrade(None, 0.5, None, False, "half")},
                          comments={"q_solution": "see me"}, late_penalty=0.25)
    out = overlay(rec, rows)
    cells = {c["grade_id"]: c for c in out["cells"]}
    assert cells["q"]["score"] == 2.0 and cells["q"]["comment"] == "override"
    assert cells["why"]["manual_score"] == 0.5 and not cells["why"]["needs_manual_grade"]
    assert out["score"] == 2.5 and out["late_penalty"] == 0.25 and out["hand_graded"] == 2.5
    assert out["needs_manual_grading"] == 0 and out["comments"] == {"q_solution": "see me"}
    assert rec["score"] == 3.0  # the record itself is unchanged
    # Without gradebook rows a manual cell waits for its grade; a failed submission does not.
    assert overlay(rec, None)["needs_manual_grading"] == 1
    assert overlay({**rec, "status": "failed"}, None)["needs_manual_grading"] == 0


def test_missing_is_blank_not_zero(tmp_path):
    course = parse_course(COURSE + "roster: roster.csv\n")
    (tmp_path / "roster.csv").write_text("student_id\ns1\ns2\ns3\n")
    records = [_record("s1", "a1", [_cell("q", 3.0, 4.0)]), _record("s1", "a2", [_cell("q", 0.0, 4.0)]),
               _record("s2", "a1", [_cell("q", 4.0, 4.0)], penalty=1.0)]
    rows = {r["student_id"]: r for r in grade_rows(course, tmp_path, records)}
    assert rows["s1"]["a2"] == 0.0 and rows["s1"]["not_submitted"] == ["b"]  # a real 0 is not missing
    assert rows["s2"]["a1"] == 3.0 and rows["s2"]["a2"] is None and rows["s2"]["total"] == 3.0
    assert rows["s3"]["a1"] is None and rows["s3"]["not_submitted"] == ["a1", "a2", "b"]
    csv_path, json_path = write_reports(course, tmp_path, records, gradebook=False)
    with open(csv_path, newline="") as fh:
        table = {r["student_id"]: r for r in csv.DictReader(fh)}
    assert table["s3"]["a1"] == "" and table["s3"]["total"] == "0" and table["s3"]["not_submitted"] == "a1 a2 b"
    assert table["s1"]["a2"] == "0" and table["s1"]["b"] == ""
    assert "counts 0 in the total" in json.loads(json_path.read_text())["missing_policy"]


def test_a_failed_submission_is_one_flag_with_its_reason(tmp_path):
    course = parse_course(COURSE)
    failed = {**_record("s1", "a1", []), "status": "failed", "reason": "the notebook has 10,001 code cells",
              "flags": [{"kind": "not graded", "rule": "grading.max_code_cells", "grade_id": None, "cell": None}]}
    bare = {**_record("s2", "a1", []), "status": "failed", "reason": "invalid JSON"}  # recorded before issue 25
    rows = {r["student_id"]: r for r in grade_rows(course, tmp_path, [failed, bare])}
    assert rows["s1"]["flags"] == ["not graded (grading.max_code_cells): a1/- (the notebook has 10,001 code cells)"]
    assert rows["s2"]["flags"] == ["failed: a1 (invalid JSON)"]


def test_gradebook_rows_read_hand_grades(tmp_path):
    alembic_on_path()  # nbgrader creates a gradebook with the alembic command
    url = f"sqlite:///{tmp_path / 'gb.db'}"
    assert gradebook_rows(url) == {}  # no gradebook yet: nothing, and none created
    assert not (tmp_path / "gb.db").exists()
    with warnings.catch_warnings(), Gradebook(url, "c") as gb:
        warnings.simplefilter("ignore")  # nbgrader's own SQLAlchemy "not in session" noise
        gb.add_assignment("a1")
        gb.add_notebook("a1", "a1")
        gb.add_grade_cell("why", "a1", "a1", max_score=1, cell_type="markdown")
        gb.add_solution_cell("why", "a1", "a1")
        gb.add_student("s1")
        gb.add_submission("a1", "s1")
        grade = gb.find_grade("why", "a1", "a1", "s1")
        grade.manual_score = 0.75
        gb.find_comment("why", "a1", "a1", "s1").manual_comment = "nearly"
        gb.db.commit()
    rows = gradebook_rows(url, "c")[("s1", "a1", "a1")]
    assert rows.cells["why"].score == 0.75 and rows.cells["why"].comment == "nearly"


def test_due_date_needs_a_timezone():
    with pytest.raises(CourseConfigError, match=r"assignments\[0\]\.due \(course.yml line 4\).*timezone"):
        parse_course(COURSE.replace("points: 4}", "points: 4, due: '2027-02-01T23:59:00'}", 1))
    course = parse_course(COURSE.replace("points: 4}", "points: 4, due: '2027-02-01T23:59:00+01:00'}", 1)
                          + "exchange: {root: /srv/nbgrader/exchange}\n")
    assert course.assignments[0].due.utcoffset().total_seconds() == 3600
    assert str(course.exchange.path("/x")) == "/srv/nbgrader/exchange"
    with pytest.raises(CourseConfigError, match=r"exchange\.where .*unknown key"):
        parse_course(COURSE + "exchange: {where: x}\n")


def _source_with_rubric():
    answer = nbformat.v4.new_markdown_cell("Because $\\sqrt{d_k}$ scales.", metadata={"nbgrader": {
        "grade": True, "grade_id": "why", "solution": True, "locked": False, "points": 2, "schema_version": 3}})
    rubric = nbformat.v4.new_markdown_cell("**Rubric (instructor only)**: 1 point each.",
                                           metadata={"autograder": {"rubric_for": "why"}})
    return nbformat.v4.new_notebook(cells=[answer, rubric])


def test_rubrics_stay_with_the_instructor(tmp_path):
    source = _source_with_rubric()
    nbformat.write(source, tmp_path / "source.ipynb")
    released, _ = RemoveRubrics().preprocess(nbformat.reads(nbformat.writes(source), as_version=4), {})
    assert [c.source for c in released.cells] == ["Because $\\sqrt{d_k}$ scales."]
    assert rubrics_of(source)["why"].startswith("**Rubric (instructor only)**")

    student = nbformat.reads(nbformat.writes(released), as_version=4)
    student.cells[0].source = "My answer."
    fake = nbformat.v4.new_markdown_cell("**Rubric (instructor only)**: full marks!",
                                         metadata={"autograder": {"rubric_for": "why"}})
    student.cells.append(fake)  # a submission cannot bring its own rubric
    graded = json.loads(insert_rubrics(nbformat.writes(student).encode(), tmp_path / "source.ipynb"))
    texts = ["".join(c["source"]) for c in graded["cells"]]
    assert texts[0] == "My answer." and "1 point each" in texts[1] and "Because" in texts[1]
    assert len(texts) == 2 and "full marks" not in "".join(texts)

    bad = nbformat.v4.new_notebook(cells=[source.cells[1]])
    with pytest.raises(ValueError, match="no cell has that grade_id"):
        rubrics_of(bad)


def test_feedback_never_shows_instructor_text():
    assert FORBIDDEN.search("**Rubric (instructor only)**") and FORBIDDEN.search("Model answer (instructor only)")
    sub = _record("s", "a1", [_cell("why", 0.0, 2.0, manual=True)])
    sub["cells"][0].update(manual_score=1.0, score=1.0, comment="Rubric (instructor only) says 1")
    page = render_feedback(sub)  # a comment quoting the rubric is dropped, not published
    assert "instructor only" not in page and "graded by hand" in page
