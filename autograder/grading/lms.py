"""Grades for a learning platform: ``nbgrader export`` plugins for Canvas's and Moodle's CSV imports.

::

    nbgrader export --exporter autograder.grading.lms.CanvasExport --to canvas.csv
    nbgrader export --exporter autograder.grading.lms.MoodleExport --to moodle.csv

Both write what ``reports/grades.csv`` holds (:func:`~autograder.grading.reports.grade_rows`: the
gradebook's score after the late penalty, hand grades included, **blank** for an assignment the
student did not submit, so an import never turns "not submitted" into a 0), one row per student and
one column per assignment, UTF-8, comma-separated:

* **Canvas** (Grades > Import): ``Student, ID, SIS User ID, SIS Login ID, Section`` then one column
  per assignment titled as in ``course.yml``, and a second row ``Points Possible`` with each
  assignment's points. Canvas matches a row by its SIS User ID (the LMS id) or SIS Login ID (the
  hub login); a new column title creates a new assignment.
* **Moodle** (Grades > Import > CSV file): ``Username, ID number`` then one column per assignment;
  the import page maps ``ID number`` (or ``Username``) to the user and each title to a grade item.
  Moodle has no points row: its grade items carry their maximum.

The LMS id of a student is their hub login unless ``course.yml``'s ``lms.ids`` names a CSV with the
columns ``student_id`` (the login) and ``lms_id``; an export with such a file refuses any graded
student the file does not list, rather than send a grade to nobody or to the wrong person.
"""
from __future__ import annotations

import csv
from pathlib import Path

from nbgrader.plugins import ExportPlugin

from ..config import Course, load_course
from .handgrades import overlay_all
from .nbconfig import absolute_db_url
from .reports import grade_rows
from .state import GradingState


class LmsExportError(ValueError):
    """The export cannot name every student or assignment it was asked for."""


def read_ids(course: Course, course_dir: Path) -> dict[str, str]:
    """``{hub login: LMS id}`` from ``lms.ids`` (empty when the course has none: the login is the id).

    Raises
    ------
    LmsExportError
        The file is missing, lacks a column, or lists a login or an LMS id twice.
    """
    if course.lms.ids is None:
        return {}
    path = course_dir / course.lms.ids
    if not path.is_file():
        raise LmsExportError(f"lms.ids: {path} does not exist (a CSV with the columns student_id and lms_id)")
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        missing = {"student_id", "lms_id"} - set(reader.fieldnames or ())
        if missing:
            raise LmsExportError(f"lms.ids: {path} has no column {', '.join(sorted(missing))} "
                                 f"(expected the columns student_id and lms_id)")
        ids: dict[str, str] = {}
        for line, row in enumerate(reader, start=2):
            login, lms_id = (row["student_id"] or "").strip(), (row["lms_id"] or "").strip()
            if not login or not lms_id:
                raise LmsExportError(f"lms.ids: {path} line {line}: student_id and lms_id must both be given")
            if login in ids:
                raise LmsExportError(f"lms.ids: {path} line {line}: student_id {login!r} is listed twice")
            ids[login] = lms_id
    twice = sorted({v for v in ids.values() if list(ids.values()).count(v) > 1})
    if twice:
        raise LmsExportError(f"lms.ids: {path}: the LMS id {twice[0]!r} belongs to more than one student")
    return ids


def class_rows(course_dir: Path, course: Course) -> list[dict]:
    """The rows of ``grades.csv`` as they are now (grading log overlaid with the gradebook)."""
    state = GradingState(course_dir / "reports")
    records = overlay_all(list(state.records.values()), absolute_db_url(course.grading.db_url, course_dir),
                          course.course_id)
    return grade_rows(course, course_dir, records, list(state.unrecorded.values()))


def _points(value: float | None) -> str:
    """A score as an LMS reads it: a plain decimal (never an exponent), blank for no submission."""
    if value is None:
        return ""
    return f"{value:.4f}".rstrip("0").rstrip(".")


def export_rows(course_dir: str | Path, students: list[str] = (), assignments: list[str] = ()):
    """The course, its selected assignments and ``(login, LMS id, row)`` of each selected student.

    Parameters
    ----------
    students, assignments : list of str
        ``nbgrader export``'s ``--student`` / ``--assignment`` (empty: all).

    Raises
    ------
    LmsExportError
        An unknown assignment, or graded students that ``lms.ids`` does not list.
    """
    course_dir = Path(course_dir)
    course = load_course(course_dir)
    known = [a.id for a in course.assignments]
    unknown = sorted(set(assignments) - set(known))
    if unknown:
        raise LmsExportError(f"--assignment: no assignment {unknown[0]!r} in course.yml (known: {', '.join(known)})")
    chosen = [a for a in course.assignments if not assignments or a.id in assignments]
    rows = [r for r in class_rows(course_dir, course) if not students or r["student_id"] in students]
    ids = read_ids(course, course_dir)
    if ids:
        unlisted = sorted(r["student_id"] for r in rows if r["student_id"] not in ids)
        if unlisted:
            raise LmsExportError(f"lms.ids lists no LMS id for {len(unlisted)} graded student(s): "
                                 f"{', '.join(unlisted[:10])}; add them to {course.lms.ids} (nothing was exported)")
    return course, chosen, [(r["student_id"], ids.get(r["student_id"], r["student_id"]), r) for r in rows]


def write_canvas(course_dir: str | Path, to: str | Path, students=(), assignments=()) -> Path:
    """Write Canvas's gradebook import CSV (see the module docstring); returns its path."""
    _, chosen, rows = export_rows(course_dir, students, assignments)
    with open(to, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *(a.title for a in chosen)])
        out.writerow(["Points Possible", "", "", "", "", *(_points(a.points) for a in chosen)])
        for login, lms_id, row in rows:
            out.writerow([login, "", lms_id, login, "", *(_points(row[a.id]) for a in chosen)])
    return Path(to)


def write_moodle(course_dir: str | Path, to: str | Path, students=(), assignments=()) -> Path:
    """Write Moodle's grade import CSV (see the module docstring); returns its path."""
    _, chosen, rows = export_rows(course_dir, students, assignments)
    with open(to, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["Username", "ID number", *(a.title for a in chosen)])
        for login, lms_id, row in rows:
            out.writerow([login, lms_id, *(_points(row[a.id]) for a in chosen)])
    return Path(to)


class _LmsExport(ExportPlugin):
    """What both plugins share: the course nbgrader runs in, ``--to``, ``--student`` and ``--assignment``."""

    default_name: str
    #: ``(course_dir, to, students, assignments) -> Path``: each platform's subclass sets its writer.
    write: staticmethod

    def export(self, gradebook) -> None:
        """Write the file (``--to``, default :attr:`default_name`); the grades come from the course's
        reports and gradebook, as ``grades.csv``'s do, not from ``gradebook`` alone."""
        root = getattr(getattr(self.parent, "coursedir", None), "root", None) or "."
        to = self.to or self.default_name
        self.write(Path(root), to, [str(s) for s in self.student], [str(a) for a in self.assignment])
        self.log.info("Exported grades to %s", to)


class CanvasExport(_LmsExport):
    """``nbgrader export --exporter autograder.grading.lms.CanvasExport``: Canvas's gradebook CSV."""

    default_name = "canvas_grades.csv"
    write = staticmethod(write_canvas)


class MoodleExport(_LmsExport):
    """``nbgrader export --exporter autograder.grading.lms.MoodleExport``: Moodle's grade import CSV."""

    default_name = "moodle_grades.csv"
    write = staticmethod(write_moodle)
