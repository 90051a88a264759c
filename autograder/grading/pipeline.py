"""The coordinator: find submissions, farm the jobs out, record results as they arrive."""
from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path

from nbgrader.utils import parse_utc

from ..config import Course, load_course, validate_course
from ..variants import SecretMissing, class_numbers, course_secret
from ..notebook import model
from . import faults, privacy, provenance
from . import gradebook as gbk
from .flight import Flight
from .job import AssignmentBundle, Job, JobResult
from .nbconfig import absolute_db_url, alembic_on_path
from ..feedback import EXCHANGE_FILES
from ..notebook.rubrics import insert_rubrics
from .record import lock_not_granted, record_batch
from .reports import RunReports, result_record, write_reports
from .state import GradingState

#: The most of a ``timestamp.txt`` that is read (nbgrader writes about 30 bytes).
TIMESTAMP_BYTES = 256

#: Results are recorded in batches: at most this many, and none waits longer than this (seconds)
#: for its batch to be written. A killed run loses at most a batch (graded again on resume).
BATCH_SIZE = 64
BATCH_SECONDS = 2.0

#: What a job may take beyond the limits of the student's code (nbgrader's bookkeeping, the
#: gradebook copy, the sandboxes' start) before the coordinator calls it hung (a grader fault).
JOB_MARGIN_SECONDS = 120.0


def job_seconds(course: Course) -> float:
    """How long a job may be out before it is stopped as hung: twice (one job may wait for another on
    its worker) the submission's wall clock plus two verifications (one with the real matplotlib) and the margin."""
    limits = course.grading
    return 2 * (limits.submission_timeout + 2 * limits.sandbox.wall_seconds + JOB_MARGIN_SECONDS)


@dataclass(frozen=True)
class Submission:
    """One notebook found in nbgrader's layout ``<dir>/<student>/<assignment>/<notebook>.ipynb``."""

    student_id: str
    assignment_id: str
    notebook_id: str
    path: Path

    refused: str | None = None  # why the file is not read (see :func:`refusal`)

    def timestamp(self) -> tuple[str | None, str | None]:
        """nbgrader's ``timestamp.txt`` beside the notebook: ``(timestamp, why it is unreadable)``.

        Read once per run, at most :data:`TIMESTAMP_BYTES` bytes, and parsed here: a file that is
        not a date (a student writes it in nbgrader's exchange) is never a crash of the batch.
        """
        ts = self.path.parent / "timestamp.txt"
        if self.refused or not ts.exists():
            return None, None
        if ts.is_symlink() or not ts.is_file():
            return None, "timestamp.txt is not a regular file"
        try:
            with open(ts, "rb") as fh:
                raw = fh.read(TIMESTAMP_BYTES + 1)
            text = raw.decode("utf-8").strip()
            if len(raw) > TIMESTAMP_BYTES:
                raise ValueError(f"longer than {TIMESTAMP_BYTES} bytes")
            if not text:
                return None, None
            parse_utc(text)
        except (OSError, UnicodeDecodeError, ValueError, OverflowError) as exc:
            return None, f"timestamp.txt is not a date ({type(exc).__name__}: {str(exc)[:120]})"
        return text, None

    def read_bytes(self) -> bytes:
        """The submitted bytes; empty for a refused submission (never follows a link)."""
        if self.refused:
            return b""
        fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as fh:
            return fh.read()


def refusal(path: Path, submissions_dir: Path, max_bytes: float = float("inf")) -> str | None:
    """Why a found notebook is not read: a link, a file too large, or one outside the submissions directory.

    A submission is a regular file inside the directory. A symbolic link (to the solutions, to a
    system file, to another student's notebook) is recorded as failed with this reason, never
    followed; so is a student or assignment directory that is itself a link, and a file larger
    than ``max_bytes`` (``grading.max_submission_mb``: it would cost the grader its memory).
    """
    base = submissions_dir.resolve()
    rel = path.relative_to(submissions_dir)
    current = submissions_dir
    for part in rel.parts:
        current = current / part
        if current.is_symlink():
            return (f"the submission is a symbolic link ({current.relative_to(submissions_dir)} -> "
                    f"{os.readlink(current)}), not a notebook file; links are never followed")
    if not path.is_file():
        return "the submission is not a regular file"
    if base not in path.resolve().parents:
        return "the submission resolves to a file outside the submissions directory"
    size = path.stat().st_size
    if size > max_bytes:
        return (f"the notebook is {size / 2**20:.1f} MB, more than the {max_bytes / 2**20:g} MB a submission may be "
                f"(grading.max_submission_mb); clear its outputs and submit it again")
    return None


@dataclass
class RunSummary:
    """What one ``grade`` run did."""

    graded: int = 0
    failed: int = 0
    skipped: int = 0
    seconds: float = 0.0
    seed: int = 0
    results: list[JobResult] = field(default_factory=list)
    errors: list[faults.Unrecorded] = field(default_factory=list)  # grader faults that persisted, graded again next run
    warnings: list[str] = field(default_factory=list)  # what this host cannot enforce (the CLI prints them)
    notes: list[str] = field(default_factory=list)  # what it does enforce where that depends on the host
    csv: Path | None = None
    json: Path | None = None


def find_submissions(course: Course, submissions_dir: str | Path, assignments: list[str],
                     collected: dict | None = None) -> list[Submission]:
    """Every submitted notebook of the given assignments, sorted by student then assignment.

    ``collected``: the course's collect log (:func:`.provenance.load`); with ``exchange.accounts:
    per-student``, a notebook it records as written from another student's account is refused.
    """
    found = []
    check = collected if course.exchange.accounts == "per-student" else None
    for aid in assignments:
        for nid in course.assignment(aid).notebooks:
            for path in sorted(Path(submissions_dir).glob(f"*/{aid}/{nid}.ipynb")):
                sub = Submission(path.parent.parent.name, aid, nid, path,
                                 refusal(path, Path(submissions_dir), course.grading.max_submission_mb * 2**20))
                if check and not sub.refused:
                    try:
                        why = provenance.refusal(check, sub.student_id, aid, path.name, sub.read_bytes())
                    except OSError:
                        why = None  # unreadable: _changed reports it as the grader's
                    sub = dataclasses.replace(sub, refused=why)
                found.append(sub)
    return sorted(found, key=lambda s: (s.student_id, s.assignment_id, s.notebook_id))


def _bundle(course: Course, course_dir: Path, aid: str, db_url: str, numbers: dict | None = None) -> AssignmentBundle:
    """What a worker needs of assignment ``aid``: its prepared gradebook, its other files, its notebooks' cells.

    The cells (:func:`.model.layout`) are read from the source notebook in ``solutions/``: its
    cells, ids, order and nbgrader metadata are the released notebook's (nbgrader's release only
    removes the solutions' code and the hidden tests from the cells' sources).
    """
    gbk.ensure_assignment(course, course_dir, aid, db_url)
    src = course_dir / "solutions" / aid
    files = {str(p.relative_to(src)): p.read_bytes() for p in sorted(src.rglob("*"))
             if p.is_file() and p.suffix != ".ipynb" and ".ipynb_checkpoints" not in p.parts} if src.exists() else {}
    layouts = {nid: model.layout(src / f"{nid}.ipynb") for nid in course.assignment(aid).notebooks
               if (src / f"{nid}.ipynb").is_file()}
    from ..kit.build import kernel_kit_files

    return AssignmentBundle(course, aid, gbk.export_assignment(db_url, course.course_id, aid), files, layouts,
                            kernel_kit_files(course_dir, aid), numbers or {})


def _class_numbers(course: Course, course_dir: Path, secret, aid: str, subs) -> dict:
    """Per-student numbers (issue 22) of ``aid`` for every submitter and roster student; empty without ``variants``.

    Derived here, where the secret is: the workers get the numbers, never the secret.
    """
    if secret is None:
        return {}
    from .reports import _roster

    ids = {s.student_id for s in subs if s.assignment_id == aid} | set(_roster(course, course_dir))
    return class_numbers(secret.key, course.course_id, aid, ids)


def _sqlite_path(db_url: str) -> Path | None:
    """The file of a SQLite gradebook (an absolute URL, :func:`.nbconfig.absolute_db_url`), else None."""
    prefix = "sqlite:///"
    return Path(db_url[len(prefix):]) if db_url.startswith(prefix) and len(db_url) > len(prefix) else None


def _recorded(db_url: str, course_id: str) -> set[tuple[str, str]]:
    """(student, assignment) pairs the gradebook holds a submission for."""
    with gbk.Gradebook(db_url, course_id) as gb:
        return {(s.student.id, s.assignment.name) for a in gb.assignments for s in a.submissions}


def grade(course_dir: str | Path = ".", submissions_dir: str | Path | None = None,
          assignments: list[str] | None = None, *, workers: int | None = None, scheduler=None,
          force: bool = False, verify: bool = True, progress: bool = True,
          unsafe_no_sandbox: bool = False, trusted_submissions: bool = False) -> RunSummary:
    """Grade every submission in parallel with nbgrader, recording the results as they arrive.

    Parameters
    ----------
    course_dir : str or Path
        Course directory (``course.yml``, ``solutions/``).
    submissions_dir : str or Path, optional
        nbgrader layout ``<dir>/<student>/<assignment>/<notebook>.ipynb``; default
        ``<course_dir>/submitted``.
    assignments : list of str, optional
        Assignment ids (default: all in course.yml).
    workers : int, optional
        Local worker processes (default ``grading.workers`` or one per core).
    scheduler : str or distributed.Client, optional
        Address of an existing dask.distributed scheduler; overrides ``workers``.
    force : bool
        Regrade submissions whose bytes have not changed since their last grading.
    verify : bool
        Verify scores outside the student's kernel (issue 5) when the sandbox is installed.
    progress : bool
        Show a tqdm progress bar.
    unsafe_no_sandbox : bool
        Grade where bubblewrap is missing: the student's kernel then runs with the grader's
        file system and processes in view (as an unprivileged user only) and verification in the
        weaker subprocess sandbox. Not for credit (see the README).
    trusted_submissions : bool
        The submissions are the project's own synthetic notebooks (``autograder demo``): where
        bubblewrap is missing they are graded without it, as root too. Never for students' files.

    Returns
    -------
    RunSummary

    Raises
    ------
    SandboxError
        When bubblewrap does not work here and ``unsafe_no_sandbox`` is not given, or when the
        unsafe mode would run student code as root.
    """
    t0 = time.perf_counter()
    kernel_sandbox = _require_sandbox(unsafe_no_sandbox, trusted_submissions)
    alembic_on_path()  # nbgrader runs it to create a new gradebook
    course_dir = Path(course_dir).resolve()
    course = load_course(course_dir)
    assignments = assignments or [a.id for a in course.assignments]
    for aid in assignments:
        course.assignment(aid)  # unknown ids fail here, before any work
    course = validate_course(course_dir, assignments=assignments)
    db_url = absolute_db_url(course.grading.db_url, course_dir)
    submissions_dir = Path(submissions_dir) if submissions_dir else course_dir / "submitted"
    subs = find_submissions(course, submissions_dir, assignments, provenance.load(course_dir))
    state = GradingState(course_dir / "reports")
    if course.variants and not verify:  # the kernel's hidden tests judge the lesson's numbers: only verification
        raise SecretMissing("variants (course.yml): per-student numbers are judged only by verification, which "
                            "--no-verify turns off (the in-kernel hidden tests would judge every student on the "
                            "lesson's numbers); grade without --no-verify")
    secret = course_secret(course, course_dir) if course.variants else None  # refuses before any work
    bundles = {aid: _bundle(course, course_dir, aid, db_url, _class_numbers(course, course_dir, secret, aid, subs))
               for aid in sorted({s.assignment_id for s in subs})}
    from ..sandbox.cgroup import bounded_by, unbounded_trees

    # a fresh seed per run: students cannot know it
    summary = RunSummary(seed=secrets.randbelow(2**31),
                         warnings=(unbounded_trees(course.grading.sandbox) if kernel_sandbox else [])
                         + privacy.warnings(course_dir, submissions_dir, _sqlite_path(db_url)),
                         notes=[n for n in (bounded_by(),) if n and kernel_sandbox])
    todo = _changed(subs, _recorded(db_url, course.course_id), state, force, summary)

    try:
        if todo:
            _run(course, course_dir, db_url, bundles, todo, state, summary, workers, scheduler, progress,
                 lambda s: _job(course, s, summary.seed, verify, kernel_sandbox, trusted_submissions))
    finally:  # after Ctrl-C too: the reports show everything recorded so far, and what could not be
        graded_here = {(s.student_id, s.assignment_id, s.notebook_id) for s in todo}
        gone = {k for k in state.unrecorded if k[1] in assignments} - {
            (s.student_id, s.assignment_id, s.notebook_id) for s in subs}
        state.note_unrecorded([e.record() for e in summary.errors], graded_here | gone)
        summary.csv, summary.json = write_reports(course, course_dir, list(state.records.values()),
                                                  unrecorded=list(state.unrecorded.values()))
        summary.seconds = time.perf_counter() - t0
    return summary


def _changed(subs: list[Submission], recorded, state: GradingState, force: bool, summary: RunSummary) -> list:
    """The submissions to grade: every one with ``force``, else those not recorded with these bytes.

    A file that cannot be read (it vanished, the host refuses it) is reported as a grader error for
    that submission only (:mod:`.faults`) and not graded this run.
    """
    todo = []  # bytes are read again when the job is sent, not kept
    for s in subs:
        try:
            sha = hashlib.sha256(s.read_bytes()).hexdigest()
        except OSError as exc:
            fault = faults.of_host(exc) or faults.grader("unreadable", f"the submission could not be read "
                                                                       f"({type(exc).__name__}: {exc})")
            summary.errors.append(faults.report(s, fault, 1))
            continue
        if not force and (s.student_id, s.assignment_id) in recorded and state.is_current(
                s.student_id, s.assignment_id, s.notebook_id, sha):
            summary.skipped += 1
        else:
            todo.append(s)
    return todo


def _job(course: Course, sub: Submission, seed: int, verify: bool, kernel_sandbox: bool, trusted: bool) -> Job:
    """The job of one submission; an unreadable timestamp follows ``grading.unreadable_timestamp``."""
    timestamp, problem = sub.timestamp()
    if problem and course.grading.unreadable_timestamp == "late":
        timestamp = dt.datetime.now(dt.timezone.utc).isoformat()
    return Job(sub.student_id, sub.notebook_id, sub.read_bytes(), seed, timestamp, verify, kernel_sandbox,
               sub.refused, trusted, problem)


def _require_sandbox(unsafe: bool, trusted: bool = False) -> bool:
    """Whether kernels run in bubblewrap; refuses a weaker grading unless the instructor asked for it."""
    from ..sandbox.command import SandboxError, sandbox_kind

    if sandbox_kind() == "bubblewrap":
        return True
    if trusted:
        return False
    if not unsafe:
        raise SandboxError(
            "bubblewrap (bwrap) is not installed or does not work here, so the students' code cannot be "
            "isolated from the gradebook, the course files and the grader's processes. Install it "
            "(apt-get install bubblewrap) or, to grade anyway without that protection (not for credit), "
            "pass --unsafe-no-sandbox.")
    if os.geteuid() == 0:
        raise SandboxError("--unsafe-no-sandbox never runs student code as root: grade as an unprivileged user, "
                           "or install bubblewrap")
    return False


def _run(course, course_dir, db_url, bundles, todo, state, summary, workers, scheduler, progress, make_job):
    """Grade ``todo`` on the executor and record the results in batches as they arrive (see :mod:`.flight`)."""
    from tqdm import tqdm

    executor = _executor(course, bundles, len(todo), workers, scheduler)
    flight = Flight(executor, make_job, todo, summary.errors, BATCH_SECONDS, job_seconds(course))
    bar = tqdm(total=len(todo), unit="nb", desc="grading", disable=not progress, smoothing=0.1)
    ok = False
    try:
        reports = RunReports(course, course_dir, state.records.values(), state.unrecorded.values())
        with gbk.Gradebook(db_url, course.course_id) as gb:
            try:
                bar.update(flight.fill())
                while flight.in_flight:
                    for future in flight.wait():
                        bar.update(int(flight.settle(future)))
                    bar.update(flight.overdue())
                    if flight.batch_due(BATCH_SIZE):
                        _commit(gb, course, course_dir, flight.batch, state, summary, reports)
                    bar.update(flight.fill())
            finally:  # what has arrived is recorded, after Ctrl-C too
                _commit(gb, course, course_dir, flight.batch, state, summary, reports)
        ok = True
    finally:
        bar.close()
        executor.close(cancel=not ok)


def _executor(course: Course, bundles, jobs: int, workers: int | None, scheduler):
    """The Dask cluster at ``scheduler``, else a local pool of ``workers`` (``grading.workers``, or one per core)."""
    from .executors import DaskCluster, LocalPool

    memory_mb = course.grading.worker_memory_mb
    if scheduler is not None:
        return DaskCluster(bundles, scheduler, memory_mb=memory_mb)
    return LocalPool(bundles, min(workers or course.grading.workers or os.cpu_count() or 1, jobs), memory_mb=memory_mb)


def _write_autograded(course_dir: Path, sub: Submission, result: JobResult) -> None:
    """The autograded notebook for formgrader, with the rubrics after the answers they grade, and the
    submission's exchange files (``generate_feedback`` and ``release_feedback`` need them), as
    nbgrader's autograde copies them; a failed notebook's copy is removed, as nbgrader does."""
    out = course_dir / "autograded" / result.student_id / result.assignment_id / f"{result.notebook_id}.ipynb"
    if result.autograded is None:
        if out.exists():
            out.unlink()
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(insert_rubrics(result.autograded, course_dir / "solutions" / result.assignment_id
                                   / f"{result.notebook_id}.ipynb"))
    for name in EXCHANGE_FILES:
        src = sub.path.parent / name
        if src.is_file() and not src.is_symlink() and src.stat().st_size <= TIMESTAMP_BYTES * 16:
            (out.parent / name).write_bytes(src.read_bytes())


def _commit(gb, course, course_dir, batch: list[tuple[Submission, JobResult]], state, summary,
            reports: RunReports) -> None:
    """Record a batch of results (and empty it): gradebook first, then the autograded notebooks, then the state log.

    The gradebook takes the whole batch in one transaction (:func:`.record.record_batch`). If
    the run dies before the state log lists a submission, the next run grades it again; the
    gradebook writes are updates, so nothing is duplicated. Then grades.csv and results.json are
    rewritten from the log. A batch that cannot be written is
    written again one result at a time, so one bad row costs only its own submission (left
    unrecorded, reported as a grader error, graded again next run).
    """
    if not batch:
        return
    try:
        penalties = record_batch(gb, course, [(result, result.timestamp) for _, result in batch])
    except Exception as exc:  # noqa: BLE001 - one bad row must not cost the batch: record them one by one
        if len(batch) == 1 or lock_not_granted(exc):  # a lock held elsewhere: one by one, each would wait as long
            why = getattr(exc, "orig", None) or exc  # the driver's error, without SQLAlchemy's statement and rows
            fault = faults.of_host(exc) or faults.grader("gradebook write", f"the results could not be recorded "
                                                                            f"({type(why).__name__}: {why})")
            summary.errors += [faults.report(sub, fault, 2 if len(batch) == 1 else 1) for sub, _ in batch]
            batch.clear()
            return
        for item in list(batch):
            single = [item]
            _commit(gb, course, course_dir, single, state, summary, reports)
        batch.clear()
        return
    for sub, result in batch:
        _write_autograded(course_dir, sub, result)
    records = [result_record(result, penalty) for (_, result), penalty in zip(batch, penalties)]
    state.append(records)
    # The reports follow every batch (written atomically, reading the batch's gradebook rows only), so
    # one read mid-run, or after a killed run, is as current as the gradebook.
    reports.update(records, state.unrecorded.values())
    for _, result in batch:
        summary.results.append(result)
        summary.graded += result.status == "graded"
        summary.failed += result.status == "failed"
    batch.clear()
