"""Checks of 02_scaling: the variance argument, scale_scores, saturation, attention without a mask, Stop and try."""
from __future__ import annotations

import math

import numpy as np

import attention_ref as ref

from . import batching, expect, forms, items, signature
from .attention import judge_attention, judge_attentions, large_scores_qkv, scale_probe, swap_probe, underflow_probe
from .core import Call, CheckFailed, CheckList

ASSIGNMENT = "02_scaling"
TASKS = ["score_variance", "scale_scores", "leading_weight", "softmax_jacobian", "scaled_dot_product_attention",
         "STOP_AND_TRY_SCORES", "STOP_AND_TRY_WEIGHTS", "STOP_AND_TRY_LARGEST", "STOP_AND_TRY_REASON"]
GIVEN = ["dot_product", "attention_scores", "softmax", "weighted_average"]  # built in 01
MISCONCEPTIONS = {
    "score_variance.std_not_variance": "returns the standard deviation of the scores instead of their variance",
    "score_variance.no_sum": "about 1: the variance of one product q_i k_i instead of the raw sum of d_k products",
    "score_variance.scaled_scores": "about 1: the variance of the scaled scores (divided by sqrt(d_k)) instead of "
                                    "the raw ones",
    "score_variance.ignores_rng": "ignores the rng argument (results cannot be reproduced)",
    "score_variance.global_state": "draws from numpy's global random state (np.random.randn, np.random.normal, ...), "
                                   "which the rng argument does not reach",
    "score_variance.not_standard_normal": "draws the entries of q and k from another distribution than the standard "
                                          "normal (mean 0, variance 1) that the argument assumes",
    "score_variance.shrunk_by_d_k": "about 1/d_k: the variance of scores d_k times smaller than raw ones (entries of "
                                    "variance 1/d_k, or the scores divided by d_k)",
    "scale.whole_number_root": "divides by the square root of d_k made a whole number (rounded or truncated)",
    "scale.subtracts": "subtracts the divisor from the scores instead of dividing by it",
    "leading_weight.smallest_weight": "returns the smallest of the three weights instead of the largest",
    "leading_weight.fixed_divisor": "divides the scaled scores by a number that does not follow the width",
    "softmax_jacobian.squares_not_products": "off the diagonal, the square of one weight instead of a product of two "
                                            "(a 1-D array times itself is entrywise)",
    "softmax_jacobian.half_filled": "fills one half of the (symmetric) Jacobian and leaves the other half at 0",
    "STOP_AND_TRY.sorted_scores": "the Stop-and-try scores sorted, not in the order of the keys",
    "STOP_AND_TRY.scaled_by_n_k": "the Stop-and-try weights divided by the square root of the number of keys",
    "scale.none": "the scores are not scaled",
    "scale.by_d_k": "divides by d_k instead of sqrt(d_k)",
    "scale.multiplies": "multiplies by sqrt(d_k) instead of dividing",
    "scale.by_n_k": "divides by sqrt of the number of keys instead of sqrt(d_k)",
    "scale.wrong_divisor": "divides the scores by another number than sqrt(d_k) (none of the usual mistakes)",
    "scale.fixed_divisor": "divides the scores by a fixed number that does not follow the key width d_k",
    "scale.by_d_v": "divides by sqrt of the value width d_v instead of sqrt(d_k)",
    "leading_weight.flag_inverted": "the `scaled` flag does the opposite",
    "leading_weight.ignores_flag": "ignores the `scaled` flag (the same result either way)",
    "leading_weight.scaled_by_width": "divides by the width instead of its square root",
    "leading_weight.returns_index": "returns where the largest weight is (its index) instead of the weight",
    "leading_weight.raw_not_grown": "takes (2, 1, 0) as the raw scores at every width, as if they did not grow with it",
    "softmax_jacobian.sign": "the sign of the whole Jacobian is flipped",
    "softmax_jacobian.diagonal_only": "only the diagonal is filled in; the off-diagonal entries are 0",
    "softmax_jacobian.no_outer": "leaves out the dependence of each weight on the other scores (the shared denominator)",
    "softmax_jacobian.inner_not_outer": "subtracts one number (an inner product) from every entry instead of a matrix",
    "softmax_jacobian.off_diagonal_sign": "the off-diagonal entries have the wrong sign",
    "softmax_jacobian.no_diag": "keeps only the shared-denominator part: a score's effect on its own weight is missing",
    "softmax_jacobian.diagonal_twice": "the diagonal's own-weight term already holds the shared-denominator part, "
                                       "and the products of pairs subtracted over the whole matrix take it away again",
    "softmax_jacobian.diag_of_column": "np.diag of a column (an (n, 1) array) extracts its one diagonal entry p_0 "
                                       "instead of building a diagonal matrix",
    "softmax_jacobian.delta_as_one": "the Kronecker delta read as 1 off the diagonal too",
    "softmax_jacobian.log_softmax": "the Jacobian of log p (of the log-softmax) instead of p",
    "attention.softmax_wrong_axis": "softmax over another axis than the key axis (the query axis, or a batch axis)",
    "attention.k_not_transposed": "multiplies Q by K as it is, without transposing K",
    "attention.queries_keys_swapped": "queries and keys swapped: the scores are each key against every query (one "
                                      "row per key), not each query against every key",
    "attention.reshaped_keys": "reshapes K to (d_k, n_k) where a transpose is meant: a reshape keeps the entries in "
                               "memory order and regroups them, so no column of it is a key",
    "attention.batched_transpose": "`.T` on a batched array reverses the batch axes too",
    "attention.fixed_axes": "written for one (n, d) matrix per input: right on one sequence, fails with batch axes in front",
    "attention.swapped_return": "returns (weights, output) instead of (output, weights)",
    "attention.weights_transposed": "right output, but returns the weights transposed (one row per key)",
    "attention.no_softmax": "uses the scaled scores as the weights, without the softmax",
    "attention.scaled_after_softmax": "divides the weights by sqrt(d_k) after the softmax instead of the scores before it",
    "attention.divisor_after_softmax": "divides after the softmax, the values or the output, instead of the scores "
                                       "before it",
    "attention.keys_averaged": "averages the keys with the weights instead of the values",
    "attention.width_from_wrong_axis": "reads d_k from another axis than the last (right for 2-D inputs only): the "
                                       "divisor is the square root of a batch, head or sequence length",
    "STOP_AND_TRY.scaled_scores": "gave scaled scores (or weights) where the raw dot products were asked",
    "STOP_AND_TRY.unscaled_weights": "the Stop-and-try weights without the division by sqrt(d_k)",
    "STOP_AND_TRY.scaled_by_d_k": "the Stop-and-try weights divided by d_k instead of sqrt(d_k)",
    "STOP_AND_TRY.wrong_key": "picked a key other than the one aligned with the query",
    "STOP_AND_TRY.zero_based": "numbered the keys from 0",
    "STOP_AND_TRY.wrong_reason": "picked a reason that does not explain the largest weight",
}
checks = CheckList(composites={"scaled_dot_product_attention": ("scale_scores",)})
CHECKS = checks

SEED_Q = np.array([[1.0, 0.0]])                                  # seed 002, Example 1
SEED_K = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
SEED_V = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])        # seed 002, Example 2
REASONS = forms.REASONS
RIGHT_REASON = "a"  # see the list of reasons in the notebook


# ---------------------------------------------------------------- score_variance
VARIANCE_CASES = ((1, 20_000), (16, 20_000), (64, 20_000))


def _variance_band(d_k: int, n: int) -> float:
    # The dot product of two independent standard-normal vectors of length d has variance d and
    # fourth central moment 3d^2 + 6d, so the sample variance of n of them has standard deviation
    # sqrt((2 d^2 + 6 d) / n) (about 1 % of d at d = 64, n = 20 000). Six of those: a correct
    # answer fails with probability about 2e-9 whatever its random stream.
    return 6 * math.sqrt((2 * d_k * d_k + 6 * d_k) / n)


#: Probes read only to tell the "about 1" mistakes apart (never graded): one sample of d_k = 64 (the
#: variance of one number is 0, that of its 64 products is not) and d_k = 0 (the raw score of empty
#: vectors is 0; draws that ignore d_k still give about 1; a division by sqrt(d_k) or d_k gives 0/0). Each
#: gives a correct answer one exact value whatever its stream, as the kit's comparison needs.
VARIANCE_PROBES = ((64, 1, 101), (0, 20_000, 202))


def _probe_value(outcome) -> float | None:
    if outcome.error is not None:
        return math.nan if outcome.error.startswith("ZeroDivisionError") else None
    try:
        return float(np.asarray(outcome.value, dtype=float).reshape(()))
    except (TypeError, ValueError):
        return None


def _about_one(outcomes) -> tuple[str, str] | None:
    """``(misconception, what it is)`` of an answer near 1 at every width, from the probes; None when they
    do not identify one (a probe raised or returned something else)."""
    one, empty = (_probe_value(o) for o in outcomes)
    if one is None or empty is None:
        return None
    if math.isfinite(one) and one > 1e-9:
        return ("score_variance.no_sum", "the variance of the single products q_i k_i, pooled: with one sample of "
                                         "d_k = 64 your answer is the spread of its 64 products, not 0")
    if math.isfinite(empty) and abs(empty - 1.0) < 0.1:
        return ("score_variance.no_sum", "the variance of one product per sample: at d_k = 0 your answer is still "
                                         "about 1, so your samples never have d_k entries")
    if not math.isfinite(empty):
        return ("score_variance.scaled_scores", "the variance of the scores divided by sqrt(d_k) (or of the raw ones "
                                                "divided by d_k): at d_k = 0 your answer divides 0 by 0")
    return None


def _common_factor(calls, outcomes) -> float | None:
    """The factor c when the answer is c x d_k at every graded width (c away from 1): the variance grows in
    proportion to d_k, as it should, with each product adding c instead of 1; None otherwise.

    The entries' distribution is what makes it: the sum of d_k independent products has variance d_k times
    that of one product, which is 1 only for entries of mean 0 and variance 1 (uniform [0, 1) entries give
    7/144). The three widths (1, 16, 64) separate it from an answer near 1 or sqrt(d_k) at every width."""
    ratios = []
    for call, outcome in zip(calls, outcomes):
        value = _probe_value(outcome)
        if value is None or not math.isfinite(value):
            return None
        ratios.append(value / call.args[0])
    low, high = min(ratios), max(ratios)
    if low <= 0 or high > 1.1 * low or 0.8 < low < 1.25:  # 20 000 samples: an estimate's noise is about 1 %
        return None
    return sum(ratios) / len(ratios)


def _shrunk_by_d_k(calls, outcomes) -> bool:
    """Whether the answer is about 1/d_k at every graded width (within the sample noise, 10 %): the variance of
    scores d_k times smaller than raw ones (at d_k = 1 it is right)."""
    for call, outcome in zip(calls, outcomes):
        value = _probe_value(outcome)
        if value is None or not math.isfinite(value) or abs(value * call.args[0] - 1.0) > 0.1:
            return False
    return True


@checks.add("score_variance", "matches_d_k", "the variance of q . k is close to d_k (d_k = 1, 16 and 64)",
            calls=lambda rng: [Call("score_variance", (d, n), {"rng": int(rng.integers(1 << 30))})
                               for d, n in VARIANCE_CASES]
            + [Call("score_variance", (d, n), {"rng": seed}) for d, n, seed in VARIANCE_PROBES])
def _(calls, outcomes):
    graded = len(VARIANCE_CASES)
    for call, outcome in zip(calls[:graded], outcomes[:graded]):
        d_k, n = call.args
        got = expect.number(outcome, call, f"`score_variance({d_k}, ...)`")
        if abs(got - d_k) <= _variance_band(d_k, n):
            continue
        if d_k > 1 and abs(got - math.sqrt(d_k)) <= _variance_band(d_k, n) / (2 * math.sqrt(d_k)) + 0.05 * math.sqrt(d_k):
            raise CheckFailed(f"at d_k = {d_k} your answer is close to sqrt(d_k): that is the standard deviation of "
                              "the dot products; their variance is its square.", "score_variance.std_not_variance")
        if d_k > 1 and abs(got - 1.0) < 0.1:
            found = _about_one(outcomes[graded:])
            if found is not None:
                misconception, what = found
                raise CheckFailed(f"at d_k = {d_k} your answer is close to 1, {what}. The question asks for the "
                                  "variance of the raw score q . k, the *sum* of d_k products (variances of independent "
                                  "terms add, so it is d_k).", misconception)
            raise CheckFailed(f"at d_k = {d_k} your answer is close to 1, where the variance of the raw score q . k "
                              "(the sum of d_k products) is d_k: check that each sample is a whole dot product of two "
                              "vectors of d_k entries, not divided by anything.", "wrong_values")
        shrunk = _shrunk_by_d_k(calls[:graded], outcomes[:graded])
        if shrunk:
            raise CheckFailed(f"at d_k = {d_k} your estimate is {got:.4g}, and at every width it is about 1/d_k: the "
                              "variance of scores d_k times smaller than raw ones. That is what entries of variance "
                              "1/d_k each give (a layer's initialisation scale, not the standard normal the argument "
                              "assumes), or raw scores divided by d_k: the question asks for the variance of the raw "
                              "score of standard-normal entries.", "score_variance.shrunk_by_d_k")
        factor = _common_factor(calls[:graded], outcomes[:graded])
        if factor is not None and abs(factor - 2.0) < 0.2:
            # About 2 x d_k is what entries of variance 2 give, and as much what correct draws give when a vector
            # meets itself (q . q): the estimate alone cannot tell them apart, so neither is named.
            raise CheckFailed(f"your estimate is about {factor:.2g} x d_k at every width: it grows in proportion to "
                              "d_k, as it should, but each of the d_k products adds about 2 to it instead of 1, so "
                              "your products are not products of two independent entries of mean 0 and variance 1.",
                              "wrong_values")
        if factor is not None:
            raise CheckFailed(f"your estimate is about {factor:.2g} x d_k at every width: it grows in proportion to "
                              f"d_k, as it should, but each product q_i k_i adds about {factor:.2g} to it instead of 1. "
                              "The argument assumes entries of mean 0 and variance 1: check the distribution you draw "
                              "q and k from.", "score_variance.not_standard_normal")
        raise CheckFailed(f"at d_k = {d_k} your estimate is {got:.4g}, too far from d_k for {n} samples, and it is "
                          "neither about 1, nor about sqrt(d_k), nor one multiple of d_k at every width: it is not the "
                          "sample variance of raw scores q . k of independent standard-normal vectors.", "wrong_values")


#: numpy's legacy global generator seeded alike just before each of ``uses_rng``'s two probes (never graded).
GLOBAL_STATE_SEED = 20_241_211


def _global_state(calls, outcomes, graded) -> bool:
    """Whether the answer draws from numpy's global random state: the two graded calls (rng=7) disagree, and the two
    probes (rng=7 again, numpy's global generator seeded alike just before each) agree with each other and with
    neither graded call (the global state moved on between the graded calls)."""
    values = [_probe_value(o) for o in outcomes]
    if None in values or len(values) < graded + 2:
        return False
    first, second, probe, again = values[:graded + 2]
    return probe == again and probe not in (first, second)


@checks.add("score_variance", "uses_rng", "the same rng seed gives the same estimate",
            calls=lambda rng: [Call("score_variance", (8, 2000), {"rng": 7}), Call("score_variance", (8, 2000), {"rng": 7})]
            + [Call("score_variance", (8, 2000), {"rng": 7}, legacy_seed=GLOBAL_STATE_SEED)] * 2)
def _(calls, outcomes):
    first = expect.number(outcomes[0], calls[0])
    second = expect.number(outcomes[1], calls[1])
    if first != second and _global_state(calls, outcomes, 2):
        raise CheckFailed("two calls with rng=7 gave different estimates, and two more calls with rng=7, each made "
                          "just after numpy's global random generator was seeded alike (np.random.seed), gave one "
                          "estimate: your samples come from numpy's global random state (the np.random.* functions), "
                          "which the rng argument does not reach. Draw them from a generator made from rng.",
                          "score_variance.global_state")
    if first != second:
        raise CheckFailed("two calls with rng=7 gave different estimates: draw your samples from "
                          "`np.random.default_rng(rng)` so that a seed reproduces the experiment.",
                          "score_variance.ignores_rng")


# ---------------------------------------------------------------- scale_scores
def _scale_diagnoses(scores, d_k):
    return [
        (scores, "scale.none", "your scores are unchanged: divide them by sqrt(d_k)."),
        (scores / d_k, "scale.by_d_k", "you divided by d_k; the divisor is its square root, sqrt(d_k), "
                                       "the standard deviation of a raw score."),
        (scores * math.sqrt(d_k), "scale.multiplies", "you multiplied by sqrt(d_k): divide instead, to shrink the scores."),
        (scores - math.sqrt(d_k), "scale.subtracts",
         "you subtracted the divisor from every score instead of dividing by it: a shift leaves the gaps between the "
         "scores as they are (and the softmax does not change under a shift), so the scores are not brought closer "
         "together; divide instead."),
        (scores / math.sqrt(scores.shape[-1]), "scale.by_n_k",
         "you divided by the square root of the number of keys (the scores' last axis); the divisor is the key width "
         "d_k, which is passed as an argument because the scores do not show it."),
    ]


def _judge_scale(call, outcome):
    scores, d_k = call.args
    got = expect.array(outcome, call, "your scaled scores")
    expect.shape(got, scores.shape, "your scaled scores", " (the shape of the scores)")
    expect.close(got, ref.scale_scores(scores, d_k), "your scaled scores", dtype=scores.dtype,
                 generic="are not the scores each divided by one and the same number set by d_k: scaling keeps the "
                         "proportions between the scores of a call.")


def _judge_scales(calls, outcomes, graded):
    """The ``graded`` calls; a divisor mistake is named only when the answer is that mistake's on every call,
    the probes after them included: one input may not tell two divisors apart (sqrt(d_k + 1) is sqrt(n_k) on
    the seed's three scores with d_k = 2), the inputs of a check together do."""
    try:
        expect.each(calls[:graded], outcomes[:graded], _judge_scale)
    except CheckFailed as failure:
        if failure.misconception == "wrong_values":
            per_call = [_scale_diagnoses(*call.args) for call in calls]
            found = signature.identify(outcomes, [(m, message, [diagnoses[i][0] for diagnoses in per_call])
                                                  for i, (_, m, message) in enumerate(per_call[0])])
            if found is not None:
                raise CheckFailed(found[1], found[0]) from None
            _constant_divisor(calls, outcomes, graded)
        raise


def _constant_divisor(calls, outcomes, graded):
    """Fail naming the divisor when the answer is the scores divided by one number at every input, not sqrt(d_k):
    said to be a fixed number when it is the same at every input, the probes after the ``graded`` calls included,
    while d_k changes (a constant 2 is d_k at d_k = 2: one input does not tell them apart)."""
    ratios = []
    for call, outcome in zip(calls, outcomes):
        scores, d_k = call.args
        try:
            got = np.asarray(outcome.value, dtype=np.float64)
        except (TypeError, ValueError):
            return
        nonzero = np.abs(scores) > 1e-6
        if got.shape != scores.shape or not nonzero.any() or not np.isfinite(got).all():
            return
        ratio = float(np.median(scores[nonzero] / got[nonzero])) if (got[nonzero] != 0).all() else None
        if ratio is None or not expect.allclose(got, scores / ratio, *expect.tolerances(scores.dtype)):
            return
        ratios.append((ratio, d_k))
    widths = {d_k for _, d_k in ratios}
    whole = [(r, d_k) for r, d_k in ratios if not math.isclose(round(math.sqrt(d_k)), math.sqrt(d_k))]
    if whole and all(math.isclose(r, math.isqrt(d_k), rel_tol=1e-6) or math.isclose(r, round(math.sqrt(d_k)), rel_tol=1e-6)
                     for r, d_k in ratios) and len({round(r, 9) for r, _ in ratios}) > 1:
        # truncated or rounded: the probes (d_k = 5, 10) give both the same divisor, so neither is said alone
        told = ", ".join(f"{r:g} at d_k = {d_k}" for r, d_k in whole)
        raise CheckFailed(f"your scores are divided by {told}: the square root of d_k made a whole number (rounded or "
                          "truncated), which is exact only where d_k is a perfect square (16, 64). The divisor is the "
                          "square root itself, a fraction in general.", "scale.whole_number_root")
    if len(widths) > 1 and all(math.isclose(r, ratios[0][0], rel_tol=1e-6) for r, _ in ratios):
        raise CheckFailed(f"your scores are divided by the same number, {ratios[0][0]:.4g}, at every d_k "
                          f"({', '.join(str(d) for d in sorted(widths))}): a fixed divisor does not follow the key width "
                          "passed in; the divisor is sqrt(d_k).", "scale.fixed_divisor")
    told = [f"divided by {r:.4g} at d_k = {d_k} (sqrt(d_k) = {math.sqrt(d_k):.4g})" for r, d_k in ratios[:graded]
            if not math.isclose(r, math.sqrt(d_k), rel_tol=1e-6)]
    if told:
        raise CheckFailed(f"your scores are {'; '.join(told)}: the divisor is sqrt(d_k).", "scale.wrong_divisor")


#: Scores of the seed's shape with a key width of their own (d_k = 5 against 3 keys): never graded, it tells the
#: divisors apart where the seed's d_k = 2 does not.
SCALE_PROBE = Call("scale_scores", (np.array([2.0, 1.0, 0.0]), 5))
#: A second width (d_k = 10): a divisor that follows the whole-number part of sqrt(d_k) gives 3, one that
#: follows half of d_k (2 at d_k = 5, as the whole-number root) gives 5.
SCALE_PROBE_WIDE = Call("scale_scores", (np.array([2.0, 1.0, 0.0]), 10))


@checks.add("scale_scores", "seed_example", "raw scores (2, 1, 0) with d_k = 2 become (1.414, 0.707, 0)",
            calls=lambda rng: [Call("scale_scores", (np.array([2.0, 1.0, 0.0]), 2)), SCALE_PROBE, SCALE_PROBE_WIDE])
def _(calls, outcomes):
    _judge_scales(calls, outcomes, 1)


@checks.add("scale_scores", "matches_reference", "batched, non-square scores with d_k different from n_k; float32",
            calls=lambda rng: [Call("scale_scores", (rng.standard_normal((2, 3, 5)) * 8, 16)),
                               Call("scale_scores", (rng.standard_normal((4, 7)).astype(np.float32) * 8, 64))])
def _(calls, outcomes):
    _judge_scales(calls, outcomes, 2)


@checks.add("scale_scores", "input_unmodified", "leaves the scores unchanged",
            calls=lambda rng: [Call("scale_scores", (rng.standard_normal((3, 4)) * 5, 9))])
def _(calls, outcomes):
    expect.value(outcomes[0], calls[0])
    expect.unmodified(outcomes[0], calls[0], {"0": "scores"})


# ---------------------------------------------------------------- leading_weight
# leading_weight returns one float computed from three scores; the route (raw / sqrt(width), or (2, 1, 0)
# directly) changes it by a few ulps, while the flag and divisor mistakes change it by more than 1e-2.
# A relative 1e-6 also accepts a float32 computation.
LEADING_TOL = (1e-6, 1e-9)


def _leading_calls(widths, scaled):
    """The calls at ``widths`` with the flag under test, then the same widths with the other flag: the
    second half is never graded here (the other check grades it), only read to tell the flag mistakes apart."""
    return [Call("leading_weight", (w,), {"scaled": flag}) for flag in (scaled, not scaled) for w in widths]


def _number_or_none(outcome):
    try:
        return float(np.asarray(outcome.value).reshape(())) if outcome.error is None else None
    except (TypeError, ValueError):
        return None


def _flag_mistake(calls, outcomes, scaled):
    """``(message, misconception)`` of a flag mistake that every width of this check shows, or None.

    A flag is *ignored* when both flags give the same number at every width, *inverted* when each flag
    gives the other's right value at every width; any other pattern names neither."""
    half = len(calls) // 2
    own = [_number_or_none(o) for o in outcomes[:half]]
    other = [_number_or_none(o) for o in outcomes[half:]]
    if None in own or None in other:
        return None
    widths = [c.args[0] for c in calls[:half]]
    if all(expect.allclose(a, b, *LEADING_TOL) for a, b in zip(own, other)):
        curves = (("the scaled curve", lambda w: ref.leading_weight(w, scaled=True)),
                  ("the unscaled curve", lambda w: ref.leading_weight(w, scaled=False)),
                  ("raw scores divided by the width, not its square root",
                   lambda w: float(ref.softmax(np.array([2.0, 1.0, 0.0]) / math.sqrt(w))[0])))
        curve = next((name for name, f in curves
                      if all(expect.allclose(a, f(w), *LEADING_TOL) for a, w in zip(own, widths))), None)
        which = f"both give {curve}" if curve else "both give the same number"
        return (f"your result does not change with `scaled` ({which} at every width): read the flag, and divide the "
                "raw scores by sqrt(width) only when `scaled=True`.", "leading_weight.ignores_flag")
    if all(expect.allclose(a, ref.leading_weight(w, scaled=not scaled), *LEADING_TOL)
           and expect.allclose(b, ref.leading_weight(w, scaled=scaled), *LEADING_TOL)
           for a, b, w in zip(own, other, widths)):
        return ("your `scaled=True` and `scaled=False` results are swapped: `scaled=True` divides the raw scores by "
                "sqrt(width).", "leading_weight.flag_inverted")
    return None


def _leading_position(width, scaled) -> int:
    """Where the largest weight is: the key of the largest raw score, at every width and flag."""
    return int(np.argmax(ref.softmax(np.array([2.0, 1.0, 0.0]) * (1 if scaled else math.sqrt(width)))))


def _unshifted_leading(width, scaled=True) -> float:
    """The leading weight with exp of the unshifted scores: right wherever they stay below exp's range."""
    scores = np.array([2.0, 1.0, 0.0]) * (1 if scaled else math.sqrt(width))
    with np.errstate(all="ignore"):
        e = np.exp(scores)
        return float(e[0] / e.sum())


def _unshifted_leading_math(width, scaled=True) -> float:
    """The same with Python's ``math.exp``, which raises OverflowError where numpy's exp gives inf."""
    scores = [x * (1 if scaled else math.sqrt(width)) for x in (2.0, 1.0, 0.0)]
    e = [math.exp(x) for x in scores]
    return e[0] / sum(e)


def _overflows_unshifted(calls, outcomes) -> bool:
    """Whether the answer is exp of the unshifted scores at every call: right where they stay in exp's range, inf,
    NaN or math.exp's OverflowError beyond it (either spelling, never both fitting one answer)."""
    return signature.identify(outcomes, [
        ("softmax.no_max_subtraction", "", [signature.predict(f, *c.args, **c.kwargs) for c in calls])
        for f in (_unshifted_leading, _unshifted_leading_math)]) is not None


def _leading(scores) -> float:
    return float(ref.softmax(np.asarray(scores, dtype=float)).max())


#: Mistakes of the curve itself, as functions of (width, scaled): named only when the answer follows one on
#: every width of the check, with both flags (on the scaled half alone the two give the same numbers).
LEADING_MISTAKES = (
    ("leading_weight.scaled_by_width", "you divided the raw scores by the width; divide by its square root.",
     lambda w, scaled: _leading(np.array([2.0, 1.0, 0.0]) * math.sqrt(w) / (w if scaled else 1))),
    ("leading_weight.raw_not_grown",
     "your unscaled leading weight does not grow with the width: the raw scores stand for dot products of width "
     "`width`, so they grow with it, as (2, 1, 0) times sqrt(width); scaling then brings them back.",
     lambda w, scaled: _leading(np.array([2.0, 1.0, 0.0]) / (math.sqrt(w) if scaled else 1))),
    ("leading_weight.smallest_weight",
     "your answer is, at every width and with both flags, the smallest of the three softmax weights, not the largest "
     "(a sort puts the smallest first unless its order is reversed).",
     lambda w, scaled: float(ref.softmax(np.array([2.0, 1.0, 0.0]) * (1 if scaled else math.sqrt(w))).min())),
)


def _gap_of(weight: float) -> float | None:
    """The g >= 0 whose scores (2, 1, 0) g give ``weight`` as their largest softmax weight (the leading weight grows
    with g from 1/3 towards 1), or None where it is saturated or not a leading weight."""
    if not 1 / 3 < weight < 1 - 1e-9:
        return None
    low, high = 0.0, 60.0
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if _leading(np.array([2.0, 1.0, 0.0]) * middle) < weight else (low, middle)
    return (low + high) / 2


def _fixed_divisor(calls, outcomes) -> CheckFailed | None:
    """The verdict when the unscaled calls are right and the scaled ones are the raw scores (2, 1, 0) sqrt(width)
    divided by one and the same number c at every width (c away from sqrt(width)): read from the first width where
    the weight is not saturated, checked at every width."""
    values = [_number_or_none(o) for o in outcomes]
    if None in values:
        return None
    scaled = [(c.args[0], v) for c, v in zip(calls, values) if c.kwargs["scaled"]]
    if not all(expect.allclose(v, ref.leading_weight(c.args[0], scaled=False), *LEADING_TOL)
               for c, v in zip(calls, values) if not c.kwargs["scaled"]):
        return None
    gaps = [(w, _gap_of(v)) for w, v in scaled]
    w0, g0 = next(((w, g) for w, g in gaps if g is not None and g > 1e-6), (None, None))
    if w0 is None:
        return None
    divisor = math.sqrt(w0) / g0
    if not all(expect.allclose(v, _leading(np.array([2.0, 1.0, 0.0]) * math.sqrt(w) / divisor), *LEADING_TOL)
               for w, v in scaled) or all(math.isclose(divisor, math.sqrt(w), rel_tol=1e-4) for w, _ in scaled):
        return None
    which = " (the square root of 3, the number of scores)" if math.isclose(divisor, math.sqrt(3), rel_tol=1e-4) else ""
    return CheckFailed(f"your scaled scores are the raw ones divided by the same number, {divisor:.4g}{which}, at every "
                       "width: a divisor that does not follow the width cannot cancel the growth of the raw scores, "
                       "so your scaled leading weight still changes with the width. The divisor is set by the width "
                       "of the vectors whose dot products the scores are.", "leading_weight.fixed_divisor")


def _judge_leading(calls, outcomes, scaled):
    for call, outcome in zip(calls[:len(calls) // 2], outcomes[:len(calls) // 2]):
        width = call.args[0]
        top = 2 * math.sqrt(width) / (math.sqrt(width) if scaled else 1)
        what = "raised OverflowError" if outcome.error is not None else "is not a finite number"
        overflow = (f"`leading_weight({width!r}, scaled={scaled})` {what}, and your answer is right at every width "
                    f"where it gives a number: the largest raw score is {top:.4g} here, and exp of an unshifted "
                    "score above about 709 overflows (numpy's exp to inf, and inf / inf is NaN; math.exp raises "
                    "OverflowError). Shifting the scores of a row by one number changes no weight, and the right "
                    "shift keeps every exponent at or below 0: your stable softmax does it.")
        if outcome.error is not None and outcome.error.startswith("OverflowError") \
                and _overflows_unshifted(calls, outcomes):
            raise CheckFailed(overflow, "softmax.no_max_subtraction")
        got = expect.number(outcome, call, f"`leading_weight({width!r}, scaled={scaled})`")
        want = ref.leading_weight(width, scaled=scaled)
        if expect.allclose(got, want, *LEADING_TOL):
            continue
        if not math.isfinite(got):
            if _overflows_unshifted(calls, outcomes):
                raise CheckFailed(overflow, "softmax.no_max_subtraction")
            raise CheckFailed(f"`leading_weight({width!r}, scaled={scaled})` is not a finite number (the largest raw "
                              f"score is {top:.4g} at this width).", "nan")
        positions = [_number_or_none(o) for o in outcomes]
        if None not in positions and all(p == _leading_position(c.args[0], c.kwargs["scaled"])
                                          for p, c in zip(positions, calls)):
            raise CheckFailed(f"`leading_weight({width!r}, scaled={scaled})` returned {got:g}, at every width and "
                              "flag the position of the largest weight among the three keys (counted from 0), not the "
                              "weight itself: return the largest softmax weight, a fraction.",
                              "leading_weight.returns_index")
        found = signature.identify(outcomes, [(m, message, [f(c.args[0], c.kwargs["scaled"]) for c in calls])
                                              for m, message, f in LEADING_MISTAKES], LEADING_TOL)
        if found is not None:  # a mistake's curve at every width and flag: a weight where it is one
            raise CheckFailed(found[1], found[0])
        for other_call, other in zip(calls, outcomes):  # a flag or curve compared only between weights
            if _number_or_none(other) is not None:
                expect.weight_kind(other, other_call, f"`leading_weight({other_call.args[0]!r}, "
                                                      f"scaled={other_call.kwargs['scaled']})`", 1 / 3,
                                   "the largest of three softmax weights that sum to 1, so at least 1/3")
        flag = _flag_mistake(calls, outcomes, scaled)
        if flag is not None:
            raise CheckFailed(*flag)
        fixed = _fixed_divisor(calls, outcomes)
        if fixed is not None:
            raise fixed
        if expect.allclose(got, ref.leading_weight(width, scaled=not scaled), *LEADING_TOL):
            raise CheckFailed(f"`leading_weight({width!r}, scaled={scaled})` gives the value of the other flag "
                              f"(scaled={not scaled}), though not at every width: check how your code reads `scaled` "
                              "and `width` together.", "wrong_values")
        raise CheckFailed(f"`leading_weight({width!r}, scaled={scaled})` is {got:.4g}, off the "
                          f"{'scaled' if scaled else 'unscaled'} curve: "
                          + ("scaled, the leading weight is the same at every width (the scaling cancels the growth "
                             "of the raw scores)." if scaled else
                             "unscaled, the leading weight grows towards 1 as the raw scores grow with the width."),
                          "wrong_values")


@checks.add("leading_weight", "scaled_flat", "scaled: the leading weight stays at 0.665 at every width",
            calls=lambda rng: _leading_calls((1, 2, 64, 512, 4096, 2.5), True))
def _(calls, outcomes):
    _judge_leading(calls, outcomes, True)


@checks.add("leading_weight", "unscaled_saturates", "unscaled: the leading weight grows towards 1 with the width",
            calls=lambda rng: _leading_calls((1, 4, 16, 512, 1_000_000), False))
def _(calls, outcomes):
    _judge_leading(calls, outcomes, False)


# ---------------------------------------------------------------- softmax_jacobian
LOG_SOFTMAX = ("your Jacobian is that of log p, the log of the weights: row i of the softmax's own Jacobian carries "
               "a factor p_i that yours lacks (the derivative of p_i, not of log p_i).")


def _jacobian_diagnoses(p):
    want = ref.softmax_jacobian(p)
    squares = ("your diagonal is right, but off the diagonal each entry involves one weight only (minus its square, "
               "the same down a column or along a row), where entry (i, j) involves two, p_i and p_j: a 1-D array "
               "times itself is entrywise, one square per weight (and `.T` leaves a 1-D array as it is), not the "
               "table of products of every pair of weights.")
    half = ("one half of your Jacobian is right and the entries on the other side of the diagonal are 0: the "
            "Jacobian of the softmax is symmetric, and both halves must be filled in.")
    outer = np.outer(p, p)
    off_positive = outer.copy()
    np.fill_diagonal(off_positive, p * (1 - p))
    delta_as_one = ("your diagonal is right, but every off-diagonal entry is p_i (1 - p_j) (or p_j (1 - p_i)): "
                    "the 1 there is the Kronecker delta, 1 on the diagonal only: off the diagonal the derivative "
                    "has no such term.")
    return [
        (outer - np.diag(p), "softmax_jacobian.sign",
         "your Jacobian has the opposite sign: raising a score raises its own weight, so the diagonal is positive."),
        (np.diag(p * (1 - p)), "softmax_jacobian.diagonal_only",
         "your diagonal is right but the off-diagonal entries are 0: raising score j lowers every other "
         "weight, so the off-diagonal entries are negative."),
        (np.diag(p), "softmax_jacobian.no_outer",
         "you returned the weights on the diagonal: every weight p_i depends on every score through the shared denominator, and your "
         "Jacobian leaves that dependence out (its off-diagonal entries are 0, its diagonal too large)."),
        (np.diag(p) - p @ p, "softmax_jacobian.inner_not_outer",
         "you subtracted one number, an inner product of the weights, from every entry: the term that comes from "
         "the shared denominator differs from entry to entry (a matrix, not a number)."),
        (off_positive, "softmax_jacobian.off_diagonal_sign",
         "your diagonal is right but the off-diagonal entries have the wrong sign: raising score j lowers every "
         "other weight, so the off-diagonal entries are negative."),
        (-outer, "softmax_jacobian.no_diag",
         "your Jacobian keeps only the part that comes from the shared denominator: a score also moves its own "
         "weight through its own exponential, which your diagonal leaves out."),
        (np.diag(p * (1 - p)) - outer, "softmax_jacobian.diagonal_twice",
         "your off-diagonal entries are right, but each diagonal entry loses the square of its weight twice: the "
         "own-weight term you wrote for the diagonal already holds the shared denominator's part, and the products "
         "of every pair that you take away from the whole matrix take it away once more."),
        (p[0] - outer, "softmax_jacobian.diag_of_column",
         "every entry of your Jacobian is p_0, the first weight, minus p_i p_j: the diagonal matrix of the weights "
         "became the single number p_0, added everywhere. np.diag of a 2-D array (a column of shape (n, 1)) "
         "extracts its diagonal, here one entry, instead of building a matrix from a vector: only a 1-D array "
         "becomes a diagonal matrix."),
        (p[:, None] * (1 - p[None, :]), "softmax_jacobian.delta_as_one", delta_as_one),
        (np.eye(len(p)) - p[None, :], "softmax_jacobian.log_softmax", LOG_SOFTMAX),
        (np.eye(len(p)) - p[:, None], "softmax_jacobian.log_softmax", LOG_SOFTMAX),
        (p[None, :] * (1 - p[:, None]), "softmax_jacobian.delta_as_one", delta_as_one),
        (np.diag(p) - (p * p)[None, :], "softmax_jacobian.squares_not_products", squares),
        (np.diag(p) - (p * p)[:, None], "softmax_jacobian.squares_not_products", squares),
        (np.tril(want), "softmax_jacobian.half_filled", half),
        (np.triu(want), "softmax_jacobian.half_filled", half),
    ]


def _jacobian_part(J, want) -> str:
    """Which part of the Jacobian is off, in words (the diagonal, the off-diagonal entries, or both)."""
    n = want.shape[0]
    rtol, atol = expect.tolerances(np.float64)
    off = ~np.eye(n, dtype=bool)
    diagonal_ok = expect.allclose(np.diag(J), np.diag(want), rtol, atol)
    off_ok = expect.allclose(J[off], want[off], rtol, atol)
    if diagonal_ok and not off_ok:
        return ("its diagonal is right but the off-diagonal entries are not: how does raising score j move another "
                "weight p_i?")
    if off_ok and not diagonal_ok:
        return "its off-diagonal entries are right but the diagonal is not: how does raising score i move its own p_i?"
    return ("neither its diagonal nor its off-diagonal entries match: differentiate p_i = exp(x_i) / sum_k exp(x_k) "
            "with respect to x_j, once for j = i and once for j != i.")


def _judge_jacobian(call, outcome):
    p = call.args[0]
    J = expect.array(outcome, call, "your Jacobian")
    n = p.shape[0]
    if J.shape == (n,) and expect.allclose(J, p * (1 - p), *expect.tolerances(np.float64)):
        raise CheckFailed(f"your Jacobian is the vector of its {n} diagonal entries: it is an n x n matrix, and raising "
                          "score j also moves every other weight (the entries off the diagonal).",
                          "softmax_jacobian.diagonal_only")
    expect.shape(J, (n, n), "your Jacobian", " = (n, n)")
    want = ref.softmax_jacobian(p)
    expect.close(J, want, "your Jacobian", diagnoses=_jacobian_diagnoses(p),
                 generic=f"is not the Jacobian of the softmax at p of length {n}: {_jacobian_part(J, want)}")


def _fits(misconception, call, outcome) -> bool:
    """Whether the answer is ``misconception``'s Jacobian at this call: one of its candidates, or the right one
    where one of its candidates is right too (a mistake that changes nothing at this p)."""
    p = call.args[0]
    if outcome.error is not None:
        return False
    try:
        J = np.asarray(outcome.value, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    tol = expect.tolerances(np.float64)
    want = ref.softmax_jacobian(p)
    candidates = [c for c, m, _ in _jacobian_diagnoses(p) if m == misconception]
    if misconception == "softmax_jacobian.diagonal_only":
        candidates.append(p * (1 - p))
    return any(expect.allclose(J, c, *tol) for c in candidates) or (
        expect.allclose(J, want, *tol) and any(expect.allclose(c, want, *tol) for c in candidates))


def _judge_jacobians(calls, outcomes, graded):
    """The ``graded`` calls judged one by one; a mistake named by one of them holds only where the answer is that
    mistake's Jacobian at every call, the probes after them too. At a saturated p (entries 0 and 1) several
    mistakes give one matrix (a diagonal p_i - 2 p_i^2 is -p_i^2 there, as is the diagonal of -p p^T): the
    input that names one must not be the only one it fits."""
    try:
        expect.each(calls[:graded], outcomes[:graded], _judge_jacobian)
    except CheckFailed as failure:
        if failure.misconception in MISCONCEPTIONS and not all(
                _fits(failure.misconception, c, o) for c, o in zip(calls, outcomes)):
            raise failure.vague or CheckFailed("your Jacobian is not the Jacobian of the softmax at one of these p, "
                                               "and no one known mistake explains it at every p.",
                                               "wrong_values") from None
        raise


@checks.add("softmax_jacobian", "matches_reference",
            "the worked example's weights and random probability vectors; p left unchanged",
            calls=lambda rng: [Call("softmax_jacobian", (ref.softmax(np.array([2.0, 1.0, 0.0])),)),
                               Call("softmax_jacobian", (ref.softmax(rng.standard_normal(5)),)),
                               Call("softmax_jacobian", (ref.softmax(rng.standard_normal(2)),))])
def _(calls, outcomes):
    _judge_jacobians(calls, outcomes, 3)
    for call, outcome in zip(calls, outcomes):
        expect.unmodified(outcome, call, {"0": "p"})


@checks.add("softmax_jacobian", "saturated", "a saturated softmax (one weight near 1) has a Jacobian near 0",
            calls=lambda rng: [Call("softmax_jacobian", (ref.softmax(np.array([2.0, 1.0, 0.0]) * math.sqrt(512)),)),
                               Call("softmax_jacobian", (ref.softmax(rng.standard_normal(4) * 40),)),
                               # a probe, never graded: an unsaturated p, where the mistakes differ
                               Call("softmax_jacobian", (ref.softmax(np.array([0.5, -0.25, 0.0, 1.0])),))])
def _(calls, outcomes):
    _judge_jacobians(calls, outcomes, 2)


# ---------------------------------------------------------------- scaled_dot_product_attention (no mask)
@checks.add("scaled_dot_product_attention", "seed_example",
            "the seed's example: weights ≈ (0.455, 0.225, 0.320), output ≈ (6.15, 3.85)",
            calls=lambda rng: [Call("scaled_dot_product_attention", (SEED_Q, SEED_K, SEED_V)), scale_probe(rng),
                               swap_probe(rng)])
def _(calls, outcomes):
    judge_attentions(calls, outcomes, 1, axes_probe=True)


@checks.add("scaled_dot_product_attention", "non_square", "n_q, n_k, d_k and d_v all different",
            calls=lambda rng: [Call("scaled_dot_product_attention",
                                    (rng.standard_normal((3, 4)) * 2, rng.standard_normal((5, 4)) * 2,
                                     rng.standard_normal((5, 6)))), scale_probe(rng), swap_probe(rng)])
def _(calls, outcomes):
    judge_attentions(calls, outcomes, 1, axes_probe=True)


@checks.add("scaled_dot_product_attention", "batched", "leading axes (2 sequences, 3 heads) and float32 inputs",
            calls=lambda rng: batching.with_first_sequences([
                Call("scaled_dot_product_attention",
                     (rng.standard_normal((2, 3, 4, 8)) * 2, rng.standard_normal((2, 3, 8, 8)) * 2,
                      rng.standard_normal((2, 3, 8, 5)))),
                Call("scaled_dot_product_attention",
                     tuple(rng.standard_normal(s).astype(np.float32) * 2 for s in ((2, 5, 16), (2, 7, 16), (2, 7, 3))))],
                (2, 2, 2)) + [swap_probe(rng)])
def _(calls, outcomes):
    judge_attentions(calls, outcomes, 2, lambda calls, outcomes: batching.judge_with_first_sequences(
        calls, outcomes, 2, (2, 2, 2), judge_attention, "attention.fixed_axes",
        batched_mistakes=frozenset({"attention.batched_transpose"})), axes_probe=True)


@checks.add("scaled_dot_product_attention", "large_scores", "large scores (1e3 and beyond) without overflow",
            calls=lambda rng: [Call("scaled_dot_product_attention", large_scores_qkv(rng, 3, 5, 4, 2, offset=900.0)),
                               Call("scaled_dot_product_attention", large_scores_qkv(rng, 4, 3, 9, 2, offset=-700.0)),
                               Call("scaled_dot_product_attention", underflow_probe(rng)), swap_probe(rng)])
def _(calls, outcomes):
    judge_attentions(calls, outcomes, 3, axes_probe=True)


@checks.add("scaled_dot_product_attention", "inputs_unmodified", "leaves Q, K and V unchanged",
            calls=lambda rng: [Call("scaled_dot_product_attention",
                                    (rng.standard_normal((3, 4)), rng.standard_normal((5, 4)), rng.standard_normal((5, 2))))])
def _(calls, outcomes):
    expect.value(outcomes[0], calls[0])
    expect.unmodified(outcomes[0], calls[0], {"0": "Q", "1": "K", "2": "V"})


# ---------------------------------------------------------------- Stop and try
_three_numbers, _choice, HAND_ATOL = forms.three_numbers, forms.choice, forms.HAND_ATOL  # the public forms


checks.add("STOP_AND_TRY_SCORES", "format", "three numbers, one per key",
           calls=lambda rng: [Call("STOP_AND_TRY_SCORES", value_only=True)])(forms.stop_and_try_scores_format)


# Judged on the student's own item (checks/items.py; the lesson's example (seed 000) when grading has none).
@checks.add("STOP_AND_TRY_SCORES", "values", "the raw dot products of the query with each key", public=False,
            calls=lambda rng: [Call("STOP_AND_TRY_SCORES", value_only=True)], item=items.ITEM)
def _(calls, outcomes, item):
    got = _three_numbers(outcomes[0], calls[0], "`STOP_AND_TRY_SCORES`")
    raw = item.scores()
    if np.allclose(got, raw, atol=HAND_ATOL):
        return
    if np.allclose(got, raw / math.sqrt(2), atol=HAND_ATOL) or np.allclose(got, ref.softmax(raw / math.sqrt(2)), atol=HAND_ATOL) \
            or np.allclose(got, ref.softmax(raw), atol=HAND_ATOL):
        raise CheckFailed("these are scaled scores or weights; the question asks for the raw dot products q . k.",
                          "STOP_AND_TRY.scaled_scores")
    if any(np.allclose(got, order, atol=HAND_ATOL) for order in (np.sort(raw), np.sort(raw)[::-1])):
        raise CheckFailed("these are the right three scores, sorted, not in the order of the keys: score i belongs to "
                          "key k_i, and its place in the list says which key it is.", "STOP_AND_TRY.sorted_scores")
    raise CheckFailed("the raw scores are the dot products of the query with each key, in the order of the keys.",
                      "wrong_values")


checks.add("STOP_AND_TRY_WEIGHTS", "format", "three non-negative weights that sum to 1",
           calls=lambda rng: [Call("STOP_AND_TRY_WEIGHTS", value_only=True)])(forms.stop_and_try_weights_format)


@checks.add("STOP_AND_TRY_WEIGHTS", "values", "the weights of the scaled scores (d_k = 2)", public=False,
            calls=lambda rng: [Call("STOP_AND_TRY_WEIGHTS", value_only=True)], item=items.ITEM)
def _(calls, outcomes, item):
    got = _three_numbers(outcomes[0], calls[0], "`STOP_AND_TRY_WEIGHTS`")
    raw = item.scores()
    if np.allclose(got, ref.softmax(raw / math.sqrt(2)), atol=HAND_ATOL):
        return
    mistakes = [(ref.softmax(raw), "STOP_AND_TRY.unscaled_weights",
                 "these are the weights of the raw scores: divide the scores by sqrt(d_k) = sqrt(2) before the "
                 "softmax."),
                (ref.softmax(raw / 2), "STOP_AND_TRY.scaled_by_d_k", "you divided the scores by d_k = 2; divide by "
                                                                    "sqrt(2) ≈ 1.414."),
                (ref.softmax(raw / math.sqrt(3)), "STOP_AND_TRY.scaled_by_n_k",
                 "you divided the scores by the square root of the number of keys (3); the divisor is the square "
                 "root of the key width d_k = 2, the length of each vector.")]
    # named only where one mistake alone is within the rounding of a hand computation (the item keeps the first two
    # apart from the right weights; two mistakes may still land on the same weights)
    matching = {(m, message) for w, m, message in mistakes if np.allclose(got, w, atol=HAND_ATOL)}
    if len(matching) == 1:
        raise CheckFailed(*next(iter(matching))[::-1])
    raise CheckFailed("the weights are the softmax of the scaled scores, in the order of the keys.", "wrong_values")


checks.add("STOP_AND_TRY_LARGEST", "format", "one of 1, 2 or 3",
           calls=lambda rng: [Call("STOP_AND_TRY_LARGEST", value_only=True)])(forms.stop_and_try_largest_format)


@checks.add("STOP_AND_TRY_LARGEST", "value", "the key that gets the largest weight", public=False,
            calls=lambda rng: [Call("STOP_AND_TRY_LARGEST", value_only=True)], item=items.ITEM)
def _(calls, outcomes, item):
    got = _choice(outcomes[0], calls[0], "`STOP_AND_TRY_LARGEST`")
    if got == item.largest() - 1:  # 0 is refused by the form; a winner k2 or k3 counted from 0 is a valid key
        raise CheckFailed("that key does not get the largest weight: the keys are numbered from 1 (k1, k2, k3), "
                          "while np.argmax counts from 0.", "STOP_AND_TRY.zero_based")
    if got != item.largest():
        raise CheckFailed("that key does not get the largest weight: the largest score gets the largest weight.",
                          "STOP_AND_TRY.wrong_key")


_letter = forms.letter
checks.add("STOP_AND_TRY_REASON", "format", "one of the letters of the list",
           calls=lambda rng: [Call("STOP_AND_TRY_REASON", value_only=True)])(forms.stop_and_try_reason_format)


#: What each wrong reason of the list gets wrong, without the right one (its letter or its words).
WRONG_REASONS = {
    "b": "that reason says the longest key always wins: a score also depends on the key's direction, and a long key "
         "pointing away from the query scores below a short one pointing along it.",
    "c": "that reason says a score of 0 or below gets weight 0: the softmax exponentiates, exp(0) = 1, so every key "
         "keeps a positive weight whatever its score.",
    "d": "that reason says the division reverses the order of the scores: dividing every score by the same positive "
         "number keeps their order, it only brings them closer together.",
    "e": "that reason says every key gets the same weight: the softmax gives a larger score a larger weight, so the "
         "weights differ whenever the scores do.",
}


@checks.add("STOP_AND_TRY_REASON", "value", "the reason that explains the largest weight", public=False,
            calls=lambda rng: [Call("STOP_AND_TRY_REASON", value_only=True)])
def _(calls, outcomes):
    chosen = _letter(outcomes[0], calls[0])
    if chosen != RIGHT_REASON:
        raise CheckFailed(WRONG_REASONS[chosen], "STOP_AND_TRY.wrong_reason")
