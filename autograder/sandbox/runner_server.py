"""The verification runner, forked warm: one bubblewrap sandbox per grading worker, one fork per run.

A fresh sandboxed Python per verification run costs its start, numpy and (for every course
notebook) 0.8 s of ``import matplotlib.pyplot``. The worker's *runner sandbox* has the walls of a
fresh runner's (``command._bwrap_command``: uid 65534, no network, only ``/usr``, Python, the
runner files and the job directory, read-only, and a scratch ``/tmp``) and, as its pid 1,
``grading/zygote.py --runner``, which has imported numpy, the real matplotlib (Agg) and pyplot
once. Each run is a fork of it (:class:`RunnerServer`, :mod:`.warm`): in a control group of its
own (``pids``, ``memory_mb``), with the runner's own limits (``RLIMIT_AS``, ``RLIMIT_CPU``, ...
set by ``runner.py`` before it reads the job), and after it the grader kills everything left in
the sandbox and removes what it wrote, and the zygote the System V IPC objects, before the next
fork. The job directory is the sandbox's staged host directory, bound read-only at ``/job``;
the runner's event pipe is a FIFO there, whose read end the grader opened before the fork, and so is the
pipe the runner waits on for the grader (task isolation's phases, :mod:`.runner`), held open by the grader.
"""
from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

from .command import Limits, _bwrap_command, _env, site_paths
from .warm import Held, WarmSandbox, state

JOB = "/job"
ZYGOTE = "/grader/zygote.py"
#: Seconds to wait for the zygote's report of how a run that did not finish ended.
EXIT_SECONDS = 5.0


def server_command(limits: Limits, staged: Path) -> list[str]:
    """The bwrap command line of a worker's runner sandbox, the fork server as its pid 1."""
    env = _env("/tmp")
    inside = [os.path.realpath(sys.executable), "-I", "-S", "-B", ZYGOTE, "--runner", json.dumps(site_paths())]
    return _bwrap_command(staged / "job", limits, env, inside, pid1=True)


class RunnerServer(WarmSandbox):
    """A worker's runner sandbox (see the module docstring)."""

    kind = "verification sandbox"

    def __init__(self, limits: Limits):
        super().__init__(lambda staged: server_command(limits, staged), ("job",), "/grader/runner.py", limits,
                         name="runners")
        self.job_dir = self.staged / "job"
        self.runs = 0

    def start_run(self, group) -> tuple["ForkedRun", int]:
        """Fork one run in ``group``; returns it and the read end of its event pipe (the caller closes it).

        The run's ``control`` is the write end of the pipe it waits on for the grader (closed by :meth:`ForkedRun.finish`).
        """
        self.runs += 1
        request = {"job": JOB, "events": f"{JOB}/events-{self.runs}", "control": f"{JOB}/control-{self.runs}"}
        fifo, control_fifo = self.job_dir / f"events-{self.runs}", self.job_dir / f"control-{self.runs}"
        os.mkfifo(fifo, 0o600)  # the runner (the owner, as the sandbox maps it) writes
        os.mkfifo(control_fifo, 0o600)  # ... and reads this one
        read_fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        # Held until the runner says ready (it has the FIFO open by then): before, the read end would see an end of file.
        hold = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        # Read and write, so that the runner's open for reading never waits and a write never blocks the grader.
        control = os.open(control_fifo, os.O_RDWR | os.O_NONBLOCK)
        try:
            inner, pid = self.fork(request, group)
        except BaseException:
            for fd in (read_fd, hold, control):
                os.close(fd)
            raise
        return ForkedRun(self, inner, pid, hold, control), read_fd

    def exit_of(self, inner: int, timeout: float) -> tuple[int | None, float]:
        """How the run ``inner`` ended, as the zygote reports it: (exit code, CPU seconds); (None, 0) if not told."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.reply(end - time.monotonic())
            except (RuntimeError, ValueError):
                return None, 0.0
            if line.get("exit") == inner:
                return int(line["code"]), float(line.get("cpu", 0.0))
        return None, 0.0


class ForkedRun:
    """One verification run forked in the runner sandbox: what ``launch`` needs of a process."""

    stdout = None  # its output goes nowhere: the grader reads the event pipe only

    def __init__(self, server: RunnerServer, inner: int, pid: int, hold: int, control: int):
        self.server, self.inner, self.pid, self.hold, self.control = server, inner, pid, hold, control

    def on_ready(self) -> None:
        """The runner holds its end of the FIFO: drop the grader's, so that its end of file is the runner's."""
        if self.hold is not None:
            os.close(self.hold)
            self.hold = None

    def exited(self) -> bool:
        return state(self.pid) in (None, "Z", "X")

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def reap(self, done: bool) -> tuple[int | None, float]:
        """Its exit code and CPU seconds (not waited for after a run that finished: nothing to explain)."""
        self.on_ready()
        if done:
            return 0, 0.0
        self.kill()
        return self.server.exit_of(self.inner, EXIT_SECONDS)

    @property
    def server_died(self) -> bool:
        """Whether the fork server itself is gone (then the run's end is the grader's fault, not the notebook's)."""
        return self.server.proc.poll() is not None or state(self.server.pid) in (None, "Z", "X")

    def finish(self) -> None:
        """After its control group is gone: empty the sandbox for the next run (a sandbox that cannot be
        emptied, or whose server is gone, is discarded), and remove the run's FIFO."""
        if servers.sandbox is self.server and (self.server_died or not self.server.clean()):
            servers.discard()
        if self.control is not None:
            os.close(self.control)
            self.control = None
        for pattern in ("events-*", "control-*"):
            for fifo in self.server.job_dir.glob(pattern):
                fifo.unlink(missing_ok=True)


servers = Held(RunnerServer)


def job_dir(limits: Limits) -> Path:
    """This worker's runner sandbox for ``limits`` (started if need be), its job directory emptied."""
    server = servers.get(limits)
    server.empty_staged()
    return server.job_dir

