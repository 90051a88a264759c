"""Held-out answers of 2026-12-03 (issue 24): typical student mistakes and correct rewrites.

Written on 2026-12-03 by a helper session (branch ``wt-heldout``) **without reading the grader's checks**
(nothing under ``autograder/checks/``, ``autograder/catalogue/`` beyond the ``Variant`` class,
``autograder/kit/``, ``tests/`` or the other held-out sets was opened). The answers were written from the
notebooks' task texts (``sources/``) and checked by hand against ``attention_ref`` on random inputs of the
notebooks' shapes (batched, non-square, float32, masks, large scores): every wrong answer differs from the
reference (or raises) on at least one such input, every correct rewrite agrees with it within 1e-6
(``score_variance``: statistically, and reproducible from its seed; ``STOP_AND_TRY_WEIGHTS``: rounded to three
decimals, which the task allows). The grader was not run on them.

Each wrong answer replaces one solution cell only (the other cells keep the instructor's answers) and is
labelled with the misconception id a person judges it to be, or ``None`` when no id of the course describes it;
``source`` says the mistake in one line.

Counts (wrong / correct), in proportion to the graded tasks of each notebook:

==========================  =====  =======
notebook                    wrong  correct
==========================  =====  =======
01_scores_softmax              10        4
02_scaling                     19        8
03_masking                     10        4
04_heads                       14        6
05_cross_attention              6        3
06_long_sequences               4        2
07_scoring_functions            9        4
total                          72       31
==========================  =====  =======

Of the 72 wrong answers, 16 are labelled ``None``.

Measure it (named / vague / wrong on this set alone)::

    .venv/bin/python benchmarks/fairness.py --variants benchmarks/heldout/heldout_2026_12_03.py --seeds 3

Measured on 2026-12-03 (``--seeds 3``, 2 shared cores, load average 3 to 7). The first column is the honest
held-out result: main at f0682db graded this set before anyone read it against the checks. The second was
measured after the fixes of branch wt-diag, which were made by reading this set's failures: **this set is now
spent** (it shows that those fixes hold, not how the grader does on mistakes it has not seen). A None-labelled
answer whose checks name a misconception is counted as named where a person reads the name as right (all were).

============================  ==================================  ========================================
                              before (main at f0682db, held out)  after wt-diag (measured on a spent set)
============================  ==================================  ========================================
named                         54 / 72 (52 labelled + 2 None read  69 / 72 (56 labelled + 13 None read
                              as right: leading_weight.raw_not_   as right)
                              grown, causal_mask.inverted)
vague (honest: names none)    16                                  1 (W_o counted d_model x d_model: the
                                                                  candidate was withdrawn, see below)
wrong (names another)         0                                   0
missed (no point lost)        2 (float32 promoted to float64 by   2 (the same: not mistakes, no task
                              softmax and by np.sqrt: dtype only)  promises a dtype; as in the 12-02 set)
correct rewrites losing pts   0 / 31                              0 / 31
strays, seed-dependent pairs  0, 0                                0, 0
============================  ==================================  ========================================

The 16 vague answers before, and the property each is now named by: a sum of |q_i k_i| (the score is never
negative), uniform entries (the estimate is a common multiple of d_k other than 1), p_i (1 - p_j) off the
diagonal (the Kronecker delta read as 1), d_k read from Q.shape[1] (the divisor is another axis of Q), an
unshifted softmax inside attention (NaN exactly where exp overflows), a fill of -1e9 (hidden scores finite and
far below), einsum without ``...`` (right on the batch's first sequence, an error on the batch), W_o counted
d_model x d_model, merge by iterating axis 0 (the shape of axis 0 taken as heads), keys from X_q (values of
their own on two sequences of equal length), a sum of the gaps, a padding mask over n_dec positions (an
error exactly where n_dec != n_enc), a block loop that stops early (attention over a prefix of the keys), a
transposed additive table, a divisor h instead of sqrt(h), a width rounded to the nearest. A count of W_o
as d_model x d_model was named for a while and withdrawn: on one random d_model in 20 seeds
(tests/course/test_catalogue.py) it coincides with the count of the catalogued widths_swapped answer, so a
per-call candidate named the wrong mistake; it needs a signature over every call of the check.
"""
from __future__ import annotations

from autograder.catalogue import Variant

A01, A02, A03, A04 = "01_scores_softmax", "02_scaling", "03_masking", "04_heads"
A05, A06, A07 = "05_cross_attention", "06_long_sequences", "07_scoring_functions"


def _wrong(name, assignment, task, cell, misconception, source):
    return Variant(name, assignment, task, {task: cell}, misconception=misconception, source=source)


def _right(name, assignment, task, cell, source):
    return Variant(name, assignment, task, {task: cell}, correct=True, source=source)


# ---------------------------------------------------------------- 01_scores_softmax
NB01 = [
    _wrong("ho3_dot_loop_skips_last", A01, "dot_product", '''\
def dot_product(q, k):
    total = 0.0
    for i in range(len(q) - 1):
        total += q[i] * k[i]
    return float(total)
''', "dot_product.skips_entry", "loop runs to len(q) - 1, so the last pair of entries is never added"),
    _wrong("ho3_dot_abs_products", A01, "dot_product", '''\
def dot_product(q, k):
    q = np.asarray(q, dtype=float)
    k = np.asarray(k, dtype=float)
    # a score measures similarity, so it should not be negative
    return float(np.sum(np.abs(q * k)))
''', None, "adds the absolute values of the products: opposing vectors score +1 instead of -1"),
    _wrong("ho3_scores_einsum_swapped_output", A01, "attention_scores", '''\
def attention_scores(Q, K):
    return np.einsum("...qd,...kd->...kq", np.asarray(Q), np.asarray(K))
''', "attention_scores.keys_by_queries", "einsum output subscripts written as 'kq': one row per key instead of per query"),
    _wrong("ho3_scores_matmul_dot_T", A01, "attention_scores", '''\
def attention_scores(Q, K):
    Q = np.asarray(Q)
    K = np.asarray(K)
    return np.matmul(Q, K.T)
''', "attention_scores.batched_transpose", "K.T reverses every axis of a batched K, not just the last two"),
    _wrong("ho3_softmax_in_place", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    x -= x.max(axis=axis, keepdims=True)   # save memory: work in place
    np.exp(x, out=x)
    x /= x.sum(axis=axis, keepdims=True)
    return x
''', "mutates_input", "works in place on np.asarray(x), which is the caller's array: the scores are overwritten"),
    _wrong("ho3_softmax_no_keepdims", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    e = np.exp(x - x.max(axis=axis))
    return e / e.sum(axis=axis)
''', "softmax.missing_keepdims",
        "row max and row sum without keepdims: they broadcast along the last axis (wrong rows, or a shape error)"),
    _wrong("ho3_softmax_always_float64", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.array(x, dtype=np.float64)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)
''', None, "casts every input to float64: float32 scores come back as float64 weights"),
    _wrong("ho3_wavg_divides_by_keys", A01, "weighted_average", '''\
def weighted_average(weights, V):
    weights = np.asarray(weights)
    V = np.asarray(V)
    total = np.sum(weights[..., :, :, None] * V[..., None, :, :], axis=-2)
    return total / V.shape[-2]   # an average divides by the number of items
''', "weighted_average.divides_by_n_k", "divides the weighted sum by the number of keys, as for a plain mean"),
    _wrong("ho3_wavg_np_dot", A01, "weighted_average", '''\
def weighted_average(weights, V):
    return np.dot(np.asarray(weights), np.asarray(V))
''', "weighted_average.np_dot_batched", "np.dot on batched arrays pairs every batch entry with every other"),
    _wrong("ho3_concepts01_cosine", A01, "CONCEPTS_01", '''\
CONCEPTS_01 = ("b", "c", "b")
''', "CONCEPTS_01.cosine", "question 3 answered b: thinks the scores divide out the lengths (cosine)"),
    _right("ho3_dot_zip_loop", A01, "dot_product", '''\
def dot_product(q, k):
    total = 0.0
    for a, b in zip(q, k):
        total += float(a) * float(b)
    return total
''', "a Python loop over matching entries"),
    _right("ho3_scores_einsum", A01, "attention_scores", '''\
def attention_scores(Q, K):
    return np.einsum("...qd,...kd->...qk", np.asarray(Q), np.asarray(K))
''', "einsum over the shared width, batch axes by ellipsis"),
    _right("ho3_softmax_logsumexp", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float64)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    log_total = np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
    return np.exp(shifted - log_total)
''', "log-sum-exp form: exp(x - max - log(sum(exp(x - max))))"),
    _right("ho3_wavg_broadcast_sum", A01, "weighted_average", '''\
def weighted_average(weights, V):
    weights = np.asarray(weights)
    V = np.asarray(V)
    # (..., n_q, n_k, 1) * (..., 1, n_k, d_v), summed over the keys
    return (weights[..., :, :, None] * V[..., None, :, :]).sum(axis=-2)
''', "explicit broadcasting and a sum over the key axis"),
]

# ---------------------------------------------------------------- 02_scaling
_SDPA02_HEAD = '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
'''
NB02 = [
    _wrong("ho3_variance_uniform_entries", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    q = rng.random((n_samples, d_k))
    k = rng.random((n_samples, d_k))
    return float(np.var(np.sum(q * k, axis=1)))
''', None, "draws uniform [0, 1) entries (rng.random) instead of standard-normal ones: variance 7 d_k / 144"),
    _wrong("ho3_variance_global_random", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    q = np.random.randn(n_samples, d_k)
    k = np.random.randn(n_samples, d_k)
    return float(np.var((q * k).sum(axis=1)))
''', "score_variance.ignores_rng", "uses numpy's global random state, so the rng argument changes nothing"),
    _wrong("ho3_variance_of_scaled", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    scores = (q * k).sum(axis=1) / np.sqrt(d_k)
    return float(scores.var())
''', "score_variance.scaled_scores", "measures the variance of the scaled scores (about 1) instead of the raw ones"),
    _wrong("ho3_scale_by_d_k", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    return np.asarray(scores) / d_k
''', "scale.by_d_k", "divides by d_k instead of sqrt(d_k)"),
    _wrong("ho3_scale_np_sqrt_float64", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    return np.asarray(scores) / np.sqrt(d_k)
''', None, "np.sqrt(d_k) is a float64 scalar: float32 scores are promoted to float64"),
    _wrong("ho3_scale_in_place", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    scores = np.asarray(scores, dtype=float)
    scores /= math.sqrt(d_k)
    return scores
''', "mutates_input", "divides in place: the caller's float64 scores are overwritten (float32 ones come back float64)"),
    _wrong("ho3_leading_divides_by_width", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    if scaled:
        raw = raw / width
    return float(softmax(raw).max())
''', "leading_weight.scaled_by_width", "the scaled branch divides by the width instead of its square root"),
    _wrong("ho3_leading_raw_not_grown", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    scores = np.array([2.0, 1.0, 0.0])
    if scaled:
        scores = scores / math.sqrt(width)
    return float(softmax(scores).max())
''', None, "forgets that the raw scores are (2, 1, 0) * sqrt(width): unscaled is flat, scaled decays to 1/3"),
    _wrong("ho3_jacobian_sign_flipped", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    return np.outer(p, p) - np.diag(p)
''', "softmax_jacobian.sign", "p p^T - diag(p): the whole Jacobian has the wrong sign"),
    _wrong("ho3_jacobian_one_minus_pj", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    n = len(p)
    J = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            J[i, j] = p[i] * (1 - p[j])
    return J
''', None, "reads p_i (delta_ij - p_j) as p_i (1 - p_j) everywhere: the off-diagonal is p_i - p_i p_j"),
    _wrong("ho3_sdpa02_softmax_axis_minus2", A02, "scaled_dot_product_attention", _SDPA02_HEAD + '''\
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    weights = softmax(scores, axis=-2)
    return weighted_average(weights, V), weights
''', "attention.softmax_wrong_axis", "softmax over axis -2 (the queries): columns sum to 1 instead of rows"),
    _wrong("ho3_sdpa02_scale_by_d_v", A02, "scaled_dot_product_attention", _SDPA02_HEAD + '''\
    V = np.asarray(V)
    scores = scale_scores(attention_scores(Q, K), V.shape[-1])
    weights = softmax(scores)
    return weighted_average(weights, V), weights
''', "scale.by_d_v", "passes the value width V.shape[-1] as d_k"),
    _wrong("ho3_sdpa02_width_from_axis_1", A02, "scaled_dot_product_attention", _SDPA02_HEAD + '''\
    d_k = Q.shape[1]
    scores = scale_scores(attention_scores(Q, K), d_k)
    weights = softmax(scores)
    return weighted_average(weights, V), weights
''', None, "reads d_k from Q.shape[1]: right for (n_q, d_k), the number of heads for batched queries"),
    _wrong("ho3_sdpa02_naive_softmax", A02, "scaled_dot_product_attention", _SDPA02_HEAD + '''\
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weighted_average(weights, V), weights
''', "softmax.no_max_subtraction", "writes its own softmax without subtracting the row maximum: NaN at large scores"),
    _wrong("ho3_stop_scores_scaled", A02, "STOP_AND_TRY_SCORES", '''\
STOP_AND_TRY_SCORES = [0.707, 0.0, -0.707]
''', "STOP_AND_TRY.scaled_scores", "gives the scores divided by sqrt(2) where the raw dot products were asked"),
    _wrong("ho3_stop_weights_unscaled", A02, "STOP_AND_TRY_WEIGHTS", '''\
STOP_AND_TRY_WEIGHTS = softmax(np.array([1.0, 0.0, -1.0]))
''', "STOP_AND_TRY.unscaled_weights", "softmax of the raw scores, without the division by sqrt(d_k)"),
    _wrong("ho3_stop_largest_argmax", A02, "STOP_AND_TRY_LARGEST", '''\
STOP_AND_TRY_LARGEST = int(np.argmax(softmax(np.array([1.0, 0.0, -1.0]) / math.sqrt(2))))
''', "STOP_AND_TRY.zero_based", "np.argmax counts from 0, so key 1 is reported as 0"),
    _wrong("ho3_stop_reason_perpendicular", A02, "STOP_AND_TRY_REASON", '''\
STOP_AND_TRY_REASON = "c"
''', "STOP_AND_TRY.wrong_reason", "picks 'the perpendicular key gets weight 0' (softmax never gives 0)"),
    _wrong("ho3_concepts02_always", A02, "CONCEPTS_02", '''\
CONCEPTS_02 = ("b",)
''', "CONCEPTS_02.divisor_always", "thinks the divisor keeps the scores at unit variance throughout training"),
    _right("ho3_variance_stacked_draw", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    gen = np.random.default_rng(rng)
    pairs = gen.standard_normal((2, n_samples, d_k))
    dots = (pairs[0] * pairs[1]).sum(axis=-1)
    return float(np.var(dots))
''', "one draw of both vectors, population variance (ddof=0)"),
    _right("ho3_scale_multiply_inverse", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    return np.multiply(scores, 1.0 / math.sqrt(d_k))
''', "multiplies by the Python float 1/sqrt(d_k) (keeps float32)"),
    _right("ho3_leading_closed_form", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    s = 1.0 if scaled else math.sqrt(width)
    # weights of (2s, s, 0): the largest is e^{2s} / (e^{2s} + e^{s} + 1), divided through by e^{2s}
    return 1.0 / (1.0 + math.exp(-s) + math.exp(-2.0 * s))
''', "closed form of the leading weight, stable at any width"),
    _right("ho3_jacobian_loops", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    n = p.shape[0]
    J = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            delta = 1.0 if i == j else 0.0
            J[i, j] = p[i] * (delta - p[j])
    return J
''', "double loop over p_i (delta_ij - p_j)"),
    _right("ho3_sdpa02_einsum_own_softmax", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    scores = np.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(Q.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    output = np.einsum("...qk,...kv->...qv", weights, V)
    return output, weights
''', "einsum for both products and its own stable softmax"),
    _right("ho3_stop_scores_computed", A02, "STOP_AND_TRY_SCORES", '''\
STOP_AND_TRY_SCORES = [dot_product([1.0, 0.0], key) for key in ([1.0, 0.0], [0.0, 1.0], [-1.0, 0.0])]
''', "computed with the given dot_product"),
    _right("ho3_stop_weights_rounded", A02, "STOP_AND_TRY_WEIGHTS", '''\
STOP_AND_TRY_WEIGHTS = [0.576, 0.284, 0.140]
''', "worked out by hand, rounded to three decimals as the task allows"),
    _right("ho3_stop_largest_argmax_plus_one", A02, "STOP_AND_TRY_LARGEST", '''\
STOP_AND_TRY_LARGEST = 1 + int(np.argmax(softmax(np.array([1.0, 0.0, -1.0]) / math.sqrt(2))))
''', "np.argmax, shifted to the keys' numbering from 1"),
]

# ---------------------------------------------------------------- 03_masking
_SDPA03_HEAD = '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
'''
NB03 = [
    _wrong("ho3_causal_loop_strict", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    mask = np.zeros((n_q, n_k), dtype=bool)
    for i in range(n_q):
        for j in range(n_k):
            if j < i:
                mask[i, j] = True
    return mask
''', "causal_mask.no_diagonal", "j < i instead of j <= i: a position may not read itself (row 0 reads nothing)"),
    _wrong("ho3_causal_upper_triangle", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    return np.arange(n_k)[None, :] >= np.arange(n_q)[:, None]
''', None, "comparison written the wrong way round: j >= i, each query reads itself and the future"),
    _wrong("ho3_padding_le", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    return (np.arange(n_k)[None, :] <= lengths[:, None])[:, None, :]
''', "padding_mask.off_by_one", "j <= length keeps one padded key (the key at position length)"),
    _wrong("ho3_padding_axis_last", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    return (np.arange(n_k)[None, :] < lengths[:, None])[:, :, None]
''', "padding_mask.wrong_axis", "the new axis goes last: shape (batch, n_k, 1) hides queries instead of keys"),
    _wrong("ho3_apply_copyto_in_place", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        np.copyto(scores, -np.inf, where=~mask)
    else:
        scores += mask
    return scores
''', "mutates_input", "writes -inf (or adds the bias) into the caller's scores instead of a new array"),
    _wrong("ho3_apply_minus_1e9", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        return np.where(mask, scores, -1e9)   # -inf gave me nan somewhere
    return scores + mask
''', "mask.large_negative_fill", "fills hidden scores with -1e9 instead of -inf"),
    _wrong("ho3_sdpa03_zero_after_softmax", A03, "scaled_dot_product_attention", _SDPA03_HEAD + '''\
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    weights = softmax(scores, axis=-1)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype == bool:
            weights = np.where(mask, weights, 0.0)
        else:
            weights = weights * np.exp(mask)
    return weighted_average(weights, V), weights
''', "mask.after_softmax", "zeroes the hidden weights after the softmax: the rows no longer sum to 1"),
    _wrong("ho3_sdpa03_mask_raw_scores", A03, "scaled_dot_product_attention", _SDPA03_HEAD + '''\
    scores = attention_scores(Q, K)
    if mask is not None:
        scores = apply_mask(scores, mask)
    scores = scale_scores(scores, Q.shape[-1])
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
''', "mask.before_scaling", "masks the raw scores and scales afterwards: a finite additive bias is divided by sqrt(d_k)"),
    _wrong("ho3_sdpa03_max_then_multiply", A03, "scaled_dot_product_attention", _SDPA03_HEAD + '''\
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    if mask is not None:
        mask = np.asarray(mask)
        e = e * mask if mask.dtype == bool else e * np.exp(mask)
    total = e.sum(axis=-1, keepdims=True)
    weights = e / np.where(total == 0, 1, total)
    return weighted_average(weights, V), weights
''', "mask.max_over_masked_keys",
        "subtracts the max over all keys, then multiplies by the mask: allowed keys far below a hidden one underflow"),
    _wrong("ho3_sdpa03_own_softmax_nan", A03, "scaled_dot_product_attention", _SDPA03_HEAD + '''\
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        scores = apply_mask(scores, mask)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weighted_average(weights, V), weights
''', "mask.fully_masked_nan", "its own softmax has no guard: a fully masked row is -inf - -inf = NaN"),
    _right("ho3_causal_np_tri", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    return np.tri(n_q, n_q if n_k is None else n_k, dtype=bool)
''', "np.tri (ones on and below the diagonal) as booleans"),
    _right("ho3_padding_reshape", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths).reshape(-1, 1, 1)
    return np.arange(n_k).reshape(1, 1, -1) < lengths
''', "reshapes both sides to three axes before comparing"),
    _right("ho3_apply_copy_then_index", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    mask = np.asarray(mask)
    out = np.array(scores, copy=True)
    if not np.issubdtype(out.dtype, np.floating):
        out = out.astype(float)
    if mask.dtype == np.bool_:
        out[np.broadcast_to(~mask, out.shape)] = -np.inf
        return out
    return out + mask.astype(out.dtype)
''', "copies the scores, then writes -inf through a broadcast boolean index"),
    _right("ho3_sdpa03_einsum_guarded", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    scores = np.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(Q.shape[-1])
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype == bool:
            scores = np.where(mask, scores, -np.inf)
        else:
            scores = scores + mask.astype(scores.dtype)
    row_max = scores.max(axis=-1, keepdims=True)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)   # a fully masked row: shift by 0
    e = np.exp(scores - row_max)
    total = e.sum(axis=-1, keepdims=True)
    weights = e / np.where(total > 0, total, 1.0)
    return np.einsum("...qk,...kv->...qv", weights, V), weights
''', "einsum, np.where for the mask and its own guarded softmax"),
]

# ---------------------------------------------------------------- 04_heads
_MHA_HEAD = '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
'''
NB04 = [
    _wrong("ho3_project_W_transposed", A04, "project", '''\
def project(X, W):
    return np.asarray(X) @ np.asarray(W).T
''', "project.transposed_map", "multiplies by W.T (as for a column-vector convention)"),
    _wrong("ho3_project_einsum_2d_only", A04, "project", '''\
def project(X, W):
    return np.einsum("nd,do->no", np.asarray(X), np.asarray(W))
''', None, "einsum subscripts without '...': batched rows raise"),
    _wrong("ho3_count_default_full_width", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    if d_k is None:
        d_k = d_model
    if d_v is None:
        d_v = d_model
    count = num_heads * d_model * (2 * d_k + d_v)
    if output_projection:
        count += num_heads * d_v * d_model
    return int(count)
''', "attention_param_count.times_heads",
        "gives every head the full width d_model by default, so the count grows with the number of heads"),
    _wrong("ho3_count_square_output_map", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    if d_k is None:
        d_k = d_model // num_heads
    if d_v is None:
        d_v = d_model // num_heads
    count = num_heads * d_model * (2 * d_k + d_v)
    if output_projection:
        count += d_model * d_model
    return int(count)
''', None, "counts W_o as d_model x d_model, wrong when num_heads * d_v differs from d_model"),
    _wrong("ho3_split_stack_first", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    return np.stack(np.split(X, num_heads, axis=-1), axis=0)
''', "split_heads.heads_before_batch", "stacks the slices on axis 0: the head axis lands in front of the batch axes"),
    _wrong("ho3_split_strided", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    return np.stack([X[..., h::num_heads] for h in range(num_heads)], axis=-3)
''', "split_heads.interleaved", "head h takes every num_heads-th column instead of a contiguous slice"),
    _wrong("ho3_merge_plain_reshape", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.asarray(X)
    *batch, h, n, d = X.shape
    return X.reshape(*batch, n, h * d)
''', "merge_heads.reshape_without_transpose", "reshapes (h, n, d) straight to (n, h*d): rows of different positions mix"),
    _wrong("ho3_merge_concatenate_list", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.asarray(X)
    return np.concatenate(list(X), axis=-1)
''', "merge_heads.moves_batch_axis", "list(X) iterates over axis 0, which is the batch axis for batched input"),
    _wrong("ho3_mha_divisor_full_width", A04, "multi_head_attention", _MHA_HEAD + '''\
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(np.shape(W_q)[1])
    if mask is not None:
        mask = np.asarray(mask)
        if mask.ndim >= 2:
            mask = np.expand_dims(mask, -3)
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return project(merge_heads(weights @ V), W_o), weights
''', "multi_head_attention.divisor_d_model", "its own attention divides by sqrt of the full width W_q.shape[1]"),
    _wrong("ho3_mha_mask_as_given", A04, "multi_head_attention", _MHA_HEAD + '''\
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
''', "multi_head_attention.mask_no_head_axis", "passes a (batch, n_q, n_k) mask on without a head axis"),
    _wrong("ho3_mha_keys_from_queries", A04, "multi_head_attention", _MHA_HEAD + '''\
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_q, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.ndim >= 2:
            mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
''', None, "copy-paste slip: the keys are projected from X_q instead of X_kv"),
    _wrong("ho3_mha_inline_reshape_merge", A04, "multi_head_attention", _MHA_HEAD + '''\
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.ndim >= 2:
            mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    merged = heads.reshape(*heads.shape[:-3], heads.shape[-2], -1)
    return project(merged, W_o), weights
''', "multi_head_attention.merge_without_transpose", "merges the heads with a plain reshape instead of merge_heads"),
    _wrong("ho3_asymmetry_sum", A04, "score_asymmetry", '''\
def score_asymmetry(X, W_q, W_k):
    X = np.asarray(X)
    S = (X @ np.asarray(W_q)) @ (X @ np.asarray(W_k)).T
    return float(np.abs(S - S.T).sum())
''', None, "adds up every gap instead of taking the largest one"),
    _wrong("ho3_concepts04_alignment", A04, "CONCEPTS_04", '''\
CONCEPTS_04 = ("a", "b", "a")
''', "CONCEPTS_04.raw_alignment", "question 1 answered a: a large score means the input vectors are aligned"),
    _right("ho3_project_einsum", A04, "project", '''\
def project(X, W):
    return np.einsum("...nd,de->...ne", np.asarray(X), np.asarray(W))
''', "einsum with batch axes by ellipsis"),
    _right("ho3_count_from_shapes", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    head_width = d_model // num_heads
    d_k = head_width if d_k is None else d_k
    d_v = head_width if d_v is None else d_v
    shapes = [(d_model, num_heads * d_k), (d_model, num_heads * d_k), (d_model, num_heads * d_v)]
    if output_projection:
        shapes.append((num_heads * d_v, d_model))
    return sum(rows * cols for rows, cols in shapes)
''', "sums the entries of each map's shape"),
    _right("ho3_split_slices_stacked", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    d = X.shape[-1] // num_heads
    return np.stack([X[..., h * d:(h + 1) * d] for h in range(num_heads)], axis=-3)
''', "contiguous column slices stacked before the positions"),
    _right("ho3_merge_concatenate_heads", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.asarray(X)
    return np.concatenate([X[..., h, :, :] for h in range(X.shape[-3])], axis=-1)
''', "concatenates the heads one by one along the width"),
    _right("ho3_mha_loop_over_heads", A04, "multi_head_attention", _MHA_HEAD + '''\
    X_q, X_kv = np.asarray(X_q), np.asarray(X_kv)
    W_q, W_k, W_v = np.asarray(W_q), np.asarray(W_k), np.asarray(W_v)
    d_k = W_q.shape[1] // num_heads
    d_v = W_v.shape[1] // num_heads
    outputs, tables = [], []
    for h in range(num_heads):
        q = X_q @ W_q[:, h * d_k:(h + 1) * d_k]
        k = X_kv @ W_k[:, h * d_k:(h + 1) * d_k]
        v = X_kv @ W_v[:, h * d_v:(h + 1) * d_v]
        out, w = scaled_dot_product_attention(q, k, v, mask=mask)
        outputs.append(out)
        tables.append(w)
    return np.concatenate(outputs, axis=-1) @ np.asarray(W_o), np.stack(tables, axis=-3)
''', "one head at a time with column slices of the maps; the mask needs no head axis then"),
    _right("ho3_asymmetry_max_no_abs", A04, "score_asymmetry", '''\
def score_asymmetry(X, W_q, W_k):
    X = np.asarray(X)
    S = (X @ np.asarray(W_q)) @ (X @ np.asarray(W_k)).T
    # S - S^T is antisymmetric: its largest entry is its largest absolute entry
    return float(np.max(S - S.T))
''', "max of the antisymmetric gap matrix without abs (equal by antisymmetry)"),
]

# ---------------------------------------------------------------- 05_cross_attention
NB05 = [
    _wrong("ho3_self_mask_not_passed", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    mask = None
    if causal:
        mask = causal_mask(X.shape[-2])
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads)
''', "self_attention.causal_ignored", "builds the causal mask but never passes it on"),
    _wrong("ho3_self_mask_transposed", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    mask = causal_mask(X.shape[-2]).T if causal else None
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "self_attention.causal_wrong_direction", "transposes the causal mask: every position reads the future"),
    _wrong("ho3_cross_sources_swapped", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_enc = np.asarray(X_enc)
    mask = None
    if enc_lengths is not None:
        mask = padding_mask(np.asarray(enc_lengths), X_enc.shape[-2])
    return multi_head_attention(X_enc, X_dec, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "cross_attention.swapped", "passes (X_enc, X_dec): the input side asks and the output side is read"),
    _wrong("ho3_cross_mask_decoder_length", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_dec = np.asarray(X_dec)
    mask = None
    if enc_lengths is not None:
        mask = padding_mask(np.asarray(enc_lengths), X_dec.shape[-2])
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', None, "builds the padding mask with the decoder's length n_dec instead of n_enc (wrong variable)"),
    _wrong("ho3_cross_adds_causal", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_dec, X_enc = np.asarray(X_dec), np.asarray(X_enc)
    mask = causal_mask(X_dec.shape[-2], X_enc.shape[-2])   # a decoder must not look ahead
    if enc_lengths is not None:
        mask = mask & padding_mask(np.asarray(enc_lengths), X_enc.shape[-2])
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "cross_attention.causal_mask", "adds a causal mask to cross-attention, hiding input positions from early outputs"),
    _wrong("ho3_concepts05_importance", A05, "CONCEPTS_05", '''\
CONCEPTS_05 = ("a",)
''', "CONCEPTS_05.weight_is_importance", "thinks a high weight marks an input word as more important in general"),
    _right("ho3_self_tril", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    n = X.shape[-2]
    mask = np.tril(np.ones((n, n), dtype=bool)) if causal else None
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads=num_heads, mask=mask)
''', "the causal mask built with np.tril"),
    _right("ho3_cross_manual_mask", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_enc = np.asarray(X_enc)
    mask = None
    if enc_lengths is not None:
        lengths = np.asarray(enc_lengths)
        mask = np.arange(X_enc.shape[-2])[None, None, :] < lengths[:, None, None]
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "the padding mask written by hand, shape (batch, 1, n_enc)"),
    _right("ho3_cross_additive_mask", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_enc = np.asarray(X_enc)
    bias = None
    if enc_lengths is not None:
        keep = padding_mask(np.asarray(enc_lengths), X_enc.shape[-2])
        bias = np.where(keep, 0.0, -np.inf)   # an additive mask: 0 keeps, -inf hides
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=bias)
''', "the padding as a floating additive mask (0 / -inf)"),
]

# ---------------------------------------------------------------- 06_long_sequences
_BLOCKWISE_HEAD = '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    dtype = np.result_type(Q, K, V)
    m = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)
    total = np.zeros((*batch, n_q, 1), dtype=dtype)
    acc = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
'''
_BLOCK_SCORES = '''\
        stop = min(start + block_size, n_k)
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
        if mask is not None:
            block_mask = mask[..., start:stop] if np.shape(mask)[-1] > 1 else mask
            s = np.where(block_mask, s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
'''
_BLOCKWISE_TAIL = '''\
    return acc / np.where(total == 0, 1, total)
'''
NB06 = [
    _wrong("ho3_table_bytes_one_head", A06, "TABLE_BYTES", '''\
TABLE_BYTES = 4096 * 4096 * 4
''', "TABLE_BYTES.one_head", "counts the table of one head, not of all 8"),
    _wrong("ho3_blockwise_no_rescale", A06, "blockwise_attention", _BLOCKWISE_HEAD + '''\
    for start in range(0, n_k, block_size):
''' + _BLOCK_SCORES + '''\
        shift = np.where(new_m == -np.inf, 0, new_m)
        p = np.exp(s - shift)
        total = total + p.sum(axis=-1, keepdims=True)
        acc = acc + p @ V[..., start:stop, :]
        m = new_m
''' + _BLOCKWISE_TAIL, "blockwise_attention.no_rescale",
        "keeps a running maximum but never multiplies the old total and sum by exp(m - m')"),
    _wrong("ho3_blockwise_unguarded_shift", A06, "blockwise_attention", _BLOCKWISE_HEAD + '''\
    for start in range(0, n_k, block_size):
''' + _BLOCK_SCORES + '''\
        rescale = np.exp(m - new_m)
        p = np.exp(s - new_m)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:stop, :]
        m = new_m
''' + _BLOCKWISE_TAIL, "blockwise_attention.masked_nan",
        "subtracts the running maximum even while it is -inf: a fully masked block gives NaN"),
    _wrong("ho3_blockwise_loop_stops_early", A06, "blockwise_attention", _BLOCKWISE_HEAD + '''\
    for start in range(0, n_k - block_size, block_size):
''' + _BLOCK_SCORES + '''\
        shift = np.where(new_m == -np.inf, 0, new_m)
        rescale = np.exp(m - shift)
        p = np.exp(s - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:stop, :]
        m = new_m
''' + _BLOCKWISE_TAIL, None,
        "loop bound range(0, n_k - block_size, ...): the last block of keys (or every key, when n_k <= block) is skipped"),
    _right("ho3_table_bytes_powers_of_two", A06, "TABLE_BYTES", '''\
TABLE_BYTES = 2 ** 29   # 2**3 heads x 2**12 x 2**12 weights x 2**2 bytes
''', "the same product written in powers of two"),
    _right("ho3_blockwise_two_passes", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    dtype = np.result_type(Q, K, V)

    def block_scores(start, stop):
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
        if mask is not None:
            s = np.where(mask[..., start:stop] if np.shape(mask)[-1] > 1 else mask, s, -np.inf)
        return s

    # first pass: each query's largest allowed score, one block at a time
    row_max = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)
    for start in range(0, n_k, block_size):
        s = block_scores(start, min(start + block_size, n_k))
        row_max = np.maximum(row_max, s.max(axis=-1, keepdims=True))
    row_max = np.where(np.isinf(row_max), 0, row_max)   # no allowed key: shift by 0
    # second pass: with the final maximum known, nothing needs rescaling
    total = np.zeros((*batch, n_q, 1), dtype=dtype)
    acc = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        p = np.exp(block_scores(start, stop) - row_max)
        total += p.sum(axis=-1, keepdims=True)
        acc += p @ V[..., start:stop, :]
    return acc / np.where(total == 0, 1, total)
''', "two passes over the key blocks (maximum first, then sums): no online rescaling needed"),
]

# ---------------------------------------------------------------- 07_scoring_functions
NB07 = [
    _wrong("ho3_additive_tanh_each_side", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    a = np.tanh(np.asarray(Q) @ np.asarray(W_q))
    c = np.tanh(np.asarray(K) @ np.asarray(W_k))
    return (a[..., :, None, :] + c[..., None, :, :]) @ np.asarray(v)
''', "additive_scores.separate_tanh", "applies tanh to each projection before adding them"),
    _wrong("ho3_additive_pairs_key_major", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    a = np.asarray(Q) @ np.asarray(W_q)
    c = np.asarray(K) @ np.asarray(W_k)
    hidden = a[..., None, :, :] + c[..., :, None, :]
    return np.tanh(hidden) @ np.asarray(v)
''', None, "new axes placed the other way round: the table is (n_k, n_q), one row per key"),
    _wrong("ho3_additive_sum_hidden", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    a = np.asarray(Q) @ np.asarray(W_q)
    c = np.asarray(K) @ np.asarray(W_k)
    return np.tanh(a[..., :, None, :] + c[..., None, :, :]).sum(axis=-1)
''', "additive_scores.no_v", "sums the hidden units instead of weighting them with v"),
    _wrong("ho3_scaled_dot_input_width", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    Q = np.asarray(Q)
    q, k = Q @ np.asarray(W_q), np.asarray(K) @ np.asarray(W_k)
    return q @ np.swapaxes(k, -1, -2) / math.sqrt(Q.shape[-1])
''', "scaled_dot_scores.divides_by_input_width", "divides by sqrt of the input width d_q instead of the projected width"),
    _wrong("ho3_scaled_dot_by_h", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    W_q = np.asarray(W_q)
    q, k = np.asarray(Q) @ W_q, np.asarray(K) @ np.asarray(W_k)
    return q @ np.swapaxes(k, -1, -2) / W_q.shape[1]
''', None, "divides by the projected width h itself instead of its square root"),
    _wrong("ho3_bilinear_W_transposed", A07, "bilinear_scores", '''\
def bilinear_scores(Q, K, W):
    return np.asarray(Q) @ np.asarray(W).T @ np.swapaxes(np.asarray(K), -1, -2)
''', "bilinear_scores.transposed", "uses W.T: reads the relation from the key to the query"),
    _wrong("ho3_costs_pairs_only", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * n * d
    parameters = 2 * d * h + (h if kind == "additive" else 0)
    return parameters, n * n * h
''', "score_costs.pairs_without_projections", "counts only the per-pair multiply-adds, not the projections"),
    _wrong("ho3_costs_bilinear_each_pair", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * n * (d * d + d)
    parameters = 2 * d * h + (h if kind == "additive" else 0)
    return parameters, 2 * n * d * h + n * n * h
''', "score_costs.bilinear_per_pair", "bilinear: computes W k again for every pair instead of Q W once"),
    _wrong("ho3_width_rounded", A07, "width_for_budget", '''\
def width_for_budget(kind, d, budget):
    per_unit = 2 * d + (1 if kind == "additive" else 0)
    return round(budget / per_unit)
''', "width_for_budget.rounds_up", "rounds to the nearest width, which can exceed the budget"),
    _right("ho3_additive_einsum", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    q_h = np.einsum("...qd,dh->...qh", np.asarray(Q), np.asarray(W_q))
    k_h = np.einsum("...kd,dh->...kh", np.asarray(K), np.asarray(W_k))
    hidden = np.tanh(np.expand_dims(q_h, -2) + np.expand_dims(k_h, -3))
    return np.einsum("...qkh,h->...qk", hidden, np.asarray(v))
''', "einsum projections, expand_dims for the pairs, einsum with v"),
    _right("ho3_scaled_dot_einsum", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    q = np.asarray(Q) @ np.asarray(W_q)
    k = np.asarray(K) @ np.asarray(W_k)
    return np.einsum("...qh,...kh->...qk", q, k) / math.sqrt(q.shape[-1])
''', "einsum over the projected width, divided by sqrt(h) read from the projection"),
    _right("ho3_bilinear_einsum", A07, "bilinear_scores", '''\
def bilinear_scores(Q, K, W):
    return np.einsum("...qi,ij,...kj->...qk", np.asarray(Q), np.asarray(W), np.asarray(K))
''', "one three-operand einsum"),
    _right("ho3_width_estimate_corrected", A07, "width_for_budget", '''\
def width_for_budget(kind, d, budget):
    per_unit = 2 * d + (1 if kind == "additive" else 0)
    h = int(budget / per_unit)   # a float estimate, then corrected in whole units
    while h * per_unit > budget:
        h -= 1
    while (h + 1) * per_unit <= budget:
        h += 1
    return h
''', "a float estimate corrected up or down in whole units until the next unit would not fit"),
]

VARIANTS = NB01 + NB02 + NB03 + NB04 + NB05 + NB06 + NB07
