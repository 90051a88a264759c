"""The Python API behind the ``autograder`` command line."""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from .config import load_course, validate_course
from .grading.pipeline import RunSummary, grade  # noqa: F401  (re-exported)

__all__ = ["generate", "grade", "RunSummary"]


def generate(course_dir: str | Path = ".", assignments: list[str] | None = None) -> list[Path]:
    """Regenerate ``assignments/<id>/`` from ``solutions/<id>/`` with nbgrader's generate_assignment.

    nbgrader writes into a temporary release folder first, and only then replaces each
    ``assignments/<id>/``, so a failure never leaves a half-written release. The gradebook gets
    the assignment's cells (what autograde needs), as with stock nbgrader.

    Parameters
    ----------
    course_dir : str or Path
        The course directory.
    assignments : list of str, optional
        Default: every assignment of course.yml (a missing source notebook is an error).

    Returns
    -------
    list of Path
        The generated notebooks.
    """
    from nbgrader.converters import GenerateAssignment
    from nbgrader.coursedir import CourseDirectory

    from .grading.gradebook import ensure_assignment
    from .grading.nbconfig import absolute_db_url, nbgrader_config
    from .notebook.rubrics import check_no_rubrics
    from .notebook.sources import build_solutions

    course_dir = Path(course_dir).resolve()
    course = load_course(course_dir)
    ids = assignments or [a.id for a in course.assignments]
    for aid in ids:
        course.assignment(aid)  # an unknown id fails before any work
    # sources/<a>/<n>.py (jupytext percent), where present, is what authors edit: rebuild the .ipynb.
    build_solutions(course_dir, [(aid, nb) for aid in ids for nb in course.assignment(aid).notebooks])
    validate_course(course_dir, assignments=ids)  # so does a missing notebook or a points mismatch
    written = []
    for aid in ids:
        with tempfile.TemporaryDirectory(prefix="autograder-release-") as tmp:
            config = nbgrader_config(course, course_dir)
            config.CourseDirectory.release_directory = tmp
            config.CourseDirectory.assignment_id = aid
            config.GenerateAssignment.force = True
            GenerateAssignment(coursedir=CourseDirectory(config=config), config=config).start()
            dest = course_dir / "assignments" / aid
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(Path(tmp) / aid, dest)
        written += sorted(dest.glob("*.ipynb"))
        for nb_path in sorted(dest.glob("*.ipynb")):
            check_no_rubrics(nb_path)  # instructor-only: never in the student version
        # The gradebook's due date (formgrader, late penalties) is course.yml's.
        ensure_assignment(course, course_dir, aid, absolute_db_url(course.grading.db_url, course_dir))
    return written
