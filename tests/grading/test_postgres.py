"""One class graded through ``autograder grade`` into a real PostgreSQL gradebook: the same rows as SQLite.

``course.yml`` accepts any SQLAlchemy URL; the batch writer's statements are written for both
(``test_record.py`` compares them with nbgrader's own API on both), and this runs the whole
pipeline against a throwaway server (the ``postgres`` fixture).
"""
from __future__ import annotations

import json

import pytest
import sqlalchemy

from autograder import api
from autograder.grading.minicourse import COURSE_YML

from .conftest import copy_course, grades

pytestmark = pytest.mark.slow

GRADES = """SELECT sa.student_id, bc.name, g.auto_score, g.needs_manual_grade
            FROM grade g JOIN base_cell bc ON g.cell_id = bc.id
            JOIN submitted_notebook sn ON g.notebook_id = sn.id
            JOIN submitted_assignment sa ON sn.assignment_id = sa.id"""


def test_a_class_on_postgresql_gets_the_rows_it_gets_on_sqlite(generated_course, postgres, tmp_path):
    sqlite_root = copy_course(generated_course, tmp_path / "sqlite")  # graded side by side, same class
    root = copy_course(generated_course, tmp_path / "postgres")
    (root / "gradebook.db").unlink()  # the copy's SQLite gradebook: it must not come back
    url = postgres("class_gradebook")
    (root / "course.yml").write_text(COURSE_YML.replace("grading:\n", f"grading:\n  db_url: \"{url}\"\n"))
    on_sqlite = api.grade(sqlite_root, workers=2, progress=False, verify=False)
    summary = api.grade(root, workers=2, progress=False, verify=False)
    assert summary.errors == [] and (summary.graded, summary.failed) == (on_sqlite.graded, on_sqlite.failed)
    engine = sqlalchemy.create_engine(url)
    with engine.connect() as con:
        rows = {(s, g): (a, bool(m)) for s, g, a, m in con.execute(sqlalchemy.text(GRADES))}
    engine.dispose()
    expected = grades(sqlite_root)
    assert rows == expected and len({s for s, _ in rows}) == summary.graded > 0
    assert {a for a, _ in rows.values()} >= {0.0, 1.0, 2.0}  # not vacuous: right, partly right and wrong cells
    assert not (root / "gradebook.db").exists()  # nothing went to a SQLite file by mistake


def test_a_lock_held_elsewhere_fails_the_batch_after_the_wait_and_the_next_run_records_it(generated_course, postgres,
                                                                                         tmp_path):
    """A session that holds the gradebook's grade table (formgrader mid-edit, a stuck client) hung the run for as
    long as it held it. Now the batch waits ``grading.lock_wait_seconds``, then every submission in it is reported
    as a grader error at once (one by one, each would wait as long) and the next run records them."""
    import threading

    root = copy_course(generated_course, tmp_path / "postgres")
    (root / "gradebook.db").unlink()
    url = postgres("locked_gradebook")
    (root / "course.yml").write_text(COURSE_YML.replace(
        "grading:\n", f"grading:\n  db_url: \"{url}\"\n  lock_wait_seconds: 1\n"))
    first = api.grade(root, workers=2, progress=False, verify=False)
    assert first.errors == [] and first.graded > 0
    engine = sqlalchemy.create_engine(url)
    with engine.connect() as holder:
        holder.execute(sqlalchemy.text("LOCK TABLE grade IN EXCLUSIVE MODE"))  # reads pass, writes wait
        done = {}
        run = threading.Thread(target=lambda: done.update(summary=api.grade(root, workers=2, progress=False,
                                                                            verify=False, force=True)))
        run.start()
        run.join(300)  # a liveness bound (the old code waited as long as the lock was held), not a timing
        assert not run.is_alive(), "the run still waits for the lock"
        holder.rollback()
    engine.dispose()
    locked = done["summary"]
    assert locked.graded == 0 and len(locked.errors) == first.graded + first.failed
    assert all(e.cause == "gradebook write" and "LockNotAvailable" in e.message for e in locked.errors)
    results = json.loads((root / "reports" / "results.json").read_text())
    assert len(results["not_recorded"]) == len(locked.errors)  # the first run's grades stand, and the report says so
    again = api.grade(root, workers=2, progress=False, verify=False, force=True)  # the lock is gone: recorded
    assert again.errors == [] and again.graded + again.failed == first.graded + first.failed
    assert json.loads((root / "reports" / "results.json").read_text())["not_recorded"] == []
