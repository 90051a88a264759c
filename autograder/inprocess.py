"""Grade a notebook in this process, without nbgrader or a kernel (fast; trusted code only).

Used by the catalogue tests and by self-study checks of one's own notebook: it
executes every code cell that is not a test cell in a fresh namespace, then
evaluates the assignment's checks against that namespace. Student code runs
in *this* process, so the grader of a class never uses this path for scores
(see :mod:`autograder.sandbox`).
"""
from __future__ import annotations

import contextlib
import io
from typing import Any, Mapping

from .checks import checks_for_assignment, executor
from .checks.core import Verdict, evaluate, hidden_seed, note_cell, quiet
from .notebook import pinned_numbers
from .notebook.model import as_notebook


def _headless_plots() -> None:
    """Draw the notebook's plots off screen (``plt.show()`` must not open a window or block).

    Switches this process's matplotlib backend rather than setting ``MPLBACKEND``, which
    every kernel and subprocess started later by this process would inherit.
    """
    try:
        import matplotlib
    except ImportError:
        return
    matplotlib.use("Agg")


def execute_answers(nb, items: Mapping[str, Any] | None = None) -> tuple[dict, list[str]]:
    """Run the non-test code cells of ``nb``; returns the namespace and the errors of failing cells.

    ``nb`` is anything :func:`autograder.notebook.model.as_notebook` reads (an nbformat node, a
    Notebook, bytes). A cell that raises (a stub's NotImplementedError) is recorded and skipped,
    as "Run All" with errors allowed would. IPython syntax follows the model's one rule.
    ``items`` (item id -> item, ``checks/items.py``): the per-student numbers ``grader.numbers``
    gives the notebook (the lesson's for the rest), the ones its answers are judged on.
    """
    _headless_plots()
    namespace: dict = {"__name__": "__main__"}
    errors = []
    with pinned_numbers(items or {}):
        _run_cells(nb, namespace, errors)
    return namespace, errors


def _run_cells(nb, namespace: dict, errors: list) -> None:
    for cell in as_notebook(nb).code_cells:
        if cell.python is None:
            continue
        index = cell.index
        try:
            with quiet(), contextlib.redirect_stdout(io.StringIO()):
                exec(compile(cell.python, f"<cell {index}>", "exec"), namespace)
        except BaseException as exc:  # noqa: BLE001 - a student's cell may raise anything, SystemExit included
            errors.append(f"cell {index}: {type(exc).__name__}: {exc}")
            note_cell(namespace, cell.python, f"{type(exc).__name__}: {exc}"[:300])
        else:
            note_cell(namespace, cell.python, None)


def grade_notebook(nb, assignment: str, seed: int | None = None,
                   items: Mapping[str, Any] | None = None) -> list[Verdict]:
    """Every check of ``assignment`` evaluated against the answers in ``nb``, per-student items judged on
    ``items`` (the lesson's without them), which the notebook's ``grader.numbers`` gives while it runs."""
    namespace, _ = execute_answers(nb, items)
    seed = hidden_seed() if seed is None else seed
    return [evaluate(c, executor(c, namespace), seed, items) for c in checks_for_assignment(assignment)]
