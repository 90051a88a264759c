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
    """A mistake's outcome that is an error. Only the exception's type is compared: its text depends on
    how the mistake is written (``V.T @ W.T`` and ``np.matmul(V.T, W.T)`` say different things)."""

    kind: str


def predict(mistake: Callable, *args, **kwargs):
    """What ``mistake(*args, **kwargs)`` gives: its value, or :class:`Raised` with the error's type."""
    try:
        with np.errstate(all="ignore"):
            return mistake(*args, **kwargs)
    except Exception as exc:  # the mistake's own error is its signature on this input
        return Raised(type(exc).__name__)


def agrees(outcome: Outcome, predicted, tol: tuple[float, float] | None = None) -> bool:
    """Whether ``outcome`` is ``predicted``: the same error type, or the same numbers (NaN where it has NaN)
    within ``tol`` (by default the tolerance of the prediction's dtype); a tuple is compared item by item."""
    if isinstance(predicted, Raised):
        return outcome.error is not None and outcome.error.partition(":")[0] == predicted.kind
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


def exact(got: Sequence, right: Sequence, per_input: Sequence[dict]) -> str | None:
    """The one mistake whose exact values (counts, pairs of counts) explain the answer, or None: at every input the
    answer is right or that mistake's value, and it is off somewhere.

    ``per_input``: for each input, misconception -> the set of values its mistakes give there. One input may give
    the values of two mistakes (at d_model = 128 a count with the widths swapped is the one with a square W_o); the
    inputs of a check together tell them apart. Right at an input where the mistake shows is allowed: a student
    may make it for one kind of input only (the projections left out of the additive and dot costs, not the
    bilinear ones)."""
    if list(got) == list(right):
        return None
    ids = {m for values in per_input for m in values}
    fitting = [m for m in sorted(ids) if all(g == r or g in values.get(m, ()) for g, r, values in zip(got, right, per_input))]
    return fitting[0] if len(fitting) == 1 else None
