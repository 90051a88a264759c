"""What a hidden test cell calls: ``check("softmax_rows_sum_to_one", globals())``.

The cell stays a line long; the logic lives in :mod:`autograder.checks`. A
failed check raises :class:`~autograder.checks.core.CheckFailed` (an
AssertionError) whose message is written for the student; a passed check
prints nothing and returns None, so the cell ends with no expression (nbgrader
would score a trailing ``False`` or numpy scalar as full marks).
"""
from __future__ import annotations

from .checks import CHECKS, executor
from .checks.core import CheckFailed, evaluate, hidden_seed


def check(grade_id: str, namespace: dict) -> None:
    """Run the hidden check ``grade_id`` against the notebook's globals."""
    if grade_id not in CHECKS:
        raise KeyError(f"no check named {grade_id!r}: is the autograder package up to date?")
    verdict = evaluate(CHECKS[grade_id], executor(CHECKS[grade_id], namespace), seed=hidden_seed())
    if not verdict.passed:
        raise CheckFailed(f"{verdict.task}, {verdict.title}: {verdict.message}", verdict.misconception)
