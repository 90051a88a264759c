"""Where a grading job's time goes: kernel start-up/shutdown, cell execution, the rest.

``TimedExecute`` is nbgrader's ``Execute`` preprocessor with three time marks; it is what the
grading jobs register in place of ``Execute`` (same behaviour, same configuration section).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import nbformat

from nbclient.util import run_sync
from nbgrader.preprocessors import Execute
from traitlets import Enum, Integer


class _Clock:
    def __init__(self):
        self.marks: dict[str, float] = {}
        self.kernel_pgid: int | None = None  # the running kernel's process group (for the watchdog)
        self.expired = False

    def reset(self) -> None:
        self.marks = {"begin": time.perf_counter()}
        self.kernel_pgid = None
        self.expired = False

    def kill_kernel(self) -> None:
        """The submission's time is up: kill its kernel now, or as soon as it has started."""
        self.expired = True
        # Kernels have their own process group (jupyter_client starts a new session, a kernel
        # forked in the sandbox calls setsid), so this never reaches the worker.
        if self.kernel_pgid and self.kernel_pgid != os.getpgrp():
            try:
                os.killpg(self.kernel_pgid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def mark(self, name: str) -> None:
        self.marks[name] = time.perf_counter()

    def split(self) -> dict[str, float]:
        """Seconds spent in kernel start+shutdown, cell execution, and nbgrader bookkeeping."""
        m, now = self.marks, time.perf_counter()
        if not {"exec_start", "ready", "exec_end"} <= m.keys():
            return {"kernel": 0.0, "execute": 0.0, "bookkeeping": now - m.get("begin", now)}
        cells = m.get("cells_done", m["ready"])
        kernel = (m["ready"] - m["exec_start"]) + (m["exec_end"] - cells)
        execute = cells - m["ready"]
        return {"kernel": kernel, "execute": execute, "bookkeeping": now - m["begin"] - kernel - execute}


#: The clock of the job running in this process (jobs run one at a time per process).
clock = _Clock()


class TimedExecute(Execute):
    """nbgrader's Execute, marking when the kernel is ready and when the last cell is done.

    It also stops the kernel at once when the last cell is done instead of nbgrader's graceful
    shutdown (which waits for the kernel to wind down): every output has been collected by
    then, so the grade cannot change, and the worker saves 0.2-0.4 s per submission.
    """

    shutdown_kernel = Enum(["graceful", "immediate"], default_value="immediate").tag(config=True)
    kernel_start_attempts = Integer(3, help="tries to start a kernel that dies or hangs before it is ready "
                                            "(before any cell runs, so never the submission's doing)").tag(config=True)

    kernel_output_bytes = Integer(8_000_000, help="cell output kept per notebook; the rest is dropped, so a "
                                                  "submission that prints without end cannot exhaust the "
                                                  "grader's memory").tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        """Execute the notebook (see nbgrader's Execute) and record time marks."""
        self._output_kept, self._output_dropped = 0, False
        self.on_notebook_start = lambda **_: clock.mark("ready")
        clock.mark("exec_start")
        try:
            return super().preprocess(nb, resources, km)
        finally:
            self._close_watch()
            clock.mark("exec_end")

    async def async_start_new_kernel(self, **kwargs):
        """Start the kernel with its process-level stdout and stderr discarded.

        Cell output travels over ZMQ and is unaffected; what goes is the kernel's own start-up
        chatter ("running over TCP without encryption"), which would garble the progress bar.
        """
        kwargs.setdefault("stdout", subprocess.DEVNULL)
        kwargs.setdefault("stderr", subprocess.DEVNULL)
        self._kernel_kwargs = kwargs
        await super().async_start_new_kernel(**kwargs)
        provisioner = getattr(self.km, "provisioner", None)
        clock.kernel_pgid = getattr(provisioner, "pgid", None) or getattr(provisioner, "pid", None)
        if clock.expired:
            clock.kill_kernel()

    # nbclient binds the sync wrapper to its own coroutine: rebind it to ours.
    start_new_kernel = run_sync(async_start_new_kernel)

    async def async_start_new_kernel_client(self):
        """Connect to the kernel and wait until it is ready, starting a new one if it died first.

        Kernels started side by side can race for the same free ZMQ port ("Address already in
        use", then "Kernel died before replying to kernel_info": field notes). No cell has run
        yet, so the submission cannot be the cause: a grading run must not fail it for that.
        nbclient has already cleaned up the dead kernel when the error reaches here.
        """
        for attempt in range(1, self.kernel_start_attempts + 1):
            try:
                client = await super().async_start_new_kernel_client()
                self._watch_output(client)
                return client
            except Exception as exc:
                if attempt == self.kernel_start_attempts or clock.expired:
                    raise
                self.log.warning("kernel did not start (%s: %s); starting another (try %d of %d)",
                                 type(exc).__name__, exc, attempt + 1, self.kernel_start_attempts)
            self.km = self.create_kernel_manager()  # nbclient shut the dead one down
            await self.async_start_new_kernel(**self._kernel_kwargs)

    start_new_kernel_client = run_sync(async_start_new_kernel_client)

    def _watch_output(self, client) -> None:
        """Watch the connection to the kernel's output (IOPub) for a drop (see :meth:`_output_lost`)."""
        import zmq

        self._close_watch()
        monitor = client.iopub_channel.socket.get_monitor_socket(zmq.EVENT_DISCONNECTED)
        # a plain socket on the same one: polled between cells, outside nbclient's event loop
        self._watch = (client.iopub_channel.socket, monitor, zmq.Socket.shadow(monitor.underlying))

    def _close_watch(self) -> None:
        socket, monitor, _ = getattr(self, "_watch", None) or (None, None, None)
        self._watch = None
        if monitor is not None:
            try:
                socket.disable_monitor()
            except Exception:  # noqa: BLE001 - the client already closed its socket
                pass
            monitor.close(linger=0)

    def _output_lost(self) -> bool:
        """Whether ZeroMQ dropped the connection to the kernel's output since the kernel was ready.

        It does when a message would take more memory than the worker may use (grading.worker_memory_mb,
        :func:`.executors.bound_memory`): its receiving thread's allocation fails, and the message goes,
        with whatever the kernel sends until it reconnects. nbgrader would then score cells whose
        outputs never arrived (an error output lost is a test passed), so the cell fails as the grader's.
        """
        watch = getattr(self, "_watch", None)
        if not watch or not watch[2].poll(0):
            return False
        # a kernel that died (its CPU limit, its own exit) drops the connection too: that is not this
        return bool(run_sync(self._kernel_alive)())

    async def _kernel_alive(self) -> bool:
        from jupyter_core.utils import ensure_async

        return await ensure_async(self.km.is_alive())

    def output(self, outs, msg, display_id, cell_index):
        """Keep an output while the notebook's outputs stay under ``kernel_output_bytes`` (see nbclient)."""
        size = len(json.dumps(msg.get("content", {}), default=str))
        if self._output_kept + size > self.kernel_output_bytes:
            self._drop(outs)
            return None
        self._output_kept += size
        return super().output(outs, msg, display_id, cell_index)

    def _drop(self, outs) -> None:
        """The output is over the cap: the first time, say so in the notebook (grading/explain.py flags it)."""
        if not self._output_dropped and outs is not None:
            outs.append(nbformat.v4.new_output(
                "stream", name="stdout",
                text=f"[the grader dropped the rest of this notebook's output: over {self.kernel_output_bytes:,} "
                     f"bytes]\n"))
        self._output_dropped = self._output_dropped or outs is not None

    def _update_display_id(self, display_id, msg):
        """An update rewrites every earlier output with its id: count it once per output it rewrites.

        (nbclient applies it before :meth:`output` sees the message: the red team's 100 tiny
        outputs updated with 4 MB each made a 400 MB notebook under an 8 MB cap.)
        """
        rewritten = sum(len(indices) for indices in self._display_id_map.get(display_id, {}).values())
        size = len(json.dumps(msg.get("content", {}), default=str)) * max(1, rewritten)
        if self._output_kept + size > self.kernel_output_bytes:
            cells = [i for i in self._display_id_map.get(display_id, {}) if i < len(self.nb.cells)]
            self._drop(self.nb.cells[cells[0]].outputs if cells else None)
            return None
        self._output_kept += size
        return super()._update_display_id(display_id, msg)

    def preprocess_cell(self, cell, resources, index):
        """Execute one cell (see nbclient) and record when it finished.

        Whatever goes wrong while the student's code runs in a ready kernel is the student's
        (:class:`StudentKernelError`): the kernel is theirs, and it can forge or mangle the
        messages nbclient reads (a status without a state, a reply without ``ename``) or ignore the
        interrupt of the cell timeout, which nbclient reports as an error of its own. Left
        unclassified, such a notebook passed for a grader fault: retried, never recorded (red
        team 3). Three cases stay as they are, for the watchdog and :mod:`.faults` to classify:
        the host running out of a resource, a kernel that died, and the kernel's last messages
        arriving late after it had replied to a cell that did not time out (nbclient's "Timeout
        waiting for IOPub output"), which a loaded host explains as well as the student's code:
        it is retried as the grader's, and reported, never recorded as the student's failure.
        """
        self._cell_timed_out = False
        try:
            result = super().preprocess_cell(cell, resources, index)
        except Exception as exc:
            from nbclient.exceptions import CellTimeoutError, DeadKernelError

            from .faults import of_host
            if isinstance(exc, DeadKernelError) or of_host(exc) is not None or clock.expired:
                raise
            if isinstance(exc, CellTimeoutError) and not self._cell_timed_out:
                if self._output_lost():  # why the IOPub messages never came
                    raise OutputLost(index) from exc
                raise
            raise StudentKernelError(index, self.timeout, exc) from exc
        finally:
            clock.mark("cells_done")
        if self._output_lost():
            raise OutputLost(index)
        return result

    async def _async_handle_timeout(self, timeout, cell=None):
        """The cell ran past its time: noted, since a kernel that then ignores the interrupt is the student's."""
        self._cell_timed_out = True
        return await super()._async_handle_timeout(timeout, cell)


class OutputLost(MemoryError):
    """The kernel's output stopped arriving while cell ``index`` ran: a message beyond the worker's memory bound."""

    def __init__(self, index: int):
        self.index = index
        super().__init__(f"the kernel's output was lost while notebook cell {index} ran: it sent more than a "
                         f"grading worker may hold (grading.worker_memory_mb), or the host ran short of memory")


class StudentKernelError(RuntimeError):
    """The student's kernel, while it ran cell ``index``, did something nbclient could not follow."""

    def __init__(self, index: int, timeout: int | None, exc: BaseException):
        self.index, self.timeout = index, timeout
        detail = f"{type(exc).__name__}: {exc}".strip().rstrip(":")
        super().__init__(f"cell {index}: {detail}")


class TimedSandboxExecute(TimedExecute):
    """TimedExecute whose kernel runs in bubblewrap (see :mod:`autograder.sandbox.kernel`).

    Its ``kernel_manager_class`` is bound to the course's sandbox limits by :func:`sandboxed_execute`.
    """


def sandboxed_execute(limits, kit=None) -> type[TimedSandboxExecute]:
    """A TimedSandboxExecute whose kernels get ``limits`` (``course.yml`` ``grading.sandbox``) and the
    student kit in directory ``kit`` (None: the whole grader, see :func:`autograder.sandbox.kernel.server_command`)."""
    from ..sandbox.kernel import manager_class

    manager = manager_class(limits, None if kit is None else str(kit))

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("kernel_manager_class", manager)
        TimedSandboxExecute.__init__(self, *args, **kwargs)

    return type("TimedSandboxExecute", (TimedSandboxExecute,), {"__init__": __init__})
