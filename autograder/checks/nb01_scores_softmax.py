"""Checks of 01_scores_softmax: dot_product, attention_scores, softmax, weighted_average."""
from __future__ import annotations

import numpy as np

import attention_ref as ref

from . import expect
from .core import Call, CheckFailed, CheckList

ASSIGNMENT = "01_scores_softmax"
TASKS = ["dot_product", "attention_scores", "softmax", "weighted_average"]
MISCONCEPTIONS = {
    "dot_product.elementwise": "returns the elementwise products instead of their sum",
    "softmax.wrong_axis": "softmax normalised along the wrong axis",
    "softmax.global_normalisation": "softmax normalised over the whole array instead of each row",
    "softmax.no_max_subtraction": "no max subtraction: exp overflows at large scores",
    "softmax.global_max": "subtracts the global max instead of each row's max",
    "softmax.missing_keepdims": "row max/sum without keepdims broadcast along the wrong axis",
    "softmax.no_exp": "normalises the raw scores without exponentiating",
    "softmax.ignores_axis": "ignores the axis argument",
}
checks = CheckList()
CHECKS = checks


# ---------------------------------------------------------------- dot_product
SEED_KEYS = [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5), (-1.0, 0.0)]  # seed 002, Example 1, and the Stop-and-try key (-1, 0)


@checks.add("dot_product", "seed_example", "the seeds' query (1, 0) against keys (1, 0), (0, 1), (0.5, 0.5), (-1, 0)",
            calls=lambda rng: [Call("dot_product", (np.array([1.0, 0.0]), np.array(k))) for k in SEED_KEYS])
def _(calls, outcomes):
    for call, outcome in zip(calls, outcomes):
        q, k = call.args
        result = expect.array(outcome, call)
        if result.shape == q.shape and expect.allclose(result, q * k, 1e-9, 1e-12):
            raise CheckFailed("you returned the products of matching entries; the dot product also adds them up.",
                              "dot_product.elementwise")
        got = expect.number(outcome, call)
        if not expect.allclose(got, float(np.dot(q, k)), 1e-9, 1e-12):
            raise CheckFailed(f"the dot product of the query with key {tuple(k)} is off: multiply matching "
                              f"entries and add the results.", "wrong_values")


@checks.add("dot_product", "random_vectors", "random vectors of several lengths",
            calls=lambda rng: [Call("dot_product", (rng.standard_normal(n), rng.standard_normal(n))) for n in (1, 3, 7, 64)])
def _(calls, outcomes):
    for call, outcome in zip(calls, outcomes):
        q, k = call.args
        expect.close(np.asarray(expect.number(outcome, call)), ref.dot_product(q, k), f"dot_product of two vectors of length {q.size}")


# ---------------------------------------------------------------- softmax
def _softmax_candidates(x, axis=-1):
    """Results of the typical softmax mistakes on ``x`` (a misconception catalogue)."""
    with np.errstate(all="ignore"):
        e = np.exp(x)
        yield e / e.sum(axis=0 if x.ndim > 1 and axis in (-1, x.ndim - 1) else -1, keepdims=True), \
            "softmax.wrong_axis", "your weights are normalised along the wrong axis (down the columns): each row of scores belongs to one query and must sum to 1 along the key axis."
        yield e / e.sum(), "softmax.global_normalisation", \
            "your weights sum to 1 over the whole array, not per row: normalise each query's row separately."
        yield x / x.sum(axis=axis, keepdims=True), "softmax.no_exp", \
            "your weights are the raw scores divided by their total: softmax exponentiates first, which keeps every weight positive."
        if x.ndim >= 2 and x.shape[-1] == x.shape[-2]:
            shifted = np.exp(x - x.max(axis=-1))  # the max of row i lands on column i
            yield shifted / shifted.sum(axis=-1), "softmax.missing_keepdims", \
                "the row max or row sum lost its axis (no keepdims=True), so it broadcast along the wrong axis."
        if axis not in (-1, x.ndim - 1):
            yield ref.softmax(x, axis=-1), "softmax.ignores_axis", \
                "you normalised along the last axis although the call asked for another `axis`."


def _judge_softmax(call, outcome, what="your weights"):
    x = call.args[0]
    axis = call.kwargs.get("axis", -1)
    weights = expect.array(outcome, call, what)
    expect.shape(weights, x.shape, what, " (the same shape as the scores)")
    expect.close(weights, ref.softmax(x, axis=axis), what, dtype=x.dtype,
                 diagnoses=_softmax_candidates(x, axis),
                 generic="do not match softmax: exponentiate each score, then divide by the total of its row.")


@checks.add("softmax", "seed_example", "scores (2, 1, 0) give weights (0.665, 0.245, 0.090)",
            calls=lambda rng: [Call("softmax", (np.array([2.0, 1.0, 0.0]),))])
def _(calls, outcomes):
    _judge_softmax(calls[0], outcomes[0])


@checks.add("softmax", "rows_sum_to_one", "each row of weights is positive and sums to 1",
            calls=lambda rng: [Call("softmax", (rng.standard_normal((3, 5)),))])
def _(calls, outcomes):
    x = calls[0].args[0]
    weights = expect.array(outcomes[0], calls[0], "your weights")
    expect.shape(weights, x.shape, "your weights", " (the same shape as the scores)")
    if (weights < 0).any():
        raise CheckFailed("some weights are negative; exponentials are always positive.", "softmax.no_exp")
    if not expect.allclose(weights.sum(axis=-1), np.ones(x.shape[0]), 1e-6, 1e-9):
        for candidate, misconception, message in _softmax_candidates(x):
            if expect.allclose(weights, candidate, 1e-6, 1e-9):
                raise CheckFailed(message, misconception)
        raise CheckFailed("the weights of a row do not sum to 1: divide each exponential by the total of its row.",
                          "wrong_values")


@checks.add("softmax", "matches_reference", "values on batched, non-square scores",
            calls=lambda rng: [Call("softmax", (rng.standard_normal((2, 4, 4)) * 3,)),
                               Call("softmax", (rng.standard_normal((2, 3, 5)),))])
def _(calls, outcomes):
    for call, outcome in zip(calls, outcomes):
        _judge_softmax(call, outcome)


@checks.add("softmax", "large_scores", "no overflow at large scores (1e3 and 1e4)",
            calls=lambda rng: [Call("softmax", (np.array([[1000.0, 999.0, 998.0], [-1000.0, -1001.0, -1003.0]]),)),
                               Call("softmax", (rng.standard_normal((3, 4)) * 1e4,))])
def _(calls, outcomes):
    for call, outcome in zip(calls, outcomes):
        weights = expect.array(outcome, call, "your weights")
        if not np.isfinite(weights).all():
            raise CheckFailed("your weights contain NaN or inf at large scores: exp(1000) overflows. "
                              "Softmax does not change if you subtract the same number from every score of a row; "
                              "choose that number so that no exponential can overflow.",
                              "softmax.no_max_subtraction")
        _judge_softmax(call, outcome)


@checks.add("softmax", "row_max", "rows of very different sizes (each row's own maximum)",
            calls=lambda rng: [Call("softmax", (np.array([[1000.0, 999.0, 998.0], [1.0, 0.0, -1.0]]),))])
def _(calls, outcomes):
    weights = expect.array(outcomes[0], calls[0], "your weights")
    if weights.shape == (2, 3) and not np.isfinite(weights[1]).all():
        raise CheckFailed("a row of small scores became NaN: you subtracted the largest score of the whole "
                          "array; subtract each row's own maximum instead.", "softmax.global_max")
    _judge_softmax(calls[0], outcomes[0])


@checks.add("softmax", "other_axis", "the `axis` argument (axis 0 and 1 of a 3-D array)",
            calls=lambda rng: [Call("softmax", (rng.standard_normal((3, 4, 5)),), {"axis": 0}),
                               Call("softmax", (rng.standard_normal((3, 4, 5)),), {"axis": 1})])
def _(calls, outcomes):
    for call, outcome in zip(calls, outcomes):
        _judge_softmax(call, outcome, f"your weights with axis={call.kwargs['axis']}")


@checks.add("softmax", "float32", "float32 scores",
            calls=lambda rng: [Call("softmax", (rng.standard_normal((4, 6)).astype(np.float32) * 5,))])
def _(calls, outcomes):
    _judge_softmax(calls[0], outcomes[0])


@checks.add("softmax", "input_unmodified", "leaves its input unchanged",
            calls=lambda rng: [Call("softmax", (rng.standard_normal((3, 4)) + 2,))])
def _(calls, outcomes):
    expect.value(outcomes[0], calls[0])
    expect.unmodified(outcomes[0], calls[0], {"0": "x"})
