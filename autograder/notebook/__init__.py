"""Visible checks in the student notebook, in the spirit of otter-grader's ``grader.check``.

In the notebook's given cell::

    grader = Grader("01_scores_softmax", globals())

after an answer cell::

    grader.check("softmax")

and at the end::

    grader.summary()

Each test cell starts with a visible line, ``grader.validate("softmax_rows_sum_to_one")`` (added by
``autograder generate``), so nbgrader's Validate runs that check on the public example.

A visible check runs the same check logic as the hidden tests, on public inputs
(the seeds' worked examples and small random cases drawn from a public seed),
and prints a verdict per property without revealing any expected array.
"""
from __future__ import annotations

import os
import textwrap

from ..checks import (CHECKS, GENERIC_MISCONCEPTIONS, MISCONCEPTIONS, NOT_ATTEMPTED, TASKS, checks_for_assignment,
                      checks_for_task)
from ..checks.core import PUBLIC_SEED, CheckFailed, Verdict, evaluate, quiet, run_calls

PASS, FAIL = "✔", "✘"


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

    def validate(self, grade_id: str) -> None:
        """The visible line of the test cell ``grade_id``: run that check on the public example.

        Prints nothing and returns None when it passes. When it fails, raises
        :class:`ValidationFailed` (an AssertionError) naming the task, the failed property and the
        likely misconception, never an expected value. For a check whose value is an answer key
        (``public=False``) only the answer's form is checked (the task's public checks), so a wrong
        value and the right one both pass. Under ``nbgrader autograde`` it does nothing: the hidden
        test below it alone decides the cell's score.

        Raises
        ------
        ValueError
            When ``grade_id`` is not a check of this notebook's assignment.
        ValidationFailed
            When the check fails on the public example (or the answer is not written yet).
        """
        if grade_id not in {c.grade_id for c in checks_for_assignment(self.assignment)}:
            raise ValueError(f"{grade_id!r} is not a test of {self.assignment}: is the autograder package up to date?")
        if os.environ.get("NBGRADER_EXECUTION") == "autograde":
            return None
        check = CHECKS[grade_id]
        executor = lambda calls: run_calls(self.namespace, calls)  # noqa: E731
        with quiet():  # nbgrader scores a cell with any stderr as failed: silence the student's warnings
            if check.public:
                verdicts = [evaluate(check, executor, PUBLIC_SEED)]
            else:  # an answer key: its form only (see "What a visible check may say")
                verdicts = [evaluate(c, executor, PUBLIC_SEED) for c in checks_for_task(check.task, self.assignment)
                            if c.public]
                if not verdicts:  # no form check: say only whether it is answered at all
                    verdict = evaluate(check, executor, PUBLIC_SEED)
                    verdicts = [verdict] if verdict.misconception in NOT_ATTEMPTED else []
        failed = [v for v in verdicts if not v.passed]
        if failed:
            raise ValidationFailed(_validation_message(check.task, failed), failed[0].misconception)
        return None

    def summary(self) -> None:
        """Print one line per task of the notebook: done, not started, or how many checks fail."""
        rows = []
        for task in TASKS[self.assignment]:
            verdicts = self.verdicts(task)
            passed = sum(v.passed for v in verdicts)
            if verdicts and passed == len(verdicts):
                status = f"{PASS} answered (its value is checked when graded)" if _has_hidden_value(
                    task, self.assignment) else f"{PASS} done"
            elif any(v.misconception in NOT_ATTEMPTED for v in verdicts):
                status = f"{FAIL} not started"
            else:
                status = f"{FAIL} {len(verdicts) - passed} to fix"
            rows.append((task, f"{passed}/{len(verdicts)}", status))
        width = max(len(r[0]) for r in rows)
        lines = [f"{'task'.ljust(width)}  checks  status", f"{'-' * width}  ------  ------"]
        lines += [f"{t.ljust(width)}  {c.rjust(6)}  {s}" for t, c, s in rows]
        done = sum(r[2].startswith(PASS) for r in rows)
        lines.append(f"{done} of {len(rows)} tasks pass their visible checks.")
        print("\n".join(lines))


class ValidationFailed(CheckFailed):
    """A test cell's visible line failed; shown wrapped (nbgrader validate cuts lines at 87 characters)."""

    def _render_traceback_(self):
        lines = [f"{type(self).__name__}:"]
        for paragraph in self.message.split("\n"):
            lines += textwrap.wrap(paragraph, 78, subsequent_indent="  ") or [""]
        return lines


def _validation_message(task: str, failed: list[Verdict]) -> str:
    """What a failed visible line says: the task, each failed property, the likely misconception."""
    if all(v.misconception == "not_implemented" for v in failed):
        return (f"{task}: not done yet. The stub still raises NotImplementedError; write your answer "
                f"in its cell, run it, then validate again.")
    if all(v.misconception == "not_defined" for v in failed):
        return f"{task}: not done yet. {failed[0].message}"
    lines = []
    for v in failed:
        line = f"{task}: fails on the public example: {v.title}. {v.message}"
        if v.misconception in MISCONCEPTIONS and v.misconception not in GENERIC_MISCONCEPTIONS:
            line += f" Likely misconception: {MISCONCEPTIONS[v.misconception]}."
        lines.append(line)
    return "\n".join(lines)


def _has_hidden_value(task: str, assignment: str) -> bool:
    """Whether some check of ``task`` judges its value only when graded (an answer key: see
    docs/NOTEBOOK_CONVENTIONS.md, "What a visible check may say")."""
    return any(not c.public for c in checks_for_task(task, assignment))


def render(task: str, verdicts: list[Verdict], hidden_value: bool = False) -> str:
    """The text of one visible check: a headline and one line per property.

    ``hidden_value``: the task's value is judged only when graded, so passing the visible checks
    means "answered in the expected form", never "right".
    """
    if not verdicts:
        return f"{task}: no visible checks."
    if all(v.misconception == "not_implemented" for v in verdicts):
        return (f"{FAIL} {task}: not done yet. The stub still raises NotImplementedError; "
                f"write your answer in its cell, run it, then run this check again.")
    if all(v.misconception == "not_defined" for v in verdicts):
        return f"{FAIL} {task}: not done yet. {verdicts[0].message}"
    passed = sum(v.passed for v in verdicts)
    plural = "check" if len(verdicts) == 1 else "checks"
    if passed == len(verdicts) and hidden_value:
        head = (f"{PASS} {task}: answered in the expected form ({len(verdicts)} {plural} passed); whether the value "
                f"is right is checked only when your notebook is graded.")
    elif passed == len(verdicts):
        head = f"{PASS} {task}: all {len(verdicts)} {plural} passed." if len(verdicts) > 1 else \
            f"{PASS} {task}: the check passed."
    else:
        head = f"{FAIL} {task}: {passed} of {len(verdicts)} checks passed."
    lines = [head]
    for v in verdicts:
        lines.append(f"  {PASS} {v.title}" if v.passed else f"  {FAIL} {v.title}: {v.message}")
    return "\n".join(lines)
