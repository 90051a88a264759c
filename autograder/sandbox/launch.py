"""Start the sandbox runner, watch it, enforce the limits, and restart it past a cell or task that hangs or kills it.

Two kinds of sandbox (``sandbox_kind()``):

* ``"bubblewrap"`` (preferred, Debian's ``bwrap``): new user, mount, pid, network, ipc, uts and
  cgroup namespaces; the process runs as uid 65534 with no capabilities, in a new session, dies
  with the grader; the only paths that exist are ``/usr``, the Python installation and the
  virtual environment (read-only), the runner files and the notebook's job directory (read-only)
  and an empty, size-limited ``/tmp`` (its working directory). No course directory, solutions,
  gradebook, home directory or network.
* ``"subprocess"`` (fallback when ``bwrap`` is missing or does not work): an isolated
  interpreter (``python -I -S``, explicit ``sys.path``), a scrubbed environment, a fresh
  temporary working directory, a new session (its whole process group is killed), and the same
  resource limits; it runs as ``nobody`` when the grader is root and the interpreter is readable
  by ``nobody``, as the grader's user otherwise. The file system is *not* hidden.

Both: ``RLIMIT_CPU``, ``RLIMIT_AS``, ``RLIMIT_FSIZE``, no core files, a wall clock per cell and
per call (``Limits.cell_seconds``) and per submission (``Limits.wall_seconds``), and a cap on the
bytes sent back. ``AUTOGRADER_SANDBOX=bubblewrap|subprocess`` forces a kind.
"""
from __future__ import annotations

import functools
import json
import os
import selectors
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from ..checks.core import Call, Outcome
from ..config import SandboxLimits
from . import cgroup, wire
from .given import write_given_package

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "runner.py"
CORE = HERE.parent / "checks" / "core.py"
STANDIN = HERE / "mpl_standin.py"
STARTUP_SECONDS = 60.0
KEEP_STDOUT = 64 * 1024
NOBODY = 65534
SANDBOX_ENV = "AUTOGRADER_SANDBOX"


#: Resource limits of one sandbox: ``course.yml``'s ``grading.sandbox``, one schema for all.
Limits = SandboxLimits


class SandboxError(RuntimeError):
    """The sandbox itself could not run (a grader problem, never the submission's)."""


# ---------------------------------------------------------------- the sandbox command
def _probe_bwrap(bwrap: str) -> bool:
    try:
        done = subprocess.run([bwrap, "--unshare-all", "--die-with-parent", "--cap-drop", "ALL",
                               *_system_binds(), "--proc", "/proc", "--dev", "/dev", "true"],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


@functools.lru_cache(maxsize=None)
def _detect() -> str:
    bwrap = shutil.which("bwrap")
    return "bubblewrap" if bwrap and _probe_bwrap(bwrap) else "subprocess"


def sandbox_kind() -> str:
    """``"bubblewrap"`` when ``bwrap`` works here, else ``"subprocess"`` (``AUTOGRADER_SANDBOX`` forces one)."""
    forced = os.environ.get(SANDBOX_ENV)
    if forced:
        if forced not in ("bubblewrap", "subprocess"):
            raise ValueError(f"{SANDBOX_ENV} must be 'bubblewrap' or 'subprocess', not {forced!r}")
        if forced == "bubblewrap" and _detect() != "bubblewrap":
            raise SandboxError("AUTOGRADER_SANDBOX=bubblewrap but bwrap is not installed or does not work here")
        return forced
    return _detect()


def _system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    return args


def site_paths() -> list[str]:
    """The directories numpy (and whatever else the submission's imports need) is found in."""
    numpy_site = str(Path(np.__file__).resolve().parent.parent)
    paths = [p for p in site.getsitepackages() if os.path.isdir(p)]
    return paths if numpy_site in paths else [numpy_site, *paths]


def _python_roots() -> list[str]:
    roots = []
    for p in (sys.base_prefix, sys.prefix, *site_paths()):
        p = os.path.realpath(p)
        if p.startswith("/usr/") or any(p == r or p.startswith(r + "/") for r in roots):
            continue
        roots = [r for r in roots if not r.startswith(p + "/")] + [p]
    return roots


def _bwrap_command(job_dir: Path, fd: int, limits: Limits, env: dict) -> list[str]:
    cmd = [shutil.which("bwrap"), "--unshare-all", "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY),
           "--die-with-parent", "--new-session", "--cap-drop", "ALL", *_system_binds(),
           # The scratch /tmp comes first: a checkout or virtual environment that lives under
           # /tmp (a CI clone) is bound on top of it below instead of being hidden by it.
           "--size", str(_scratch_bytes(limits)), "--tmpfs", "/tmp"]
    for root in _python_roots():
        cmd += ["--ro-bind", root, root]
    cmd += ["--ro-bind", str(RUNNER), "/grader/runner.py", "--ro-bind", str(CORE), "/grader/core.py",
            "--ro-bind", str(STANDIN), "/grader/mpl_standin.py", "--ro-bind", str(job_dir), "/job"]
    cmd += ["--proc", "/proc", "--dev", "/dev", "--chdir", "/tmp", "--clearenv"]
    for cache in _font_caches():
        cmd += ["--ro-bind", str(cache), f"{env['MPLCONFIGDIR']}/{cache.name}"]
    for key, value in env.items():
        cmd += ["--setenv", key, value]
    return cmd + [os.path.realpath(sys.executable), "-I", "-S", "-B", "/grader/runner.py", "/job", str(fd)]


def _font_caches() -> list[Path]:
    """matplotlib's font list(s) of the grader's user, so a sandboxed ``import matplotlib`` need not rebuild it.

    Found without importing matplotlib: ``$MPLCONFIGDIR``, else ``$XDG_CACHE_HOME/matplotlib`` or
    ``~/.cache/matplotlib``. Only ``fontlist-v*.json`` files are shared (read-only under bwrap).
    """
    if os.environ.get("MPLCONFIGDIR"):
        base = Path(os.environ["MPLCONFIGDIR"])
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "matplotlib"
    try:
        return sorted(p for p in base.glob("fontlist-v*.json") if p.is_file() and p.stat().st_size < 16 << 20)
    except OSError:
        return []


def _scratch_bytes(limits: Limits) -> int:
    return max(16 << 20, min(256 << 20, limits.memory_mb << 18))


def _world_usable(path: str) -> bool:
    """Whether uid nobody could read ``path`` (every ancestor searchable by others)."""
    p = Path(path).resolve()
    for part in [p, *p.parents]:
        try:
            mode = part.stat().st_mode
        except OSError:
            return False
        if part != p and not mode & 0o001:
            return False
    return bool(p.stat().st_mode & 0o004)


def _drop_to_nobody_possible() -> bool:
    return os.geteuid() == 0 and all(_world_usable(p) for p in
                                     (sys.executable, str(RUNNER), str(CORE), *site_paths(), sys.base_prefix))


def _env(scratch: str) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "HOME": scratch, "TMPDIR": scratch, "LANG": "C.UTF-8",
            "MPLBACKEND": "Agg", "MPLCONFIGDIR": os.path.join(scratch, ".matplotlib"),
            "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}


def rlimits(limits: Limits, output_cap: int) -> dict[str, tuple[int, int]]:
    """The resource limits the runner sets on itself before it reads the submission.

    Set inside the runner rather than in a ``preexec_fn`` (unsafe in a threaded grader). Under
    bubblewrap the process has no capabilities, so it cannot raise them again.
    """
    cpu = max(1, int(round(limits.cpu_seconds)))
    memory = int(limits.memory_mb) << 20
    return {"RLIMIT_CPU": (cpu, cpu + 1), "RLIMIT_AS": (memory, memory),
            "RLIMIT_FSIZE": (output_cap, output_cap), "RLIMIT_CORE": (0, 0)}


# ---------------------------------------------------------------- one run of the runner
@dataclass
class _Run:
    """The state of one sandbox process as its frames arrive."""

    pending: list[int]
    cell_indices: set[int]
    calls: Mapping[int, Call]
    output_cap: int
    outcomes: dict[int, Outcome] = field(default_factory=dict)
    cell_errors: dict[int, str] = field(default_factory=dict)
    where: tuple = ("start", None)  # ("start"|"between"|"cell"|"call"|"done", index or id)
    ready: bool = False
    received: int = 0
    runner_error: str | None = None
    protocol_error: str | None = None
    cpu_seconds: float = 0.0
    reported_cpu: float = 0.0  # what the runner says it used (timing reports only; not trusted for anything)
    standin_suspect: bool = False  # a cell failed after using the matplotlib stand-in, or a call used it

    def frame(self, header: Any, blob: bytes) -> bool:
        """Handle one frame; False when the run must be stopped (protocol violation)."""
        event = header.get("event") if isinstance(header, dict) else None
        if event == "ready" and not self.ready:
            self.ready, self.where = True, ("between", None)
        elif event == "runner_error":
            self.runner_error = str(header.get("error"))[:2000]
            return False
        elif not self.ready:
            self.protocol_error = "the sandbox sent data before it was ready"
            return False
        elif event == "cell" and header.get("index") in self.cell_indices and self.where[0] == "between":
            self.where = ("cell", header["index"])
        elif event == "cell_end" and self.where == ("cell", header.get("index")):
            error = header.get("error")
            if error is not None:
                self.cell_errors[self.where[1]] = str(error)[:1000]
                self.standin_suspect |= header.get("standin") is not False
            self.where = ("between", None)
        elif event == "call" and header.get("id") in self.pending and self.where[0] == "between":
            self.where = ("call", header["id"])
        elif event == "outcome" and self.where == ("call", header.get("id")):
            call_id = header["id"]
            try:
                self.outcomes[call_id] = wire.decode_outcome(header, blob, self.calls[call_id], self.output_cap)
            except wire.WireError as exc:
                self.outcomes[call_id] = Outcome(error=f"InvalidAnswer: {exc}")
            self.pending.remove(call_id)
            self.standin_suspect |= header.get("standin") is not False
            self.where = ("between", None)
        elif event == "done" and self.where[0] == "between":
            self.where = ("done", None)
            reported = header.get("cpu_seconds")
            self.reported_cpu = float(reported) if type(reported) in (int, float) and 0 <= reported < 1e6 else 0.0
        else:
            self.protocol_error = f"the sandbox sent an unexpected message ({str(event)[:40]!r})"
            return False
        return True


def _read_frames(buffer: bytearray, run: _Run) -> bool:
    while True:
        if len(buffer) < 8:
            return True
        n = int.from_bytes(buffer[:8], "big")
        if n > run.output_cap + (1 << 20):
            run.protocol_error = "the sandbox sent more data than the output limit allows"
            return False
        if len(buffer) < 16 + n:
            return True
        m = int.from_bytes(buffer[8 + n:16 + n], "big")
        if m > run.output_cap:
            run.protocol_error = "the answer sent back is larger than the output limit"
            return False
        if len(buffer) < 16 + n + m:
            return True
        try:
            header = json.loads(bytes(buffer[8:8 + n]))
        except (ValueError, RecursionError):
            run.protocol_error = "the sandbox sent malformed data"
            return False
        blob = bytes(buffer[16 + n:16 + n + m])
        del buffer[:16 + n + m]
        if not run.frame(header, blob):
            return False


def _describe_exit(returncode: int | None, kind: str, limits: Limits) -> str:
    if returncode is None:
        return "it was stopped"
    sig = -returncode if returncode < 0 else (returncode - 128 if kind == "bubblewrap" and returncode > 128 else None)
    if sig is None:
        return f"it exited with status {returncode} (os._exit, sys.exit in a thread, or a crash)"
    name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else f"signal {sig}"
    reasons = {"SIGKILL": f"it was killed (SIGKILL; most often memory beyond the limit of {limits.memory_mb} MB)",
               "SIGXCPU": f"it used more than its CPU-time limit of {limits.cpu_seconds:g} s",
               "SIGSEGV": "it crashed (SIGSEGV, a segmentation fault)",
               "SIGXFSZ": "it wrote a file larger than the output limit",
               "SIGABRT": "it aborted (SIGABRT)"}
    return reasons.get(name, f"it was stopped by {name}")


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
    (protocol violation, killed) or ``exited`` (the process ended before ``done``).
    """
    read_fd, write_fd = os.pipe()
    scratch = tempfile.mkdtemp(prefix="scratch-", dir=job_dir.parent) if kind == "subprocess" else "/tmp"
    env = _env(scratch)
    try:
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
        group = cgroup.Group(pids=limits.pids, memory_bytes=int(limits.memory_mb) << 20)
        cmd = group.wrap(cmd)
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                pass_fds=(write_fd,), env=env if kind == "subprocess" else {"PATH": "/usr/bin:/bin"},
                                cwd=scratch if kind == "subprocess" else None, start_new_session=True, **identity)
    except BaseException:
        os.close(read_fd)
        if "group" in locals():
            group.close()
        if kind == "subprocess":
            shutil.rmtree(scratch, ignore_errors=True)
        raise
    finally:
        os.close(write_fd)
    selector = selectors.DefaultSelector()
    selector.register(read_fd, selectors.EVENT_READ)
    selector.register(proc.stdout.fileno(), selectors.EVENT_READ)
    buffer, kept = bytearray(), bytearray()
    step_deadline = time.monotonic() + STARTUP_SECONDS
    last_where = run.where
    ended, exited_at = None, None
    try:
        while ended is None:
            now = time.monotonic()
            if run.where != last_where:
                last_where, step_deadline = run.where, now + limits.cell_seconds
            if run.where[0] == "done":
                ended = "done"
                break
            if now >= deadline:
                ended = "wall"
                break
            if now >= step_deadline:
                ended = "timeout"
                break
            if not selector.get_map():
                if _exited(proc):
                    ended = "exited"
                    break
                time.sleep(0.02)
                continue
            for key, _ in selector.select(min(deadline, step_deadline, now + 0.5) - now):
                data = os.read(key.fd, 1 << 16)
                if not data:
                    selector.unregister(key.fd)
                    continue
                if key.fd == read_fd:
                    run.received += len(data)
                    buffer += data
                    if not _read_frames(buffer, run):
                        ended = "stopped"
                        break
                elif len(kept) < KEEP_STDOUT:
                    kept += data[:KEEP_STDOUT - len(kept)]
            if ended is None and _exited(proc):
                # A process the submission forked may still hold the pipes open: give what is in
                # flight half a second, then stop waiting for it.
                exited_at = exited_at or time.monotonic()
                if not selector.get_map() or time.monotonic() - exited_at > 0.5:
                    ended = "done" if run.where[0] == "done" else "exited"
    finally:
        if ended != "done" or not _exited(proc):
            _kill(proc, kind)
        returncode, run.cpu_seconds = _reap(proc)
        group.close()  # whatever the submission left running, in any session or process group
        if kind == "subprocess":
            _kill(proc, kind)  # whatever the submission left running in its process group
            shutil.rmtree(scratch, ignore_errors=True)
        selector.close()
        os.close(read_fd)
        proc.stdout.close()
    return ended, returncode, kept.decode("utf-8", "replace")


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


def run_session(cells: Sequence[tuple[int, str]], calls: Sequence[tuple[int, Call, str]], *,
                given: Sequence[str], graded: Sequence[str], assignment: str, limits: Limits,
                kind: str | None = None, trusted: bool = False) -> SessionResult:
    """Run ``cells`` then ``calls`` (``(id, Call, task)``) in the sandbox, restarting past what hangs or kills it.

    A cell that does not finish within ``cell_seconds`` or that kills the process is recorded and
    skipped in the next run; a call that does the same fails, as does every other call of its task
    (not run); the other tasks get a fresh process. Whatever is left when ``wall_seconds`` are up
    fails. Nothing that did not run is ever a pass.

    With ``limits.matplotlib == "stand-in"`` the notebook first runs against the matplotlib
    stand-in (``mpl_standin.py``); if a cell failed after using it, or a graded call used it at
    all, everything runs again with the real matplotlib and only that second session counts.
    """
    kind = kind or sandbox_kind()
    start = time.monotonic()
    args = (cells, calls, given, graded, assignment, limits, kind, start, trusted)
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


def _session(cells, calls, given, graded, assignment, limits, kind, start, trusted, *, standin: bool
             ) -> tuple[SessionResult, bool]:
    """One verification session (see :func:`run_session`); also whether the stand-in is suspect."""
    deadline = start + limits.wall_seconds
    suspect = False
    drop = _drop_to_nobody_possible()
    if kind == "subprocess" and os.geteuid() == 0 and not drop and not trusted:
        raise SandboxError("the subprocess sandbox would run student code as root (uid nobody cannot read the "
                           f"Python installation at {sys.base_prefix} or the virtual environment): install "
                           "bubblewrap, or grade as an unprivileged user")
    specs, arrays = wire.encode_calls([(i, c) for i, c, _ in calls])
    by_id = {i: c for i, c, _ in calls}
    task_of = {i: t for i, _, t in calls}
    input_bytes = sum(a.nbytes for a in arrays.values())
    output_cap = int(limits.output_bytes) + 2 * input_bytes
    outcomes: dict[int, Outcome] = {}
    cell_errors: dict[int, str] = {}
    notes: list[str] = []
    pending = [i for i, _, _ in calls]
    skip: set[int] = set()
    runs, cpu = 0, 0.0
    max_runs = 2 + len(cells) + len(set(task_of.values()))
    base = tempfile.mkdtemp(prefix="autograder-verify-")
    try:
        job_dir = Path(base) / "job"
        job_dir.mkdir()
        (job_dir / "inputs.npz").write_bytes(wire.savez_bytes(arrays))
        write_given_package(job_dir / "given", assignment, given, graded)
        cell_indices = {i for i, _ in cells}
        while pending or runs == 0:
            if runs >= max_runs or time.monotonic() >= deadline:
                why = (f"the submission used up its wall-clock limit of {limits.wall_seconds:g} s"
                       if time.monotonic() >= deadline else "the notebook stopped the sandbox too many times")
                for i in pending:
                    outcomes[i] = Outcome(error=f"NotRun: not run: {why}")
                notes.append(why)
                break
            job = {"assignment": assignment, "given": list(given), "graded": list(graded),
                   "core_path": "/grader/core.py" if kind == "bubblewrap" else str(CORE),
                   "standin_path": (("/grader/mpl_standin.py" if kind == "bubblewrap" else str(STANDIN))
                                    if standin else None),
                   "site_paths": site_paths(), "rlimits": rlimits(limits, output_cap + (1 << 20)),
                   "cells": [{"index": i, "source": s} for i, s in cells if i not in skip],
                   "skip_cells": sorted(skip),
                   "calls": [s for s in specs if s["id"] in set(pending)]}
            (job_dir / "job.json").write_text(json.dumps(job))
            os.chmod(base, 0o755)
            run = _Run(pending=list(pending), cell_indices=cell_indices - skip, calls=by_id, output_cap=output_cap)
            ended, returncode, output = _run_once(kind, job_dir, limits, run, deadline, drop)
            runs += 1
            cpu += max(run.cpu_seconds, run.reported_cpu)
            suspect |= run.standin_suspect
            outcomes.update(run.outcomes)
            for index, error in run.cell_errors.items():
                cell_errors.setdefault(index, error)
            pending = run.pending
            if not run.ready and ended == "wall" and runs > 1:
                continue  # a restart after a hang used up the submission's wall clock: fail what is left
            if not run.ready:
                detail = run.runner_error or run.protocol_error or output.strip()[-2000:] or \
                    _describe_exit(returncode, kind, limits)
                raise SandboxError(f"the verification sandbox ({kind}) could not start: {detail}")
            if ended == "done":
                continue
            where, what = run.where
            if ended == "wall":
                continue  # the loop's head fails what is left
            if ended == "timeout":
                reason = f"it did not finish within {limits.cell_seconds:g} s"
            elif ended == "stopped":
                reason = run.protocol_error or "it was stopped"
            else:
                reason = run.runner_error or _describe_exit(returncode, kind, limits)
            label = {"timeout": "TimeoutError", "stopped": "Stopped"}.get(ended, "ProcessDied")
            if where == "cell":
                skip.add(what)
                cell_errors[what] = f"{label}: the cell was stopped: {reason}; verification ran the other " \
                                    f"cells without it"
                notes.append(f"cell {what}: {reason}")
            elif where == "call":
                call = by_id[what]
                outcomes[what] = Outcome(error=f"{label}: {reason}")
                pending.remove(what)
                task = task_of[what]
                for other in [i for i in pending if task_of[i] == task]:
                    outcomes[other] = Outcome(error=f"NotRun: not run because `{call.name}` stopped on an earlier "
                                                    f"input ({reason})")
                    pending.remove(other)
                notes.append(f"{call.describe()}: {reason}")
            else:  # between steps: nothing to blame, so nothing left can run
                for i in pending:
                    outcomes[i] = Outcome(error=f"NotRun: the process running the notebook stopped ({reason})")
                notes.append(f"the sandbox stopped between steps: {reason}")
                pending = []
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return (SessionResult(outcomes, cell_errors, notes, runs, time.monotonic() - start, kind, cpu,
                          "stand-in" if standin else "real"), suspect)
