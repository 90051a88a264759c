"""Checks of 01_scores_softmax: dot_product, attention_scores, softmax, weighted_average."""
from __future__ import annotations

import math

import numpy as np

import attention_ref as ref

from . import batching, expect, signature
from .core import GENERIC_MISCONCEPTIONS, Call, CheckFailed, CheckList

ASSIGNMENT = "01_scores_softmax"
TASKS = ["dot_product", "attention_scores", "softmax", "weighted_average"]
GIVEN: list[str] = []  # the first notebook builds everything itself
MISCONCEPTIONS = {
    "dot_product.elementwise": "returns the elementwise products instead of their sum",
    "attention_scores.k_not_transposed": "multiplies Q by K as it is, without transposing K",
    "attention_scores.reshaped_keys": "reshapes K to (d_k, n_k) where a transpose is meant: a reshape keeps the entries "
                                      "in memory order and regroups them, so no column of it is a key",
    "attention_scores.keys_by_queries": "the table the other way round: rows are keys instead of queries",
    "attention_scores.batched_transpose": "`.T` on a batched array reverses the batch axes too",
    "attention_scores.np_dot_batched": "np.dot on stacks of matrices pairs every batch with every other",
    "attention_scores.scaled": "divides the raw scores by sqrt(d_k), a step of the attention (notebook 02), not of the scores",
    "weighted_average.transposed_weights": "uses the weights' columns (the transposed table) instead of their rows",
    "weighted_average.sums_over_width": "adds the weighted products over the value width instead of over the keys",
    "weighted_average.divides_by_n_k": "divides the weighted sum by the number of keys",
    "weighted_average.sums_over_queries": "adds the weighted values over the queries instead of over the keys (one row per key)",
    "weighted_average.unweighted_mean": "plain mean of the values, ignoring the weights",
    "weighted_average.np_dot_batched": "np.dot on stacks of matrices pairs every batch with every other",
    "weighted_average.batched_transpose": "`.T` on batched weights or values reverses the batch axes too",
    "weighted_average.fixed_axes": "written for one (n_q, n_k) table: right on one sequence, fails with batch axes in front",
    "attention_scores.fixed_axes": "written for a fixed number of axes (one (n, d_k) matrix, or a spelled-out transpose "
                                   "order): right on one sequence or one number of batch axes, fails with another",
    "softmax.wrong_axis": "softmax normalised along the wrong axis",
    "dot_product.product_of_sums": "multiplies the sums of q and k instead of adding the products of matching entries",
    "dot_product.adds_entries": "adds matching entries instead of multiplying them",
    "dot_product.mean": "averages the products instead of adding them",
    "dot_product.cosine": "divides by the lengths of the vectors (cosine similarity)",
    "dot_product.projection": "divides by the length of one vector only: the component of one vector along the other",
    "dot_product.not_a_number": "returns the score as an array (a 1 x 1 matrix, say) instead of a number",
    "attention_scores.square_table": "sizes the table n_q x n_q, as if there were as many keys as queries",
    "attention_scores.softmaxed": "turns the scores into weights (a softmax) where the raw dot products are asked",
    "softmax.sigmoid": "squashes each score on its own (a sigmoid): nothing is shared across the row",
    "softmax.log_weights": "returns the logarithms of the weights (a log-softmax) instead of the weights",
    "softmax.largest_is_one": "scales each row so that its largest weight is 1 instead of dividing by the row's total",
    "weighted_average.output_transposed": "the output with its last two axes swapped: one row per value entry, one "
                                          "column per query",
    "weighted_average.elementwise": "the entrywise product `*` where the matrix product is meant",
    "weighted_average.hard_choice": "takes the value of the key with the largest weight only, not the weighted mix",
    "dot_product.norms": "multiplies the lengths of the vectors, ignoring their angle",
    "dot_product.skips_entry": "leaves out the first or the last pair of entries (off by one)",
    "dot_product.last_product_only": "replaces the running total with each product instead of adding to it: only the "
                                     "last pair's product is left",
    "dot_product.never_negative": "takes absolute values, as if a score could not be negative",
    "dot_product.distance": "returns a distance between q and k, which is small for a good match, not the dot product",
    "dot_product.negative_distance": "returns minus the (squared) distance between q and k: largest when they are "
                                     "equal, but a closeness of points, not the dot product",
    "softmax.global_normalisation": "softmax normalised over the whole array instead of each row",
    "softmax.no_max_subtraction": "no max subtraction: exp overflows at large scores",
    "softmax.flattens_scores": "makes large scores equal before the exp (clipping them): keys of different scores get the same weight",
    "softmax.global_max": "subtracts the global max instead of each row's max",
    "softmax.max_magnitude": "shifts each row by its largest size |score| instead of its largest score: a row far "
                             "below 0 underflows",
    "softmax.missing_keepdims": "row max/sum without keepdims broadcast along the wrong axis",
    "softmax.no_exp": "normalises the raw scores without exponentiating",
    "softmax.ignores_axis": "ignores the axis argument",
    "softmax.max_wrong_axis": "subtracts a maximum taken along another axis than the one it normalises",
}
checks = CheckList()
CHECKS = checks


# ---------------------------------------------------------------- dot_product
SEED_KEYS = [(1.0, 0.0), (0.0, 1.0), (0.5, 0.5), (-1.0, 0.0)]  # seed 002, Example 1, and the Stop-and-try key (-1, 0)


def _dot_candidates(q, k):
    """``(value, misconception, message)`` of the usual dot-product mistakes on one pair of vectors."""
    with np.errstate(all="ignore"):
        yield float(np.sum(q) * np.sum(k)), "dot_product.product_of_sums", \
            "you multiplied the sum of q by the sum of k: that mixes every entry of q with every entry of k, where " \
            "the dot product pairs each entry only with its match."
        yield float(np.sum(q + k)), "dot_product.adds_entries", \
            "you added matching entries; the dot product multiplies them, then adds the products."
        yield float(np.mean(q * k)), "dot_product.mean", \
            "you averaged the products of matching entries; the dot product is their sum."
        yield float(q @ k / (np.linalg.norm(q) * np.linalg.norm(k))), "dot_product.cosine", \
            "you divided by the lengths of the vectors (the cosine similarity); the score is the plain dot product."
        # one length only: the component of one vector along the other. Where the other vector has length 1 (the
        # seeds' query) it is the cosine too, so there neither is named: the random vectors tell them apart.
        for name, other, length in (("k", "q", np.linalg.norm(k)), ("q", "k", np.linalg.norm(q))):
            for power, what in ((1, "length"), (2, "squared length")):
                yield float(q @ k / length ** power), "dot_product.projection", \
                    (f"you divided by the {what} of {name} only: that measures how far {other} reaches along the "
                     f"direction of {name} (a projection), which no longer grows with the length of {name}; the "
                     "score is the plain dot product.")
        yield float(np.linalg.norm(q) * np.linalg.norm(k)), "dot_product.norms", \
            "you multiplied the lengths of the vectors; the dot product also depends on their angle (vectors at a " \
            "right angle score 0, opposing ones below 0)."
        yield float(q[:-1] @ k[:-1]), "dot_product.skips_entry", \
            "your sum leaves out the last pair of entries (a range that stops one early): every pair of matching " \
            "entries counts."
        yield float(q[1:] @ k[1:]), "dot_product.skips_entry", \
            "your sum leaves out the first pair of entries (a range that starts one late): every pair of matching " \
            "entries counts."
        # on two entries the last product alone is also the sum without the first pair: the seed check's probe of
        # three entries tells the two apart
        yield float(q[-1] * k[-1]), "dot_product.last_product_only", \
            "your score is the product of the last pair of entries alone: each product replaced the running total " \
            "instead of being added to it, so every earlier pair was lost."
        distance = ("your score is a distance between q and k (0 when they are equal, larger the further apart they "
                    "are): a good match gets the smallest score, where the dot product gives it a large one, and "
                    "opposing vectors score above 0, where their dot product is negative.")
        yield float(np.linalg.norm(q - k)), "dot_product.distance", distance
        yield float(np.sum((q - k) ** 2)), "dot_product.distance", distance
        # minus a distance is largest when the vectors match, as a score should be: a mistake of its own
        yield float(-np.sum((q - k) ** 2)), "dot_product.negative_distance", \
            ("your score is minus the squared distance between q and k: it is largest (0) when the two are equal "
             "and never above 0, so it measures how close the two points are, not how far they point the same "
             "way: the dot product of two aligned vectors is positive and grows with their lengths.")
        yield float(-np.linalg.norm(q - k)), "dot_product.negative_distance", \
            ("your score is minus the distance between q and k: it is largest (0) when the two are equal and never "
             "above 0, so it measures how close the two points are, not how far they point the same way: the dot "
             "product of two aligned vectors is positive and grows with their lengths.")
        never_negative = ("your score is never negative: opposing vectors, such as (1, 0) and (-1, 0), must score "
                          "below 0. Keep the sign of each product of matching entries when you add them up.")
        yield float(np.sum(np.abs(q * k))), "dot_product.never_negative", never_negative
        yield float(abs(q @ k)), "dot_product.never_negative", never_negative


def _dot_mistake(calls, outcomes, tol) -> CheckFailed | None:
    """The one dot-product mistake whose value matches the answer at every call of the check, or None."""
    got = []
    for call, outcome in zip(calls, outcomes):
        try:
            got.append(float(np.asarray(outcome.value, dtype=float).reshape(())) if outcome.error is None else None)
        except (TypeError, ValueError):
            return None
    if None in got:
        return None
    found = {}
    for index, (call, value) in enumerate(zip(calls, got)):
        matching = {(m, message) for c, m, message in _dot_candidates(*call.args) if expect.allclose(value, c, *tol)}
        found = matching if index == 0 else {key for key in found if key in matching}
    named = {m for m, _ in found}
    if len(named) != 1:
        return None
    return CheckFailed(min(message for _, message in found), named.pop())


def _judge_dot(calls, outcomes, describe, tol, graded: int | None = None):
    """Judge the first ``graded`` calls (all by default); a mistake is named from every call, probes included."""
    for call, outcome in list(zip(calls, outcomes))[:graded]:
        q, k = call.args
        result = expect.array(outcome, call)
        if result.shape == q.shape and expect.allclose(result, q * k, 1e-9, 1e-12):
            raise CheckFailed("you returned the products of matching entries; the dot product also adds them up.",
                              "dot_product.elementwise")
        got = expect.number(outcome, call)
        if not expect.allclose(got, float(np.dot(q, k)), *tol):
            mistake = _dot_mistake(calls, outcomes, tol)
            if mistake is not None:
                raise mistake
            raise CheckFailed(f"the dot product of {describe(q, k)} is off: check how your code combines each pair "
                              "of matching entries, and how it puts the pairs together.", "wrong_values")


#: A probe of three entries, never graded: on the seeds' two entries a sum without its first pair is the last
#: product alone, so the seed calls cannot tell those mistakes apart; here every candidate gives its own value.
DOT_PROBE = (np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0, -2.0]))


@checks.add("dot_product", "seed_example", "the seeds' query (1, 0) against keys (1, 0), (0, 1), (0.5, 0.5), (-1, 0)",
            calls=lambda rng: [Call("dot_product", (np.array([1.0, 0.0]), np.array(k))) for k in SEED_KEYS]
            + [Call("dot_product", tuple(a.copy() for a in DOT_PROBE))])
def _(calls, outcomes):
    graded = len(SEED_KEYS)
    _judge_dot(calls, outcomes, lambda q, k: f"the query with key ({', '.join(f'{v:g}' for v in k)})", (1e-9, 1e-12),
               graded=graded)
    _number_not_array(calls[:graded], outcomes[:graded])


def _number_not_array(calls, outcomes):
    """Fail when the right score comes back inside an array of one entry (a 1 x 1 matrix, a length-1 vector): the
    task asks for a number, and such a score does not behave as one where it is used (a list of them makes an
    array with two more axes than the list; formatting it as a number fails). Judged on one check only: one
    property, one point. A 0-d array or a numpy float is a number."""
    for call, outcome in zip(calls, outcomes):
        if outcome.error is None and np.ndim(outcome.value) >= 1:
            raise CheckFailed(f"`{call.describe()}` returned an array of shape {np.shape(outcome.value)} holding the "
                              "right score, not a number: a 1 x 1 matrix (what a row times a column gives) stays an "
                              "array, so scores collected in a list make an array with extra axes instead of one "
                              "number per key. Return the score itself, a Python float.", "dot_product.not_a_number")


@checks.add("dot_product", "random_vectors", "random vectors of several lengths",
            calls=lambda rng: [Call("dot_product", (rng.standard_normal(n), rng.standard_normal(n))) for n in (1, 3, 7, 64)])
def _(calls, outcomes):
    _judge_dot(calls, outcomes, lambda q, k: f"two random vectors of length {q.size}", expect.tolerances(np.float64))


# ---------------------------------------------------------------- softmax
def _softmax_candidates(x, axis=-1):
    """Results of the typical softmax mistakes on ``x`` (a misconception catalogue).

    Each is the mistake as it is written, so that on large scores it overflows only where that mistake
    does: a mistake of the axes or the sum keeps its row max, the missing max is the only unshifted one.
    """
    last = axis in (-1, x.ndim - 1)
    with np.errstate(all="ignore"):
        if not last:  # normalising along -1 here is ignoring `axis`, not the axis mistake of a plain softmax
            yield ref.softmax(x, axis=-1), "softmax.ignores_axis", \
                "you normalised along the last axis although the call asked for another `axis`."
            for shift in (x.max(axis=axis, keepdims=True), 0):  # the shift follows `axis`, the total does not
                e_axis = np.exp(x - shift)
                yield e_axis / e_axis.sum(axis=-1, keepdims=True), "softmax.ignores_axis", \
                    ("your totals are taken along the last axis although the call asked for another `axis`: the "
                     "exponentials are divided by a total along the wrong axis, so they sum to 1 along neither.")
        else:
            for other in range(x.ndim - 1):  # down the columns, or along a batch axis
                where = "down the columns" if other == x.ndim - 2 else f"along axis {other}, a batch axis"
                yield ref.softmax(x, axis=other), "softmax.wrong_axis", \
                    (f"your weights are normalised along the wrong axis ({where}): each row of scores belongs to one "
                     "query and must sum to 1 along the key axis, the last one.")
        yield 1 / (1 + np.exp(-x)), "softmax.sigmoid", \
            ("each of your weights is the sigmoid of its own score, squashed into (0, 1) on its own: nothing is "
             "shared across the row, so a row does not sum to 1 and raising one score leaves the other weights as "
             "they are. The softmax divides each exponential by a total shared by the whole row.")
        top = x.max(axis=axis, keepdims=True)
        yield x - top - np.log(np.exp(x - top).sum(axis=axis, keepdims=True)), "softmax.log_weights", \
            ("your weights are the logarithms of the softmax weights (a log-softmax): every one is 0 or below, and "
             "they sum to 1 only once exponentiated. Return the weights themselves.")
        e = np.exp(x - x.max())
        yield e / e.sum(), "softmax.global_normalisation", \
            "your weights sum to 1 over the whole array, not per row: normalise each query's row separately."
        yield x / x.sum(axis=axis, keepdims=True), "softmax.no_exp", \
            "your weights are the raw scores divided by their total: softmax exponentiates first, which keeps every weight positive."
        if x.ndim == 2 and x.shape[-1] == x.shape[-2]:
            shifted = np.exp(x - x.max(axis=-1))  # the max of row i lands on column i
            yield shifted / shifted.sum(axis=-1), "softmax.missing_keepdims", \
                "the row max or row sum lost its axis (no keepdims=True), so it broadcast along the wrong axis."
        overflow = ("your weights contain NaN or inf at large scores: exp(1000) overflows (so does any exponent "
                    "past about 709). Subtracting one number from every score of a row does not change the softmax, so whatever "
                    "your code subtracts (if anything) keeps the weights right at ordinary scores; but it leaves "
                    "exponents above 0, and of those numbers only the row's largest score keeps every one at or "
                    "below 0.")
        # no shift, or one that keeps the softmax but leaves exponents above 0: a row's minimum or mean, or the
        # whole array's
        for shift in (0, x.min(axis=axis, keepdims=True), x.mean(axis=axis, keepdims=True), x.min(), x.mean()):
            plain = np.exp(x - shift)
            yield plain / plain.sum(axis=axis, keepdims=True), "softmax.no_max_subtraction", overflow
        if x.ndim > 1:
            yield e / e.sum(axis=axis, keepdims=True), "softmax.global_max", GLOBAL_MAX
        # the largest |score| is the largest score wherever that is the row's largest size: it differs, and
        # underflows, only on a row whose most negative score is further from 0 than its largest
        magnitude = np.exp(x - np.abs(x).max(axis=axis, keepdims=True))
        yield magnitude / magnitude.sum(axis=axis, keepdims=True), "softmax.max_magnitude", MAX_MAGNITUDE
        for other in sorted(set(range(x.ndim)) - {axis % x.ndim}):
            shifted = np.exp(x - x.max(axis=other, keepdims=True))
            yield shifted / shifted.sum(axis=axis, keepdims=True), "softmax.max_wrong_axis", \
                "the maximum you subtract is taken along another axis than the one you normalise: a shift " \
                "cancels out only when every score of a row gets the same one, so your weights change."


GLOBAL_MAX = ("a row of small scores became NaN: you subtracted the largest score of the whole array; subtract "
              "each row's own maximum instead.")
MAX_MAGNITUDE = ("a row of scores far below 0 became NaN: the number your code subtracts from a row is its largest "
                 "size |score|, which on such a row is its most negative score turned positive, so every score of the "
                 "row is pushed further down and every exponential underflows to 0 (0/0). The shift that keeps exp in "
                 "range is the row's largest score, sign and all.")


def _softmax_error(call, outcome):
    """A broadcasting error inside softmax: the row max or sum lost its axis."""
    if outcome.error and outcome.error.startswith("ValueError") and "broadcast" in outcome.error:
        raise CheckFailed(f"`{call.describe()}` raised ValueError: operands could not be broadcast. The row max or "
                          "row sum lost its axis (use keepdims=True), so it no longer lines up with the scores.",
                          "softmax.missing_keepdims")


def _judge_softmax(call, outcome, what="your weights"):
    x = call.args[0]
    _softmax_error(call, outcome)
    axis = call.kwargs.get("axis", -1)
    weights = expect.array(outcome, call, what)
    expect.shape(weights, x.shape, what, " (the same shape as the scores)")
    try:
        expect.close(weights, ref.softmax(x, axis=axis), what, dtype=x.dtype,
                     diagnoses=_softmax_candidates(x, axis),
                     generic="do not match softmax: along the axis it normalises, the weights are positive, sum to "
                             "1 and keep the ratios that the scores' differences give.")
    except CheckFailed as failure:
        if failure.misconception == "wrong_values":
            _normaliser(weights, x, axis, what)
            _flattened(weights, x, axis, what)
        raise


def _flattened(weights, x, axis, what):
    """Fail saying so when two keys of a row whose scores differ got exactly the same weight, where the softmax
    tells them apart by more than 1 %: large scores were made equal (clipped, saturated) before the exp."""
    right = ref.softmax(x, axis=axis)
    w, s, r = (np.moveaxis(np.asarray(a, dtype=np.float64), axis, -1) for a in (weights, x, right))
    if not np.isfinite(w).all() or w.shape != s.shape:
        return
    if (w < 0).any() or not expect.allclose(w.sum(axis=-1), np.ones(w.shape[:-1]), 1e-6, 1e-9):
        return  # the softmax of any scores, clipped ones too, is positive and sums to 1: this is not one
    for row_w, row_s, row_r in zip(w.reshape(-1, w.shape[-1]), s.reshape(-1, s.shape[-1]), r.reshape(-1, r.shape[-1])):
        for j in range(row_w.size):
            for k in range(j + 1, row_w.size):
                if row_w[j] == row_w[k] > 0 and row_s[j] != row_s[k] and max(row_r[j], row_r[k]) > 1e-6 \
                        and max(row_r[j], row_r[k]) > 1.01 * min(row_r[j], row_r[k]):
                    raise CheckFailed(f"{what} give two keys of one row exactly the same weight although their scores "
                                      f"differ ({row_s[j]:.6g} and {row_s[k]:.6g}): large scores were made equal "
                                      "before the exp (clipped, say), which changes every weight of the row. "
                                      "Subtracting the row's maximum keeps exp in range without changing any weight.",
                                      "softmax.flattens_scores")


def _normaliser(weights, x, axis, what):
    """Fail saying so when each row of ``weights`` is in the right proportions and only its total is off."""
    rtol, atol = expect.tolerances(x.dtype)
    with np.errstate(all="ignore"):
        totals = weights.sum(axis=axis, keepdims=True)
        if not (np.isfinite(weights).all() and (totals > 0).all()
                and expect.allclose(weights / totals, ref.softmax(x, axis=axis), rtol, atol)):
            return
    if x.ndim > 1 and math.isclose(float(weights.sum()), 1.0, rel_tol=1e-6):
        raise CheckFailed(f"{what} are in the right proportions within each row, but they sum to 1 over the whole "
                          "array, not per row: divide each row by its own total.", "softmax.global_normalisation")
    if expect.allclose(weights.max(axis=axis), np.ones(np.delete(weights.shape, axis % weights.ndim)), rtol, atol):
        # divided by the largest exponential, or shifted by the maximum and never divided: the same numbers
        raise CheckFailed(f"{what} are in the right proportions within each row, and the largest weight of every row "
                          "is exactly 1: each row was scaled by its largest exponential (or, after subtracting the "
                          "row's maximum, left undivided), so a row sums to more than 1. The weights of a row share "
                          "out one whole: divide by the total of the row.", "softmax.largest_is_one")
    raise CheckFailed(f"{what} are in the right proportions within each row, but a row does not sum to 1: divide "
                      "each exponential by the total of its own row.", "wrong_values")


@checks.add("softmax", "seed_example", "scores (2, 1, 0) give weights (0.665, 0.245, 0.090)",
            calls=lambda rng: [Call("softmax", (np.array([2.0, 1.0, 0.0]),))])
def _(calls, outcomes):
    _judge_softmax(calls[0], outcomes[0])


@checks.add("softmax", "rows_sum_to_one", "each row of weights is positive and sums to 1",
            calls=lambda rng: [Call("softmax", (rng.standard_normal((3, 5)),))])
def _(calls, outcomes):
    x = calls[0].args[0]
    _softmax_error(calls[0], outcomes[0])
    weights = expect.array(outcomes[0], calls[0], "your weights")
    expect.shape(weights, x.shape, "your weights", " (the same shape as the scores)")
    negative = (weights < 0).any()
    if negative or not expect.allclose(weights.sum(axis=-1), np.ones(x.shape[0]), 1e-6, 1e-9):
        matching = {(m, message) for candidate, m, message in _softmax_candidates(x)
                    if expect.allclose(weights, candidate, 1e-6, 1e-9)}
        if len({m for m, _ in matching}) == 1:
            raise CheckFailed(*min(matching)[::-1])
        if negative:  # a property, not a cause: negative numbers come from more than a missing exp
            raise CheckFailed("some weights are negative; exponentials are always positive.", "wrong_values")
        _normaliser(weights, x, -1, "your weights")
        raise CheckFailed("the weights of a row do not sum to 1: divide each exponential by the total of its row.",
                          "wrong_values")


@checks.add("softmax", "matches_reference", "values on batched, non-square scores",
            calls=lambda rng: [Call("softmax", (rng.standard_normal((2, 4, 4)) * 3,)),
                               Call("softmax", (rng.standard_normal((2, 3, 5)),))])
def _(calls, outcomes):
    expect.each(calls, outcomes, _judge_softmax)


#: Shifts that keep the softmax at ordinary scores and break it far from 0, named only by their signature over
#: every input of the check and its probes, never from one input where both give NaN on the same row. The probes:
#: one row far below 0 (the whole array's maximum is that row's: a global maximum is right there, a row's largest
#: |score| underflows), and that row above an ordinary one (a row's largest |score| keeps the ordinary row, the
#: whole array's largest |score|, which is neither mistake, loses it too).
SHIFT_MISTAKES = (
    ("softmax.global_max", GLOBAL_MAX, lambda x: x.max()),
    ("softmax.max_magnitude", MAX_MAGNITUDE, lambda x: np.abs(x).max(axis=-1, keepdims=True)),
)


def _shifted_softmax(x, shift):
    e = np.exp(x - shift(x))
    return e / e.sum(axis=-1, keepdims=True)


@checks.add("softmax", "large_scores", "no overflow at large scores (1e3 and 1e4)",
            calls=lambda rng: [Call("softmax", (np.array([[1000.0, 999.0, 998.0], [-1000.0, -1001.0, -1003.0]]),)),
                               Call("softmax", (rng.standard_normal((3, 4)) * 1e4,)),
                               # probes, never graded (see SHIFT_MISTAKES)
                               Call("softmax", (np.array([[-1000.0, -1001.0, -1003.0]]),)),
                               Call("softmax", (np.array([[-1000.0, -1001.0, -1003.0], [1.0, 0.0, -1.0]]),))])
def _(calls, outcomes):
    try:
        expect.each(calls[:2], outcomes[:2], _judge_softmax)
    except CheckFailed as failure:
        found = signature.identify(outcomes, [
            (m, message, [signature.predict(_shifted_softmax, c.args[0], shift) for c in calls])
            for m, message, shift in SHIFT_MISTAKES])
        if found is not None:
            raise CheckFailed(found[1], found[0]) from None
        if failure.misconception in {m for m, _, _ in SHIFT_MISTAKES}:
            raise failure.vague or CheckFailed("NaN in your weights, where every value should be a number",
                                               "nan") from None
        raise


@checks.add("softmax", "row_max", "rows of very different sizes (each row's own maximum)",
            calls=lambda rng: [Call("softmax", (np.array([[1000.0, 999.0, 998.0], [1.0, 0.0, -1.0]]),))])
def _(calls, outcomes):
    _judge_softmax(calls[0], outcomes[0])


@checks.add("softmax", "other_axis", "the `axis` argument (axis 0 and 1 of a 3-D array)",
            calls=lambda rng: [Call("softmax", (rng.standard_normal((3, 4, 5)),), {"axis": 0}),
                               Call("softmax", (rng.standard_normal((3, 4, 5)),), {"axis": 1})])
def _(calls, outcomes):
    expect.each(calls, outcomes, lambda call, outcome: _judge_softmax(
        call, outcome, f"your weights with axis={call.kwargs['axis']}"))


@checks.add("softmax", "float32", "float32 scores",
            calls=lambda rng: [Call("softmax", (rng.standard_normal((4, 6)).astype(np.float32) * 5,))])
def _(calls, outcomes):
    _judge_softmax(calls[0], outcomes[0])


@checks.add("softmax", "input_unmodified", "leaves its input unchanged",
            calls=lambda rng: [Call("softmax", (rng.standard_normal((3, 4)) + 2,))])
def _(calls, outcomes):
    expect.value(outcomes[0], calls[0])
    expect.unmodified(outcomes[0], calls[0], {"0": "x"})


# ---------------------------------------------------------------- attention_scores
#: Mistakes of the scores named by their error on one input (:func:`signature.identify`): the error's type
#: and family must be the mistake's own, and no other mistake's (an unpacking of ``Q.shape`` is neither).
SCORE_RAISING = (
    ("attention_scores.batched_transpose",
     "the shapes do not line up, exactly where they would after a `.T`: on a batched array `.T` reverses *every* "
     "axis, the batch axes too, so batch b of Q no longer meets batch b of K; only the last two axes swap.",
     lambda Q, K: Q @ K.T),
    ("attention_scores.k_not_transposed",
     "the shapes do not line up. Each query (a row of Q, length d_k) meets each key (a row of K, length d_k): K must "
     "be transposed so that its rows become columns.", lambda Q, K: Q @ K),
)


def reshaped_keys(Q, K):
    """Q times K reshaped to (..., d_k, n_k): K's entries kept in memory order and cut into d_k rows of n_k. Where
    the keys are square (n_k = d_k) the reshape changes nothing and this is K as it is."""
    return Q @ K.reshape(K.shape[:-2] + (K.shape[-1], K.shape[-2]))


RESHAPED_KEYS = ("your scores are Q times K reshaped to (d_k, n_k): the shape is right, but a reshape keeps K's entries "
                 "in memory order and only regroups them into new rows, so a column of it holds pieces of several keys, "
                 "not one key. Turning each key (a row of K) into a column is a swap of the last two axes, which moves "
                 "the entries.")
#: Square keys (n_k = d_k): K as it is and K reshaped to (d_k, n_k) are the same array, so the input names neither.
SQUARE_KEYS = ("your scores multiply Q by K as it is: a query met a column of K instead of a key (a row of K). With as "
               "many keys as key entries that is what K left untransposed gives, and also K reshaped to (d_k, n_k) "
               "(which changes nothing on a square K); an input with more keys than entries tells the two apart.")


def _judge_scores(call, outcome, what="your scores"):
    Q, K = call.args
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2])
    n_q, n_k = Q.shape[-2], K.shape[-2]
    if outcome.error is not None:
        mistakes = [(m, message, [signature.predict(f, Q, K)]) for m, message, f in SCORE_RAISING
                    if batch or m != "attention_scores.batched_transpose"]
        found = signature.identify([outcome], mistakes)
        if found is not None:
            raise CheckFailed(f"`{call.describe()}` raised {outcome.error.split(':')[0]}: {found[1]}", found[0])
    scores = expect.array(outcome, call, what)
    _square_table(scores, Q, K, batch, what)
    expect.shape(scores, batch + (n_q, n_k), what, " = (..., n_q, n_k)", diagnoses=[
        (batch + (n_k, n_q), "attention_scores.keys_by_queries",
         "rows must be queries and columns keys, not the other way round: your table has one row per key."),
        (batch + (n_q,) + batch + (n_k,), "attention_scores.np_dot_batched",
         "np.dot on stacks of matrices pairs every batch with every other batch; use `@` (np.matmul), which "
         "pairs batch b of Q with batch b of K."),
    ])
    diagnoses = [(ref.attention_scores(Q, K) / np.sqrt(Q.shape[-1]), "attention_scores.scaled",
                  "your scores are divided by sqrt(d_k): this function returns the raw dot products, entry (i, j) "
                  "= query i . key j; the division belongs to the attention step (notebook 02).")] if Q.shape[-1] > 1 else []
    softmaxed = ("your scores are already weights: each row is positive and sums to 1 (a softmax of the dot "
                 "products). This function returns the raw dot products, of any size and sign; the softmax is a later "
                 "step.")
    diagnoses += [(ref.softmax(ref.attention_scores(Q, K)), "attention_scores.softmaxed", softmaxed),
                  (ref.softmax(ref.attention_scores(Q, K) / np.sqrt(Q.shape[-1])), "attention_scores.softmaxed",
                   softmaxed)]
    if Q.shape[-1] == K.shape[-2]:  # square keys: K as it is and K reshaped to (d_k, n_k) are one array
        diagnoses.append((Q @ K, "mistakes_coincide", SQUARE_KEYS))
    else:
        diagnoses.append((reshaped_keys(Q, K), "attention_scores.reshaped_keys", RESHAPED_KEYS))
    expect.close(scores, ref.attention_scores(Q, K), what, dtype=np.result_type(Q, K), diagnoses=diagnoses,
                 generic="do not match: entry (i, j) is the dot product of query i with key j.")


#: The mistakes of K's axes, judged by their signature over every call of a check (:func:`_judge_scores_all`): on
#: square keys K as it is and K reshaped are one array, and a batched `.T` raises where K as it is does; the
#: check's other inputs tell them apart.
KEY_AXES_MISTAKES = (
    ("attention_scores.k_not_transposed",
     "your scores multiply Q by K as it is on every input: where the keys are square a query met a column of K "
     "instead of a key (a row of K), and elsewhere the shapes do not line up. Each query meets each key: K's rows "
     "must become columns.", lambda Q, K: Q @ K),
    ("attention_scores.reshaped_keys", RESHAPED_KEYS, reshaped_keys),
    ("attention_scores.batched_transpose", SCORE_RAISING[0][1], lambda Q, K: Q @ K.T),
)


def _judge_scores_all(calls, outcomes, judge):
    """``judge(calls, outcomes)``; where it names no mistake, the one mistake of K's axes whose outcome the answer's
    is at every call of the check (probes included), if there is one (:func:`signature.identify`)."""
    try:
        judge(calls, outcomes)
    except CheckFailed as failure:
        if failure.misconception not in GENERIC_MISCONCEPTIONS:
            raise
        args = [call.args[:2] for call in calls]
        found = signature.identify(
            outcomes, [(m, message, [signature.predict(f, Q, K) for Q, K in args])
                       for m, message, f in KEY_AXES_MISTAKES],
            reference=[signature.predict(ref.attention_scores, Q, K) for Q, K in args])
        if found is not None:
            raise CheckFailed(found[1], found[0], failure) from None
        raise


def _square_table(scores, Q, K, batch, what):
    """Fail naming it when the table is n_q x n_q and holds the scores of the first n_q keys (more keys than
    queries): its width was taken from the queries, as if there were as many keys."""
    n_q, n_k = Q.shape[-2], K.shape[-2]
    if n_q < n_k and scores.shape == batch + (n_q, n_q) and expect.allclose(
            scores, ref.attention_scores(Q, K)[..., :n_q], *expect.tolerances(np.result_type(Q, K))):
        raise CheckFailed(f"{what} has shape {scores.shape}, expected {batch + (n_q, n_k)}: your table has one column "
                          f"per query ({n_q}), not one per key ({n_k} here), and holds the scores of the first "
                          f"{n_q} key{'s' if n_q > 1 else ''} only: its width was taken from the queries, as if there were as many keys as queries. "
                          "Test with more keys than queries.", "attention_scores.square_table")


@checks.add("attention_scores", "seed_example", "the seed's query (1, 0) against keys (1, 0), (0, 1), (0.5, 0.5)",
            calls=lambda rng: [Call("attention_scores", (np.array([[1.0, 0.0]]),
                                                         np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])))])
def _(calls, outcomes):
    _judge_scores_all(calls, outcomes, lambda calls, outcomes: _judge_scores(calls[0], outcomes[0]))


@checks.add("attention_scores", "non_square", "more keys than queries, d_k different from both (and a square case)",
            calls=lambda rng: [Call("attention_scores", (rng.standard_normal((3, 4)), rng.standard_normal((6, 4)))),
                               Call("attention_scores", (rng.standard_normal((5, 5)), rng.standard_normal((5, 5))))])
def _(calls, outcomes):
    _judge_scores_all(calls, outcomes, lambda calls, outcomes: expect.each(calls, outcomes, _judge_scores))


@checks.add("attention_scores", "batched", "leading batch axes (a batch of 2 sequences with 3 heads each)",
            calls=lambda rng: batching.with_first_sequences([
                Call("attention_scores", (rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((2, 3, 5, 5)))),
                Call("attention_scores", (rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 4, 3))))], (2, 2)))
def _(calls, outcomes):
    _judge_scores_all(calls, outcomes, lambda calls, outcomes: batching.judge_with_first_sequences(
        calls, outcomes, 2, (2, 2), _judge_scores, "attention_scores.fixed_axes",
        batched_mistakes=frozenset({"attention_scores.batched_transpose"})))


# One check for both, as every task of 04 and 05 has it: the two properties are one point, not two.
@checks.add("attention_scores", "float32_unmodified", "float32 queries and keys, left unchanged",
            calls=lambda rng: [Call("attention_scores", (rng.standard_normal((4, 8)).astype(np.float32),
                                                         rng.standard_normal((6, 8)).astype(np.float32)))])
def _(calls, outcomes):
    _judge_scores_all(calls, outcomes, lambda calls, outcomes: _judge_scores(calls[0], outcomes[0]))
    expect.unmodified(outcomes[0], calls[0], {"0": "Q", "1": "K"})


# ---------------------------------------------------------------- weighted_average
def _random_weights(rng, shape):
    return ref.softmax(rng.standard_normal(shape) * 2)


#: Mistakes that raise on some inputs, as they are written: a raise names one only when the answer raises
#: (or gives values) exactly where that mistake does, on every input of the check (:mod:`.signature`).
AVERAGE_MISTAKES = (
    ("weighted_average.transposed_weights",
     "your answer fails exactly where the transposed weights would: the weights are (..., n_q, n_k) and V is "
     "(..., n_k, d_v); you used the columns of the weights, one per key, where row i of the weights holds the "
     "shares that query i gives to each key.", lambda weights, V: np.swapaxes(weights, -1, -2) @ V),
    ("weighted_average.batched_transpose",
     "your answer is right without batch axes but fails on stacks exactly where `.T` would: on a batched array "
     "`.T` reverses *every* axis, the batch axes too, so batch b of the weights no longer meets batch b of V.",
     lambda weights, V: (V.T @ weights.T).T),
)

#: Mistakes named only where their signature says more than "raises" (:func:`signature.identify`'s
#: ``reference``): an entrywise product raises a broadcasting error on most inputs, as other mistakes do.
AVERAGE_TELLING = (
    ("weighted_average.elementwise",
     "your answer gives values or fails exactly where the entrywise product `*` would: `*` multiplies matching "
     "entries of two arrays (broadcasting their shapes), which is not a matrix product: each query's row of weights "
     "must meet the values of every key, and the products be added up over the keys.",
     lambda weights, V: weights * V),
)


def _judge_averages(calls, outcomes, graded=None):
    """Every input of a weighted_average check; an error is named by its signature over them all. Past the
    ``graded`` calls: the first-sequence probes of the batched ones (:mod:`.batching`)."""
    graded = len(calls) if graded is None else graded
    if any(outcome.error for outcome in outcomes[:graded]):
        def signatures(mistakes):
            return [(m, message, [signature.predict(f, *call.args) for call in calls[:graded]])
                    for m, message, f in mistakes]
        found = signature.identify(outcomes[:graded], signatures(AVERAGE_MISTAKES)) or signature.identify(
            outcomes[:graded], signatures(AVERAGE_TELLING),
            reference=[signature.predict(ref.weighted_average, *call.args) for call in calls[:graded]])
        if found is not None:
            raise CheckFailed(found[1], found[0])
    batching.judge_with_first_sequences(calls, outcomes, graded, (2, 2), _judge_average, "weighted_average.fixed_axes")


SUMMED_WIDTH = ("you added the products weight x value entry over the entries of each value (the last axis of V) "
                "instead of over the keys: each query's output is a whole value vector, d_v numbers, mixed from the "
                "values of every key.")


SUMMED_QUERIES = ("you added the weighted values over the queries (the rows of the weights) instead of over the "
                  "keys: each query's output is its own weighted mix of the values, one row per query.")


def _judge_average(call, outcome, what="your output"):
    weights, V = call.args
    batch = np.broadcast_shapes(weights.shape[:-2], V.shape[:-2])
    n_q, n_k, d_v = weights.shape[-2], weights.shape[-1], V.shape[-1]
    out = expect.array(outcome, call, what)
    summed_width = weights * V.sum(axis=-1)[..., None, :]  # every weight times its value's total: one per key
    if out.shape == summed_width.shape and n_k != d_v and expect.allclose(out, summed_width, *expect.tolerances(out.dtype)):
        raise CheckFailed(f"{what} has shape {out.shape}, one number per key: {SUMMED_WIDTH}", "weighted_average.sums_over_width")
    summed_queries = weights.sum(axis=-2)[..., :, None] * V  # each value times its weights' total over the queries
    if out.shape == summed_queries.shape and expect.allclose(out, summed_queries, *expect.tolerances(out.dtype)):
        raise CheckFailed(f"{what} has shape {out.shape}, one row per key: {SUMMED_QUERIES}",
                          "weighted_average.sums_over_queries")
    right = ref.weighted_average(weights, V)
    expect.transposed(out, right, what, "weighted_average.output_transposed", "query", "value entry")
    expect.shape(out, batch + (n_q, d_v), what, " = (..., n_q, d_v)", diagnoses=[
        (batch + (n_q,) + batch + (d_v,), "weighted_average.np_dot_batched",
         "np.dot on stacks of matrices pairs every batch with every other batch; use `@` (np.matmul)."),
        (batch + (d_v,), "weighted_average.unweighted_mean",
         "you averaged the values over the keys without one row of weights per query: each query gets its own "
         "weighted average."),
    ])
    diagnoses = [(ref.weighted_average(weights, V) / n_k, "weighted_average.divides_by_n_k",
                  "your output is the weighted sum divided by the number of keys: the weights already sum to 1, "
                  "so the weighted sum *is* the average."),
                 (np.broadcast_to(V.mean(axis=-2, keepdims=True), batch + (n_q, d_v)), "weighted_average.unweighted_mean",
                  "your output is the plain mean of the values: multiply each value by its weight before adding.")]
    top = np.argmax(weights, axis=-1)[..., None] == np.arange(n_k)  # one-hot on each query's largest weight
    diagnoses.append((top @ V, "weighted_average.hard_choice",
                      "your output is, for each query, the value of the one key with the largest weight: a hard "
                      "choice. The output is a weighted mix, to which every key contributes its value in proportion "
                      "to its weight."))
    if n_k == d_v:
        diagnoses.append((summed_width, "weighted_average.sums_over_width", f"{what} sums the wrong axis: {SUMMED_WIDTH}"))
    if n_q == n_k:
        diagnoses.append((np.swapaxes(weights, -1, -2) @ V, "weighted_average.transposed_weights",
                          "you used the columns of the weights: row i of the weights belongs to query i."))
    expect.close(out, ref.weighted_average(weights, V), what, dtype=np.result_type(weights, V), diagnoses=diagnoses,
                 generic="does not match the weighted average of the values: each query's row of weights says how "
                         "much of each key's value goes into that query's output.")


@checks.add("weighted_average", "seed_example",
            "the worked example (weights 0.665, 0.245, 0.090 on values 1, 2, 3 give 1.425) and the seed's values (10, 0), (0, 10), (5, 5)",
            calls=lambda rng: [Call("weighted_average", (ref.softmax(np.array([[2.0, 1.0, 0.0]])), np.array([[1.0], [2.0], [3.0]]))),
                               Call("weighted_average", (ref.softmax(np.array([[1.0, 0.0, 0.5]]) / np.sqrt(2)),
                                                         np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])))])
def _(calls, outcomes):
    _judge_averages(calls, outcomes)


@checks.add("weighted_average", "non_square", "n_q, n_k and d_v all different (and a square case)",
            calls=lambda rng: [Call("weighted_average", (_random_weights(rng, (3, 5)), rng.standard_normal((5, 2)))),
                               Call("weighted_average", (_random_weights(rng, (4, 4)), rng.standard_normal((4, 3))))])
def _(calls, outcomes):
    _judge_averages(calls, outcomes)


@checks.add("weighted_average", "batched", "leading batch axes (2 sequences, 3 heads)",
            calls=lambda rng: batching.with_first_sequences([Call("weighted_average", (_random_weights(rng, (2, 3, 4, 6)), rng.standard_normal((2, 3, 6, 5)))),
                               Call("weighted_average", (_random_weights(rng, (2, 4, 6)).astype(np.float32),
                                                         rng.standard_normal((2, 6, 3)).astype(np.float32))),
                               # square tables: the transposed weights give values here, a `.T` on the stack raises
                               Call("weighted_average", (_random_weights(rng, (2, 4, 4)), rng.standard_normal((2, 4, 3))))],
                (2, 2)))
def _(calls, outcomes):
    _judge_averages(calls, outcomes, 3)


@checks.add("weighted_average", "inputs_unmodified", "leaves the weights and V unchanged",
            calls=lambda rng: [Call("weighted_average", (_random_weights(rng, (3, 4)), rng.standard_normal((4, 2))))])
def _(calls, outcomes):
    expect.value(outcomes[0], calls[0])
    expect.unmodified(outcomes[0], calls[0], {"0": "weights", "1": "V"})
