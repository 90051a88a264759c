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
from .notebook import own_items  # imported with this module, in the given cell (notebook/numbers.STARTED)


def check(grade_id: str, namespace: dict) -> None:
    """Run the hidden check ``grade_id`` against the notebook's globals.

    A check of a per-student item judges the item ``grader.numbers`` gives this notebook here
    (:func:`autograder.notebook.own_items`): under stock ``nbgrader autograde``, the student's whose
    folder is graded, as ``autograder grade`` judges it.
    """
    if grade_id not in CHECKS:
        raise KeyError(f"no check named {grade_id!r}: is the autograder package up to date?")
    item = CHECKS[grade_id].item
    items = own_items([item])[0] if item else None
    verdict = evaluate(CHECKS[grade_id], executor(CHECKS[grade_id], namespace), seed=hidden_seed(), items=items)
    if not verdict.passed:
        raise CheckFailed(f"{verdict.task}, {verdict.title}: {verdict.message}", verdict.misconception)
