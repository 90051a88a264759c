"""The batch writer leaves the gradebook exactly as nbgrader's own ORM API would, row by row.

Two copies of one gradebook receive the same results: one through
``record_with_nbgrader_api`` (nbgrader's ``Gradebook`` methods, one result per transaction), the
other through ``record_batch`` (Core statements, a batch per transaction). Every row that
formgrader, ``generate_feedback`` and ``export`` read is compared, ids replaced by natural keys:
students, submissions (timestamps, extensions), submitted notebooks (late penalties), grades
(auto and manual scores, needs_manual_grade) and comments. The results cover new and existing
submissions, verified and unverified scores, a manually graded cell with and without a
human's score, a task cell, a failed submission, a missing test cell, auto comments, a late
submission, one saved by an extension, and a regrade with a new timestamp.
"""
from __future__ import annotations

import datetime as dt
import warnings

import nbformat
import pytest
import sqlalchemy
from nbformat.v4 import new_markdown_cell

from autograder.config import validate_course
from autograder.grading import gradebook as gbk
from autograder.grading import minicourse
from autograder.grading.job import JobResult
from autograder.grading.record import record_batch, record_with_nbgrader_api

AID = minicourse.ASSIGNMENT
EXTRA = f"{AID}_extra"
DUE = dt.datetime(2026, 3, 1, 12, 0)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def course_and_gradebooks(request, tmp_path_factory):
    """The course and its two gradebooks, on SQLite or on a real PostgreSQL server (issue 13, item 7)."""
    root = minicourse.make_course(tmp_path_factory.mktemp("record") / "course")
    source = root / "solutions" / AID / f"{AID}.ipynb"
    nb = nbformat.read(source, as_version=4)
    nb.cells.append(new_markdown_cell("Explain the plot.", metadata={"nbgrader": {
        "grade": False, "solution": False, "task": True, "locked": True, "points": 1, "grade_id": "explain",
        "schema_version": 3}}))
    nbformat.write(nb, source)
    nbformat.write(nb, source.with_name(f"{EXTRA}.ipynb"))  # a second notebook: only sometimes in a batch
    (root / "course.yml").write_text(minicourse.COURSE_YML.replace("    points: 4\n", (
        "    points: 10\n    due: 2026-03-01T12:00:00+00:00\n"
        "    late_policy: {method: per_day, points_per_day: 1, grace_minutes: 10}\n")).replace(
        f"notebooks: [{AID}]", f"notebooks: [{AID}, {EXTRA}]"))
    course = validate_course(root)
    urls = {}
    for name in ("reference", "batch"):
        if request.param == "sqlite":
            urls[name] = f"sqlite:///{root / f'{name}.db'}"
        else:
            urls[name] = request.getfixturevalue("postgres")(f"record_{name}_{abs(hash(str(root))) % 10**8}")
        gbk.ensure_assignment(course, root, AID, urls[name])
        with gbk.Gradebook(urls[name], course.course_id) as gb, warnings.catch_warnings():  # the same history in both
            warnings.simplefilter("ignore")  # nbgrader's own SQLAlchemy "not in session" noise
            gb.add_student("s_manual")
            gb.add_submission(AID, "s_manual")
            gb.find_grade("why", AID, AID, "s_manual").manual_score = 0.5
            gb.add_student("s_ext")
            gb.add_submission(AID, "s_ext").extension = dt.timedelta(days=2)
            gb.db.commit()
    return root, course, urls


def _cells(two, hidden, *, verified=(None, None), drop=()):
    rows = [{"grade_id": "square_two", "max_score": 1.0, "nbgrader_score": two, "verified_score": verified[0],
             "manual": False},
            {"grade_id": "square_hidden", "max_score": 2.0, "nbgrader_score": hidden, "verified_score": verified[1],
             "manual": False},
            {"grade_id": "why", "max_score": 1.0, "nbgrader_score": None, "verified_score": None, "manual": True},
            {"grade_id": "explain", "max_score": 1.0, "nbgrader_score": None, "verified_score": None, "manual": True}]
    return [r for r in rows if r["grade_id"] not in drop]


def _result(sid, cells, status="graded", comments=None, notebook=AID):
    return JobResult(sid, AID, notebook, "0" * 64, status, None if status == "graded" else "broken", cells,
                     comments or {}, None)


def _stamp(delta: dt.timedelta) -> str:
    return (DUE + delta).strftime("%Y-%m-%d %H:%M:%S.%f UTC")


BATCHES = [
    [(_result("s1", _cells(1.0, 2.0, verified=(1.0, 0.0))), _stamp(-dt.timedelta(hours=1))),
     (_result("s2", _cells(1.0, 2.0)), _stamp(dt.timedelta(hours=30))),  # late: 2 started days
     (_result("s3", [], status="failed"), None),
     (_result("s4", _cells(1.0, 0.0, drop=("square_hidden",)), comments={"square": "auto note"}), None),
     (_result("s_manual", _cells(0.0, 2.0, verified=(0.0, 2.0))), _stamp(dt.timedelta(minutes=5))),  # grace
     (_result("s_ext", _cells(1.0, 2.0)), _stamp(dt.timedelta(days=1)))],  # late but for its extension
    [(_result("s1", _cells(1.0, 2.0, verified=(1.0, 2.0))), _stamp(dt.timedelta(days=3, hours=2))),  # regrade
     (_result("s5", _cells(None, 2.0)), None),
     (_result("s2", _cells(0.0, 2.0), notebook=EXTRA), _stamp(dt.timedelta(hours=30)))],  # s2's other notebook
]

DUMP = {
    "students": "SELECT id, first_name, last_name, email, lms_user_id FROM student",
    "submissions": """SELECT a.name, sa.student_id, sa.timestamp, sa.extension FROM submitted_assignment sa
                      JOIN assignment a ON a.id = sa.assignment_id""",
    "notebooks": """SELECT a.name, sa.student_id, n.name, sn.flagged, sn.late_submission_penalty
                    FROM submitted_notebook sn JOIN notebook n ON n.id = sn.notebook_id
                    JOIN submitted_assignment sa ON sa.id = sn.assignment_id JOIN assignment a ON a.id = sa.assignment_id""",
    "grades": """SELECT sa.student_id, n.name, bc.name, bc.type, g.auto_score, g.manual_score, g.extra_credit,
                        g.needs_manual_grade
                 FROM grade g JOIN base_cell bc ON bc.id = g.cell_id JOIN notebook n ON n.id = bc.notebook_id
                 JOIN submitted_notebook sn ON sn.id = g.notebook_id
                 JOIN submitted_assignment sa ON sa.id = sn.assignment_id""",
    "comments": """SELECT sa.student_id, n.name, bc.name, bc.type, c.auto_comment, c.manual_comment
                   FROM comment c JOIN base_cell bc ON bc.id = c.cell_id JOIN notebook n ON n.id = bc.notebook_id
                   JOIN submitted_notebook sn ON sn.id = c.notebook_id
                   JOIN submitted_assignment sa ON sa.id = sn.assignment_id""",
}


def _dump(url: str) -> dict[str, list]:
    """Every table the views read, as rows of plain values, on either backend."""
    engine = sqlalchemy.create_engine(url)
    try:
        with engine.connect() as con:
            return {name: sorted((tuple(int(v) if isinstance(v, bool) else v for v in row)
                                  for row in con.execute(sqlalchemy.text(sql)).fetchall()), key=repr)
                    for name, sql in DUMP.items()}
    finally:
        engine.dispose()


def test_batch_writer_equals_nbgrader_api_row_by_row(course_and_gradebooks):
    root, course, urls = course_and_gradebooks
    penalties = {"reference": [], "batch": []}
    with gbk.Gradebook(urls["reference"], course.course_id) as gb:
        for batch in BATCHES:
            penalties["reference"] += [record_with_nbgrader_api(gb, course, r, ts) for r, ts in batch]
    with gbk.Gradebook(urls["batch"], course.course_id) as gb:
        for batch in BATCHES:
            penalties["batch"] += record_batch(gb, course, batch)
    reference, batch = _dump(urls["reference"]), _dump(urls["batch"])
    for table in DUMP:
        assert batch[table] == reference[table], table
    assert penalties["batch"] == penalties["reference"]

    # Not vacuous: what the scenarios are there for did happen.
    assert penalties["reference"] == [None, 2.0, None, None, None, None, 3.0, None, 2.0]
    grades = {}
    for sid, notebook, name, _, auto, manual, _, needs in reference["grades"]:
        grades.setdefault((sid, name), {})[notebook] = (auto, manual, needs)
    grades = {key: by_notebook[AID] for key, by_notebook in grades.items()} | {
        (sid, name, EXTRA): by_notebook[EXTRA] for (sid, name), by_notebook in grades.items()}
    assert grades[("s1", "square_two", EXTRA)] == (None, None, 1)  # never submitted: nbgrader's defaults
    assert grades[("s2", "square_two", EXTRA)] == (0.0, None, 0)
    assert grades[("s1", "square_hidden")][0] == 2.0  # the regrade's verified score
    assert grades[("s_manual", "why")] == (None, 0.5, 1)  # a human's score: still to review
    assert grades[("s3", "square_two")] == (0.0, None, 0)  # failed: zero, nothing to review
    assert grades[("s4", "square_hidden")] == (0.0, None, 0)  # test cell missing
    assert grades[("s5", "square_two")] == (None, None, 1)  # no auto score: to review
    assert ("s4", AID, "square", "SolutionCell", "auto note", None) in reference["comments"]


def test_a_bad_batch_writes_nothing(course_and_gradebooks):
    root, course, urls = course_and_gradebooks
    before = _dump(urls["batch"])
    unknown = JobResult("s9", AID, "no_such_notebook", "0" * 64, "graded", None, _cells(1.0, 2.0), {}, None)
    with gbk.Gradebook(urls["batch"], course.course_id) as gb, pytest.raises(gbk.MissingEntry, match="no_such_notebook"):
        record_batch(gb, course, [(_result("s6", _cells(1.0, 2.0)), None), (unknown, None)])
    assert _dump(urls["batch"]) == before
