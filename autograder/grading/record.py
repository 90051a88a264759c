"""Record grading results in nbgrader's gradebook, many per transaction.

What is written is what nbgrader's own ``autograde`` writes (``SaveAutoGrades`` and
``AssignLatePenalties``): the student, the submission with its timestamp (created with a grade
row per graded and task cell and a comment row per solution and task cell, as
``Gradebook.add_submission`` does), each grade's ``auto_score`` and ``needs_manual_grade``, the
auto comments, and the notebook's late penalty. So formgrader, ``generate_feedback`` and
``export`` keep working on it.

nbgrader's ORM API does that at 30-65 ms per submission on SQLite (lazy loads of every grade's
cell, four commits; ``benchmarks/bench_gradebook.py``), which at 10,000 submissions would make
the coordinator, not the workers, the bottleneck. :func:`record_batch` issues a few set-based
SQLAlchemy Core statements per batch over nbgrader's own table definitions, in one transaction.
:func:`record_with_nbgrader_api` is the same write through nbgrader's ORM API, one submission
per transaction: the reference the tests compare the batch writer with, row by row, and the
baseline of the benchmark.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

from nbgrader.api import Base, Gradebook, Grade, MissingEntry, new_uuid
from nbgrader.utils import parse_utc
from sqlalchemy import bindparam, func, insert, select, text, update

from ..config import Course
from .nbconfig import CourseLatePenalty

T = Base.metadata.tables


@dataclass
class _NotebookCells:
    id: str
    grade: list[str] = field(default_factory=list)  # base_cell ids of grade cells
    solution: list[str] = field(default_factory=list)
    task: list[str] = field(default_factory=list)


@dataclass
class _Assignment:
    id: str
    notebooks: dict[str, _NotebookCells]  # notebook name -> its cells


def _assignment(db, name: str) -> _Assignment:
    a, nb, bc = T["assignment"], T["notebook"], T["base_cell"]
    row = db.execute(select(a.c.id).where(a.c.name == name)).first()
    if row is None:
        raise MissingEntry(f"assignment {name!r} is not in the gradebook")
    notebooks = {n: _NotebookCells(i) for i, n in db.execute(select(nb.c.id, nb.c.name).where(nb.c.assignment_id == row.id))}
    by_id = {cells.id: cells for cells in notebooks.values()}
    for kind in ("grade", "solution", "task"):
        table = T[f"{kind}_cells"]
        rows = db.execute(select(bc.c.id, bc.c.notebook_id).join(table, table.c.id == bc.c.id)
                          .where(bc.c.notebook_id.in_(list(by_id))).order_by(bc.c.id))
        for cell_id, notebook_id in rows:
            getattr(by_id[notebook_id], kind).append(cell_id)
    return _Assignment(row.id, notebooks)


def _penalty_plugin(course: Course) -> CourseLatePenalty:
    return CourseLatePenalty(policies={a.id: a.late_policy.model_dump() for a in course.assignments})


def _seconds_late(timestamp, duedate, extension) -> float:
    """``SubmittedAssignment.total_seconds_late`` of nbgrader, from the row's values."""
    if timestamp is None or duedate is None:
        return 0
    return max(0, (timestamp - (duedate + extension if extension is not None else duedate)).total_seconds())


def record_batch(gb: Gradebook, course: Course, items: list[tuple[object, str | None]]) -> list[float | None]:
    """Write jobs' results into the gradebook in one transaction; their late penalties.

    Parameters
    ----------
    gb : nbgrader.api.Gradebook
        The course gradebook (open). Objects its session holds are expired afterwards.
    course : Course
        For the assignments' late policies.
    items : list of (JobResult, str or None)
        Each result with its submission's timestamp.txt content. A result's cell ``score``
        rules: the verified one where verified (``verified_score``), nbgrader's otherwise.

    Returns
    -------
    list of float or None
        The late penalty recorded for each item, in order (None: not late, or no policy).

    Raises
    ------
    nbgrader.api.MissingEntry
        An assignment or notebook that is not in the gradebook. Nothing of the batch is
        written then, as for any other error (the transaction is rolled back).
    """
    if not items:
        return []
    db = gb.db
    try:
        _bound_lock_waits(db, course.grading.lock_wait_seconds)
        penalties = _write(db, course, items)
        db.commit()
    except BaseException:
        db.rollback()
        raise
    db.expire_all()
    return penalties


def _bound_lock_waits(db, seconds: float) -> None:
    """A lock held by another session fails this transaction after ``seconds`` instead of hanging the run."""
    ms = max(1, int(seconds * 1000))
    if db.bind.dialect.name == "postgresql":
        db.execute(text(f"SET LOCAL lock_timeout = {ms}"))  # this transaction only
    elif db.bind.dialect.name == "sqlite":
        db.execute(text(f"PRAGMA busy_timeout = {ms}"))


def lock_not_granted(exc: BaseException) -> bool:
    """Whether a failed write waited for a lock another session held (then every write of the batch would too)."""
    orig = getattr(exc, "orig", None)
    return getattr(orig, "sqlstate", None) == "55P03" or "database is locked" in str(orig or "")


def _write(db, course: Course, items) -> list[float | None]:
    """The batch's writes, step by step as nbgrader's autograde makes them; the late penalties."""
    structure = {aid: _assignment(db, aid) for aid in sorted({r.assignment_id for r, _ in items})}
    students = sorted({r.student_id for r, _ in items})
    _ensure_students(db, students)
    submission_of = _ensure_submissions(db, items, structure, students)
    targets = _target_notebooks(db, items, submission_of)
    _write_grades(db, items, targets)
    _write_comments(db, items, targets)
    return _write_penalties(db, course, items, targets, submission_of)


def _ensure_students(db, students: list[str]) -> None:
    st = T["student"]
    known = set(db.execute(select(st.c.id).where(st.c.id.in_(students))).scalars())
    if len(known) < len(students):
        db.execute(insert(st), [{"id": s} for s in students if s not in known])


def _ensure_submissions(db, items, structure, students) -> dict[tuple[str, str], str]:
    """Find or create each submission with its notebooks, grades and comments, as
    ``Gradebook.update_or_create_submission`` does; ``{(assignment, student): submission id}``."""
    a, sa, sn = T["assignment"], T["submitted_assignment"], T["submitted_notebook"]
    stamps = {(r.assignment_id, r.student_id): parse_utc(ts) if ts else None for r, ts in items}
    existing = {(name, sid): sa_id for sa_id, sid, name in db.execute(
        select(sa.c.id, sa.c.student_id, a.c.name).join(a, a.c.id == sa.c.assignment_id)
        .where(a.c.name.in_(list(structure)), sa.c.student_id.in_(students)))}
    new_sa, new_sn, new_grades, new_comments, restamp = [], [], [], [], []
    for (aid, sid), stamp in stamps.items():
        if (aid, sid) in existing:
            if stamp is not None:
                restamp.append({"_id": existing[(aid, sid)], "_stamp": stamp})
            continue
        existing[(aid, sid)] = sa_id = new_uuid()
        new_sa.append({"id": sa_id, "assignment_id": structure[aid].id, "student_id": sid, "timestamp": stamp,
                       "extension": None})
        for cells in structure[aid].notebooks.values():
            sn_id = new_uuid()
            new_sn.append({"id": sn_id, "assignment_id": sa_id, "notebook_id": cells.id, "flagged": False,
                           "late_submission_penalty": None})
            new_grades += [{"id": new_uuid(), "cell_id": c, "notebook_id": sn_id, "auto_score": None,
                            "manual_score": None, "extra_credit": None, "needs_manual_grade": True}
                           for c in cells.grade + cells.task]
            new_comments += [{"id": new_uuid(), "cell_id": c, "notebook_id": sn_id, "auto_comment": None,
                              "manual_comment": None} for c in cells.solution + cells.task]
    for table, rows in ((sa, new_sa), (sn, new_sn), (T["grade"], new_grades), (T["comment"], new_comments)):
        if rows:
            db.execute(insert(table), rows)
    if restamp:
        db.execute(update(sa).where(sa.c.id == bindparam("_id")).values(timestamp=bindparam("_stamp")), restamp)
    return existing


def _target_notebooks(db, items, submission_of) -> list[str]:
    """The submitted notebook of each result, in order; MissingEntry for a notebook the gradebook lacks."""
    sn, nb = T["submitted_notebook"], T["notebook"]
    sa_ids = sorted({submission_of[(r.assignment_id, r.student_id)] for r, _ in items})
    notebook_of = {(sa_id, name): sn_id for sn_id, sa_id, name in db.execute(
        select(sn.c.id, sn.c.assignment_id, nb.c.name).join(nb, nb.c.id == sn.c.notebook_id)
        .where(sn.c.assignment_id.in_(sa_ids)))}
    targets = []
    for r, _ in items:
        key = (submission_of[(r.assignment_id, r.student_id)], r.notebook_id)
        if key not in notebook_of:
            raise MissingEntry(f"notebook {r.notebook_id!r} of {r.assignment_id!r} is not in the gradebook")
        targets.append(notebook_of[key])
    return targets


def _write_grades(db, items, targets) -> None:
    """Auto scores (SaveAutoGrades): the verified score where verified, nbgrader's otherwise."""
    grade, bc = T["grade"], T["base_cell"]
    rows_of: dict[str, list] = {}
    for g_id, sn_id, name, manual in db.execute(
            select(grade.c.id, grade.c.notebook_id, bc.c.name, grade.c.manual_score)
            .join(bc, bc.c.id == grade.c.cell_id).where(grade.c.notebook_id.in_(targets))):
        rows_of.setdefault(sn_id, []).append((g_id, name, manual))
    updates = []
    for (r, _), sn_id in zip(items, targets):
        cells = {c["grade_id"]: c for c in r.cells}
        for g_id, name, manual in rows_of.get(sn_id, []):
            cell = cells.get(name)
            if r.status == "failed" or cell is None:  # as nbgrader does for a notebook not submitted
                auto, needs = 0.0, False
            else:
                auto = cell["verified_score"] if cell.get("verified_score") is not None else cell["nbgrader_score"]
                # nbgrader's rule: review when a manual grade exists or there is no auto score.
                needs = manual is not None or auto is None
            updates.append({"_id": g_id, "_auto": auto, "_needs": needs})
    if updates:
        db.execute(update(grade).where(grade.c.id == bindparam("_id"))
                   .values(auto_score=bindparam("_auto"), needs_manual_grade=bindparam("_needs")), updates)


def _write_comments(db, items, targets) -> None:
    comment, bc = T["comment"], T["base_cell"]
    wanted = {sn_id: r.comments for (r, _), sn_id in zip(items, targets) if r.comments}
    if not wanted:
        return
    updates = [{"_id": c_id, "_text": wanted[sn_id][name]} for c_id, sn_id, name in db.execute(
        select(comment.c.id, comment.c.notebook_id, bc.c.name).join(bc, bc.c.id == comment.c.cell_id)
        .where(comment.c.notebook_id.in_(list(wanted)))) if name in wanted[sn_id]]
    if updates:
        db.execute(update(comment).where(comment.c.id == bindparam("_id")).values(auto_comment=bindparam("_text")),
                   updates)


def _write_penalties(db, course: Course, items, targets, submission_of) -> list[float | None]:
    """Late penalties (AssignLatePenalties), on the scores just written: nbgrader's Grade.score."""
    a, sa, sn = T["assignment"], T["submitted_assignment"], T["submitted_notebook"]
    sa_ids = sorted({submission_of[(r.assignment_id, r.student_id)] for r, _ in items})
    scores = dict(db.execute(select(Grade.notebook_id, func.coalesce(func.sum(Grade.score), 0.0))
                             .where(Grade.notebook_id.in_(targets)).group_by(Grade.notebook_id)).all())
    late = {sa_id: _seconds_late(ts, due, ext) for sa_id, ts, due, ext in db.execute(
        select(sa.c.id, sa.c.timestamp, a.c.duedate, sa.c.extension).join(a, a.c.id == sa.c.assignment_id)
        .where(sa.c.id.in_(sa_ids)))}
    plugin, penalties = _penalty_plugin(course), []
    for (r, _), sn_id in zip(items, targets):
        seconds, score, penalty = late[submission_of[(r.assignment_id, r.student_id)]], scores.get(sn_id, 0.0), None
        if seconds > 0:
            penalty = plugin.penalty_for(r.assignment_id, score, seconds)
            penalty = None if penalty is None else max(0.0, min(penalty, score))
        penalties.append(penalty)
    db.execute(update(sn).where(sn.c.id == bindparam("_id")).values(late_submission_penalty=bindparam("_penalty")),
               [{"_id": sn_id, "_penalty": p} for sn_id, p in zip(targets, penalties)])
    return penalties


def record_with_nbgrader_api(gb: Gradebook, course: Course, result, timestamp: str | None) -> float | None:
    """The same write as :func:`record_batch` (for one result), through nbgrader's ORM API (the reference; see the module doc)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nbgrader's own SQLAlchemy "not in session" noise
        aid, sid, nid = result.assignment_id, result.student_id, result.notebook_id
        gb.update_or_create_student(sid)
        kwargs = {"timestamp": parse_utc(timestamp)} if timestamp else {}
        submission = gb.update_or_create_submission(aid, sid, **kwargs)
        notebook = gb.find_submission_notebook(nid, aid, sid)
        cells = {c["grade_id"]: c for c in result.cells}
        for grade in notebook.grades:
            cell = cells.get(grade.name)
            if result.status == "failed" or cell is None:
                grade.auto_score, grade.needs_manual_grade = 0.0, False
                continue
            verified = cell.get("verified_score")
            grade.auto_score = verified if verified is not None else cell["nbgrader_score"]
            grade.needs_manual_grade = grade.manual_score is not None or grade.auto_score is None
        for comment in notebook.comments:
            if comment.name in result.comments:
                comment.auto_comment = result.comments[comment.name]
        gb.db.commit()
        notebook.late_submission_penalty = None
        if submission.total_seconds_late > 0:
            penalty = _penalty_plugin(course).penalty_for(aid, notebook.score, submission.total_seconds_late)
            if penalty is not None:
                notebook.late_submission_penalty = max(0.0, min(penalty, notebook.score))
        penalty = notebook.late_submission_penalty
        gb.db.commit()
        return penalty
