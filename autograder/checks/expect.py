"""Judging helpers: turn an outcome into a verdict with a message for the student.

Every helper raises :class:`~autograder.checks.core.CheckFailed` with a message
that says which property failed and, where it can tell, the misconception
behind it. Messages name shapes and properties, never the expected values.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from .core import GENERIC_MISCONCEPTIONS, Call, CheckFailed, Outcome, tolerances

Diagnosis = tuple  # (candidate array, misconception id, message)


def value(outcome: Outcome, call: Call):
    """The value of an outcome, or a failure that explains why there is none."""
    name = call.name
    if outcome.error is None:
        return outcome.value
    kind, _, detail = outcome.error.partition(": ")
    if kind == "NotImplementedError":
        raise CheckFailed(f"`{name}` is not written yet: it still raises NotImplementedError. "
                          f"Replace the stub with your answer and run its cell.", "not_implemented")
    if kind == "NameError" and f"'{name}'" in detail and "; its cell raised " in detail:
        raised = detail.partition("; its cell raised ")[2]
        raise CheckFailed(f"`{name}` was never assigned: its cell raised {raised} before it got there. Fix the line "
                          "that raised and run the cell again.", "raises")
    if kind == "NameError" and f"'{name}'" in detail:
        if call.value_only:  # an answer such as STOP_AND_TRY_WEIGHTS = ..., still a stub
            raise CheckFailed(f"`{name}` is not defined yet: write `{name} = ...` in its cell (in place of the "
                              f"stub) and run it.", "not_defined")
        raise CheckFailed(f"`{name}` is not defined: run the cell that defines it first.", "not_defined")
    if kind == "ValueError" and "truth value of an array" in detail:
        raise CheckFailed(f"`{call.describe()}` raised {kind}: {detail}. Your code asks Python for one True or False "
                          "of a whole array (an `if`, `while`, `and`, `or` or `not` on it), and an array of several "
                          "entries is neither: to ask whether an argument was given, compare it with None; to ask "
                          "about its entries, reduce them first (any, all).", "python.array_truth")
    raise CheckFailed(f"`{call.describe()}` raised {kind}: {detail}", "raises")


def array(outcome: Outcome, call: Call, what: str | None = None) -> np.ndarray:
    """The outcome as a numeric ndarray (a list or a number is accepted too)."""
    result = value(outcome, call)
    what = what or f"`{call.name}`"
    if result is None:
        raise CheckFailed(f"{what} returned None: did you forget the `return`?", "returns_none")
    try:
        arr = np.asarray(result)
    except Exception:
        arr = None
    if arr is None or arr.dtype.kind not in "biuf":
        raise CheckFailed(f"{what} should return numbers (an array), got {type(result).__name__}", "wrong_type")
    return arr


def number(outcome: Outcome, call: Call, what: str | None = None) -> float:
    """The outcome as one float (a 0-d or one-element array is accepted)."""
    arr = array(outcome, call, what)
    if arr.size != 1:
        raise CheckFailed(f"{what or '`' + call.name + '`'} should be a single number, got an array of shape {arr.shape}",
                          "wrong_shape")
    return float(arr.reshape(()))


def weight_kind(outcome: Outcome, call: Call, what: str | None = None, lowest: float = 0.0,
                why: str = "a softmax probability") -> None:
    """Fail unless the outcome is of a weight's kind: one floating number in [``lowest``, 1], NaN and inf aside
    (those have a judge of their own). A whole number is not a weight (an index or a count, say): a diagnosis
    that compares weights (a flag read or ignored, a branch taken) would name a mistake the answer did not make.
    ``why``: what bounds the weight, in words (the largest of three weights that sum to 1 is at least 1/3)."""
    got = number(outcome, call, what)
    what = what or f"`{call.describe()}`"
    if isinstance(outcome.value, (bool, int, np.integer, np.bool_)) or np.asarray(outcome.value).dtype.kind in "biu":
        raise CheckFailed(f"{what} returned the whole number {got:g}: the answer is a weight, a fraction between 0 and 1 "
                          "(a softmax probability), not an index or a count.", "wrong_type")
    if np.isfinite(got) and not lowest - 1e-12 <= got <= 1.0 + 1e-12:
        raise CheckFailed(f"{what} returned {got:.6g}, outside [{lowest:.4g}, 1]: the answer is a weight, {why}.",
                          "wrong_values")


def pair(outcome: Outcome, call: Call) -> tuple[np.ndarray, np.ndarray]:
    """An ``(output, weights)`` result as two arrays."""
    result = value(outcome, call)
    if not isinstance(result, tuple) or len(result) != 2:
        raise CheckFailed(f"`{call.name}` should return a pair `(output, weights)`, got "
                          f"{type(result).__name__ if not isinstance(result, tuple) else f'{len(result)} values'}",
                          "wrong_return")
    out, weights = (array(type(outcome)(value=v), call, f"`{call.name}`'s {w}") for v, w in zip(result, ("output", "weights")))
    return out, weights


def shape(arr: np.ndarray, expected: tuple, what: str, vocabulary: str = "",
          diagnoses: Iterable[tuple[tuple, str, str]] = ()) -> None:
    """Fail unless ``arr.shape == expected``; ``vocabulary`` spells the shape in the course's names."""
    if arr.shape == tuple(expected):
        return
    vague = CheckFailed(f"{what} has shape {arr.shape}, expected {tuple(expected)}{vocabulary}", "wrong_shape")
    for candidate, misconception, message in diagnoses:
        if arr.shape == tuple(candidate):
            raise CheckFailed(f"{what} has shape {arr.shape}, expected {tuple(expected)}{vocabulary}: {message}",
                              misconception, vague)
    raise vague


def transposed(arr: np.ndarray, reference, what: str, misconception: str, rows: str, columns: str) -> None:
    """Fail naming it when ``arr`` holds the reference's numbers with its last two axes swapped (``reference``
    not square in them): one row per ``columns`` and one column per ``rows`` (singular nouns). It says what the result is, not
    which step made it (a product taken in the other order, einsum's alphabetical output, a transpose left
    out): each of those gives this very array."""
    reference = np.asarray(reference)
    if reference.ndim < 2 or reference.shape[-1] == reference.shape[-2]:
        return
    swapped = np.swapaxes(reference, -1, -2)
    if arr.shape == swapped.shape and allclose(arr, swapped, *tolerances(np.result_type(arr, reference))):
        raise CheckFailed(f"{what} has shape {arr.shape}, expected {reference.shape}: it holds the right numbers, but "
                          f"with its last two axes swapped, one row per {columns} and one column per {rows}: the "
                          f"transpose of the result asked for, which has one row per {rows}.", misconception)


def close(arr: np.ndarray, reference: np.ndarray, what: str, *, dtype=None,
          diagnoses: Iterable[Diagnosis] = (), own: Iterable[Diagnosis] = (), generic: str | None = None,
          generic_misconception: str = "wrong_values") -> None:
    """Fail unless ``arr`` matches ``reference`` within the tolerance of ``dtype``.

    When it does not, each diagnosis ``(candidate, misconception, message)`` is
    tried: if the answer matches candidates of one misconception only (the result of a
    known mistake, NaN where it has NaN), the first one's message is given; if it matches
    candidates of two, the input does not tell them apart and neither is named.
    ``own``: the task's own diagnoses, tried first (a composite task's mistake is named where it
    fits, though a helper's mistake, graded on the helper's task, would give the same numbers).
    """
    reference = np.asarray(reference)
    rtol, atol = tolerances(dtype if dtype is not None else reference.dtype)
    if arr.shape != reference.shape:
        raise CheckFailed(f"{what} has shape {arr.shape}, expected {reference.shape}", "wrong_shape")
    if allclose(arr, reference, rtol, atol):
        return
    if np.isnan(arr).any() and not np.isnan(reference).any():
        vague = CheckFailed(f"NaN in {what}, where every value should be a number", "nan")
    else:
        vague = CheckFailed(f"{what} {generic or 'does not match the reference values'}", generic_misconception)
    for tier in (own, diagnoses):
        matching = [(misconception, message) for candidate, misconception, message in tier
                    if np.shape(candidate) == arr.shape and allclose(arr, candidate, rtol, atol)]
        if len({misconception for misconception, _ in matching}) == 1:
            raise CheckFailed(matching[0][1], matching[0][0], vague)
        if matching:
            break  # two mistakes fit: a later tier cannot tell them apart either
    raise vague


def allclose(a, b, rtol: float, atol: float) -> bool:
    """``np.allclose`` with NaN equal to NaN and infinities compared exactly, never raising."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return False
    with np.errstate(all="ignore"):
        return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


def unmodified(outcome: Outcome, call: Call, names: dict[str, str] | None = None) -> None:
    """Fail if the call gave no answer (it raised, or returned None) or modified one of its array arguments.

    An answer is required: a stub that returns None leaves its input alone too, and must not
    earn this check's points for it (7 points across 01-03 before).
    """
    if value(outcome, call) is None:
        raise CheckFailed(f"`{call.name}` returned None: did you forget the `return`?", "returns_none")
    if outcome.mutated:
        which = ", ".join(f"`{(names or {}).get(m, m)}`" for m in outcome.mutated)
        raise CheckFailed(f"`{call.name}` modified its input {which}: work on a new array "
                          f"(the caller still needs the original).", "mutates_input")


def each(calls, outcomes, judge, *args) -> None:
    """``judge(call, outcome, *args)`` on every input; the first failure that names a specific mistake wins,
    unless another input names a different one.

    A check's first input may fail in a way that says little (a raw shape error on a non-square case)
    while a later one shows which mistake it is (the square case): the student gets the diagnosis. Two
    inputs that name two mistakes contradict each other: no one mistake explains the answer, so the first
    failure is given in its vague form (the property that fails, on which input).
    """
    failures = []
    for call, outcome in zip(calls, outcomes):
        try:
            judge(call, outcome, *args)
        except CheckFailed as failure:
            failures.append((call, failure))
    if failures:
        raise consistent(failures)


def consistent(failures: list[tuple[Call, CheckFailed]]) -> CheckFailed:
    """The verdict of a check whose inputs failed as ``failures`` (``(call, failure)`` in input order): the first
    that names a mistake, where every failure that names one names that one; otherwise the first failure, in
    its vague form where it named a mistake."""
    named = [f for _, f in failures if f.misconception not in GENERIC_MISCONCEPTIONS]
    if len({f.misconception for f in named}) == 1:
        return named[0]
    call, first = failures[0]
    if first.misconception in GENERIC_MISCONCEPTIONS:
        return first
    return first.vague or CheckFailed(f"`{call.describe()}` is wrong, and no one known mistake explains your answers "
                                      "on every input of this check.", "wrong_values")
