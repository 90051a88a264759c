"""The runner's frames as they arrive: the state of one sandbox process, and the protocol's rules.

Nothing the runner sends is trusted: a frame out of order, too large or malformed stops the run
(``protocol_error``), and each answer is decoded and validated by :mod:`.wire`.
"""
from __future__ import annotations

import json
import signal
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..checks.core import Call, Outcome
from . import wire
from .command import Limits

@dataclass
class _Run:
    """The state of one sandbox process as its frames arrive."""

    pending: list[int]
    cell_indices: set[int]
    calls: Mapping[int, Call]
    output_cap: int
    outcomes: dict[int, Outcome] = field(default_factory=dict)
    cell_errors: dict[int, str] = field(default_factory=dict)
    refused: dict[int, list[str]] = field(default_factory=dict)  # cell index -> names the cell was refused
    where: tuple = ("start", None)  # ("start"|"between"|"cell"|"call"|"done", index or id)
    ready: bool = False
    received: int = 0
    runner_error: str | None = None
    protocol_error: str | None = None
    cpu_seconds: float = 0.0
    reported_cpu: float = 0.0  # what the runner says it used (timing reports only; not trusted for anything)
    measure: Any = None  # the grader's side of a measured run (``measure.MeasuredCall``), None otherwise
    # task isolation (runner._reference_helpers): each call's phase, the phase now running, and what gives a
    # phase its helpers (``launch.PhaseGate``; None: every call is of phase 0)
    phase_of: Mapping[int, int] = field(default_factory=dict)
    phase: int = 0
    gate: Any = None

    def frame(self, header: Any, blob: bytes) -> bool:
        """Handle one frame; False when the run must be stopped (protocol violation)."""
        event = header.get("event") if isinstance(header, dict) else None
        if event == "ready" and not self.ready:
            self.ready, self.where = True, ("between", None)
            if self.measure is not None and not self.measure.on_ready():
                self.protocol_error = self.measure.stop_reason
                return False
        elif event == "runner_error":
            self.runner_error = str(header.get("error"))[:2000]
            return False
        elif not self.ready:
            self.protocol_error = "the sandbox sent data before it was ready"
            return False
        elif event == "cell" and header.get("index") in self.cell_indices and self.where[0] == "between":
            self.where = ("cell", header["index"])
        elif event == "cell_end" and self.where == ("cell", header.get("index")):
            error, refused = header.get("error"), header.get("refused")
            if isinstance(refused, list) and refused:
                self.refused[self.where[1]] = [str(name)[:100] for name in refused[:20]]
            if error is not None:
                self.cell_errors[self.where[1]] = str(error)[:1000]
            self.where = ("between", None)
        elif event == "measure_ready" and self.measure is not None and self.where[0] == "between":
            if not self.measure.on_armed():
                self.protocol_error = self.measure.stop_reason
                return False
        elif event == "phase" and self.where[0] == "between" and self.gate is not None and self._may_open(header):
            # every answer of the earlier phases is back, and none is accepted from now on (none is pending)
            self.phase = header["phase"]
            if not self.gate.open(self.phase):
                self.protocol_error = self.gate.stop_reason
                return False
        elif event == "call" and header.get("id") in self.pending and self.where[0] == "between" and (
                self.measure is None or self.measure.armed) and self.phase_of.get(header["id"], 0) == self.phase:
            self.where = ("call", header["id"])
        elif event == "outcome" and self.where == ("call", header.get("id")):
            call_id = header["id"]
            try:
                self.outcomes[call_id] = wire.decode_outcome(header, blob, self.calls[call_id], self.output_cap)
            except wire.WireError as exc:
                self.outcomes[call_id] = Outcome(error=f"InvalidAnswer: {exc}")
            self.pending.remove(call_id)
            if self.measure is not None:
                self.measure.on_outcome(self.outcomes[call_id])
            self.where = ("between", None)
        elif event == "done" and self.where[0] == "between":
            self.where = ("done", None)
            reported = header.get("cpu_seconds")
            self.reported_cpu = float(reported) if type(reported) in (int, float) and 0 <= reported < 1e6 else 0.0
        else:
            self.protocol_error = f"the sandbox sent an unexpected message ({str(event)[:40]!r})"
            return False
        return True

    def _may_open(self, header: dict) -> bool:
        """Whether the runner may go on to the phase it names: a later one, with no call of an earlier one left."""
        phase = header.get("phase")
        return type(phase) is int and phase > self.phase and all(self.phase_of.get(i, 0) >= phase for i in self.pending)


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


