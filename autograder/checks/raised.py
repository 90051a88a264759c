"""An answer that raises, said as the failure of a property on an input (issue 24): never a raw exception alone.

Where no catalogued mistake explains an error (:mod:`.signature`), the verdict of :func:`.expect.value` was the
exception's text. :func:`explain` rewords it after the judge: on which input of the check it fails (the check's
title says what that input exercises), the exception's type and the first words of its text, and, where another
input of the same check got an answer, that input too, so that the student sees what the two differ in (batch
axes, a mask that broadcasts, fewer keys than queries). It names no mistake: the misconception stays ``raises``.
"""
from __future__ import annotations

import dataclasses
import re

from .core import CheckFailed, CheckList

#: The given attention's words for a mask that does not broadcast (attention_ref/_validate.py).
_MASK_SHAPE = re.compile(r"mask of shape \(([0-9, ]*)\) does not broadcast")

#: The exception's text is cut here: a numpy message can hold a gufunc signature and whole shapes.
SHORT = 110


def short(error: str) -> tuple[str, str]:
    """``(type, the first words of the message)`` of an ``"TypeName: message"`` error."""
    kind, _, detail = error.partition(": ")
    detail = " ".join(detail.split())
    return kind, detail if len(detail) <= SHORT else detail[:SHORT].rsplit(" ", 1)[0] + " ..."


def mask_shape(error: str | None) -> tuple[int, ...] | None:
    """The shape of the mask that reached the given attention, where ``error`` is its refusal of a mask that does
    not broadcast against the scores; None otherwise."""
    found = _MASK_SHAPE.search(error or "")
    return tuple(int(x) for x in found.group(1).replace(" ", "").split(",") if x) if found else None


def reworded(failure: CheckFailed, calls, outcomes, title: str) -> CheckFailed:
    """``failure`` as the failure of an input of a check titled ``title``, where it is a raw exception."""
    if failure.misconception != "raises":
        return failure
    failing = next((i for i, (call, outcome) in enumerate(zip(calls, outcomes)) if outcome.error is not None
                    and failure.message.startswith(f"`{call.describe()}` raised")), None)
    if failing is None:
        return failure
    call = calls[failing]
    kind, detail = short(outcomes[failing].error)
    answered = next((c for c, o in zip(calls, outcomes) if o.error is None and c.name == call.name
                     and c.describe() != call.describe()), None)
    message = (f"your `{call.name}` fails on `{call.describe()}` with {kind} ({detail}). That input is one of this "
               f"check's: {title}.")
    if answered is not None:
        message += (f" It gives an answer on `{answered.describe()}`: what breaks it lies where the failing input "
                    "differs from that one (compare their axes and shapes).")
    return CheckFailed(message, "raises")


def _explaining(judge, title):
    def judge_explained(calls, outcomes, *item):
        try:
            return judge(calls, outcomes, *item)
        except CheckFailed as failure:
            raise reworded(failure, calls, outcomes, title) from None
    return judge_explained


def explain(checks: CheckList) -> CheckList:
    """Each check of ``checks`` with its judge's raw-exception verdicts reworded (in place; returned). A form judge
    (:data:`.forms.JUDGES`, known to the kit by its identity) is left as it is: it reads a value, never calls."""
    from .forms import JUDGES

    forms = set(JUDGES.values())
    for index, check in enumerate(checks):
        if check.judge not in forms:
            checks[index] = dataclasses.replace(check, judge=_explaining(check.judge, check.title))
    return checks
