"""Start the sandbox runner, watch it, enforce the limits, and restart it past a cell or task that hangs or kills it.

What the sandbox is (its two kinds, binds and limits) is in :mod:`.command`; the frames the
runner sends are followed by :mod:`.frames`.
"""
from __future__ import annotations

import dataclasses
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ..checks.core import Call, Outcome
from . import cgroup, wire
from .command import (CORE, KEEP_STDOUT, NOBODY, RUNNER, STANDIN, STARTUP_SECONDS, Limits, SandboxError,
                      _bwrap_command, _drop_to_nobody_possible, _env, _font_caches, rlimits, sandbox_kind, site_paths)
from .frames import _describe_exit, _read_frames, _Run
from .given import write_given_package
from .measure import MEASURED_RUN_ENV, UNAVAILABLE, MeasuredCall, is_measured


def _kill(proc: subprocess.Popen, kind: str) -> None:
    try:
        if kind == "subprocess":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass


def _exited(proc: subprocess.Popen) -> bool:
    """Whether the process has ended, without reaping it (so that ``_reap`` gets its CPU usage)."""
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _reap(proc: subprocess.Popen, timeout: float = 10.0) -> tuple[int | None, float]:
    """Wait for the sandbox process; its return code and the CPU seconds it and its children used."""
    end = time.monotonic() + timeout
    while proc.returncode is None:
        try:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere
            return proc.poll(), 0.0
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return proc.returncode, usage.ru_utime + usage.ru_stime
        if time.monotonic() > end:
            return None, 0.0
        time.sleep(0.01)
    return proc.returncode, 0.0


def _run_once(kind: str, job_dir: Path, limits: Limits, run: _Run, deadline: float,
              drop: bool) -> tuple[str, int | None, str]:
    """Run the runner once; returns (how it ended, return code, the first bytes of its stdout/stderr).

    How it ended: ``done``, ``timeout`` (cell or call limit, at ``run.where``), ``wall``, ``stopped``
    (protocol violation, killed) or ``exited`` (the process ended before ``done``). A measured run
    (``run.measure``) also gets the pipe the runner waits on for the grader (``measure.py``).
    """
    read_fd, write_fd = os.pipe()
    control = os.pipe() if run.measure is not None else None
    scratch = tempfile.mkdtemp(prefix="scratch-", dir=job_dir.parent) if kind == "subprocess" else "/tmp"
    group = cgroup.Group(pids=limits.pids, memory_bytes=int(limits.memory_mb) << 20)
    if control is not None:
        run.measure.attach(group, control[1])
    try:
        proc = _start(kind, job_dir, limits, scratch, write_fd, drop, group, control[0] if control else None)
    except BaseException:
        os.close(read_fd)
        if control is not None:
            os.close(control[1])
        group.close()
        if kind == "subprocess":
            shutil.rmtree(scratch, ignore_errors=True)
        raise
    finally:
        os.close(write_fd)
        if control is not None:
            os.close(control[0])
    ended = None
    try:
        ended, kept = _watch(proc, read_fd, run, limits, deadline)
    finally:
        if ended != "done" or not _exited(proc):
            _kill(proc, kind)
        returncode, run.cpu_seconds = _reap(proc)
        if run.measure is not None:
            os.close(control[1])
            run.measure.collect(killed=ended == "exited" and returncode in (-signal.SIGKILL, 128 + signal.SIGKILL))
        group.close()  # whatever the submission left running, in any session or process group
        if kind == "subprocess":
            _kill(proc, kind)  # whatever the submission left running in its process group
            shutil.rmtree(scratch, ignore_errors=True)
        os.close(read_fd)
        proc.stdout.close()
    return ended, returncode, kept.decode("utf-8", "replace")


def _start(kind, job_dir: Path, limits: Limits, scratch: str, write_fd: int, drop: bool, group,
           control_fd: int | None = None) -> subprocess.Popen:
    """Start the runner in its sandbox (bwrap, or the subprocess fallback), inside its control group."""
    env = _env(scratch)
    if control_fd is not None:
        env.update(MEASURED_RUN_ENV)
    if kind == "bubblewrap":
        cmd = _bwrap_command(job_dir, write_fd, limits, env)
    else:
        os.chmod(scratch, 0o777)
        mpl = Path(env["MPLCONFIGDIR"])
        for cache in _font_caches():
            mpl.mkdir(mode=0o777, exist_ok=True)
            shutil.copyfile(cache, mpl / cache.name)
        cmd = [sys.executable, "-I", "-S", "-B", str(RUNNER), str(job_dir), str(write_fd)]
    identity = {"user": NOBODY, "group": NOBODY, "extra_groups": []} if drop and kind == "subprocess" else {}
    if control_fd is not None:
        cmd.append(str(control_fd))  # the runner's third argument: a measured run (measure.py)
    return subprocess.Popen(group.wrap(cmd), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, pass_fds=(write_fd,) if control_fd is None else (write_fd, control_fd),
                            env=env if kind == "subprocess" else {"PATH": "/usr/bin:/bin"},
                            cwd=scratch if kind == "subprocess" else None, start_new_session=True, **identity)


def _watch(proc: subprocess.Popen, read_fd: int, run: _Run, limits: Limits, deadline: float) -> tuple[str, bytearray]:
    """Follow the runner's frames and clocks until it is done, hangs, breaks the protocol or exits."""
    selector = selectors.DefaultSelector()
    selector.register(read_fd, selectors.EVENT_READ)
    selector.register(proc.stdout.fileno(), selectors.EVENT_READ)
    buffer, kept = bytearray(), bytearray()
    step_deadline = time.monotonic() + STARTUP_SECONDS
    last_where, exited_at = run.where, None
    try:
        while True:
            now = time.monotonic()
            if run.where != last_where:
                last_where, step_deadline = run.where, now + limits.cell_seconds
            if run.where[0] == "done":
                return "done", kept
            if now >= deadline:
                return "wall", kept
            if now >= step_deadline:
                return "timeout", kept
            if not selector.get_map():
                if _exited(proc):
                    return "exited", kept
                time.sleep(0.02)
                continue
            for key, _ in selector.select(min(deadline, step_deadline, now + 0.5) - now):
                data = os.read(key.fd, 1 << 16)
                if not data:
                    selector.unregister(key.fd)
                elif key.fd == read_fd:
                    run.received += len(data)
                    buffer += data
                    if not _read_frames(buffer, run):
                        return "stopped", kept
                elif len(kept) < KEEP_STDOUT:
                    kept += data[:KEEP_STDOUT - len(kept)]
            if _exited(proc):
                # A process the submission forked may still hold the pipes open: give what is in
                # flight half a second, then stop waiting for it.
                exited_at = exited_at or time.monotonic()
                if not selector.get_map() or time.monotonic() - exited_at > 0.5:
                    return ("done" if run.where[0] == "done" else "exited"), kept
    finally:
        selector.close()


# ---------------------------------------------------------------- a whole verification
@dataclass
class SessionResult:
    outcomes: dict[int, Outcome]
    cell_errors: dict[int, str]
    notes: list[str]
    runs: int
    seconds: float
    sandbox: str
    cpu_seconds: float = 0.0
    matplotlib: str = "real"  # what the answers were computed with: "stand-in" or "real"
    refused: dict[int, list[str]] = field(default_factory=dict)  # cell index -> names it was refused (runner.py)


def run_session(cells: Sequence[tuple[int, str]], calls: Sequence[tuple[int, Call, str]], *,
                given: Sequence[str], graded: Sequence[str], assignment: str, limits: Limits,
                kind: str | None = None, trusted: bool = False, substitute: Sequence[str] = ()) -> SessionResult:
    """Run ``cells`` then ``calls`` (``(id, Call, task)``) in the sandbox, restarting past what hangs or kills it.

    A cell that does not finish within ``cell_seconds`` or that kills the process is recorded and
    skipped in the next run; a call that does the same fails, as does every other call of its task
    (not run); the other tasks get a fresh process. Whatever is left when ``wall_seconds`` are up
    fails. Nothing that did not run is ever a pass.

    With ``limits.matplotlib == "stand-in"`` the notebook first runs against the matplotlib
    stand-in (``mpl_standin.py``); if a cell failed after using it, or a graded call used it at
    all, everything runs again with the real matplotlib and only that second session counts.

    ``substitute``: names of ``given`` that the runner binds in the notebook's namespace after its
    cells ran, before the calls (task isolation: a composite task called with the reference's helpers).
    """
    kind = kind or sandbox_kind()
    start = time.monotonic()
    args = (cells, calls, given, graded, assignment, limits, kind, start, trusted, tuple(substitute))
    if limits.matplotlib != "stand-in":
        return _session(*args, standin=False)[0]
    first, suspect = _session(*args, standin=True)
    if not suspect:
        return first
    second, _ = _session(*args, standin=False)
    second.notes.insert(0, "the notebook used matplotlib in a way the sandbox's stand-in does not imitate, "
                           "so it ran again with the real matplotlib")
    second.runs += first.runs
    second.cpu_seconds += first.cpu_seconds
    return second


def _session(cells, calls, given, graded, assignment, limits, kind, start, trusted, substitute, *, standin: bool
             ) -> tuple[SessionResult, bool]:
    """One verification session (see :func:`run_session`); also whether the stand-in is suspect."""
    drop = _drop_to_nobody_possible()
    if kind == "subprocess" and os.geteuid() == 0 and not drop and not trusted:
        raise SandboxError("the subprocess sandbox would run student code as root (uid nobody cannot read the "
                           f"Python installation at {sys.base_prefix} or the virtual environment): install "
                           "bubblewrap, or grade as an unprivileged user")
    measured = [(i, c) for i, c, _ in calls if is_measured(c)]
    calls = [(i, c, t) for i, c, t in calls if not is_measured(c)]  # never in inputs.npz or job.json
    session = _Session(cells, calls, limits, kind, standin, deadline=start + limits.wall_seconds)
    base = tempfile.mkdtemp(prefix="autograder-verify-")
    try:
        job_dir = Path(base) / "job"
        job_dir.mkdir()
        (job_dir / "inputs.npz").write_bytes(wire.savez_bytes(session.arrays))
        write_given_package(job_dir / "given", assignment, given, graded)
        while session.pending or session.runs == 0:
            if session.out_of_runs():
                break
            job = dict(session.job_spec(), assignment=assignment, given=list(given), graded=list(graded),
                       substitute=list(substitute))
            (job_dir / "job.json").write_text(json.dumps(job))
            os.chmod(base, 0o755)
            run = _Run(pending=list(session.pending), cell_indices=session.cell_indices - session.skip,
                       calls=session.by_id, output_cap=session.output_cap)
            ended, returncode, output = _run_once(kind, job_dir, limits, run, session.deadline, drop)
            session.absorb(run)
            if not run.ready and ended == "wall" and session.runs > 1:
                continue  # a restart after a hang used up the submission's wall clock: fail what is left
            if not run.ready:
                detail = run.runner_error or run.protocol_error or output.strip()[-2000:] or \
                    _describe_exit(returncode, kind, limits)
                raise SandboxError(f"the verification sandbox ({kind}) could not start: {detail}")
            if ended not in ("done", "wall"):  # "wall": the loop's head fails what is left
                session.blame(ended, run, returncode)
        for call_id, call in measured:
            session.outcomes[call_id] = _measured_run(session, job_dir, call_id, call, dict(
                assignment=assignment, given=list(given), graded=list(graded)), drop)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return (SessionResult(session.outcomes, session.cell_errors, session.notes, session.runs,
                          time.monotonic() - start, kind, session.cpu, "stand-in" if standin else "real",
                          session.refused),
            session.suspect)


def _measured_run(session: "_Session", job_dir: Path, call_id: int, call: Call, names: dict, drop: bool) -> Outcome:
    """The run of one measured call: the notebook's cells, then the call under a limit set from outside."""
    if "memory" not in cgroup.available():
        session.notes.append(f"{call.describe()}: not measured (no writable memory control group)")
        return Outcome(error=UNAVAILABLE)
    if time.monotonic() >= session.deadline:
        return Outcome(error=f"NotRun: not run: the submission used up its wall-clock limit of "
                             f"{session.limits.wall_seconds:g} s")
    # With the real matplotlib, pyplot is imported before the grader reads what the bare runner holds,
    # so that it does not count as memory the notebook holds.
    (job_dir / "job.json").write_text(json.dumps(dict(session.job_spec(), calls=[], preload_pyplot=not
                                                      session.standin, **names)))
    # Its array arguments are not sent back (the check judges the answer only), and the runner's peak is not asked for.
    answer_only = dataclasses.replace(call, args=(), kwargs={}, measure_peak=False)
    run = _Run(pending=[call_id], cell_indices=session.cell_indices - session.skip, calls={call_id: answer_only},
               output_cap=session.output_cap, measure=MeasuredCall(call_id, call, job_dir))
    ended, returncode, _ = _run_once(session.kind, job_dir, session.limits, run, session.deadline, drop)
    session.runs += 1
    session.cpu += max(run.cpu_seconds, run.reported_cpu)
    session.suspect |= run.standin_suspect
    recorded = run.outcomes.get(call_id)
    if recorded is None and ended != "done":
        if ended == "timeout":
            label, reason = "TimeoutError", f"it did not finish within {session.limits.cell_seconds:g} s"
        elif ended == "wall":
            label, reason = "NotRun", f"the submission used up its wall-clock limit of {session.limits.wall_seconds:g} s"
        else:
            label = "ProcessDied"
            reason = run.runner_error or run.protocol_error or _describe_exit(returncode, session.kind,
                                                                               session.limits)
        where = {"cell": "in a cell", "call": "in the call"}.get(run.where[0], "before the call")
        recorded = Outcome(error=f"{label}: the measured run stopped {where}: {reason}")
    outcome = run.measure.finish(recorded)
    if outcome.error:
        session.notes.append(f"{call.describe()} (measured): {outcome.error[:200]}")
    return outcome


class _Session:
    """What a verification session knows between runs: what is left, what is skipped, what came back."""

    def __init__(self, cells, calls, limits: Limits, kind: str, standin: bool, deadline: float):
        self.cells, self.limits, self.kind, self.standin, self.deadline = cells, limits, kind, standin, deadline
        self.specs, self.arrays = wire.encode_calls([(i, c) for i, c, _ in calls])
        self.by_id = {i: c for i, c, _ in calls}
        self.task_of = {i: t for i, _, t in calls}
        input_bytes = sum(a.nbytes for a in self.arrays.values())
        self.output_cap = int(limits.output_bytes) + 2 * input_bytes
        self.outcomes: dict[int, Outcome] = {}
        self.cell_errors: dict[int, str] = {}
        self.refused: dict[int, list[str]] = {}
        self.notes: list[str] = []
        self.pending = [i for i, _, _ in calls]
        self.skip: set[int] = set()
        self.cell_indices = {i for i, _ in cells}
        self.runs, self.cpu, self.suspect = 0, 0.0, False
        self.max_runs = 2 + len(cells) + len(set(self.task_of.values()))

    def out_of_runs(self) -> bool:
        """Fail what is left when the wall clock or the number of restarts is used up."""
        if self.runs < self.max_runs and time.monotonic() < self.deadline:
            return False
        why = (f"the submission used up its wall-clock limit of {self.limits.wall_seconds:g} s"
               if time.monotonic() >= self.deadline else "the notebook stopped the sandbox too many times")
        for i in self.pending:
            self.outcomes[i] = Outcome(error=f"NotRun: not run: {why}")
        self.notes.append(why)
        return True

    def job_spec(self) -> dict:
        """The next run's ``job.json`` (without the assignment's names): what is left to run."""
        bwrap = self.kind == "bubblewrap"
        return {"core_path": "/grader/core.py" if bwrap else str(CORE),
                "standin_path": ("/grader/mpl_standin.py" if bwrap else str(STANDIN)) if self.standin else None,
                "site_paths": site_paths(), "rlimits": rlimits(self.limits, self.output_cap + (1 << 20)),
                "cells": [{"index": i, "source": s} for i, s in self.cells if i not in self.skip],
                "skip_cells": sorted(self.skip),
                "calls": [s for s in self.specs if s["id"] in set(self.pending)]}

    def absorb(self, run: _Run) -> None:
        """Keep what a run sent back."""
        self.runs += 1
        self.cpu += max(run.cpu_seconds, run.reported_cpu)
        self.suspect |= run.standin_suspect
        self.outcomes.update(run.outcomes)
        for index, error in run.cell_errors.items():
            self.cell_errors.setdefault(index, error)
        for index, names in run.refused.items():
            self.refused.setdefault(index, names)
        self.pending = run.pending

    def blame(self, ended: str, run: _Run, returncode: int | None) -> None:
        """A run stopped early: skip the cell, fail the call (and its task), or fail what is left."""
        if ended == "timeout":
            reason = f"it did not finish within {self.limits.cell_seconds:g} s"
        elif ended == "stopped":
            reason = run.protocol_error or "it was stopped"
        else:
            reason = run.runner_error or _describe_exit(returncode, self.kind, self.limits)
        label = {"timeout": "TimeoutError", "stopped": "Stopped"}.get(ended, "ProcessDied")
        where, what = run.where
        if where == "cell":
            self.skip.add(what)
            self.cell_errors[what] = f"{label}: the cell was stopped: {reason}; verification ran the other " \
                                     f"cells without it"
            self.notes.append(f"cell {what}: {reason}")
        elif where == "call":
            call = self.by_id[what]
            self.outcomes[what] = Outcome(error=f"{label}: {reason}")
            self.pending.remove(what)
            task = self.task_of[what]
            for other in [i for i in self.pending if self.task_of[i] == task]:
                self.outcomes[other] = Outcome(error=f"NotRun: not run because `{call.name}` stopped on an earlier "
                                                     f"input ({reason})")
                self.pending.remove(other)
            self.notes.append(f"{call.describe()}: {reason}")
        else:  # between steps: nothing to blame, so nothing left can run
            for i in self.pending:
                self.outcomes[i] = Outcome(error=f"NotRun: the process running the notebook stopped ({reason})")
            self.notes.append(f"the sandbox stopped between steps: {reason}")
            self.pending = []
