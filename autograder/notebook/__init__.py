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

from ..checks import NOT_ATTEMPTED, TASKS, checks_for_task, executor
from ..checks.core import PUBLIC_SEED, Verdict, evaluate

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
        return [evaluate(c, executor(c, self.namespace), PUBLIC_SEED)
                for c in checks_for_task(task, self.assignment) if c.public]

    def check(self, task: str) -> None:
        """Print a short verdict for ``task``: which properties hold and which fail."""
        print(render(task, self.verdicts(task), hidden_value=_has_hidden_value(task, self.assignment)))

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
