"""The form of an answer that is a value (``STOP_AND_TRY_*``, ``TABLE_BYTES``): no answer key here.

A task whose value is an answer key has two kinds of checks: a public one on its *form* (three
numbers, one of 1, 2 or 3, a whole number of bytes) and a hidden one on its value (see
docs/NOTEBOOK_CONVENTIONS.md, "What a visible check may say"). The form judges live in this
module, which imports no reference and holds no expected value, so that the student kit
(:mod:`autograder.kit`) ships it as it is: the kit's visible checks of these tasks are the very
functions the grader runs. The value checks (``nbNN_*.py``) read the answer through the same
helpers, so a badly formed answer gets the same message from both.
"""
from __future__ import annotations

import numpy as np

from . import expect
from .core import CheckFailed

#: Values typed by hand are rounded; 3 decimals is what the lesson prints, so allow half a unit of
#: the third decimal (every Stop-and-try misconception is off by more than 0.05).
HAND_ATOL = 5e-3
#: The letters of the Stop-and-try list of reasons in 02 (the list is in the notebook).
REASONS = "abcde"
#: The letters of a "Check your understanding" question's options (autograder/checks/concepts.py).
LETTERS = "abcd"


def three_numbers(outcome, call, what):
    """The answer as three floats, one per key."""
    arr = expect.array(outcome, call, what)
    if arr.size != 3:
        raise CheckFailed(f"{what} should hold three numbers, one per key, got {arr.size}", "wrong_shape")
    return arr.astype(float).ravel()


def choice(outcome, call, what):
    """The answer as one of the key numbers 1, 2 or 3."""
    value = expect.value(outcome, call)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value not in (1, 2, 3):
        raise CheckFailed(f"{what} should be 1, 2 or 3 (the keys are numbered from 1), got {value!r}",
                          "STOP_AND_TRY.zero_based" if value == 0 else "wrong_type")
    return value


def letter(outcome, call):
    """The Stop-and-try reason as one lower-case letter of :data:`REASONS`."""
    value = expect.value(outcome, call)
    if not isinstance(value, str) or value.strip().lower() not in REASONS:
        raise CheckFailed(f"`STOP_AND_TRY_REASON` should be one letter from {', '.join(repr(c) for c in REASONS)}, "
                          f"as a string, got {value!r}", "wrong_type")
    return value.strip().lower()


def whole_number(outcome, call, what):
    """The answer as a positive whole number (an ``int``, or a float with no fraction)."""
    got = expect.number(outcome, call, what)
    if not np.isfinite(got) or got <= 0 or got != int(got):
        raise CheckFailed(f"{what} should be a positive whole number of bytes, got {got!r}", "wrong_values")
    return int(got)


def letters(outcome, call):
    """A "Check your understanding" answer as a tuple of lower-case letters, one per question.

    The number of questions is the call's one argument (``Call("CONCEPTS_01", (3,), value_only=True)``):
    it is no secret, and so the kit's copy of this judge needs nothing but the call.
    """
    count = int(call.args[0])
    value = expect.value(outcome, call)
    if isinstance(value, str):
        value = tuple(c for c in value if not c.isspace() and c != ",")
    ok = isinstance(value, tuple) and len(value) == count and all(
        isinstance(c, str) and c.strip().lower() in tuple(LETTERS) for c in value)
    if not ok:
        raise CheckFailed(f"`{call.name}` should be {count} letters from {', '.join(repr(c) for c in LETTERS)}, one "
                          f"per question in order, e.g. {tuple('a' * count)!r}, got {value!r}", "wrong_type")
    return tuple(c.strip().lower() for c in value)


# ---------------------------------------------------------------- the public form judges
# Each is the judge of one public check (registered in its nbNN_* module); the kit calls it by name.
def stop_and_try_scores_format(calls, outcomes):
    """STOP_AND_TRY_SCORES: three numbers, one per key."""
    three_numbers(outcomes[0], calls[0], "`STOP_AND_TRY_SCORES`")


def stop_and_try_weights_format(calls, outcomes):
    """STOP_AND_TRY_WEIGHTS: three non-negative weights that sum to 1."""
    got = three_numbers(outcomes[0], calls[0], "`STOP_AND_TRY_WEIGHTS`")
    if (got < 0).any() or abs(got.sum() - 1) > 3 * HAND_ATOL:
        raise CheckFailed("weights are non-negative and sum to 1: apply the softmax to the scaled scores.", "wrong_values")


def stop_and_try_largest_format(calls, outcomes):
    """STOP_AND_TRY_LARGEST: one of 1, 2 or 3."""
    choice(outcomes[0], calls[0], "`STOP_AND_TRY_LARGEST`")


def stop_and_try_reason_format(calls, outcomes):
    """STOP_AND_TRY_REASON: one of the letters of the list."""
    letter(outcomes[0], calls[0])


def table_bytes_format(calls, outcomes):
    """TABLE_BYTES: a positive whole number of bytes."""
    whole_number(outcomes[0], calls[0], "`TABLE_BYTES`")


def concepts_format(calls, outcomes):
    """CONCEPTS_NN: one letter of a to d per question."""
    letters(outcomes[0], calls[0])


#: The misconceptions (not generic) a form judge can name: the kit ships their titles.
MISCONCEPTIONS_NAMED = ("STOP_AND_TRY.zero_based",)
#: The form judges by name (what the kit's data files refer to).
JUDGES = {f.__name__: f for f in (stop_and_try_scores_format, stop_and_try_weights_format,
                                  stop_and_try_largest_format, stop_and_try_reason_format, table_bytes_format,
                                  concepts_format)}
