"""What a visible check prints, and what ``grader.validate`` raises: the same text in the grader and the kit.

Pure functions of verdicts (no check, no reference): the full :class:`autograder.notebook.Grader`
and the student kit's Grader (``autograder/kit/student/notebook.py``) both call them, and the kit
ships this module as it is, so the two cannot word a verdict differently.
"""
from __future__ import annotations

import textwrap

from ..checks.core import CheckFailed, Verdict

PASS, FAIL = "✔", "✘"
#: The misconception of a composite task's visible check while a function it calls fails its own checks.
HELPER_FIRST = "helper_fails_first"
#: Misconceptions that mean "not attempted yet" (equal to ``autograder.checks.NOT_ATTEMPTED``, tested).
NOT_ATTEMPTED = frozenset({"not_implemented", "not_defined"})


def _checks(n: int) -> str:
    """``1 check``, ``2 checks``."""
    return f"{n} check" if n == 1 else f"{n} checks"


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
    if passed == len(verdicts) and hidden_value:
        head = (f"{PASS} {task}: answered in the expected form ({_checks(len(verdicts))} passed); whether the value "
                f"is right is checked only when your notebook is graded.")
    elif passed == len(verdicts):
        head = f"{PASS} {task}: all {_checks(len(verdicts))} passed." if len(verdicts) > 1 else \
            f"{PASS} {task}: the check passed."
    else:
        head = f"{FAIL} {task}: {passed} of {_checks(len(verdicts))} passed."
    lines = [head]
    for v in verdicts:
        lines.append(f"  {PASS} {v.title}" if v.passed else f"  {FAIL} {v.title}: {v.message}")
    return "\n".join(lines)


def helpers_first(verdicts: list[Verdict], failing: list[str]) -> list[Verdict]:
    """A composite task's visible verdicts, given the helpers it calls that fail their own visible checks.

    When graded, a composite task (``multi_head_attention``) is judged with correct helpers, so a
    helper's mistake costs points on the helper's task only. A visible check cannot do that: the
    student kit holds no reference helper. So while a helper fails, the composite is not judged
    (in the kit and in the grader alike): each of its verdicts says which helper to fix first, and
    Validate passes over them (the helper's own test cells fail).
    """
    if not failing:
        return verdicts
    names = ", ".join(f"`{h}`" for h in failing)
    message = (f"not checked yet: it calls your {names}, which does not pass its own checks; fix that first "
               f"(when graded, this task is judged with correct helpers, so that mistake costs points there only)")
    return [v if v.misconception in NOT_ATTEMPTED else Verdict(v.grade_id, v.task, v.title, False, message, HELPER_FIRST)
            for v in verdicts]


def summary(rows: list[tuple[str, list[Verdict], bool]]) -> str:
    """The summary table: one ``(task, verdicts, hidden_value)`` row per task of the notebook."""
    table = []
    for task, verdicts, hidden_value in rows:
        passed = sum(v.passed for v in verdicts)
        if verdicts and passed == len(verdicts):
            status = f"{PASS} answered (its value is checked when graded)" if hidden_value else f"{PASS} done"
        elif any(v.misconception in NOT_ATTEMPTED for v in verdicts):
            status = f"{FAIL} not started"
        else:
            status = f"{FAIL} {len(verdicts) - passed} to fix"
        table.append((task, f"{passed}/{len(verdicts)}", status))
    width = max(len(r[0]) for r in table)
    lines = [f"{'task'.ljust(width)}  checks  status", f"{'-' * width}  ------  ------"]
    lines += [f"{t.ljust(width)}  {c.rjust(6)}  {s}" for t, c, s in table]
    done = sum(r[2].startswith(PASS) for r in table)
    lines.append(f"{done} of {len(table)} tasks pass their visible checks.")
    return "\n".join(lines)


class ValidationFailed(CheckFailed):
    """A test cell's visible line failed; shown wrapped (nbgrader validate cuts lines at 87 characters)."""

    def _render_traceback_(self):
        lines = [f"{type(self).__name__}:"]
        for paragraph in self.message.split("\n"):
            lines += textwrap.wrap(paragraph, 78, subsequent_indent="  ") or [""]
        return lines


def validation_message(task: str, failed: list[Verdict], titles: dict[str, str]) -> str:
    """What a failed visible line says: the task, each failed property, the likely misconception.

    ``titles``: the titles of the notebook's own misconceptions (``MISCONCEPTIONS`` of its checks
    module, the generic ones left out: they would only repeat the message).
    """
    if all(v.misconception == "not_implemented" for v in failed):
        return (f"{task}: not done yet. The stub still raises NotImplementedError; write your answer "
                f"in its cell, run it, then validate again.")
    if all(v.misconception == "not_defined" for v in failed):
        return f"{task}: not done yet. {failed[0].message}"
    lines = []
    for v in failed:
        line = f"{task}: fails on the public example: {v.title}. {v.message}"
        if v.misconception in titles:
            line += f" Likely misconception: {titles[v.misconception]}."
        lines.append(line)
    return "\n".join(lines)


def validate(task: str, verdicts: list[Verdict], titles: dict[str, str]) -> None:
    """What ``grader.validate(grade_id)`` does with the public verdicts of the check (or of its task's form).

    Nothing when every verdict passed (no output: nbgrader scores a test cell by its errors and
    stderr); otherwise raises :class:`ValidationFailed` (an AssertionError) with
    :func:`validation_message`.
    """
    failed = [v for v in verdicts if not v.passed and v.misconception != HELPER_FIRST]
    if failed:
        raise ValidationFailed(validation_message(task, failed, titles), failed[0].misconception)
