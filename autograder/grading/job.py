"""One grading job: a pure function from a submission's bytes to its autograded notebook and
per-cell results.

The job builds a private nbgrader course directory in a temporary folder (a copy of the
assignment's prepared gradebook, the submission, the assignment's extra files) and runs
nbgrader's own ``Autograde`` converter there. It touches nothing outside that folder, so it runs
the same in a local process pool and on a Dask worker that shares no file system with the
instructor. The coordinator copies the results into the real gradebook.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook

from ..config import Course
from ..notebook import model
from ..notebook.numbers import GRADED_FILE
from ..sandbox import memo
from . import engines, explain, faults, schemas, verification
from .admission import check_notebook, drop_empty_cells
from .nbconfig import nbgrader_config

#: The kit's results of the notebook's own heavy given calls (sandbox/memo.py): verification's package gets them too.
KEPT = f"attention_ref/{memo.FILE}"

#: One job at a time per process. nbgrader's converters edit process-wide state (``os.environ``'s
#: NBGRADER_EXECUTION, the working directory) and the job clock (:mod:`.timing`) is module-global, so
#: two jobs in threads of one process (a Dask worker started with ``--nthreads`` above 1) failed each
#: other's honest students (measured: 5 and 6 of 8 recorded as 0 with 4 threads). Extra threads wait here.
_ONE_AT_A_TIME = threading.Lock()

#: Notebook output texts that mean "this test cell failed" when there is no traceback.
_STDERR_MESSAGE = "the cell wrote to stderr (nbgrader scores any stderr output as a failure)"


@dataclass(frozen=True)
class AssignmentBundle:
    """Everything a worker needs to know about one assignment (plain, picklable data)."""

    course: Course
    assignment_id: str
    gradebook: bytes  # SQLite gradebook holding this assignment's notebooks and cells, no students
    files: dict[str, bytes] = field(default_factory=dict)  # non-notebook files of solutions/<id>/
    # notebook id -> the released notebook's cells (model.layout): puts back metadata another editor stripped
    layouts: dict[str, list[dict]] = field(default_factory=dict)
    kit: dict[str, bytes] = field(default_factory=dict)  # the student kit the kernel imports (autograder.kit)
    # student id -> their per-student items (issue 22, autograder/variants.py); empty: the lesson's shared numbers
    numbers: dict[str, dict] = field(default_factory=dict)


@dataclass(frozen=True)
class Job:
    """One submitted notebook to grade (its assignment's bundle travels separately)."""

    student_id: str
    notebook_id: str
    notebook: bytes
    seed: int
    timestamp: str | None = None  # nbgrader's timestamp.txt content, if the submission had one
    verify: bool = True
    kernel_sandbox: bool = True  # run the student's kernel in bubblewrap (False only with --unsafe-no-sandbox)
    refused: str | None = None  # why the coordinator would not read the submission (then ``notebook`` is empty)
    trusted: bool = False  # the project's own synthetic notebook (the demo): no sandbox needed
    timestamp_problem: str | None = None  # why timestamp.txt could not be used (then flagged)

    @property
    def sha256(self) -> str:
        """Hash of the submitted bytes (what resume compares)."""
        return hashlib.sha256(self.notebook).hexdigest()


@dataclass
class JobResult:
    """What a job hands back to the coordinator."""

    student_id: str
    assignment_id: str
    notebook_id: str
    sha256: str
    status: str  # "graded" | "failed"
    reason: str | None
    cells: list[dict]  # rows of results.json (verification.merge)
    comments: dict[str, str | None]
    autograded: bytes | None
    flags: list[dict] = field(default_factory=list)
    verified: bool = False
    timestamp: str | None = None  # what the gradebook records as the submission's time
    timing: dict[str, float] = field(default_factory=dict)


def admit(bundle: AssignmentBundle, job: Job, grade_ids: set[str]) -> tuple[bytes, faults.Fault | None]:
    """The notebook to grade (its stripped nbgrader metadata put back) and why it cannot be graded, if so.

    Every reason here is the student's (:mod:`.faults`): a refused file, one that is not a valid
    notebook, or one whose stripped metadata cannot be matched to the released notebook.
    """
    if job.refused:
        return job.notebook, faults.student("refused", job.refused)
    try:
        model.loads(job.notebook)
        data = drop_empty_cells(model.restore_metadata(job.notebook, bundle.layouts.get(job.notebook_id, [])))
    except model.NotANotebook as exc:  # Unmatched too
        return job.notebook, faults.student("invalid notebook", str(exc))
    reason = check_notebook(data, grade_ids, bundle.course.grading.max_code_cells)
    return data, faults.student("invalid notebook", reason) if reason else None


def _failure_message(cell) -> str | None:
    """The student-facing reason a graded cell lost points, read from its outputs."""
    for out in reversed(cell.get("outputs", [])):
        if out.get("output_type") == "error":
            if out.get("ename") in ("AssertionError", "CheckFailed") and out.get("evalue"):
                return out["evalue"]
            return f"{out.get('ename')}: {out.get('evalue')}".rstrip(": ")
    if any(o.get("output_type") == "stream" and o.get("name") == "stderr" for o in cell.get("outputs", [])):
        return _STDERR_MESSAGE
    return None


def _cell_results(gradebook_url: str, course_id: str, bundle: AssignmentBundle, job: Job, autograded) -> tuple[list, dict]:
    """Read the scores nbgrader saved in the private gradebook, in notebook order."""
    by_id = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in autograded.cells} if autograded else {}
    aid, sid, nid = bundle.assignment_id, job.student_id, job.notebook_id
    with Gradebook(gradebook_url, course_id) as gb:
        nb = gb.find_submission_notebook(nid, aid, sid)
        # a grade cell that is also an answer cell is graded by hand (nbgrader still auto-scores an
        # unanswered one 0, "No response."), whatever its auto score: no check ever covers it
        answers = {c.name for c in nb.notebook.solution_cells}
        cells = []
        for grade in nb.grades:
            cell = by_id.get(grade.name)
            score = None if grade.auto_score is None else float(grade.auto_score)
            if cell is None:
                message = "test cell missing from the submission"
            elif score is not None and score < grade.max_score:
                message = _failure_message(cell)
            else:
                message = None
            cells.append({"grade_id": grade.name, "max_score": float(grade.max_score),
                          "nbgrader_score": score,
                          "manual": score is None or grade.name in answers,
                          "message": message})
        comments = {c.name: c.auto_comment for c in nb.comments}
    order = list(by_id)
    cells.sort(key=lambda c: order.index(c["grade_id"]) if c["grade_id"] in order else len(order))
    return cells, comments


def grade_job(bundle: AssignmentBundle, job: Job) -> JobResult:
    """Autograde one submission with nbgrader in a private temporary course directory.

    Parameters
    ----------
    bundle : AssignmentBundle
        The assignment (shipped once per worker on Dask, pickled with the call in a pool).
    job : Job
        The submission.

    Returns
    -------
    JobResult
        ``status="failed"`` (with a reason and no cells scored) when the file is not a gradable
        notebook or nbgrader could not process it; never raises for a bad submission.
    """
    with _ONE_AT_A_TIME, warnings.catch_warnings():
        # nbgrader's gradebook code emits SQLAlchemy "not in session" warnings on every
        # submission (stock nbgrader too); they are noise here, not errors.
        warnings.simplefilter("ignore")
        return _grade(bundle, job)


def _grade(bundle: AssignmentBundle, job: Job) -> JobResult:
    """The job's steps: nbgrader in a private folder, then verification, then the flags.

    A failure that is the grader's raises :class:`.faults.GraderFault` (nothing is recorded, the
    coordinator grades it again); one that is the student's is the result's ``reason``.
    """
    t0 = time.perf_counter()
    result = JobResult(job.student_id, bundle.assignment_id, job.notebook_id, job.sha256, "graded", None, [], {},
                       None, timestamp=job.timestamp)
    notebook = _autograde(bundle, job, result)
    verdicts, flags = None, []
    if result.status == "graded" and job.verify:
        t1 = time.perf_counter()
        limits = bundle.course.grading.sandbox.model_dump()
        # the sources nbgrader executed: verification must run the same cells (see _autograde)
        verdicts, flags = verification.verify(bundle.assignment_id, notebook, job.seed, limits, result.cells,
                                              job.trusted, kept=bundle.kit.get(KEPT), numbers=_numbers(bundle, job))
        result.timing["verify"] = time.perf_counter() - t1
    result.verified = verdicts is not None
    # The kit's hidden-test call does nothing, so the kernel judged nothing, unless the grader was in the
    # kernel (--unsafe-no-sandbox) or the assignment has no registered checks (its test cells are its own asserts)
    stand_in = job.kernel_sandbox and bool(bundle.kit) and verification.registered(bundle.assignment_id)
    result.cells, flags = verification.merge(result.cells, verdicts, flags, kernel_judged=not stand_in)
    result.flags += flags  # after admission's (explain.py)
    if job.timestamp_problem:
        result.flags.append({"kind": "timestamp unreadable", "rule": "grading.unreadable_timestamp",
                             "grade_id": None, "line": None, "cell": None,
                             "evidence": f"{job.timestamp_problem}; graded as "
                                         f"{'late' if job.timestamp else 'on time'} (grading.unreadable_timestamp)"})
    result.timing["total"] = time.perf_counter() - t0
    return result


def _numbers(bundle: AssignmentBundle, job: Job):
    """The student's own items, by the id of the folder the submission was collected from (never the notebook's)."""
    if not bundle.numbers:
        return None
    if job.student_id not in bundle.numbers:  # the coordinator derives every submitter's: a bug of the grader's
        raise faults.GraderFault("no per-student numbers", f"the bundle of {bundle.assignment_id} holds no numbers "
                                                           f"for student {job.student_id!r}")
    from ..checks.numbers import StudentNumbers  # the checks registry: where verification runs, not on import

    return StudentNumbers(job.student_id, bundle.numbers[job.student_id], bundle.numbers)


def _autograde(bundle: AssignmentBundle, job: Job, result: JobResult) -> bytes:
    """nbgrader's part of the job, in a private folder: fills ``result``; returns the notebook it executed.

    That is the autograded notebook without its outputs: the submission with its stripped metadata
    put back (:func:`admit`) and its locked cells restored by nbgrader, source and cell type. An
    honest slip in a given cell (a stray ``m`` that made the imports markdown, an edited line) is
    undone for the kernel, so verification must run the same sources: run as submitted, such a
    notebook scored 0 (red team 3). When nbgrader could not execute it, the admitted bytes.
    """
    aid = bundle.assignment_id
    # A fixed private folder per worker thread: the gradebook URL stays the same from job to job,
    # so nbgrader's SQL stays compiled (see engines.py).
    root = Path(tempfile.gettempdir()) / f"autograder-{os.getpid()}-{threading.get_ident()}"
    url = f"sqlite:///{root / 'gradebook.db'}"
    engines.install()
    schemas.install()
    engines.disposable(url)
    engines.reset(url)
    shutil.rmtree(root, ignore_errors=True)
    # Private to the grader's user: it holds the gradebook (hidden tests) and a student's notebook, in a /tmp
    # that every user of the host lists (tests/grading/test_between_users.py).
    root.mkdir(parents=True, mode=0o700)
    try:
        (root / "gradebook.db").write_bytes(bundle.gradebook)
        with Gradebook(url, bundle.course.course_id) as gb:
            notebook = gb.find_notebook(job.notebook_id, aid)
            solutions = {c.name for c in notebook.solution_cells}
            tests = [(g.name, float(g.max_score)) for g in notebook.grade_cells
                     if g.cell_type == "code" and g.name not in solutions]
            known = {g.name for g in notebook.grade_cells} | solutions
        data, fault = admit(bundle, job, known)
        result.flags += [f for f in (explain.restored_flag(job.notebook, data) if fault is None else None,) if f]
        autograded = None
        if fault is None:
            fault, autograded = _run_nbgrader(bundle, job, data, root, url, result.timing, tests)
        faults.raise_if_grader(fault)
        if fault is not None:
            result.status, result.reason = "failed", fault.message
            result.flags.append(explain.failure_flag(fault))
        elif autograded is not None:
            limit = bundle.course.grading.sandbox.kernel_output_bytes
            result.flags += [f for f in (explain.output_flag(autograded, limit),) if f]
        result.cells, result.comments = _cell_results(url, bundle.course.course_id, bundle, job,
                                                      autograded) if autograded else _zero_cells(url, bundle, job)
        executed = _sources(autograded) if autograded else data
        result.autograded = _bounded(autograded, bundle.course.grading.sandbox.kernel_output_bytes + len(job.notebook)) \
            if autograded else None
    finally:
        engines.reset(url)
        shutil.rmtree(root, ignore_errors=True)
    return executed


def _sources(autograded) -> bytes:
    """The notebook's bytes without outputs: its cells as nbgrader executed them."""
    cells = [dict(cell, outputs=[]) if cell.get("cell_type") == "code" else dict(cell) for cell in autograded.cells]
    return nbformat.writes(nbformat.from_dict(dict(autograded, cells=cells))).encode()


def _bounded(autograded, limit: int) -> bytes:
    """The autograded notebook's bytes; without outputs if they would make it larger than ``limit``.

    The kernel's output is capped as it arrives (timing.TimedExecute); this is the last line: no
    notebook the coordinator receives, keeps and writes is larger than its submission plus the cap.
    """
    data = nbformat.writes(autograded).encode()
    if len(data) <= limit + (1 << 20):
        return data
    for cell in autograded.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    note = nbformat.v4.new_output("stream", name="stdout", text="[the grader removed this notebook's outputs: they "
                                                                "were larger than grading.sandbox.kernel_output_bytes]\n")
    first = next((c for c in autograded.cells if c.cell_type == "code"), None)
    if first is not None:
        first.outputs = [note]
    return nbformat.writes(autograded).encode()


def _zero_cells(url: str, bundle: AssignmentBundle, job: Job) -> tuple[list, dict]:
    """Cells of a submission nbgrader could not grade: every graded cell scores 0."""
    with Gradebook(url, bundle.course.course_id) as gb:
        nb = gb.find_notebook(job.notebook_id, bundle.assignment_id)
        cells = [{"grade_id": g.name, "max_score": float(g.max_score), "nbgrader_score": 0.0,
                  "manual": False, "message": None} for g in nb.grade_cells]
    return cells, {}


def _expire(fired: dict) -> None:
    """The submission's wall-clock limit is up: note how far it got, kill its kernel (nbgrader then fails the run)."""
    from .timing import clock

    fired["marks"] = set(clock.marks)  # whose time ran out: the student's cells, or a step of the grader's
    clock.kill_kernel()


class _ErrorLog(logging.Handler):
    """Collects nbgrader's error messages, which become the recorded reason of a failure."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.lines: list[str] = []
        self.exc: BaseException | None = None  # the first exception nbgrader caught and logged

    def emit(self, record):
        self.lines.append(record.getMessage())
        # nbgrader logs from inside its ``except`` block: the exception it caught is still current
        current = sys.exc_info()[1] or (record.exc_info[1] if record.exc_info else None)
        # nbclient logs too, from inside its own handlers (a cell timeout: queue.Empty); what the student's
        # kernel did wrong (timing.StudentKernelError) is what nbgrader caught in the end, and wins
        if self.exc is None or type(current).__name__ == "StudentKernelError":
            self.exc = current or self.exc


def _write_kit(bundle: AssignmentBundle, job: Job, root: Path) -> Path | None:
    """The student kit the kernel imports, written under ``root``; None (the whole grader) without verification.

    With the kit the in-kernel hidden tests do nothing (only the verified scores count); with
    ``--no-verify`` nbgrader's in-kernel scores are the scores, so the kernel keeps the grader.
    An assignment without registered checks has a kit too (:func:`..kit.build.unchecked_kit_files`):
    a bundle without one is the grader's fault, never a reason to hand the kernel the reference.
    """
    if not job.verify:
        return None
    if not bundle.kit:
        raise faults.GraderFault("no student kit", f"the bundle of {bundle.assignment_id} holds no kit for the "
                                                   f"student's kernel (kit.build.kernel_kit_files builds it)")
    for rel, data in bundle.kit.items():
        (root / "kit" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "kit" / rel).write_bytes(data)
    if "autograder/kit/kit.json" in bundle.kit:  # a checked assignment's kit: its notebook asks grader.numbers
        (root / "kit/autograder/kit" / GRADED_FILE).write_text(json.dumps(graded_numbers(bundle, job)))
    return root / "kit"


def graded_numbers(bundle: AssignmentBundle, job: Job) -> dict:
    """What ``grader.numbers`` gives the submission wherever it runs when graded (the kernel's kit, the
    verification runner): the per-student items of the *folder's* student id (the lesson's without
    ``variants``), as plain data (``notebook/numbers.py``), so nothing the notebook sets chooses them."""
    from ..checks.items import LESSON
    from ..notebook.numbers import entry
    from ..variants import items_of

    mine = _numbers(bundle, job)
    items = mine.items if mine is not None else LESSON
    return {"student": job.student_id, "items": {i: entry(items[i]) for i in items_of(bundle.assignment_id)}}


def _run_nbgrader(bundle: AssignmentBundle, job: Job, data: bytes, root: Path, url: str, timing: dict,
                  tests: list[tuple[str, float]]) -> tuple[faults.Fault | None, object]:
    """Run nbgrader's Autograde converter in ``root`` on ``data``; return (its failure classified, autograded nb).

    The submission is first made gradable the way Run All would read it: a grade_id repeated on
    several cells stays on the last, and a test cell the student deleted is appended (``tests``).
    """
    from nbgrader.converters import Autograde
    from nbgrader.coursedir import CourseDirectory
    from ..sandbox.command import Limits
    from .timing import TimedExecute, clock, sandboxed_execute

    aid, sid, nid = bundle.assignment_id, job.student_id, job.notebook_id
    sub = root / "submitted" / sid / aid
    sub.mkdir(parents=True)
    (sub / f"{nid}.ipynb").write_bytes(model.restore_test_cells(model.last_definition_wins(data), tests))
    if job.timestamp:
        (sub / "timestamp.txt").write_text(job.timestamp)
    src = root / "solutions" / aid
    src.mkdir(parents=True)
    for rel, content in bundle.files.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_bytes(content)

    config = nbgrader_config(bundle.course, root, db_url=url)
    config.CourseDirectory.assignment_id = aid
    config.CourseDirectory.student_id = sid
    config.TimedExecute.kernel_output_bytes = bundle.course.grading.sandbox.kernel_output_bytes
    log = logging.getLogger(f"autograder.job.{os.getpid()}")
    log.propagate, log.level = False, logging.WARNING
    errors = _ErrorLog()
    log.handlers = [errors]
    converter = Autograde(coursedir=CourseDirectory(config=config), config=config, log=log)
    if job.kernel_sandbox:
        execute = sandboxed_execute(Limits.coerce(bundle.course.grading.sandbox), _write_kit(bundle, job, root))
    else:  # --unsafe-no-sandbox: stock nbgrader's kernel (not for credit)
        execute = TimedExecute
    converter.autograde_preprocessors = [
        execute if p.__name__ == "Execute" else p for p in converter.autograde_preprocessors]
    clock.reset()
    limit = bundle.course.grading.submission_timeout
    fired: dict = {}
    watchdog = threading.Timer(limit, _expire, args=(fired,))
    watchdog.daemon = True
    try:
        watchdog.start()
        # The kernel never sees the run's seed (``job.seed``): its hidden tests use their fixed
        # default, and the scores recorded are the verified ones, drawn from the seed outside it.
        converter.start()
    except Exception as exc:  # NbGraderException, or anything nbgrader let through
        return faults.of_nbgrader(errors.exc or exc, errors.lines, dict(clock.marks), fired=fired.get("marks"),
                                  limit=limit), None
    finally:
        watchdog.cancel()
        timing.update(clock.split())
    out = root / "autograded" / sid / aid / f"{nid}.ipynb"
    return None, nbformat.read(out, as_version=4)
