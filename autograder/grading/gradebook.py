"""The coordinator's side of nbgrader's gradebook: the assignment in it, and its copy for workers.

Only the coordinating process touches the real gradebook: it makes sure the assignment is in it
and exports a small prepared SQLite copy of the assignment for the workers (so no job creates a
gradebook from scratch). Results are written by :mod:`.record`.
"""
from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry

from ..config import Course
from .nbconfig import alembic_on_path, nbgrader_config


def has_assignment(gb: Gradebook, assignment_id: str, notebooks: list[str]) -> bool:
    """Whether generate_assignment has recorded ``assignment_id`` with all its notebooks."""
    try:
        names = {nb.name for nb in gb.find_assignment(assignment_id).notebooks}
    except MissingEntry:
        return False
    return set(notebooks) <= names


def ensure_assignment(course: Course, course_dir: str | Path, assignment_id: str, db_url: str) -> None:
    """Record the assignment's cells in the gradebook if missing, and its due date from course.yml.

    Stock ``nbgrader autograde`` requires ``generate_assignment`` to have run first; here we run
    it into a throw-away release folder instead of failing.
    """
    spec = course.assignment(assignment_id)
    alembic_on_path()  # opening a gradebook that does not exist yet runs nbgrader's alembic
    with Gradebook(db_url, course.course_id) as gb:
        present = has_assignment(gb, assignment_id, spec.notebooks)
    if not present:
        from nbgrader.converters import GenerateAssignment
        from nbgrader.coursedir import CourseDirectory

        with tempfile.TemporaryDirectory(prefix="autograder-release-") as tmp:
            config = nbgrader_config(course, course_dir, db_url=db_url)
            config.CourseDirectory.release_directory = tmp
            config.CourseDirectory.assignment_id = assignment_id
            GenerateAssignment(coursedir=CourseDirectory(config=config), config=config).start()
    with Gradebook(db_url, course.course_id) as gb:
        duedate = spec.due.astimezone(dt.timezone.utc).replace(tzinfo=None) if spec.due else None
        gb.update_or_create_assignment(assignment_id, duedate=duedate)


def export_assignment(db_url: str, course_id: str, assignment_id: str) -> bytes:
    """Return the bytes of a fresh SQLite gradebook holding only this assignment (no students).

    It is what every worker starts from, so no job creates and populates a gradebook of its own.
    The rows are copied table by table with SQLAlchemy Core (nbgrader's ORM API takes seconds
    for the same, and a new ``Gradebook`` runs the ``alembic`` script).
    """
    from nbgrader.api import Base, get_alembic_version
    from sqlalchemy import create_engine, select, text

    t = Base.metadata.tables
    src = create_engine(db_url, future=True)
    with tempfile.TemporaryDirectory(prefix="autograder-gb-") as tmp:
        path = Path(tmp) / "gradebook.db"
        dst = create_engine(f"sqlite:///{path}", future=True)
        Base.metadata.create_all(dst)
        with src.connect() as s, dst.begin() as d:
            try:
                version = s.execute(text("SELECT version_num FROM alembic_version")).scalar()
            except Exception:  # a database created without alembic's table
                version = get_alembic_version()
            d.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)"))
            d.execute(text("INSERT INTO alembic_version (version_num) VALUES (:v)"), {"v": version})

            def copy(table, where):
                rows = [dict(r._mapping) for r in s.execute(select(t[table]).where(where))]
                if rows:
                    d.execute(t[table].insert(), rows)
                return rows

            copy("course", t["course"].c.id == course_id)
            assignments = copy("assignment", (t["assignment"].c.name == assignment_id)
                               & (t["assignment"].c.course_id == course_id))
            if not assignments:
                raise MissingEntry(f"assignment {assignment_id!r} is not in the gradebook")
            nbs = [r["id"] for r in copy("notebook", t["notebook"].c.assignment_id == assignments[0]["id"])]
            cells = [r["id"] for r in copy("base_cell", t["base_cell"].c.notebook_id.in_(nbs))]
            for table in ("grade_cells", "solution_cells", "task_cells"):
                copy(table, t[table].c.id.in_(cells))
            copy("source_cell", t["source_cell"].c.notebook_id.in_(nbs))
        dst.dispose()
        src.dispose()
        return path.read_bytes()
