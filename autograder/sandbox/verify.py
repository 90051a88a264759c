"""``verify_submission``: every check of an assignment, judged here on answers computed in the sandbox."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Mapping

from ..checks import MODULES, checks_for_assignment
from ..checks.core import Outcome, Verdict, check_rng
from ..checks.numbers import StudentNumbers, judge_with_numbers
from ..notebook.model import NotANotebook, read_cells
from . import cgroup
from .command import Limits, sandbox_kind
from .launch import run_session
from .explain import runtime_flags
from .scan import scan_cells


@dataclass
class VerificationResult:
    """The verified verdict of every check of one submission, and what the scan found."""

    assignment_id: str
    verdicts: dict[str, Verdict]  # grade_id -> verdict, every check of the assignment
    flags: list[dict] = field(default_factory=list)  # static-scan flags
    error: str | None = None  # why the submission could not be verified (then every verdict failed)
    sandbox: str = "none"  # "bubblewrap", "subprocess", or "none" when nothing ran
    seconds: float = 0.0  # the whole verification
    sandbox_seconds: float = 0.0  # of which in sandbox processes (start, imports, cells, calls)
    sandbox_cpu_seconds: float = 0.0  # CPU time of the sandbox processes (user + system)
    runs: int = 0  # sandbox processes started (more than one after a hang or a crash)
    cell_errors: dict[int, str] = field(default_factory=dict)  # cell index -> what it raised
    notes: list[str] = field(default_factory=list)  # hangs, crashes, limits hit

    @property
    def passed(self) -> dict[str, bool]:
        return {g: v.passed for g, v in self.verdicts.items()}


def _module_of(assignment_id: str):
    for module in MODULES:
        if module.ASSIGNMENT == assignment_id:
            return module
    raise KeyError(f"unknown assignment {assignment_id!r}")


def _all_failed(checks, message: str, misconception: str | None = None) -> dict[str, Verdict]:
    return {c.grade_id: Verdict(c.grade_id, c.task, c.title, False, message, misconception) for c in checks}


def shown_numbers(checks, numbers: StudentNumbers | None) -> dict:
    """What the runner's ``grader.numbers`` gives the notebook: the items its checks judge (the student's
    own, the lesson's without ``numbers``), as plain data (``notebook/numbers.py``)."""
    from ..checks.items import LESSON
    from ..notebook.numbers import entry

    items = numbers.items if numbers is not None else LESSON
    return {c.item: entry(items[c.item]) for c in checks if c.item}


def verify_submission(assignment_id: str, notebook_bytes: bytes, seed: int,
                      limits: Limits | Mapping[str, Any] | None = None, *, trusted: bool = False,
                      kept: bytes | None = None, numbers: StudentNumbers | None = None) -> VerificationResult:
    """Verify a submission outside the student's process.

    The calls of every check of ``assignment_id`` are drawn here from ``seed`` (the grading run's
    fresh seed), run against the notebook's code in a sandboxed process (see
    :mod:`autograder.sandbox.launch`), and the answers that come back are validated and judged
    here. A submission that cannot be read gets ``error`` and every verdict failed. Raises
    :class:`~autograder.sandbox.launch.SandboxError` when the sandbox itself cannot start (a
    grader problem: the job is retried, nothing recorded), and ``KeyError`` for an unknown
    assignment. ``trusted`` lets the subprocess fallback run as root (the demo's own notebooks).
    ``kept``: the ``_memo.json`` of the assignment's student kit (``memo.py``), given to the sandbox's package.
    ``numbers``: the student's own per-student items (issue 22, ``checks/numbers.py``), derived by the
    coordinator from the id of the submission's folder; without them an item's checks judge the lesson's numbers.
    """
    start = time.monotonic()
    limits = Limits.coerce(limits)
    module = _module_of(assignment_id)
    checks = checks_for_assignment(assignment_id)
    graded = list(module.TASKS)
    given = [n for n in getattr(module, "GIVEN", []) if n not in graded]
    try:
        cells = read_cells(notebook_bytes)
    except NotANotebook as exc:
        return VerificationResult(assignment_id, _all_failed(checks, f"your notebook could not be read: {exc}"),
                                  error=str(exc), seconds=time.monotonic() - start)
    flags = scan_cells(cells, graded, assignment_id)

    calls, per_check = [], []
    for check in checks:
        ids = []
        for call in check.make_calls(check_rng(seed, check.grade_id)):
            ids.append(len(calls))
            calls.append((len(calls), call, check))
        per_check.append(ids)
    runnable = [(c.index, c.python) for c in cells if c.python is not None]
    # Task isolation: a composite's calls get the reference's helpers, and only once every helper's answer is back
    session = run_session(runnable, [(i, call, check.task) for i, call, check in calls], given=given, graded=graded,
                          assignment=assignment_id, limits=limits, kind=sandbox_kind(), trusted=trusted,
                          helpers={c.task: c.helpers for c in checks if c.helpers}, kept=kept,
                          numbers=shown_numbers(checks, numbers))

    verdicts, judged = {}, {}
    for check, ids in zip(checks, per_check):
        outcomes = judged[check.grade_id] = [
            session.outcomes.get(i, Outcome(error="NotRun: the grader got no answer for this input")) for i in ids]
        verdicts[check.grade_id], found = judge_with_numbers(check, [calls[i][1] for i in ids], outcomes, numbers)
        flags += found
    flags += _unmeasured_flags(verdicts) + runtime_flags(cells, session.cell_errors, session.refused, verdicts,
                                                         judged, given, graded, assignment_id)
    return VerificationResult(assignment_id, verdicts, flags, None, session.sandbox, time.monotonic() - start,
                              session.seconds, session.cpu_seconds, session.runs, session.cell_errors, session.notes)


def _unmeasured_flags(verdicts: Mapping[str, Verdict]) -> list[dict]:
    """A flag for each memory check withheld because this host cannot bound memory from outside (``measure.py``)."""
    return [{"kind": "verification failed", "grade_id": v.grade_id, "line": None, "cell": None,
             "evidence": f"{v.grade_id}: the grader could not bound the call's memory from outside the notebook's "
                         f"process (no writable memory control group: {cgroup.delegation_steps({'memory'})}), so "
                         f"the check's points are withheld; regrade with one with `autograder grade --force`"}
            for v in verdicts.values() if v.misconception == "grader.memory_unmeasured"]
