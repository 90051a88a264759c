"""Visible checks in the student notebook (the student kit's Grader).

In the notebook's given cell ``grader = Grader("01_scores_softmax", globals())``; after an answer
``grader.check("softmax")``; in each test cell ``grader.validate("softmax_rows_sum_to_one")``;
at the end ``grader.summary()``. The same calls and the same printed text as the grader's own
Grader; the verdicts come from public data computed when the kit was built
(:mod:`autograder.kit.public`), never from hidden checks, and never say whether an answer-key
value (``STOP_AND_TRY_*``) is right. ``grader.numbers(item)`` gives the student's own numbers of a
per-student item (``notebook/numbers.py``: the graded submission's where the grader wrote them, else
this kit's entry for the student's id).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from ..checks.core import Verdict, quiet
from ..kit import public
from . import numbers as _numbers
from . import wording as _render
from .wording import FAIL, PASS, ValidationFailed, render  # noqa: F401 (as the grader's module offers them)


class Grader:
    """Runs the visible checks of one assignment against a notebook's globals."""

    def __init__(self, assignment: str, namespace: dict):
        self.data = public.load(assignment)
        self.assignment = assignment
        self.namespace = namespace

    def _specs(self, task: str) -> list[dict]:
        if task not in self.data["tasks"]:
            raise ValueError(f"{task!r} is not a task of {self.assignment}; tasks: {', '.join(self.data['tasks'])}")
        return [spec for spec in self.data["checks"] if spec["task"] == task]

    def verdicts(self, task: str) -> list[Verdict]:
        """The verdict of every public check of ``task``."""
        return _render.helpers_first(self._public(task), self._failing_helpers(task))

    def _failing_helpers(self, task: str) -> list[str]:
        return [h for h in self.data["helpers"].get(task, []) if not all(v.passed for v in self._public(h))]

    def _public(self, task: str) -> list[Verdict]:
        return [public.verdict(spec, self.namespace) for spec in self._specs(task)]

    def numbers(self, item_id: str) -> tuple:
        """Print and return this student's numbers of the per-student item ``item_id`` (e.g. ``STOP_Q, STOP_K``).

        When graded, the submission's (written by the grader into this kit: nothing in the notebook or its
        environment chooses them); otherwise this kit's numbers for the student's id, or an error saying
        that it has none (never the lesson's numbers instead of one's own).
        """
        kit = Path(public.__file__).resolve().parent
        graded = _numbers.graded_numbers(kit, item_id)
        return graded if graded is not None else _numbers.kit_numbers(kit, item_id)

    def check(self, task: str) -> None:
        """Print a short verdict for ``task``: which properties hold and which fail (and, when the notebook
        asked ``attention_ref`` for it, that it is not given by this notebook)."""
        verdicts = self.verdicts(task)
        print(render(task, verdicts, hidden_value=task in self.data["hidden_value"]))
        if not all(v.passed for v in verdicts) and _refused(task):
            print(f"Note: `{task}` is not given by this notebook: `attention_ref` here holds only the building "
                  f"blocks it gives, so an import of `{task}` from it (or `from attention_ref import *`) "
                  f"brings nothing; `{task}` must be your own.")

    def summary(self) -> None:
        """Print one line per task of the notebook: done, not started, or how many checks fail."""
        print(_render.summary([(task, self.verdicts(task), task in self.data["hidden_value"])
                               for task in self.data["tasks"]]))

    def validate(self, grade_id: str) -> None:
        """The visible line of the test cell ``grade_id``: that check on the public example (its task's
        form checks where the check's value is an answer key); silent when it passes, raises
        :class:`~autograder.notebook.wording.ValidationFailed` naming the task, the failed property and
        the likely misconception when it fails; nothing under ``nbgrader autograde`` (the grader's rule)."""
        task = self.data["grade_ids"].get(grade_id)
        if task is None:
            raise ValueError(f"{grade_id!r} is not a test of {self.assignment}: is the autograder package up to date?")
        if os.environ.get("NBGRADER_EXECUTION") == "autograde":
            return None
        specs = [s for s in self.data["checks"] if s["grade_id"] == grade_id] or self._specs(task)
        with quiet():
            verdicts = _render.helpers_first([public.verdict(spec, self.namespace) for spec in specs],
                                             self._failing_helpers(task))
        _render.validate(task, verdicts, self.data["titles"])


def _refused(task: str) -> bool:
    """Whether the notebook asked the kit's ``attention_ref`` for ``task`` (or for ``*``), which it does not give."""
    refused = getattr(sys.modules.get("attention_ref"), "_REFUSED", None)
    return isinstance(refused, list) and (task in refused or "*" in refused)
