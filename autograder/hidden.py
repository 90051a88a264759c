"""What a hidden test cell calls: ``check("softmax_rows_sum_to_one", globals())``.

The cell stays a line long; the logic lives in :mod:`autograder.checks`. A
failed check raises :class:`~autograder.checks.core.CheckFailed` (an
AssertionError) whose message is written for the student; a passed check
prints nothing and returns None, so the cell ends with no expression (nbgrader
would score a trailing ``False`` or numpy scalar as full marks).
"""
from __future__ import annotations

from .checks import CHECKS, executor
from .checks.core import CheckFailed, evaluate, hidden_seed, note_cell
from .notebook import own_items  # imported with this module, in the given cell (notebook/numbers.STARTED)


def _note_cells_in_kernel() -> None:
    """In an IPython kernel, record what each cell raises (:func:`~autograder.checks.core.note_cell`): an answer
    whose cell raised before assigning it is then said as that error, not as "not defined yet". Once per process;
    the callback never raises (a traceback on stderr would cost a test cell its points)."""
    try:
        from IPython import get_ipython
        shell = get_ipython()
    except Exception:  # noqa: BLE001 - no IPython, or not in a kernel: nothing to record
        return
    if shell is None or not hasattr(shell, "events") or getattr(shell, "_autograder_notes_cells", False):
        return

    def after_cell(result):
        try:
            error = result.error_in_exec
            note_cell(shell.user_ns, result.info.raw_cell or "",
                      None if error is None else f"{type(error).__name__}: {error}"[:300])
        except Exception:  # noqa: BLE001 - a message only
            pass

    try:
        shell.events.register("post_run_cell", after_cell)
        shell._autograder_notes_cells = True
    except Exception:  # noqa: BLE001
        pass


_note_cells_in_kernel()


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
