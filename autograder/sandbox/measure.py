"""The grader's side of a memory measurement: a call bounded from outside the student's process.

A call with ``memory_room`` (06's memory check) never runs with the other calls. It gets a run
(a runner process) and a control group of its own, and the grader, not the runner, decides:

1. The runner (forked from the warm runner sandbox, ``runner_server.py``, or a fresh process in the
   subprocess fallback) loads numpy and the stubs, says ``ready`` and waits. The grader reads what the
   bare process holds (``held`` = anonymous memory + tmpfs of the group, page cache left out),
   then lets it run the notebook's cells.
2. After the cells the runner says ``measure_ready`` and waits again. The grader reads what the
   group holds now: more than ``memory_held`` above the bare process and the check fails
   (memory the notebook holds could be freed inside the call to make room for the table). Else
   it lowers the group's limit to what it holds now plus ``memory_room``; where the kernel
   refuses, the check fails the same way. Only then does it write the call's inputs into the
   job directory (they exist nowhere before: not in ``inputs.npz``, not in ``job.json``) and let
   the runner go on.
3. The answer is judged as usual. The memory verdict comes from the group: a call that went
   beyond the limit was killed by the kernel (``oom_kill`` counted, or the runner died), and
   one that came back under it passed; the runner's own peak figures are never read.

Whatever the student's code does inside its process (stop ``tracemalloc``, reset ``VmHWM``,
write frames itself, work in a thread, a child, a ``setsid`` child, an ``mmap`` or ``/tmp``)
is memory of the group, so it counts. Where no memory controller is writable the call is not
run and fails as ``MeasurementUnavailable`` (the check is withheld with a flag, never passed).
"""
from __future__ import annotations

import dataclasses
import functools
import json
import os
from pathlib import Path

from ..checks.core import Call, Outcome
from . import wire

UNAVAILABLE = ("MeasurementUnavailable: the grader could not bound this call's memory from outside the notebook's "
               "process (no writable memory control group on the grading host)")


#: glibc's malloc raises its mmap threshold as large blocks are freed, and then keeps freed memory in
#: its heap: memory an honest notebook no longer uses would count as held. Fixed thresholds return
#: every large block to the kernel when it is freed (``mallopt`` parameters ``M_TRIM_THRESHOLD`` -1,
#: ``M_MMAP_THRESHOLD`` -3, set by the runner before the notebook runs).
MEASURED_MALLOC = {"-1": 262144, "-3": 131072}


@functools.lru_cache(maxsize=None)
def pages_can_be_owned() -> bool:
    """Whether this host's kernel copies shared pages on request (``madvise(MADV_POPULATE_WRITE)``, Linux 5.14).

    Then a measured run is forked from the warm runner sandbox like every other run, and copies the pages it
    shares with the zygote before the grader reads what it holds (``runner._own_shared_pages``); else it is a
    fresh process, which shares nothing (and imports numpy and pyplot again: 0.5 s of CPU more per 06 submission).
    """
    import ctypes
    import mmap

    madvise = ctypes.CDLL(None, use_errno=True).madvise
    madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    area = mmap.mmap(-1, mmap.PAGESIZE)
    try:
        address = ctypes.addressof(ctypes.c_char.from_buffer(area))  # the view is gone after this line
        return madvise(address, mmap.PAGESIZE, 23) == 0  # MADV_POPULATE_WRITE
    finally:
        area.close()


def is_measured(call: Call) -> bool:
    """Whether ``call`` must run in a measured run of its own (it has a memory room)."""
    return call.memory_room is not None


class MeasuredCall:
    """One measured call: the hooks :class:`~.frames._Run` calls as the runner's frames arrive."""

    def __init__(self, call_id: int, call: Call, job_dir: Path):
        self.call_id, self.call, self.job_dir = call_id, call, job_dir
        self.group = None
        self.control_fd: int | None = None
        self.baseline: int | None = None
        self.held_at_start: int | None = None
        self.limit: int | None = None
        self.oom_before: int | None = None
        self.armed = False
        self.killed = False  # set by the launcher: the runner ended of SIGKILL on its own
        self.oom_after: int | None = None
        self.stop_reason = ""
        self.outcome: Outcome | None = None  # set when the grader itself decides the call's outcome

    def attach(self, group, control_fd: int) -> None:
        """The run's control group and the write end of the pipe the runner waits on."""
        self.group, self.control_fd = group, control_fd

    def _go(self) -> bool:
        """Let the runner go on; False (and why) when nothing in the sandbox reads the pipe any more."""
        try:
            os.write(self.control_fd, b"g")
            return True
        except OSError as exc:
            self.stop_reason = f"the sandbox closed the grader's pipe ({exc.strerror or exc})"
            return False

    def on_ready(self) -> bool:
        """The bare runner (no student code yet): remember what it holds, then let the cells run."""
        self.baseline = self.group.held_bytes()
        return self._go()

    def on_armed(self) -> bool:
        """The cells have run: bound the group, write the inputs, let the call run (False: stop the run)."""
        if self.armed:
            self.stop_reason = "the sandbox asked twice to start the measured call"
            return False
        held = self.group.held_bytes()
        if held is None or self.baseline is None:
            self.outcome = Outcome(error=UNAVAILABLE)
            self.stop_reason = "the memory of the sandbox could not be read"
            return False
        extra = held - self.baseline
        if extra > self.call.memory_held:
            self.outcome = Outcome(error=f"MemoryHeld: the notebook held {extra / 2**20:.1f} MiB when "
                                         f"`{self.call.name}` was called (at most "
                                         f"{self.call.memory_held / 2**20:.0f} MiB is allowed)")
            self.stop_reason = "the notebook held too much memory before the measured call"
            return False
        if not self.group.limit_memory(held + self.call.memory_room):
            # What the kernel cannot reclaim beyond anonymous memory and tmpfs (socket or pipe buffers the
            # notebook filled: red team 3) is memory held too; the figure above would not show it.
            self.outcome = Outcome(error=f"MemoryHeld: when `{self.call.name}` was called, the notebook held memory "
                                         f"the grader could not bound to {self.call.memory_room / 2**20:.0f} MiB of "
                                         f"room (buffers of sockets or pipes it keeps full count too)")
            self.stop_reason = "the notebook held memory the kernel could not reclaim before the measured call"
            return False
        self.held_at_start, self.limit = held, held + self.call.memory_room
        self.oom_before = self.group.oom_kills()
        self.group.reset_peak()
        specs, arrays = wire.encode_calls([(self.call_id, dataclasses.replace(self.call, measure_peak=False))])
        (self.job_dir / "measured.npz").write_bytes(wire.savez_bytes(arrays))
        (self.job_dir / "measured.json").write_text(json.dumps(specs[0]))
        self.armed = True
        return self._go()

    def on_outcome(self, outcome: Outcome) -> None:
        """The answer came back: judge its memory from the group (the runner's figures are discarded)."""
        outcome.peak_bytes = outcome.peak_resident_bytes = None
        if self._killed_for_memory():
            self.outcome = Outcome(error=self._limit_error("a process of the notebook was killed"))
            return
        peak = self.group.peak_bytes()
        outcome.peak_bytes = max(0, peak - self.held_at_start) if peak is not None else None
        outcome.memory_limit_bytes = self.call.memory_room

    def collect(self, killed: bool) -> None:
        """The run has ended (its group not yet removed): read the kernel's count of kills for memory."""
        self.killed = killed
        if self.group is not None and self.oom_before is not None:
            self.oom_after = self.group.oom_kills()

    def _killed_for_memory(self) -> bool:
        """The kernel's count of kills for memory rose since the limit was set (or, where it keeps no
        count, the runner died of SIGKILL while it ran the call: nothing else of the grader kills it then)."""
        after = self.oom_after if self.oom_after is not None else (
            self.group.oom_kills() if self.group is not None and self.group.dirs else None)
        if after is None or self.oom_before is None:
            return self.killed
        return after > self.oom_before

    def _limit_error(self, what: str) -> str:
        return (f"MemoryLimit: {what} when `{self.call.name}` went beyond "
                f"{self.call.memory_room / 2**20:.0f} MiB more than the notebook held when it was called")

    def finish(self, outcome: Outcome | None) -> Outcome:
        """The call's outcome once the run has ended (``outcome``: what the run recorded for it, if anything)."""
        if self.outcome is not None:
            return self.outcome
        if self.armed and (outcome is None or outcome.error) and self._killed_for_memory():
            return Outcome(error=self._limit_error("the process running it was killed"))
        if outcome is None:
            return Outcome(error="NotRun: the measured call did not run")
        if self.armed and outcome.error is None and outcome.memory_limit_bytes is None:
            return Outcome(error="NotRun: the measured call's answer arrived outside the measurement")
        return outcome
