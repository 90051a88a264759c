"""Naming a mistake by its signature (issue 24): the answer's outcome on every probe of a check is the
outcome of one catalogued mistake, and of no other catalogued mistake.

A catalogued mistake is a runnable variant of the reference; :func:`predict` runs it on a check's
inputs, an error counting as an outcome too (:class:`Raised`). :func:`identify` names the mistake
only when the answer agrees with it on every input and with no mistake of another id; where the
outcomes fit two mistakes, or none, it names nothing and the check says which property fails.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np

from . import expect
from .core import Outcome


@dataclass(frozen=True)
class Raised:
    """A mistake's outcome that is an error: the exception's type and what went wrong (:func:`error_family`).

    The type alone says little: a ``ValueError`` is an unpacking of ``weights.shape`` into two names as much
    as a product of misaligned matrices. The full text says too much: it depends on how the mistake is
    written (an operator or a function, the sizes of the probe). ``family`` None compares the type only."""

    kind: str
    family: str | None = None


#: What a numpy or Python error says went wrong, by the words of its message (first match wins).
ERROR_FAMILIES = (
    ("unpack", ("values to unpack",)),
    ("product", ("matmul", "not aligned", "core dimension")),
    ("einsum", ("einstein sum", "subscripts")),
    ("broadcast", ("could not be broadcast",)),
    ("reshape", ("cannot reshape",)),
    ("transpose", ("axes don't match",)),
    ("axis", ("out of bounds for array of dimension", "axis")),
    ("index", ("too many indices", "index", "indices")),
)


def error_family(error: str) -> str:
    """The family of an ``"TypeName: message"`` error (:data:`ERROR_FAMILIES`), or ``"other"``."""
    text = error.partition(":")[2].lower()
    return next((family for family, words in ERROR_FAMILIES if any(w in text for w in words)), "other")


def predict(mistake: Callable, *args, **kwargs):
    """What ``mistake(*args, **kwargs)`` gives: its value, or :class:`Raised` with the error's type and family."""
    try:
        with np.errstate(all="ignore"):
            return mistake(*args, **kwargs)
    except Exception as exc:  # the mistake's own error is its signature on this input
        return Raised(type(exc).__name__, error_family(f"{type(exc).__name__}: {exc}"))


def agrees(outcome: Outcome, predicted, tol: tuple[float, float] | None = None) -> bool:
    """Whether ``outcome`` is ``predicted``: the same error (type, and family where the prediction has one), or
    the same numbers (NaN where it has NaN) within ``tol`` (by default the tolerance of the prediction's dtype);
    a tuple is compared item by item."""
    if isinstance(predicted, Raised):
        return (outcome.error is not None and outcome.error.partition(":")[0] == predicted.kind
                and predicted.family in (None, error_family(outcome.error)))
    return outcome.error is None and _same(outcome.value, predicted, tol)


def _same(got, predicted, tol) -> bool:
    if isinstance(predicted, tuple):
        return isinstance(got, tuple) and len(got) == len(predicted) and all(
            _same(g, p, tol) for g, p in zip(got, predicted))
    try:
        got, predicted = np.asarray(got), np.asarray(predicted)
    except (TypeError, ValueError):
        return False
    if got.dtype.kind not in "biuf" or predicted.dtype.kind not in "biuf" or got.shape != predicted.shape:
        return False
    return expect.allclose(got, predicted, *(tol or expect.tolerances(predicted.dtype)))


def identify(outcomes: Sequence[Outcome], mistakes: Iterable[tuple[str, str, Sequence]],
             tol: tuple[float, float] | None = None, reference: Sequence | None = None) -> tuple[str, str] | None:
    """``(misconception, message)`` of the one catalogued mistake whose predictions the outcomes follow.

    ``mistakes``: ``(misconception, message, predictions)``, one prediction per outcome (several mistakes
    may share an id: two ways of writing one misconception). None when no mistake agrees on every outcome,
    or mistakes of two ids do: the signature then does not identify the mistake.

    ``reference``: the right answer's predictions. Given, a mistake is named only where its signature
    says more than "raises": it gives a value of its own (not the right one) on some input, or it is right
    on some input and raises on another (an error that needs one kind of input, a mask of another shape,
    say). Raising on every input is what many mistakes nobody catalogued do too (keys taken from the
    wrong sequence raise wherever values taken from it do).
    """
    fitting = [(m, message) for m, message, predictions in mistakes
               if len(predictions) == len(outcomes) and all(agrees(o, p, tol) for o, p in zip(outcomes, predictions))
               and (reference is None or _telling(predictions, reference, tol))]
    return fitting[0] if len({m for m, _ in fitting}) == 1 else None


def _telling(predictions: Sequence, reference: Sequence, tol) -> bool:
    pairs = [(p, r) for p, r in zip(predictions, reference) if not isinstance(r, Raised)]
    own_value = any(not isinstance(p, Raised) and not _same(p, r, tol) for p, r in pairs)
    right = any(not isinstance(p, Raised) and _same(p, r, tol) for p, r in pairs)
    return own_value or (right and any(isinstance(p, Raised) for p, _ in pairs))


def exact(got: Sequence, right: Sequence, per_input: Sequence[dict], groups: Sequence | None = None) -> str | None:
    """The one mistake whose exact values (counts, pairs of counts) explain the answer at every input, or None.

    ``per_input``: for each input, misconception -> the set of values its mistakes give there; where a
    mistake is not listed it gives the right value. The answer is that mistake's when it is one of the
    mistake's values at every input (right where the mistake is right too) and off somewhere: an input where
    the answer is right and the mistake is not says the answer is not that mistake. One input may give the
    values of two mistakes (at d_model = 128 a count with the widths swapped is the one with a square W_o);
    the inputs of a check together tell them apart, and where two fit neither is named.

    ``groups``: for each input, the part of the task it exercises (score_costs' kind of score), where a
    student may make the mistake in one part and not in another: a group whose every input is right says
    nothing against it; within a group every input agrees or the mistake is not named."""
    found = fitting(got, right, per_input, groups)
    return found[0] if len(found) == 1 else None


def fitting(got: Sequence, right: Sequence, per_input: Sequence[dict], groups: Sequence | None = None) -> list[str]:
    """Every mistake whose exact values explain the answer at every input, as :func:`exact` reads them (sorted);
    empty where the answer is right everywhere. A check whose inputs leave two of them can tell them apart with
    probes: the mistakes that also fit those are the ones left."""
    if list(got) == list(right):
        return []
    groups = [None] * len(got) if groups is None else list(groups)

    def fits(m):
        agree = {}
        for g, r, values, group in zip(got, right, per_input, groups):
            agree.setdefault(group, []).append((g in values.get(m, {r}), g == r))
        return all(all(a for a, _ in inputs) or all(ok for _, ok in inputs) for inputs in agree.values())

    return [m for m in sorted({m for values in per_input for m in values}) if fits(m)]
