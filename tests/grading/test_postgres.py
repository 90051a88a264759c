"""One class graded through ``autograder grade`` into a real PostgreSQL gradebook: the same rows as SQLite.

``course.yml`` accepts any SQLAlchemy URL; the batch writer's statements are written for both
(``test_record.py`` compares them with nbgrader's own API on both), and this runs the whole
pipeline against a throwaway server (the ``postgres`` fixture).
"""
from __future__ import annotations

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


def test_a_class_on_postgresql_gets_the_rows_it_gets_on_sqlite(parallel_graded, generated_course, postgres, tmp_path):
    sqlite_root, _ = parallel_graded
    root = copy_course(generated_course, tmp_path / "course")
    (root / "gradebook.db").unlink()  # the copy's SQLite gradebook: it must not come back
    url = postgres("class_gradebook")
    (root / "course.yml").write_text(COURSE_YML.replace("grading:\n", f"grading:\n  db_url: \"{url}\"\n"))
    for extra in ("z_text", "z_stripped"):  # the same class as the SQLite run (two broken files)
        (root / "submitted" / extra).parent.mkdir(exist_ok=True)
        copy_course(sqlite_root / "submitted" / extra, root / "submitted" / extra)
    summary = api.grade(root, workers=2, progress=False, verify=False)
    assert summary.errors == [] and summary.graded + summary.failed == len(grades_of_sqlite := {
        s for s, _ in grades(sqlite_root)})
    engine = sqlalchemy.create_engine(url)
    with engine.connect() as con:
        rows = {(s, g): (a, bool(m)) for s, g, a, m in con.execute(sqlalchemy.text(GRADES))}
    engine.dispose()
    assert rows == grades(sqlite_root) and {s for s, _ in rows} == grades_of_sqlite
    assert not (root / "gradebook.db").exists()  # nothing went to a SQLite file by mistake
