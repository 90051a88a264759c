"""Visible checks in the student notebook, in the spirit of otter-grader's ``grader.check``.

In the notebook's given cell::

    grader = Grader("01_scores_softmax", globals())

after an answer cell::

    grader.check("softmax")

and at the end::

    grader.summary()

A visible check runs the same check logic as the hidden tests, on public inputs
(the seeds' worked examples and small random cases drawn from a public seed),
and prints a verdict per property without revealing any expected array.
"""
from __future__ import annotations

from ..checks import TASKS, checks_for_task
from ..checks.core import PUBLIC_SEED, Verdict, evaluate, quiet, run_calls
from . import wording as _render
from .wording import FAIL, PASS, render  # noqa: F401 (the names this module has always offered)


class Grader:
    """Runs the visible checks of one assignment against a notebook's globals."""

    def __init__(self, assignment: str, namespace: dict):
        if assignment not in TASKS:
            raise ValueError(f"unknown assignment {assignment!r}; expected one of {', '.join(TASKS)}")
        self.assignment = assignment
        self.namespace = namespace

    def verdicts(self, task: str) -> list[Verdict]:
        """The verdict of every public check of ``task``."""
        if task not in TASKS[self.assignment]:
            raise ValueError(f"{task!r} is not a task of {self.assignment}; tasks: {', '.join(TASKS[self.assignment])}")
        executor = lambda calls: run_calls(self.namespace, calls)  # noqa: E731
        return [evaluate(c, executor, PUBLIC_SEED) for c in checks_for_task(task, self.assignment) if c.public]

    def check(self, task: str) -> None:
        """Print a short verdict for ``task``: which properties hold and which fail."""
        print(render(task, self.verdicts(task), hidden_value=_has_hidden_value(task, self.assignment)))

    def summary(self) -> None:
        """Print one line per task of the notebook: done, not started, or how many checks fail."""
        print(_render.summary([(task, self.verdicts(task), _has_hidden_value(task, self.assignment))
                               for task in TASKS[self.assignment]]))

    def validate(self, grade_id: str) -> None:
        """The visible line of a test cell: the public version of check ``grade_id`` (its task's form
        checks where the check's value is an answer key); raises with the reason when it fails, silent
        otherwise (see :func:`autograder.notebook.render.validate`)."""
        checks = [c for c in _assignment_checks(self.assignment) if c.grade_id == grade_id]
        if not checks:
            raise ValueError(f"{grade_id!r} is not a check of {self.assignment}")
        task = checks[0].task
        public = [c for c in checks if c.public] or [c for c in checks_for_task(task, self.assignment) if c.public]
        executor = lambda calls: run_calls(self.namespace, calls)  # noqa: E731
        with quiet():
            verdicts = [evaluate(c, executor, PUBLIC_SEED) for c in public]
        _render.validate(task, verdicts)


def _assignment_checks(assignment: str):
    return [c for task in TASKS[assignment] for c in checks_for_task(task, assignment)]


def _has_hidden_value(task: str, assignment: str) -> bool:
    """Whether some check of ``task`` judges its value only when graded (an answer key: see
    docs/NOTEBOOK_CONVENTIONS.md, "What a visible check may say")."""
    return any(not c.public for c in checks_for_task(task, assignment))
