"""Judging multi-head attention (04's ``multi_head_attention``, 05's self- and cross-attention): the
typical mistakes as runnable variants of the reference, and the judge that names them."""
from __future__ import annotations

import math

import numpy as np

import attention_ref as ref

from . import expect
from .attention import effective_divisor
from .core import Call, CheckFailed


def mha_variant(X_q, X_kv, W_q, W_k, W_v, W_o, h, mask=None, *, scale="head", split="right", merge="right",
                use_wo=True, shared=False, use_mask=True, values_from="kv", keys_from="kv", queries_from="q",
                mask_head_axis=True, mask_inverted=False, kv_maps_swapped=False):
    """Multi-head attention with one of the typical mistakes switched on (also used by 05's checks)."""
    def cut(Y):
        *batch, n, w = Y.shape
        if split == "no_transpose":
            return Y.reshape(*batch, h, n, w // h)
        return ref.split_heads(Y, h)

    Q = cut((X_kv if queries_from == "kv" else X_q) @ W_q)
    if kv_maps_swapped:
        W_k, W_v = W_v, W_k
    K = cut((X_q if keys_from == "q" else X_kv) @ (W_q if shared else W_k))
    V = cut((X_q if values_from == "q" else X_kv) @ W_v)
    factor = {"head": None, "none": 1.0, "total": 1 / math.sqrt(W_q.shape[1]), "d_model": 1 / math.sqrt(X_q.shape[-1])}[scale]
    if mask is not None and use_mask:
        mask = np.asarray(mask)
        if mask_inverted:
            mask = ~mask if mask.dtype == bool else mask
        if mask.ndim >= 2 and mask_head_axis:
            mask = np.expand_dims(mask, -3)
    else:
        mask = None
    heads, weights = ref.scaled_dot_product_attention(Q, K, V, mask=mask, scale=factor)
    if merge == "no_transpose":
        *batch, hh, n, d = heads.shape
        merged = heads.reshape(*batch, n, hh * d)
    elif merge == "interleaved":  # entry 0 of every head, then entry 1, ...
        *batch, hh, n, d = heads.shape
        merged = np.swapaxes(np.swapaxes(heads, -3, -2), -1, -2).reshape(*batch, n, hh * d)
    else:
        merged = ref.merge_heads(heads)
    return (merged @ W_o if use_wo else merged), weights


KEYS_FROM_QUERIES = ("your keys come from X_q: the keys and the values both come from X_kv (one key per value), "
                     "only the queries come from X_q.")

KV_MAPS_SWAPPED = ("your keys are made with the value map W_v and your values with the key map W_k: each map has its "
                   "own job, W_k makes what a query is compared with, W_v what is averaged (where their widths differ, "
                   "queries and keys no longer have the same width).")

MHA_MISTAKES = [
    (dict(scale="d_model"), "multi_head_attention.divisor_d_model",
     "your scores are divided by the square root of the model width; each head works in its own width d_k "
     "= (columns of W_q) / heads, so the divisor is sqrt(d_k) — sqrt(64) = 8 for 8 heads at 512."),
    (dict(scale="total"), "multi_head_attention.divisor_d_model",
     "your scores are divided by the square root of the full projected width (all heads together); each head "
     "works in its own width d_k, so the divisor is sqrt(d_k) — sqrt(64) = 8 for 8 heads at 512."),
    (dict(scale="none"), "multi_head_attention.no_scaling",
     "your scores are not divided at all: each head divides by the square root of its own width d_k."),
    (dict(shared=True), "multi_head_attention.shared_qk_map",
     "your keys come from the query map W_q: the keys need their own map W_k. With one shared map the score "
     "matrix is symmetric, so no position could attend to another without being attended back."),
    (dict(split="no_transpose"), "multi_head_attention.split_without_transpose",
     "your heads mix positions: splitting with a reshape to (heads, n, d) and no transpose cuts the rows in the "
     "wrong order (your multi_head_attention is graded with a correct split_heads, so this split is your own)."),
    (dict(merge="no_transpose"), "multi_head_attention.merge_without_transpose",
     "your merged output mixes positions: merging with a reshape from (heads, n, d) to (n, heads*d) and no "
     "transpose is not the inverse of the split (your multi_head_attention is graded with a correct merge_heads, "
     "so this merge is your own)."),
    (dict(keys_from="q"), "multi_head_attention.keys_from_queries", KEYS_FROM_QUERIES),
    (dict(kv_maps_swapped=True), "multi_head_attention.key_value_maps_swapped", KV_MAPS_SWAPPED),
    (dict(queries_from="kv"), "multi_head_attention.queries_from_kv",
     "your queries come from X_kv: the queries come from X_q (one output row per query), the keys and values from "
     "X_kv."),
    (dict(queries_from="kv", keys_from="q", values_from="q"), "multi_head_attention.sequences_swapped",
     "your queries come from X_kv and your keys and values from X_q: the two sequences are swapped. X_q asks (one "
     "output row per query), X_kv is read."),
    (dict(use_mask=False), "multi_head_attention.mask_ignored",
     "your output ignores the mask: pass it to every head, so masked keys get weight 0."),
    (dict(mask_inverted=True), "multi_head_attention.mask_inverted",
     "your heads let through the keys the mask hides and hide the ones it allows: in this course True means *may "
     "attend*, and the heads must read the mask with that meaning, not negated."),
    (dict(merge="interleaved"), "multi_head_attention.merge_interleaved",
     "your merged rows interleave the heads' columns (entry 0 of every head, then entry 1, ...): the heads are joined "
     "end to end, all of head 0's columns first (your multi_head_attention is graded with a correct merge_heads, so "
     "this merge is your own)."),
]


def _mha_candidates(args, mask, which):
    """(candidate, misconception, message) for the output (which=0) or weights (which=1)."""
    for options, misconception, message in MHA_MISTAKES:
        if (options.get("use_mask") is False or options.get("mask_inverted")) and mask is None:
            continue
        try:
            with np.errstate(all="ignore"):
                yield mha_variant(*args, mask=mask, **options)[which], misconception, message
        except ValueError:
            continue
    if which == 0:
        X_q, X_kv, W_q, W_k, W_v, W_o, h = args
        single = mha_variant(X_q, X_kv, W_q, W_k, W_v, W_o, 1, mask=mask)[0]
        yield single, "multi_head_attention.single_head", \
            "your output is that of one head over the full width: cut the projections into num_heads heads " \
            "(split_heads), attend per head, then merge them."


def headless(weights, ref_w, what) -> None:
    """Fail when the weights have no head axis: named as averaged over the heads only when they are that
    average (one head's table, or a sum, has the same shape and is another mistake)."""
    if weights.shape != ref_w.shape[:-3] + ref_w.shape[-2:]:
        return
    if expect.allclose(weights, ref_w.mean(axis=-3), *expect.tolerances(ref_w.dtype)):
        raise CheckFailed(f"{what} have shape {weights.shape}: return one table of weights per head (keep the head "
                          "axis), not their average.", "multi_head_attention.weights_averaged")
    raise CheckFailed(f"{what} have shape {weights.shape}, without the head axis: return one table of weights per "
                      f"head, shape {ref_w.shape} (..., heads, n_q, n_k).", "wrong_shape")


def judge_mha(call, outcome, args, mask, what="your attention", expected=None, extra_diagnoses=()):
    """Judge an (output, weights) pair against multi-head attention on ``args`` (shared with 05).

    ``extra_diagnoses``: ``(candidate (output, weights), misconception, message)`` triples, or a
    function returning them (called only when the answer does not match).
    """
    X_q, X_kv, W_q, W_k, W_v, W_o, h = args
    out, weights = expect.pair(outcome, call)
    ref_out, ref_w = expected if expected is not None else ref.multi_head_attention(*args, mask=mask)
    dtype = np.result_type(X_q, X_kv)
    d_v = W_v.shape[1] // h
    n_q, n_k = ref_w.shape[-2:]
    if n_q != n_k and out.shape == ref_out.shape[:-2] + (n_k, ref_out.shape[-1]):
        raise CheckFailed(f"{what}'s output has shape {out.shape}, one row per key (n_k = {n_k}), where it has one row "
                          f"per query (n_q = {n_q}): check which sequence your queries come from.", "wrong_shape")
    expect.shape(out, ref_out.shape, f"{what}'s output", " (..., n_q, d_out): one row per query, W_o's width",
                 diagnoses=[(ref_out.shape[:-1] + (h * d_v,), "multi_head_attention.no_output_projection",
                             "the merged heads were not sent through the output projection W_o, which "
                             "recombines the heads and brings the width to W_o's number of columns.")]
                 if h * d_v != ref_out.shape[-1] else ())
    headless(weights, ref_w, f"{what}'s weights")
    expect.shape(weights, ref_w.shape, f"{what}'s weights", " (..., heads, n_q, n_k): one table per head",
                 diagnoses=[(ref_w.shape[:-3] + (1,) + ref_w.shape[-2:], "multi_head_attention.single_head",
                             "you attended with one head over the full width: cut the projections into num_heads "
                             "heads (split_heads), attend per head, then merge them."),
                            (ref_w.shape[:-2] + ref_w.shape[-2:][::-1], "multi_head_attention.weights_transposed",
                             "each head's table of weights is transposed (one row per key): return the weights as "
                             "attention gives them, (..., heads, n_q, n_k), one row per query.")])
    def _own(which):
        # Generators: the candidate answers are only computed when the answer does not match.
        for candidate, misconception, message in (extra_diagnoses() if callable(extra_diagnoses) else extra_diagnoses):
            yield candidate[which], misconception, message

    def _diagnoses(which):
        if which == 1 and ref_w.shape[-1] == ref_w.shape[-2]:
            yield np.swapaxes(ref_w, -1, -2), "multi_head_attention.weights_transposed", \
                "each head's table of weights is transposed (its columns sum to 1): return the weights as attention " \
                "gives them, one row per query."
        yield from _mha_candidates(args, mask, which)

    # Weights first: a wrong divisor or map shows there before it is blurred by W_o.
    try:
        expect.close(weights, ref_w, f"{what}'s weights", dtype=dtype, diagnoses=_diagnoses(1), own=_own(1))
    except CheckFailed as failure:
        if failure.misconception != "wrong_values":
            raise
        # said only now: the property is worked out for a wrong answer, never for a right one
        raise CheckFailed(f"{what}'s weights {_weights_property(weights, ref_w, mask, dtype, args)}",
                          "wrong_values") from None
    expect.close(out, ref_out, f"{what}'s output", dtype=dtype, diagnoses=_diagnoses(0), own=_own(0),
                 generic="does not match multi-head attention, although the weights do: the step after attention is "
                         "off (merge the heads back in order, then project with W_o).")


def _weights_property(weights, ref_w, mask, dtype, args) -> str:
    """Which property of multi-head attention's weights fails, in words (no catalogued mistake fits them)."""
    rtol, atol = expect.tolerances(dtype)
    with np.errstate(all="ignore"):
        live = ref_w.sum(axis=-1) > 0.5  # rows with an allowed key (a fully masked row is all zeros)
        sums = weights.sum(axis=-1)
        if not np.allclose(sums[live], 1.0, rtol=1e-5, atol=1e-6):
            return "do not sum to 1 over the keys in every row of every head: each query's weights are a softmax " \
                   "over its keys (axis -1)."
        divisor = _head_divisor(weights, args, mask, dtype)  # the softmax of the masked scores over one number
        if divisor is not None:
            d_k = args[2].shape[1] // args[6]
            # d_k itself: sqrt(d_k) applied twice, or the square root left out (the same numbers); said only where no
            # other simple divisor is d_k too (at d_k = 1 no division at all, at 2 sqrt(2 d_k), at 4 2 sqrt(d_k))
            twice = (" (d_k itself: sqrt(d_k) applied twice, by your code and by the given attention, which divides "
                     "already, or the square root left out)"
                     if math.isclose(divisor, d_k, rel_tol=1e-5) and d_k not in (1, 2, 4) else "")
            return (f"are the softmax of each head's raw scores divided by {divisor:.4g}{twice}, where a head of width "
                    f"d_k = {d_k} divides by sqrt(d_k) = {d_k ** 0.5:.4g}: the maps, the split, the mask and the softmax "
                    "are right, the divisor is not.")
        if mask is not None and np.asarray(mask).dtype == bool and np.ndim(mask) >= 2:
            hidden = np.broadcast_to(~np.expand_dims(np.asarray(mask), -3), ref_w.shape)
            if (np.abs(weights[hidden]) > atol).any():
                return ("give weight to keys hidden from the query (by the mask, or by causal=True; True means *may "
                        "attend*): every head must apply the mask.")
            if ((np.abs(weights) <= atol) & ~hidden & (ref_w > atol)).any():
                return "are 0 for keys the mask allows: a query may read every key where the mask is True."
        heads = weights.shape[-3]
        moved = [next((j for j in range(heads) if expect.allclose(weights[..., i, :, :], ref_w[..., j, :, :], rtol, atol)),
                      None) for i in range(heads)]
        if None not in moved and moved != list(range(heads)):
            return "hold the right tables, in another order of the heads: head h is columns h*d to (h+1)*d of the " \
                   "projections."
    return "are positive, sum to 1 per row and respect the mask, but differ from multi-head attention's: check the " \
           "maps (queries from X_q with W_q, keys from X_kv with W_k), the split into heads and the divisor sqrt(d_k) " \
           "of a head."


def nan_where(out, weights, ref_w, empty_message: str, what="your attention") -> None:
    """Fail when the output or the weights hold NaN: with ``empty_message`` (a query with no allowed key) only where
    the NaN is in such queries alone; otherwise saying which query with an allowed key has it."""
    nan_w = np.isnan(weights).any(axis=-1) if weights.shape == ref_w.shape else np.zeros(ref_w.shape[:-1], bool)
    nan_out = np.isnan(out).any(axis=-1) if out.shape[:-1] == ref_w.shape[:-3] + ref_w.shape[-2:-1] else None
    if not (nan_w.any() or (nan_out is not None and nan_out.any()) or np.isnan(out).any()):
        return
    empty = ~(ref_w.sum(axis=-1) > 0).any(axis=-2)  # (..., n_q): queries with no allowed key in any head
    queries = nan_w.any(axis=-2) | (nan_out if nan_out is not None else False)
    live = queries & ~empty
    if not live.any() and (queries & empty).any():
        raise CheckFailed(empty_message, "nan")
    if not live.any():  # the NaN cannot be placed on a query (an output of another shape)
        raise CheckFailed(f"{what} gave NaN, where every value should be a number.", "nan")
    where = tuple(int(i) for i in np.argwhere(live)[0])
    at = f"query {where[-1]}" + (f" of batch entry {where[:-1]}" if len(where) > 1 else "")
    raise CheckFailed(f"{what} gave NaN at {at}, a query with allowed keys: look in your computation for a division "
                      "by a total that is 0, or an operation on inf (inf - inf, 0 x inf).", "nan")


def _head_divisor(weights, args, mask, dtype):
    """The one number the answer divides every head's raw scores by (:func:`.attention.effective_divisor`), when it is
    not the head's sqrt(d_k); None when the weights are not the softmax of those scores over one number."""
    X_q, X_kv, W_q, W_k, W_v, W_o, h = args
    raw = ref.split_heads(X_q @ W_q, h) @ np.swapaxes(ref.split_heads(X_kv @ W_k, h), -1, -2)
    if mask is not None and np.ndim(mask) >= 2:
        mask = np.expand_dims(np.asarray(mask), -3)
    divisor = effective_divisor(raw, weights, mask, expect.tolerances(dtype))
    d_k = W_q.shape[1] // h
    return None if divisor is None or math.isclose(divisor, math.sqrt(d_k), rel_tol=1e-5) else divisor


def _mha_args(rng, batch, n_q, n_k, d_model, h, d_k, d_v, d_out, dtype=np.float64, self_attn=False):
    X_q = rng.standard_normal((*batch, n_q, d_model))
    X_kv = X_q if self_attn else rng.standard_normal((*batch, n_k, d_model))
    Ws = [rng.standard_normal((d_model, h * d_k)) / math.sqrt(d_model),
          rng.standard_normal((d_model, h * d_k)) / math.sqrt(d_model),
          rng.standard_normal((d_model, h * d_v)) / math.sqrt(d_model),
          rng.standard_normal((h * d_v, d_out)) / math.sqrt(h * d_v)]
    # Scores of a few units (x3): large enough that every wrong divisor is far outside the tolerance.
    Ws[0] = Ws[0] * 3.0
    arrays = [np.asarray(a, dtype=dtype) for a in (X_q, X_kv, *Ws)]
    return (*arrays, h)


def _mha_call(args, mask=None):
    kwargs = {} if mask is None else {"mask": mask}
    return Call("multi_head_attention", tuple(args), kwargs)


