"""Judging ``scaled_dot_product_attention`` (02 without a mask, 03 with one): the usual mistakes and inputs
that tell them apart whatever the seed."""
from __future__ import annotations

import math

import numpy as np

import attention_ref as ref

from . import expect, signature
from .core import GENERIC_MISCONCEPTIONS, Call, CheckFailed


def large_scores_qkv(rng, n_q, n_k, d_k, d_v, *, offset, gaps=None, dtype=np.float64):
    """``(Q, K, V)`` whose scaled scores are ``offset`` plus a spread of at least 2 that grows with the key.

    Every row holds scores near ``offset`` (``exp`` of them overflows or underflows unless the row
    maximum is subtracted), while the differences between keys stay of order 1 after the division by
    sqrt(d_k): the weights are far from one-hot, so a wrong divisor (none, d_k, n_k, d_v) changes them
    for every seed. The last key holds the largest score of every row (under a causal mask it is the
    key hidden from the first query), so an ignored mask or a mask filled with 0 shows too.

    ``gaps = (row_offsets, row_factors, key_gaps)`` (needs d_k >= 4) adds ``row_offsets[i] +
    row_factors[i] * key_gaps[j]`` to score (i, j): rows and keys more than 1,000 apart, where any shift
    but the row's own maximum over its allowed keys underflows every exponential of a row to 0
    (:func:`shifted_softmax_candidates`). The rng draws the same numbers with or without it.
    """
    Q = rng.standard_normal((n_q, d_k)) * 0.3
    K = rng.standard_normal((n_k, d_k)) * 0.3
    root = math.sqrt(d_k)
    Q[:, 0], K[:, 0] = 1.0, offset * root
    Q[:, 1], K[:, 1] = root * (1.0 + rng.random(n_q)), np.linspace(0.0, 2.5, n_k)
    if gaps is not None:
        row_offsets, row_factors, key_gaps = (np.asarray(g, dtype=np.float64) for g in gaps)
        Q[:, 2], K[:, 2] = row_offsets * root, 1.0
        Q[:, 3], K[:, 3] = row_factors * root, key_gaps
    V = rng.standard_normal((n_k, d_v))
    return Q.astype(dtype), K.astype(dtype), V.astype(dtype)


#: What each divisor mistake read from the sizes is, in words (:func:`sdpa_candidates`, :func:`judge_divisor`).
SCALE_MESSAGES = {
    "scale.none": "your weights are those of the raw scores: divide the scores by sqrt(d_k) before the softmax.",
    "scale.by_d_k": "you divided the scores by d_k; divide by sqrt(d_k).",
    "scale.by_n_k": "you divided by the square root of the number of keys; the divisor is sqrt(d_k), the key width.",
    "scale.by_d_v": "you divided by the square root of the value width d_v; the divisor is sqrt(d_k), the key width.",
}


RESHAPED_KEYS = ("your scores are Q times K reshaped to (d_k, n_k): the shape is right, but a reshape keeps K's entries "
                 "in memory order and only regroups them into new rows, so a column of it holds pieces of several keys, "
                 "not one key. Turning each key (a row of K) into a column is a swap of the last two axes, which moves "
                 "the entries.")


def sdpa_candidates(Q, K, V, mask=None):
    """Results of typical attention mistakes (output, weights, misconception, message)."""
    d_k, n_k, d_v = Q.shape[-1], K.shape[-2], V.shape[-1]
    raw = Q @ np.swapaxes(K, -1, -2)

    def attend(scores, axis=-1):
        if mask is not None:
            scores = ref.apply_mask(scores, mask)
        w = ref.softmax(scores, axis=axis)
        return w @ V, w

    yield (*attend(raw), "scale.none", SCALE_MESSAGES["scale.none"])
    yield (*attend(raw / d_k), "scale.by_d_k", SCALE_MESSAGES["scale.by_d_k"])
    if n_k != d_k:
        yield (*attend(raw / math.sqrt(n_k)), "scale.by_n_k", SCALE_MESSAGES["scale.by_n_k"])
    if d_v != d_k:
        yield (*attend(raw / math.sqrt(d_v)), "scale.by_d_v", SCALE_MESSAGES["scale.by_d_v"])
    for name, X in (("Q", Q), ("K", K)):
        for axis in range(X.ndim - 1):  # d_k read from a fixed axis: right for 2-D inputs, not with batch axes
            if X.shape[axis] not in (1, d_k) and not (name == "K" and axis == X.ndim - 2):  # 1: scale.none, n_k: by_n_k
                yield (*attend(raw / math.sqrt(X.shape[axis])), "attention.width_from_wrong_axis",
                       f"your scores are divided by the square root of {name}.shape[{axis}] = {X.shape[axis]}, which "
                       f"is not the key width: d_k is the length of each query and key vector, the last axis of {name} "
                       "(count the axes from the end: batched inputs have more axes in front).")
    if n_k == d_k:  # square keys: K as it is and K reshaped to (d_k, n_k) are one array, the input names neither
        yield (*attend(Q @ K / math.sqrt(d_k)), "attention.k_not_transposed",
               "your scores multiply Q by K as it is: a query met a column of K instead of a key (a row of K).")
        yield (*attend(Q @ K / math.sqrt(d_k)), "attention.reshaped_keys", RESHAPED_KEYS)
    else:
        yield (*attend(Q @ K.reshape(K.shape[:-2] + (d_k, n_k)) / math.sqrt(d_k)), "attention.reshaped_keys",
               RESHAPED_KEYS)
    if mask is None:
        scaled = raw / math.sqrt(d_k)
        yield scaled @ V, scaled, "attention.no_softmax", \
            ("your weights are the scaled scores themselves: turn each query's row of scores into weights that are "
             "positive and sum to 1 (the softmax along the key axis) before averaging the values.")
    after = attend(raw)[1] / math.sqrt(d_k)
    yield after @ V, after, "attention.scaled_after_softmax", \
        ("your weights are those of the raw scores divided by sqrt(d_k) afterwards, so a row no longer sums to 1: the "
         "division acts on the scores, before the softmax.")
    yield (*attend(raw / math.sqrt(d_k), axis=-2), "attention.softmax_wrong_axis",
           "your weights sum to 1 down each column: the softmax ran over the query axis; each query's row must sum "
           "to 1 over the keys (axis -1).")
    for axis in range(raw.ndim - 2):  # a softmax along a batch or head axis (axis=0 or 1 written for 2-D scores)
        yield (*attend(raw / math.sqrt(d_k), axis=axis), "attention.softmax_wrong_axis",
               f"your weights sum to 1 along axis {axis} of the scores, a batch or head axis: each query's row must "
               "sum to 1 over the keys, the last axis (count the axes from the end).")
    for w, misconception, message in shifted_softmax_candidates(raw / math.sqrt(d_k), mask):
        yield w @ V, w, misconception, message
    scaled = raw / math.sqrt(d_k) if mask is None else ref.apply_mask(raw / math.sqrt(d_k), mask)
    if np.max(scaled, initial=-np.inf) > 709:  # exp overflows: a softmax that subtracts no maximum gives inf / inf
        e = np.exp(scaled)
        w = e / e.sum(axis=-1, keepdims=True)
        yield w @ V, w, "softmax.no_max_subtraction", \
            ("your weights are NaN where a query's scores are large: exp overflows to inf and the row divides inf by "
             "inf. Softmax does not change if you subtract the same number from every score of a row; choose that "
             "number so that no exponential can overflow (the given `softmax` does it).")


#: The mask of :func:`underflow_probe`: query 0 hides its top key, 2 and 3 hide keys of ordinary weight.
UNDERFLOW_MASK = np.array([[1, 1, 1, 1, 0], [1, 1, 1, 1, 1], [1, 0, 1, 1, 1], [0, 0, 1, 1, 1]], dtype=bool)


def underflow_probe(rng):
    """``(Q, K, V)`` of 4 queries and 5 keys at scaled scores near 720, where a shift other than each row's
    own maximum over its allowed keys empties a row (:func:`shifted_softmax_candidates`), whatever the seed.

    Key 4 scores 1,100 above the other keys for query 0 only (:data:`UNDERFLOW_MASK` hides it from that
    query), and query 1 scores 1,100 below the others. A maximum taken over the hidden keys too empties
    query 0; one maximum for the whole array empties query 1 (and, before masking, 0, 2 and 3 too); no
    shift at all overflows queries 0, 2 and 3 and leaves query 1 right: each mistake its own rows. The
    spread between keys stays below 5, so every gap exceeds 1,000 after it.
    """
    return large_scores_qkv(rng, 4, 5, 6, 3, offset=720.0,
                            gaps=([0.0, -1100.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1100.0]))


def shifted_softmax_candidates(scores, mask=None):
    """``(weights, misconception, message)`` of softmaxes shifted by a maximum other than each row's own over
    its allowed keys: equal to the softmax unless a row's allowed scores lie far below that maximum, where
    every exponential of the row underflows to 0 and the row is 0/0 (left NaN, or guarded to zeros, both
    written), or falls back to the weights of the unmasked scores. A shift that empties no row with an allowed
    key gives nothing: a row with no allowed key at all is the fully-masked-row checks' to judge."""
    allowed = scores if mask is None else ref.apply_mask(scores, mask)
    whole = ("a query whose scores all lie far below the largest score of the whole array got {how} weights: you "
             "subtracted one maximum for every query at once, so each exp of that query underflows to 0. Subtract "
             "each query's own maximum over its keys (axis=-1, keepdims=True).")
    shifts = [(np.max(scores), "softmax.global_max", whole)]
    if mask is not None:
        shifts.insert(0, (np.max(scores, axis=-1, keepdims=True), "mask.max_over_masked_keys",
                          "a query whose allowed keys all score far below a hidden key got {how} weights: the "
                          "maximum you subtract before exp includes the hidden keys (taken before masking), so every "
                          "allowed exp underflows to 0. Subtract the maximum of the masked scores (hidden keys at "
                          "-inf), as the given `softmax` does when it gets them."))
        shifts.append((np.max(allowed), "softmax.global_max", whole))
    has_allowed = np.isfinite(allowed).any(axis=-1, keepdims=True)
    with np.errstate(all="ignore"):
        for shift, misconception, message in shifts:
            e = np.exp(allowed - shift)
            total = e.sum(axis=-1, keepdims=True)
            if not ((total == 0) & has_allowed).any():
                continue  # the shift empties no row that has an allowed key: the softmax's own answer
            yield e / total, misconception, message.format(how="NaN")
            yield np.where(total > 0, e / np.where(total > 0, total, 1.0), 0.0), misconception, message.format(how="zero")
            if misconception == "mask.max_over_masked_keys":
                yield np.where(total > 0, e / np.where(total > 0, total, 1.0), ref.softmax(scores)), \
                    "mask.after_softmax_renormalised", \
                    ("a query whose allowed keys all score far below a hidden key got the weights of the unmasked "
                     "scores: your softmax ran over every key, hidden ones included, so every allowed weight "
                     "underflowed to 0 before you masked and renormalised. Mask the scores (-inf) before the softmax.")


def effective_divisor(raw, weights, mask=None, tol=(1e-7, 1e-10)):
    """The number ``c`` such that ``weights`` are the softmax of ``raw / c`` (masked as ``mask`` says), or None.

    Within a row, log(weights) is raw / c (plus what a floating mask adds) up to a constant, so ``1 / c`` is the
    slope of log(weights) against the raw scores (least squares over every row, each centred). The fit counts only when the softmax of
    ``raw / c`` gives the weights back within ``tol``: a wrong divisor of any kind (sqrt(d_model), 2 sqrt(d_k),
    d_k / 2, ...) shows as itself, and anything else (weights that do not sum to 1, another axis) fits nothing.
    """
    raw, weights = np.asarray(raw, dtype=np.float64), np.asarray(weights, dtype=np.float64)
    if raw.shape != weights.shape or not np.isfinite(weights).all():
        return None
    keep = weights > 0
    added = np.zeros(raw.shape)  # what the mask adds to a score: 0 or -inf, or a floating mask's finite bias
    if mask is not None:
        added = np.broadcast_to(ref.apply_mask(np.zeros(raw.shape), mask), raw.shape)
        keep &= np.isfinite(added)
    with np.errstate(all="ignore"):
        logw = np.where(keep, np.log(np.where(keep, weights, 1.0)) - np.where(keep, added, 0.0), 0.0)
        count = keep.sum(axis=-1, keepdims=True)
        centred_x = np.where(keep, raw - np.where(keep, raw, 0).sum(axis=-1, keepdims=True) / np.maximum(count, 1), 0)
        centred_y = np.where(keep, logw - logw.sum(axis=-1, keepdims=True) / np.maximum(count, 1), 0)
        spread = (centred_x ** 2).sum()
        if not spread > 0:
            return None
        slope = (centred_x * centred_y).sum() / spread
        if not np.isfinite(slope) or slope == 0:
            return None
        scores = raw * slope
        predicted = ref.softmax(scores if mask is None else ref.apply_mask(scores, mask))
        predicted = np.nan_to_num(predicted, nan=0.0)
    return 1 / slope if expect.allclose(predicted, weights, *tol) else None


def _nan_cause(Q, K, mask, weights, out) -> str:
    """Where the NaN is and what the scores of those rows are, in words: a cause only where the scores show it
    (exp overflows past 709, every allowed exp underflows below -745, a row with no allowed key); otherwise the
    rows, and what can make NaN there."""
    with np.errstate(all="ignore"):
        scores = (Q @ np.swapaxes(K, -1, -2)) / math.sqrt(Q.shape[-1])
        if mask is not None:
            scores = ref.apply_mask(scores, mask)
        rows = np.isnan(weights).any(axis=-1) if weights.shape == scores.shape else np.zeros(scores.shape[:-1], bool)
        if out.shape[:-1] == scores.shape[:-1]:
            rows |= np.isnan(out).any(axis=-1)
        if not rows.any():
            rows = np.ones(scores.shape[:-1], bool)
        allowed = np.isfinite(scores)
        top = np.where(allowed, scores, -np.inf).max(axis=-1)
    where = tuple(int(i) for i in np.argwhere(rows)[0])
    row = f"query {where[-1]}" + (f" of batch entry {where[:-1]}" if len(where) > 1 else "")
    if (rows & ~allowed.any(axis=-1)).any():
        return (f"the NaN is in rows with no allowed key (such as {row}): with every key hidden, a softmax meets -inf - "
                "(-inf) or 0 / 0 unless that row is guarded (its weights and output are zeros).")
    if (top[rows] > 700).any():
        return ("at large scores exp overflows (inf / inf) unless each row's maximum is subtracted first (the given "
                "`softmax` does it).")
    if (top[rows] < -700).any():
        return ("when every score of a row is very negative, each exp underflows to 0 and the row divides 0 by 0; "
                "subtracting each row's maximum first keeps the largest exp at 1 (the given `softmax` does it).")
    return (f"the NaN is in {row}, whose scores are of ordinary size and which has an allowed key: look in your "
            "computation of that row for a division by a total that is 0, or an operation on inf (inf - inf, 0 x inf).")


#: The transposes of K that raise, named by their own error on the call (:func:`signature.identify`: its type
#: and family, and no other one's): an unpacking of ``scores.shape`` or an einsum without ``...`` is neither.
TRANSPOSE_RAISING = (
    ("attention.batched_transpose",
     "the shapes do not line up, exactly where they would after a `.T`: on a batched array `.T` reverses every axis, "
     "the batch axes too, so batch b of Q no longer meets batch b of K; only the last two axes of K swap.",
     lambda Q, K: Q @ K.T),
    ("attention.k_not_transposed", "the shapes do not line up where Q meets K as it is: each query must meet each "
     "key, a row of K, not a column.",
     lambda Q, K: Q @ K),
)


def _raised_transpose(call, outcome, batch) -> None:
    """Fail naming the transpose mistake whose error the call's is, if it is only one."""
    Q, K = call.args[:2]
    found = signature.identify([outcome], [(m, message, [signature.predict(f, Q, K)]) for m, message, f
                                           in TRANSPOSE_RAISING if batch or m != "attention.batched_transpose"])
    if found is not None:
        raise CheckFailed(f"`{call.describe()}` raised {outcome.error.split(':')[0]}: {found[1]}", found[0])


def _keys_averaged(out, keys_mixed, right, what) -> None:
    """Fail naming it when the output is the right weights' average of the keys instead of the values (where the
    two differ): the rows of K were mixed where the rows of V belong."""
    if out.shape == keys_mixed.shape and not (out.shape == right.shape and expect.allclose(keys_mixed, right, 1e-9, 1e-12)) \
            and expect.allclose(out, keys_mixed, *expect.tolerances(np.result_type(out, keys_mixed))):
        raise CheckFailed(f"{what} is the weighted average of the keys: the weights are right, but they mix the rows "
                          "of K where the rows of V belong. The keys decide how much each position counts; the "
                          "values are what gets averaged.", "attention.keys_averaged")


def judge_attention(call, outcome, *, mask=None, what=""):
    """Compare (output, weights) with the reference; diagnose the usual mistakes."""
    Q, K, V = call.args[:3]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    n_q, n_k, d_v = Q.shape[-2], K.shape[-2], V.shape[-1]
    if outcome.error is not None:
        _raised_transpose(call, outcome, batch)
    out, weights = expect.pair(outcome, call)
    if n_k != d_v and out.shape == batch + (n_q, n_k) and weights.shape == batch + (n_q, d_v):
        raise CheckFailed("you returned (weights, output): return the output first, then the weights.",
                          "attention.swapped_return")
    ref_out, ref_w = ref.scaled_dot_product_attention(Q, K, V, mask=mask)
    _keys_averaged(out, ref_w @ K, ref_out, f"your output{what}")
    expect.shape(out, batch + (n_q, d_v), f"your output{what}", " = (..., n_q, d_v)")
    dtype = np.result_type(Q, K, V)
    rtol, atol = expect.tolerances(dtype)
    if weights.shape == np.swapaxes(ref_w, -1, -2).shape and expect.allclose(out, ref_out, rtol, atol) \
            and expect.allclose(weights, np.swapaxes(ref_w, -1, -2), rtol, atol) and not expect.allclose(weights, ref_w, rtol, atol):
        raise CheckFailed(f"your output{what} is right but the weights you return are transposed, one row per key: "
                          "return them as the output used them, one row per query (..., n_q, n_k).",
                          "attention.weights_transposed")
    expect.shape(weights, batch + (n_q, n_k), f"your weights{what}", " = (..., n_q, n_k)")
    if not (expect.allclose(weights, ref_w, rtol, atol) and expect.allclose(out, ref_out, rtol, atol)):
        with np.errstate(all="ignore"):
            matching = [(misconception, message) for _, c_w, misconception, message in sdpa_candidates(Q, K, V, mask)
                        if expect.allclose(weights, c_w, rtol, atol)]
        if len({m for m, _ in matching}) == 1:  # two mistakes that give these weights: the input names neither
            raise CheckFailed(matching[0][1], matching[0][0])
        divisor = effective_divisor(Q @ np.swapaxes(K, -1, -2), weights, mask, (rtol, atol)) if not matching else None
        if divisor is not None and expect.allclose(out, weights @ V, rtol, atol) \
                and not math.isclose(divisor, math.sqrt(Q.shape[-1]), rel_tol=1e-5):
            raise CheckFailed(f"your weights{what} are the softmax of the raw scores divided by {divisor:.4g} "
                              f"at d_k = {Q.shape[-1]}: the divisor is sqrt(d_k), the square root of the key width.",
                              "scale.wrong_divisor")
        if np.isnan(weights).any() or np.isnan(out).any():
            raise CheckFailed(f"your weights or output{what} contain NaN: {_nan_cause(Q, K, mask, weights, out)}", "nan")
    expect.close(weights, ref_w, f"your weights{what}", dtype=dtype,
                 generic="do not match the weights of attention: each query's row is a softmax over the keys of its scaled "
                         "scores.")
    expect.close(out, ref_out, f"your output{what}", dtype=dtype,
                 generic="does not match the weights times V (your weights are right: check the last step).")




#: Every misconception that says where a divisor came from: named only by :func:`judge_divisor`, when the answer's
#: divisor (:func:`effective_divisor`) follows that size at every input of a check, probes included.
DIVISOR_MISCONCEPTIONS = ("scale.none", "scale.by_d_k", "scale.by_n_k", "scale.by_d_v", "attention.width_from_wrong_axis",
                          "scale.wrong_divisor", "scale.fixed_divisor", "attention.divisor_after_softmax")


def scale_probe(rng):
    """Inputs with sizes of their own (n_q = 7, n_k = 4, d_k = 9, d_v = 5): never graded, they tell the divisors
    apart where a check's inputs do not (at d_k = 4, 2 sqrt(d_k) is d_k; at d_k = 2, sqrt(2 d_k) is; a fixed 2
    is sqrt(d_k) at d_k = 4 and sqrt(d_v) at d_v = 4)."""
    return Call("scaled_dot_product_attention", (rng.standard_normal((7, 9)), rng.standard_normal((4, 9)),
                                                 rng.standard_normal((4, 5))))


def _size_rules(calls):
    """``(key, misconception, value at a call or None)`` of every size a divisor may be read from: the named
    sizes (n_q, n_k, d_v; d_k itself), and each axis of Q and K counted from the front (right for 2-D inputs
    only: with batch axes in front it is a batch, head or sequence length)."""
    def size(index, axis):
        return lambda call: call.args[index].shape[axis] if -call.args[index].ndim <= axis < call.args[index].ndim else None
    rules = [("d_k", "scale.by_d_k", lambda call: float(call.args[0].shape[-1])),
             ("n_k", "scale.by_n_k", lambda call: math.sqrt(call.args[1].shape[-2])),
             ("d_v", "scale.by_d_v", lambda call: math.sqrt(call.args[2].shape[-1])),
             ("n_q", "attention.width_from_wrong_axis", lambda call: math.sqrt(call.args[0].shape[-2]))]
    for name, index in (("Q", 0), ("K", 1)):
        for axis in range(max(call.args[index].ndim for call in calls) - 1):
            read = size(index, axis)
            rules.append((f"{name}.shape[{axis}]", "attention.width_from_wrong_axis",
                          lambda call, read=read: None if read(call) is None else math.sqrt(read(call))))
    return rules


def _follows(divisors, values) -> bool:
    """Whether the divisors are ``values`` at every call, and those change between calls (a size that is the same
    at every call cannot be told from a fixed number)."""
    return None not in values and len({round(v, 9) for v in values}) > 1 and all(
        math.isclose(c, v, rel_tol=1e-5) for c, v in zip(divisors, values))


def _divisor_message(key, calls, divisors, both=False) -> str:
    """The message of the size ``key`` that every divisor follows (said on the first input where it is wrong)."""
    at = next(i for i, (c, call) in enumerate(zip(divisors, calls))
              if not math.isclose(c, math.sqrt(call.args[0].shape[-1]), rel_tol=1e-5))
    call, d_k = calls[at], calls[at].args[0].shape[-1]
    if key == "n_q":
        return (f"your scores are divided by the square root of the number of queries (n_q = {call.args[0].shape[-2]} "
                f"where d_k = {d_k}), on every input: the divisor is the square root of the key width d_k, the last "
                "axis of Q and K.")
    name, axis = key.split(".shape[")
    axis = int(axis.rstrip("]"))
    value = call.args[0 if name == "Q" else 1].shape[axis]
    if both:  # Q's axis and K's give the same numbers on these inputs: either may be the one read
        return (f"your scores are divided by the square root of axis {axis} of the inputs (Q.shape[{axis}] = "
                f"K.shape[{axis}] = {value} here), which is not the key width: d_k is the length of each query and key "
                "vector, the last axis of Q and K (count the axes from the end: batched inputs have more axes in front).")
    return (f"your scores are divided by the square root of {name}.shape[{axis}] = {value}, which is not the key width: "
            f"d_k is the length of each query and key vector, the last axis of {name} (count the axes from the end: "
            "batched inputs have more axes in front).")


def judge_divisor(calls, outcomes, failure: CheckFailed) -> None:
    """Re-judge ``failure`` of an attention check where the answer's weights are the softmax of the raw scores
    over one number at every call (:func:`_divisor`), probes included: a size (d_k, n_k, d_v, n_q, an axis of Q
    or K) is named only when the divisor follows that size at every call and no other size does; a divisor that
    stays the same number while d_k changes is said to be fixed; any other is said with its values. Returns
    when ``failure`` is not of that kind (the caller raises it)."""
    if failure.misconception not in (*DIVISOR_MISCONCEPTIONS, "wrong_values"):
        return
    _divisor_after_softmax(calls, outcomes)
    read = [(call, _divisor(call, outcome)) for call, outcome in zip(calls, outcomes)]
    read = [(call, c) for call, c in read if c is None or not math.isnan(c)]  # calls where a divisor shows
    calls, divisors = [call for call, _ in read], [c for _, c in read]
    widths = [call.args[0].shape[-1] for call in calls]
    if None in divisors or all(math.isclose(c, math.sqrt(d), rel_tol=1e-5) for c, d in zip(divisors, widths)):
        if failure.misconception == "wrong_values":
            return
        weights_only = [_divisor(call, outcome, output=False) for call, outcome in zip(calls, outcomes)]
        if None not in weights_only:  # the weights are of that kind; the output is not made from them
            raise CheckFailed("your weights are the softmax of the raw scores divided by one number on every input, "
                              "but your output is not those weights times V: check how the output is made from "
                              "the weights.", "wrong_values") from None
        raise CheckFailed("your weights do not match the weights of attention, and on "
                          "inputs of other sizes they are not the softmax of the scores divided by one "
                          "number either: check the divisor and the softmax.", "wrong_values") from None
    fixed = all(math.isclose(c, divisors[0], rel_tol=1e-5) for c in divisors)
    if fixed and math.isclose(divisors[0], 1.0, rel_tol=1e-5):
        raise CheckFailed(SCALE_MESSAGES["scale.none"], "scale.none") from None
    if fixed and len(set(widths)) > 1:
        raise CheckFailed(f"your scores are divided by the same number, {divisors[0]:.4g}, on every input, while the "
                          f"key width changes (d_k = {', '.join(str(d) for d in dict.fromkeys(widths))}): a fixed "
                          "divisor does not follow d_k. The divisor is the square root of the key width of the inputs "
                          "at hand.", "scale.fixed_divisor") from None
    fitting = [(key, misconception) for key, misconception, value in _size_rules(calls)
               if _follows(divisors, [value(call) for call in calls])]
    named = [f for f in fitting if "." not in f[0]] or fitting  # a size by its meaning, where an axis is it here
    axes = {key.partition(".shape")[2] for key, _ in named}
    if len(named) == 2 and "." in named[0][0] and len(axes) == 1:  # the same axis of Q and of K, equal here
        raise CheckFailed(_divisor_message(named[0][0], calls, divisors, both=True), named[0][1]) from None
    if len(named) == 1:
        key, misconception = named[0]
        if misconception == "attention.width_from_wrong_axis":
            raise CheckFailed(_divisor_message(key, calls, divisors), misconception) from None
        raise CheckFailed(SCALE_MESSAGES[misconception], misconception) from None
    told = "; ".join(f"{c:.4g} at d_k = {d}" for c, d in zip(divisors, widths) if not math.isclose(c, math.sqrt(d), rel_tol=1e-5))
    raise CheckFailed(f"your weights are the softmax of the raw scores divided by {told}: the divisor is "
                      "sqrt(d_k), the square root of the key width.", "scale.wrong_divisor") from None


def swap_probe(rng):
    """A never-graded input with as many queries as keys and square keys (n_q = n_k = d_k = 4, d_v = 3): the last
    call of a check that tells K's axes apart (:func:`judge_attentions` with ``axes_probe``). Queries and keys
    swapped (scores K Q^T) give values only where n_q = n_k, and K as it is only where n_k = d_k; every graded
    input has n_q != n_k, so there both raise alike and only this input tells them apart."""
    return Call("scaled_dot_product_attention", (rng.standard_normal((4, 4)), rng.standard_normal((4, 4)),
                                                 rng.standard_normal((4, 3))))


def _attending(scores_of, average="product"):
    """The attention of a mistake in the scores (``scores_of(Q, K)``), the rest right, averaged as a student may
    write it (``@``, the given weighted_average, einsum): each raises in its own words where the shapes differ."""
    def mistake(Q, K, V, mask=None):
        scores = scores_of(Q, K) / math.sqrt(Q.shape[-1])
        w = ref.softmax(scores if mask is None else ref.apply_mask(scores, mask))
        out = {"product": lambda: w @ V, "given": lambda: ref.weighted_average(w, V),
               "einsum": lambda: np.einsum("...qk,...kd->...qd", w, V)}[average]()
        return out, w
    return mistake


SWAPPED = ("your answer raises wherever the number of queries differs from the number of keys, and on an input with "
           "as many queries as keys its weights and output are those of the scores of each key against every query "
           "(K times Q transposed): queries and keys traded places. Row i of the scores belongs to query i, one "
           "column per key; with the roles swapped the table has one row per key and cannot meet V's rows.")

#: Mistakes of the scores' axes, named only by their signature over every call of a check with :func:`swap_probe`
#: (:func:`_axes_signature`): on its graded inputs K as it is, a batched `.T` and queries and keys swapped raise
#: alike, and on square keys K as it is and K reshaped are one array.
AXES_MISTAKES = (
    ("attention.k_not_transposed",
     "your answer multiplies Q by K as it is: where the keys are square a query met a column of K instead of a key "
     "(a row of K), and elsewhere the shapes do not line up. Each query must meet each key, a row of K.",
     (lambda Q, K: Q @ K)),
    ("attention.reshaped_keys", RESHAPED_KEYS, lambda Q, K: Q @ K.reshape(K.shape[:-2] + (K.shape[-1], K.shape[-2]))),
    ("attention.batched_transpose", TRANSPOSE_RAISING[0][1], lambda Q, K: Q @ K.T),
    ("attention.queries_keys_swapped", SWAPPED, lambda Q, K: K @ np.swapaxes(Q, -1, -2)),
)
AXES_IDS = frozenset(m for m, _, _ in AXES_MISTAKES)


def _axes_signature(calls, outcomes, failure: CheckFailed) -> None:
    """Re-judge ``failure`` (a generic one, or a mistake of K's axes named from one call's error) by the signature
    over every call: the one mistake of :data:`AXES_MISTAKES` (each way of averaging) whose outcome the answer's is
    at every call, named; where none or two fit, a mistake of K's axes named from an error is said as the error."""
    if failure.misconception not in AXES_IDS and failure.misconception not in GENERIC_MISCONCEPTIONS:
        return
    found = signature.identify(
        outcomes, [(m, message, [signature.predict(_attending(f, average), *call.args, **call.kwargs) for call in calls])
                   for m, message, f in AXES_MISTAKES for average in ("product", "given", "einsum")],
        reference=[signature.predict(ref.scaled_dot_product_attention, *call.args, **call.kwargs) for call in calls])
    if found is not None:
        raise CheckFailed(found[1], found[0]) from None
    if failure.misconception in AXES_IDS:
        call, outcome = next((c, o) for c, o in zip(calls, outcomes) if o.error is not None)
        raise CheckFailed(f"`{call.describe()}` raised {outcome.error}", "raises") from None


def judge_attentions(calls, outcomes, graded, judge=None, axes_probe=False):
    """:func:`judge_attention` on the ``graded`` calls (:func:`.expect.each`), or ``judge(calls, outcomes)`` where
    the check judges them its own way (a batched check with its first-sequence probes, a masked one). A divisor
    is named only as :func:`judge_divisor` says, from every call, the probes after the graded ones included.
    ``axes_probe``: the last call is :func:`swap_probe`, read only to name a mistake of the scores' axes
    (:func:`_axes_signature`, from every call)."""
    every = (calls, outcomes)
    if axes_probe:
        calls, outcomes = calls[:-1], outcomes[:-1]
    try:
        if judge is None:
            expect.each(calls[:graded], outcomes[:graded], judge_attention)
        else:
            judge(calls, outcomes)
    except CheckFailed as failure:
        if axes_probe:
            _axes_signature(*every, failure)
        judge_divisor(calls, outcomes, failure)
        raise


def _divisor_after_softmax(calls, outcomes) -> None:
    """Fail naming it when, at every call where a divisor shows, the weights are the softmax of the raw scores
    themselves and the output is those weights times V divided by sqrt(d_k): the division moved past the softmax,
    onto the values or the output (the two give the same numbers: the average is linear in V)."""
    seen = 0
    for call, outcome in zip(calls, outcomes):
        divisor = _divisor(call, outcome, output=False)
        if divisor is not None and math.isnan(divisor):
            continue
        if divisor is None or not math.isclose(divisor, 1.0, rel_tol=1e-5) or call.args[0].shape[-1] == 1:
            return
        Q, K, V = call.args[:3]
        out, weights = expect.pair(outcome, call)
        if not expect.allclose(out, weights @ V / math.sqrt(Q.shape[-1]), *expect.tolerances(np.result_type(Q, K, V))):
            return
        seen += 1
    if seen:
        raise CheckFailed("your weights are those of the raw scores, and your output is those weights times V divided "
                          "by sqrt(d_k) on every input: the division was moved past the softmax, onto the values (or "
                          "the output). The softmax is not linear, so dividing after it is not dividing before it: "
                          "the division acts on the scores, before the softmax.", "attention.divisor_after_softmax")


def _divisor(call, outcome, output=True):
    """The number the answer divides the raw scores by at ``call`` (sqrt(d_k) when it is right), None when its
    weights are not the softmax of those scores over one number (or, with ``output``, when its output is not
    those weights times V), NaN when no divisor would show at ``call`` (no query has two keys to weigh: every
    row has one allowed key at most)."""
    Q, K, V = call.args[:3]
    mask = call.kwargs.get("mask")
    try:
        out, weights = expect.pair(outcome, call)
    except CheckFailed:
        return None
    dtype = np.result_type(Q, K, V)
    rtol, atol = expect.tolerances(dtype)
    ref_out, ref_w = ref.scaled_dot_product_attention(Q, K, V, mask=mask)
    allowed = np.isfinite(ref.apply_mask(np.zeros(ref_w.shape), mask)) if mask is not None else np.ones(ref_w.shape, bool)
    if not (allowed.sum(axis=-1) >= 2).any():
        return math.nan
    if expect.allclose(weights, ref_w, rtol, atol) and expect.allclose(out, ref_out, rtol, atol):
        return math.sqrt(Q.shape[-1])
    divisor = effective_divisor(Q @ np.swapaxes(K, -1, -2), weights, mask, (rtol, atol))
    return divisor if divisor is not None and (not output or expect.allclose(out, weights @ V, rtol, atol)) else None
