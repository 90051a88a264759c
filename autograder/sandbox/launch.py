"""Start the sandbox runner, watch it, enforce the limits, and restart it past a cell or task that hangs or kills it.

Under bubblewrap each run is forked from the worker's warm runner sandbox (:mod:`.runner_server`),
a measured run (06's memory check, :mod:`.measure`) too where the kernel lets it copy the pages it
shares first; the subprocess fallback starts a fresh runner process.

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
from typing import Mapping, Sequence

from ..checks.core import Call, Outcome
from . import cgroup, runner_server, wire
from .command import (CORE, KEEP_STDOUT, NOBODY, RUNNER, STARTUP_SECONDS, Limits, SandboxError, _bwrap_command,
                      _drop_to_nobody_possible, _env, _font_caches, rlimits, sandbox_kind, site_paths)
from .frames import _describe_exit, _read_frames, _Run
from .given import write_given_package
from .measure import MEASURED_MALLOC, UNAVAILABLE, MeasuredCall, is_measured, pages_can_be_owned


class _Spawned:
    """A fresh runner process (a measured run, or the subprocess fallback): what ``_run_once`` needs of it."""

    def __init__(self, proc: subprocess.Popen, kind: str):
        self.proc, self.kind, self.stdout = proc, kind, proc.stdout

    def on_ready(self) -> None:
        pass

    def kill(self) -> None:
        try:
            if self.kind == "subprocess":
                os.killpg(self.proc.pid, signal.SIGKILL)
            else:
                self.proc.kill()
        except (ProcessLookupError, PermissionError):
            pass

    def exited(self) -> bool:
        """Whether the process has ended, without reaping it (so that :meth:`reap` gets its CPU usage)."""
        try:
            return os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True

    def reap(self, done: bool, timeout: float = 10.0) -> tuple[int | None, float]:
        """Wait for the sandbox process; its return code and the CPU seconds it and its children used."""
        proc = self.proc
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

    def finish(self) -> None:
        if self.kind == "subprocess":
            self.kill()  # whatever the submission left running in its process group
        self.stdout.close()


def _run_once(kind: str, job_dir: Path, limits: Limits, run: _Run, deadline: float,
              drop: bool) -> tuple[str, int | None, str]:
    """Run the runner once; returns (how it ended, return code, the first bytes of its stdout/stderr).

    How it ended: ``done``, ``timeout`` (cell or call limit, at ``run.where``), ``wall``, ``stopped``
    (protocol violation, killed) or ``exited`` (the process ended before ``done``). The subprocess fallback
    starts a fresh process, and so does a measured run (``run.measure``, ``measure.py``) where it cannot be
    forked (:func:`_forks_measured`); every other run is forked warm (``runner_server.py``).
    """
    # A measured run is forked too where it can first copy every page it shares with the zygote (measure.py's
    # pages_can_be_owned): else the pages its cells write would be copied then (7 MiB of them in the cells of
    # test_hostile_memory's notebook), charged to its group as memory the notebook holds.
    fresh = kind == "subprocess" or (run.measure is not None and not _forks_measured(kind))
    control = os.pipe() if fresh else None  # the pipe the runner waits on (a forked run's is the sandbox's FIFO)
    scratch = tempfile.mkdtemp(prefix="scratch-", dir=job_dir.parent) if kind == "subprocess" else "/tmp"
    group = cgroup.Group(pids=limits.pids, memory_bytes=int(limits.memory_mb) << 20)
    write_fd = grader_control = None
    try:
        if fresh:
            read_fd, write_fd = os.pipe()
            proc = _Spawned(_start(kind, job_dir, limits, scratch, write_fd, drop, group, control[0]), kind)
            grader_control = control[1]
        else:
            try:
                proc, read_fd = _runner_sandbox(limits).start_run(group)
            except (OSError, RuntimeError, ValueError) as exc:
                runner_server.servers.discard()
                raise SandboxError(f"the verification sandbox (bubblewrap) could not fork a run: {exc}") from exc
            grader_control = proc.control
    except BaseException:
        for fd in (write_fd, *(control or ())):
            if fd is not None:
                os.close(fd)
        if write_fd is not None:
            os.close(read_fd)
        group.close()
        if kind == "subprocess":
            shutil.rmtree(scratch, ignore_errors=True)
        raise
    if write_fd is not None:
        os.close(write_fd)
    if control is not None:
        os.close(control[0])
    if run.measure is not None:
        run.measure.attach(group, grader_control)
    if run.gate is not None:
        run.gate.control_fd = grader_control
    ended = None
    kept = bytearray()
    try:
        ended, kept = _watch(proc, read_fd, run, limits, deadline)
    finally:
        if ended != "done" or not proc.exited():
            proc.kill()
        returncode, run.cpu_seconds = proc.reap(ended == "done")
        if control is not None:
            os.close(grader_control)  # a forked run's FIFO is closed with it (ForkedRun.finish)
        if run.measure is not None:
            run.measure.collect(killed=ended == "exited" and returncode in (-signal.SIGKILL, 128 + signal.SIGKILL))
        group.close()  # whatever the submission left running, in any session or process group
        proc.finish()
        if kind == "subprocess":
            shutil.rmtree(scratch, ignore_errors=True)
        os.close(read_fd)
    if ended != "done" and getattr(proc, "server_died", False):
        # The sandbox's pid 1, which nothing inside can kill, died: the host's doing (the job is graded again).
        raise SandboxError("the verification sandbox's fork server ended during a run")
    return ended, returncode, kept.decode("utf-8", "replace")


def _forks_measured(kind: str) -> bool:
    """Whether a measured run of sandbox ``kind`` is forked from the warm runner sandbox (see :func:`_run_once`)."""
    return kind != "subprocess" and pages_can_be_owned()


def _start(kind, job_dir: Path, limits: Limits, scratch: str, write_fd: int, drop: bool, group,
           control_fd: int) -> subprocess.Popen:
    """Start a fresh runner in its sandbox (bwrap, or the subprocess fallback), inside its control group."""
    env = _env(scratch)
    if kind == "bubblewrap":
        cmd = _bwrap_command(job_dir, limits, env, [os.path.realpath(sys.executable), "-I", "-S", "-B",
                                                    "/grader/runner.py", "/job", str(write_fd)])
    else:
        os.chmod(scratch, 0o777)
        mpl = Path(env["MPLCONFIGDIR"])
        for cache in _font_caches():
            mpl.mkdir(mode=0o777, exist_ok=True)
            shutil.copyfile(cache, mpl / cache.name)
        cmd = [sys.executable, "-I", "-S", "-B", str(RUNNER), str(job_dir), str(write_fd)]
    identity = {"user": NOBODY, "group": NOBODY, "extra_groups": []} if drop and kind == "subprocess" else {}
    cmd.append(str(control_fd))  # the runner's third argument: the pipe it waits on for the grader
    return subprocess.Popen(group.wrap(cmd), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, pass_fds=(write_fd, control_fd),
                            env=env if kind == "subprocess" else {"PATH": "/usr/bin:/bin"},
                            cwd=scratch if kind == "subprocess" else None, start_new_session=True, **identity)


def _watch(proc, read_fd: int, run: _Run, limits: Limits, deadline: float) -> tuple[str, bytearray]:
    """Follow the runner's frames and clocks until it is done, hangs, breaks the protocol or exits."""
    selector = selectors.DefaultSelector()
    selector.register(read_fd, selectors.EVENT_READ)
    if proc.stdout is not None:
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
                if proc.exited():
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
                    if run.ready:
                        proc.on_ready()
                elif len(kept) < KEEP_STDOUT:
                    kept += data[:KEEP_STDOUT - len(kept)]
            if proc.exited():
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
    refused: dict[int, list[str]] = field(default_factory=dict)  # cell index -> names it was refused (runner.py)


def run_session(cells: Sequence[tuple[int, str]], calls: Sequence[tuple[int, Call, str]], *,
                given: Sequence[str], graded: Sequence[str], assignment: str, limits: Limits,
                kind: str | None = None, trusted: bool = False, helpers: Mapping[str, Sequence[str]] | None = None,
                kept: bytes | None = None, numbers: dict | None = None) -> SessionResult:
    """Run ``cells`` then ``calls`` (``(id, Call, task)``) in the sandbox, restarting past what hangs or kills it.

    A cell that does not finish within ``cell_seconds`` or that kills the process is recorded and
    skipped in the next run; a call that does the same fails, as does every other call of its task
    (not run); the other tasks get a fresh process. Whatever is left when ``wall_seconds`` are up
    fails. Nothing that did not run is ever a pass.

    ``helpers``: composite task -> the graded tasks it calls, which its calls get the reference's versions of
    (task isolation, :func:`phases_of`: the composite's calls come after every answer of its helpers is back).
    ``kept``: the given package's ``_memo.json`` (``memo.py``), if any.
    ``numbers``: what the runner's ``grader.numbers`` gives the notebook (item id -> entry, ``notebook/numbers.py``).
    """
    kind = kind or sandbox_kind()
    start = time.monotonic()
    drop = _drop_to_nobody_possible()
    if kind == "subprocess" and os.geteuid() == 0 and not drop and not trusted:
        raise SandboxError("the subprocess sandbox would run student code as root (uid nobody cannot read the "
                           f"Python installation at {sys.base_prefix} or the virtual environment): install "
                           "bubblewrap, or grade as an unprivileged user")
    measured = [(i, c) for i, c, _ in calls if is_measured(c)]
    calls = [(i, c, t) for i, c, t in calls if not is_measured(c)]  # never in inputs.npz or job.json
    phases, phase_of_task = phases_of([t for _, _, t in calls], helpers or {})
    session = _Session(cells, calls, limits, kind, deadline=start + limits.wall_seconds, phases=phases,
                       phase_of_task=phase_of_task)
    base = tempfile.mkdtemp(prefix="autograder-verify-") if kind == "subprocess" else None
    written: list[Path] = []

    def job_dir_now() -> Path:
        """The job directory of the next run, its inputs and given package written: a fresh temporary one
        (subprocess), else the runner sandbox's staged one (again after a sandbox that had to be replaced)."""
        job_dir = Path(base) / "job" if base is not None else _runner_sandbox(limits).job_dir
        if job_dir not in written:
            if base is None:
                runner_server.servers.sandbox.empty_staged()
            job_dir.mkdir(exist_ok=True)
            (job_dir / "inputs.npz").write_bytes(wire.savez_bytes(session.arrays))
            write_given_package(job_dir / "given", assignment, given, graded, kept)
            written.append(job_dir)
        return job_dir

    try:
        while session.pending or session.runs == 0:
            if session.out_of_runs():
                break
            job_dir = job_dir_now()
            job = dict(session.job_spec(), assignment=assignment, given=list(given), graded=list(graded),
                       numbers=numbers or {})
            (job_dir / "job.json").write_text(json.dumps(job))
            os.chmod(job_dir.parent, 0o755)
            gate = PhaseGate(job_dir, assignment, given, graded, phases, kept) if len(phases) > 1 else None
            run = _Run(pending=list(session.pending), cell_indices=session.cell_indices - session.skip,
                       calls=session.by_id, output_cap=session.output_cap, phase_of=session.phase_of, gate=gate)
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
            session.outcomes[call_id] = _measured_run(session, job_dir_now(), call_id, call, dict(
                assignment=assignment, given=list(given), graded=list(graded), numbers=numbers or {}), drop)
    finally:
        if base is not None:
            shutil.rmtree(base, ignore_errors=True)
        elif runner_server.servers.sandbox is not None:
            runner_server.servers.sandbox.empty_staged()  # the submission's code and inputs go with the session
    return SessionResult(session.outcomes, session.cell_errors, session.notes, session.runs,
                         time.monotonic() - start, kind, session.cpu, session.refused)


def phases_of(tasks: Sequence[str], helpers: Mapping[str, Sequence[str]]) -> tuple[list[tuple[str, ...]], dict]:
    """The phases of a session's calls: ``(phases, phase of each task)``; phase 0 substitutes nothing.

    A composite's calls run in the phase of its set of helpers, after the phases that judge those helpers; the
    helpers are given to the runner only then (:class:`PhaseGate`). ``ValueError`` (a grader bug) when a helper
    would be given before or while its own task is judged.
    """
    sets = sorted({tuple(helpers[t]) for t in tasks if helpers.get(t)}, key=lambda names: (len(names), names))
    phases = [(), *sets]
    phase_of_task = {t: phases.index(tuple(helpers[t])) if helpers.get(t) else 0 for t in tasks}
    for phase, names in enumerate(phases):
        early = sorted(t for t in names if phase_of_task.get(t, -1) >= phase)
        if early:
            raise ValueError(f"task isolation: {', '.join(early)} would be given with the reference's helpers "
                             f"before (or while) its own answers are judged")
    return phases, phase_of_task


class PhaseGate:
    """The grader's side of task isolation's phases (``runner._reference_helpers``): asked for phase ``k`` (once
    every answer of the earlier phases is back, :meth:`.frames._Run._may_open`), it writes that phase's helpers as
    ``helpers-<k>/attention_ref`` into the job directory, then lets the runner go on."""

    def __init__(self, job_dir: Path, assignment: str, given, graded, phases, kept: bytes | None):
        self.job_dir, self.assignment, self.given, self.graded = job_dir, assignment, list(given), list(graded)
        self.phases, self.kept = phases, kept
        self.control_fd: int | None = None
        self.stop_reason = ""
        for old in job_dir.glob("helpers-*"):  # a package an earlier run of the session was given
            shutil.rmtree(old)

    def open(self, phase: int) -> bool:
        """Give the runner phase ``phase``'s helpers; False (and why) when nothing in the sandbox reads the pipe."""
        names = self.phases[phase]
        write_given_package(self.job_dir / f"helpers-{phase}", self.assignment, [*self.given, *names],
                            [g for g in self.graded if g not in names], self.kept)
        try:
            os.write(self.control_fd, b"g")
            return True
        except OSError as exc:
            self.stop_reason = f"the sandbox closed the grader's pipe ({exc.strerror or exc})"
            return False


def _runner_sandbox(limits: Limits) -> runner_server.RunnerServer:
    """This worker's warm runner sandbox; one that cannot start is the grading host's fault."""
    try:
        return runner_server.servers.get(limits)
    except (OSError, RuntimeError, ValueError) as exc:
        raise SandboxError(f"the verification sandbox (bubblewrap) could not start: {exc}") from exc


def _measured_run(session: "_Session", job_dir: Path, call_id: int, call: Call, names: dict, drop: bool) -> Outcome:
    """The run of one measured call: the notebook's cells, then the call under a limit set from outside."""
    if "memory" not in cgroup.available():
        session.notes.append(f"{call.describe()}: not measured (no writable memory control group)")
        return Outcome(error=UNAVAILABLE)
    if time.monotonic() >= session.deadline:
        return Outcome(error=f"NotRun: not run: the submission used up its wall-clock limit of "
                             f"{session.limits.wall_seconds:g} s")
    # pyplot is imported before the grader reads what the bare runner holds (a forked run has it from the
    # zygote), so that it does not count as memory the notebook holds.
    (job_dir / "job.json").write_text(json.dumps(dict(session.job_spec(), calls=[], measured=True, preload_pyplot=True,
                                                      mallopt=MEASURED_MALLOC, own_pages=_forks_measured(session.kind),
                                                      **names)))
    # Its array arguments are not sent back (the check judges the answer only), and the runner's peak is not asked for.
    answer_only = dataclasses.replace(call, args=(), kwargs={}, measure_peak=False)
    run = _Run(pending=[call_id], cell_indices=session.cell_indices - session.skip, calls={call_id: answer_only},
               output_cap=session.output_cap, measure=MeasuredCall(call_id, call, job_dir))
    ended, returncode, _ = _run_once(session.kind, job_dir, session.limits, run, session.deadline, drop)
    session.runs += 1
    session.cpu += max(run.cpu_seconds, run.reported_cpu)
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

    def __init__(self, cells, calls, limits: Limits, kind: str, deadline: float, phases, phase_of_task):
        self.cells, self.limits, self.kind, self.deadline = cells, limits, kind, deadline
        calls = sorted(calls, key=lambda call: phase_of_task[call[2]])  # phase by phase, as the runner runs them
        self.phases = phases
        self.phase_of = {i: phase_of_task[t] for i, _, t in calls}
        self.specs, self.arrays = wire.encode_calls([(i, c) for i, c, _ in calls])
        for spec in self.specs:
            spec["phase"] = self.phase_of[spec["id"]]
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
        self.runs, self.cpu = 0, 0.0
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
                "site_paths": site_paths(), "rlimits": rlimits(self.limits, self.output_cap + (1 << 20)),
                "cells": [{"index": i, "source": s} for i, s in self.cells if i not in self.skip],
                "skip_cells": sorted(self.skip),
                "calls": [s for s in self.specs if s["id"] in set(self.pending)],
                "phases": [list(names) for names in self.phases]}

    def absorb(self, run: _Run) -> None:
        """Keep what a run sent back."""
        self.runs += 1
        self.cpu += max(run.cpu_seconds, run.reported_cpu)
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
