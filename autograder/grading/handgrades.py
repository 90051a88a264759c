"""What the gradebook adds to a graded submission: hand grades, comments and late penalties.

``autograder grade`` records auto scores; everything an instructor does afterwards in formgrader
(a manual score for a written answer, an override of an auto score, extra credit, a comment)
lives only in nbgrader's gradebook. :func:`gradebook_rows` reads it back (one query per table,
SQLAlchemy Core over nbgrader's own tables) and :func:`overlay` folds it into the results.json
records, so ``grades.csv``, ``results.json``, the class report and the feedback pages say what
``nbgrader export`` says, to the point: a cell's score is nbgrader's ``Grade.score`` (the manual
score when there is one, else the auto score, plus extra credit) and a submission's score is
their sum; the late penalty is the notebook's ``late_submission_penalty``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from nbgrader.api import Base
from sqlalchemy import create_engine, select

T = Base.metadata.tables


@dataclass
class CellGrade:
    """One graded cell of one submitted notebook, as the gradebook holds it."""

    auto_score: float | None
    manual_score: float | None
    extra_credit: float | None
    needs_manual_grade: bool
    comment: str | None = None  # the instructor's (manual) comment on the cell

    @property
    def score(self) -> float:
        """nbgrader's ``Grade.score``: manual wins over auto, extra credit added, else 0."""
        base = self.manual_score if self.manual_score is not None else self.auto_score
        return 0.0 if base is None else float(base) + float(self.extra_credit or 0.0)


@dataclass
class NotebookGrades:
    """The gradebook's view of one submitted notebook."""

    cells: dict[str, CellGrade] = field(default_factory=dict)  # grade_id -> grade
    comments: dict[str, str] = field(default_factory=dict)  # grade_id -> manual comment (any cell)
    late_penalty: float | None = None


def gradebook_rows(db_url: str, course_id: str | None = None,
                   only: set[tuple[str, str, str]] | None = None) -> dict[tuple[str, str, str], NotebookGrades]:
    """Every submitted notebook of the gradebook: ``{(student, assignment, notebook): NotebookGrades}``.

    Parameters
    ----------
    db_url : str
        SQLAlchemy URL of nbgrader's gradebook (absolute for SQLite).
    course_id : str, optional
        Only this course's assignments (a gradebook may hold several courses).
    only : set of (student, assignment, notebook), optional
        Only these submitted notebooks (a batch's: read in time proportional to it), else all.

    Returns
    -------
    dict
        Empty when the gradebook does not exist yet.
    """
    if db_url.startswith("sqlite:///"):
        from pathlib import Path
        if not Path(db_url[len("sqlite:///"):]).is_file():
            return {}
    engine = create_engine(db_url, future=True)
    try:
        with engine.connect() as db:
            notebooks = _notebooks(db, course_id, only)
            _read_grades(db, notebooks, only is not None)
            _read_comments(db, notebooks, only is not None)
    finally:
        engine.dispose()
    return {k: v for k, (_, v) in notebooks.items()}


def _notebooks(db, course_id, only=None) -> dict[tuple[str, str, str], tuple[str, NotebookGrades]]:
    a, sa, sn, nb = T["assignment"], T["submitted_assignment"], T["submitted_notebook"], T["notebook"]
    query = (select(sn.c.id, sa.c.student_id, a.c.name, nb.c.name, sn.c.late_submission_penalty)
             .join(sa, sa.c.id == sn.c.assignment_id).join(a, a.c.id == sa.c.assignment_id)
             .join(nb, nb.c.id == sn.c.notebook_id))
    if course_id:
        query = query.where(a.c.course_id == course_id)
    if only is not None:  # the batch's students, then its exact (student, assignment, notebook) below
        query = query.where(sa.c.student_id.in_(sorted({k[0] for k in only})))
    return {(sid, aname, nbname): (sn_id, NotebookGrades(late_penalty=penalty))
            for sn_id, sid, aname, nbname, penalty in db.execute(query)
            if only is None or (sid, aname, nbname) in only}


def _of(column, notebooks, query, part: bool):
    """``query`` restricted to the rows of ``notebooks`` when they are only a part of the gradebook."""
    return query.where(column.in_(sorted(sn_id for sn_id, _ in notebooks.values()))) if part else query


def _read_grades(db, notebooks, part: bool) -> None:
    grade, bc = T["grade"], T["base_cell"]
    by_id = dict(notebooks.values())
    rows = db.execute(_of(grade.c.notebook_id, notebooks, select(
        grade.c.notebook_id, bc.c.name, grade.c.auto_score, grade.c.manual_score, grade.c.extra_credit,
        grade.c.needs_manual_grade).join(bc, bc.c.id == grade.c.cell_id), part))
    for sn_id, name, auto, manual, extra, needs in rows:
        if sn_id in by_id:
            by_id[sn_id].cells[name] = CellGrade(auto, manual, extra, bool(needs))


def _read_comments(db, notebooks, part: bool) -> None:
    comment, bc = T["comment"], T["base_cell"]
    by_id = dict(notebooks.values())
    rows = db.execute(_of(comment.c.notebook_id, notebooks, select(
        comment.c.notebook_id, bc.c.name, comment.c.manual_comment).join(bc, bc.c.id == comment.c.cell_id)
        .where(comment.c.manual_comment.is_not(None)), part))
    for sn_id, name, text in rows:
        if sn_id in by_id and str(text).strip():
            by_id[sn_id].comments[name] = str(text)
            if name in by_id[sn_id].cells:
                by_id[sn_id].cells[name].comment = str(text)


def overlay(record: dict, grades: NotebookGrades | None) -> dict:
    """A results.json record with the gradebook's word on every cell (a new dict; ``record`` unchanged).

    Each cell gains ``manual_score``, ``extra_credit``, ``needs_manual_grade`` and ``comment``
    (the instructor's), and its ``score`` becomes the gradebook's; the record gains
    ``hand_graded`` (points given by hand), ``needs_manual_grading`` (cells still waiting for a
    hand grade) and ``comments`` (instructor comments on cells that are not graded cells), and
    its ``score``/``late_penalty`` become the gradebook's. Without gradebook rows the record
    is returned with those fields at their empty values (a manual cell then still needs grading).
    """
    out = dict(record)
    cells, hand, waiting = [], 0.0, 0
    for cell in record.get("cells") or []:
        cell = dict(cell)
        g = grades.cells.get(cell.get("grade_id")) if grades else None
        if g is not None:
            cell.update(score=g.score, manual_score=g.manual_score, extra_credit=g.extra_credit,
                        needs_manual_grade=g.needs_manual_grade and g.manual_score is None, comment=g.comment)
        else:
            cell.update(manual_score=None, extra_credit=None, comment=None,
                        needs_manual_grade=bool(cell.get("manual")) and record.get("status") != "failed")
        hand += float(cell["manual_score"] or 0.0) if cell["manual_score"] is not None else 0.0
        waiting += bool(cell["needs_manual_grade"])
        cells.append(cell)
    graded_ids = {c.get("grade_id") for c in cells}
    out.update(cells=cells, score=round(sum(float(c.get("score") or 0.0) for c in cells), 6),
               hand_graded=round(hand, 6), needs_manual_grading=waiting,
               comments={k: v for k, v in (grades.comments.items() if grades else []) if k not in graded_ids})
    if grades is not None:
        out["late_penalty"] = grades.late_penalty
    return out


def overlay_all(records: list[dict], db_url: str, course_id: str | None = None, *, part: bool = False) -> list[dict]:
    """:func:`overlay` every record with the gradebook at ``db_url`` (one read: of the whole gradebook, or with
    ``part`` of the records' own rows only, in time proportional to them)."""
    keys = {(r["student_id"], r["assignment_id"], r["notebook_id"]) for r in records}
    rows = gradebook_rows(db_url, course_id, keys if part else None)
    return [overlay(r, rows.get((r["student_id"], r["assignment_id"], r["notebook_id"]))) for r in records]
