"""Held-out answers of 2026-12-05 (issue 24): a fourth set of typical student mistakes and correct rewrites.

Written on 2026-12-03 by a helper session (branch ``wt-heldout4``) **without reading the grader's checks**:
nothing under ``autograder/checks/``, ``tests/checks/`` or ``tests/course/test_catalogue.py`` was opened, nor
anything under ``autograder/catalogue/`` beyond the ``Variant`` class (with its module's docstring and
``all_variants``) and the loader ``load_variants`` of ``autograder/catalogue/fairness.py`` (with that module's
docstring and imports); no feedback or misconception text of the course was read. Of the earlier held-out sets
only the layout of ``heldout_2026_12_04.py`` was read (its first 72 lines: docstring, helpers and the name of one
variant; and its last 5 lines). The answers were written from the notebooks' task texts
(``sources/NN_*/NN_*.py``: prose, stubs, the descriptions of the hidden tests), the reference ``attention_ref``
and the two lesson seeds in ``/work/shared/seeds/``. The grader and ``benchmarks/fairness.py`` were not run on
them; ``load_variants`` was called once to confirm that every task name is one the course grades (and no name
clashes with the course's catalogue).

Each answer replaces one solution cell only (the other cells keep the instructor's answers). A wrong answer is
labelled with the misconception in the author's own words (ids the course does not know; the fairness report
lists them as 'unlabelled' with what the checks named), or ``None`` where the mistake is a muddle with no one
name; ``source`` says the mistake in one line. The mistakes aim at what this set's predecessors may not have
covered: several are right on the seeds' examples and wrong only on some inputs (a loop that stops one entry
short, right whenever the last entry of the query is 0; a padding mask sized by the longest sequence, right
whenever one sequence fills n_k; an empty source given one key; blockwise attention without the -inf guard,
wrong only for an empty sequence; a divisor read from ``Q.shape[1]``, wrong only with batch axes; an output map
counted as d_model x d_model, wrong only with explicit head widths; a width rounded instead of floored).

How it was checked (a throw-away script, not kept: one probe set per task, the reference's answer computed
on the spot): each cell is executed in a namespace holding ``math``, ``numpy as np`` and ``attention_ref``'s
versions of the notebook's given and other task functions, and its function is called on inputs of the kinds
the notebooks' hidden-test descriptions name -- the seeds' worked examples, non-square and square, batched (two
leading axes), float32, integer input, ``axis`` 0 and 1 of a 3-D array, scores of 1e3 and 1e4 and rows of very
different sizes, boolean and floating masks (0/-inf and a finite bias), a causal mask shared by a batch,
padding with an empty sequence, a fully masked row, per-sequence masks for multi-head attention, the seeds'
512-wide layer with 8 heads, explicit head widths, widths up to 1e8, block sizes 1, 3 (not dividing n_k), n_k
and more than n_k, an explicit ``scale`` -- and compared with ``attention_ref``: same shape, same dtype for
floating inputs (bool for masks, Python ``float``/``int`` where the reference returns one), values within 1e-6
(1e-4 for float32 inputs), no NaN where the reference has none, inputs left unchanged. ``blockwise_attention``
is also run on 256 queries and 16,384 keys under ``tracemalloc``; a peak above a quarter of the n_q x n_k float64
table counts as building it. Results:

* every wrong answer differs from the reference, raises or modifies its input on at least one of those inputs
  (on as few as one kind: the float64 casts only on float32, the fixed normalising axis only on ``axis`` 0/1,
  the longest-sequence padding only when no sequence fills n_k, the keep/hide reading of a floating mask only on
  a finite bias, the unexpanded mask only on a per-sequence mask, the ``Q.shape[1]`` divisor only with batch
  axes, the unshifted softmax of ``leading_weight`` only at widths of 1e6 and more, the empty-source bump and the
  missing -inf guard only on an empty sequence, the full score table only in memory);
* every correct rewrite agrees on all of them (within 1e-6 in float64, with float32 kept float32) and emits no
  floating-point warning, with these exceptions by design: ``score_variance`` is checked statistically (within
  6 standard errors of d_k for d_k = 1, 16, 64 with 20,000 pairs, the same value for the same seed, a Generator
  accepted); ``STOP_AND_TRY_WEIGHTS`` is rounded to three decimals, which the task allows;
* no answer redefines a name other than its own task's.

Counts (wrong / correct / wrong labelled ``None``):

==========================  =====  =======  ====
notebook                    wrong  correct  None
==========================  =====  =======  ====
01_scores_softmax              13        4     0
02_scaling                     17        7     1
03_masking                     13        5     1
04_heads                       15        6     0
05_cross_attention              7        3     0
06_long_sequences               5        2     0
07_scoring_functions            9        4     0
total                          79       31     2
==========================  =====  =======  ====

Measure it (named / vague / wrong on this set alone)::

    .venv/bin/python benchmarks/fairness.py --variants benchmarks/heldout/heldout_2026_12_05.py --seeds 3
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
    _wrong("h5_dot_loop_stops_early", A01, "dot_product", '''\
def dot_product(q, k):
    q = np.asarray(q, dtype=float)
    k = np.asarray(k, dtype=float)
    total = 0.0
    for i in range(len(q) - 1):  # indices 0 .. d_k - 1
        total += q[i] * k[i]
    return float(total)
''', "loop_bound_off_by_one",
        "the loop's range stops one entry short (range(len(q) - 1)); right whenever the last entry of q is 0"),
    _wrong("h5_dot_mean_of_products", A01, "dot_product", '''\
def dot_product(q, k):
    q = np.asarray(q, dtype=float)
    k = np.asarray(k, dtype=float)
    return float(np.mean(q * k))
''', "similarity_as_mean_of_products",
        "averages the entry-wise products instead of adding them, so the score shrinks with d_k"),
    _wrong("h5_scores_tensordot", A01, "attention_scores", '''\
def attention_scores(Q, K):
    Q = np.asarray(Q)
    K = np.asarray(K)
    return np.tensordot(Q, K, axes=([-1], [-1]))
''', "contracts_across_batch_entries",
        "tensordot over the width pairs every batch entry with every other one; right for 2-D input only"),
    _wrong("h5_scores_float64_upcast", A01, "attention_scores", '''\
def attention_scores(Q, K):
    Q = np.asarray(Q, dtype=np.float64)  # to be safe
    K = np.asarray(K, dtype=np.float64)
    return Q @ np.swapaxes(K, -1, -2)
''', "dtype_forced_to_float64",
        "converts the inputs to float64 'to be safe', so float32 queries and keys give float64 scores"),
    _wrong("h5_scores_reshape_for_transpose", A01, "attention_scores", '''\
def attention_scores(Q, K):
    Q = np.asarray(Q)
    K = np.asarray(K)
    K_t = K.reshape(*K.shape[:-2], K.shape[-1], K.shape[-2])  # (..., d_k, n_k)
    return Q @ K_t
''', "reshape_is_not_transpose",
        "turns K into (..., d_k, n_k) with a reshape, which has the right shape but regroups the entries"),
    _wrong("h5_softmax_max_without_keepdims", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    shifted = x - np.max(x, axis=axis)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)
''', "row_max_broadcast_along_wrong_axis",
        "drops keepdims on the row maximum only: fine on one row, each row gets another row's maximum on a square "
        "array and a broadcast error on a non-square one"),
    _wrong("h5_softmax_in_place", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    x -= x.max(axis=axis, keepdims=True)  # reuse the buffer: no extra copies
    np.exp(x, out=x)
    x /= x.sum(axis=axis, keepdims=True)
    return x
''', "overwrites_caller_array",
        "works in the caller's float array to save memory, so the scores are replaced by the weights"),
    _wrong("h5_softmax_sum_axis_fixed", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
''', "normaliser_on_key_axis_always",
        "shifts along `axis` but always divides by the total of the last axis; right only for axis=-1"),
    _wrong("h5_softmax_clip_scores", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    e = np.exp(np.clip(x, -60.0, 60.0))  # keeps exp finite
    return e / e.sum(axis=axis, keepdims=True)
''', "clipping_instead_of_shifting",
        "clips the scores to avoid overflow instead of subtracting the row maximum: large scores all become 60 "
        "and their differences are lost"),
    _wrong("h5_wavg_sums_queries", A01, "weighted_average", '''\
def weighted_average(weights, V):
    weights = np.asarray(weights)
    V = np.asarray(V)
    products = weights[..., :, :, None] * V[..., None, :, :]  # (..., n_q, n_k, d_v)
    return products.sum(axis=-3)
''', "sums_over_query_axis",
        "builds every weight-times-value product correctly, then adds them up over the queries instead of the keys"),
    _wrong("h5_wavg_mean_over_keys", A01, "weighted_average", '''\
def weighted_average(weights, V):
    weights = np.asarray(weights)
    V = np.asarray(V)
    return np.mean(weights[..., :, :, None] * V[..., None, :, :], axis=-2)
''', "average_divides_by_count",
        "an 'average' taken with np.mean, so the weighted sum is divided by n_k again"),
    _wrong("h5_wavg_two_loops_2d", A01, "weighted_average", '''\
def weighted_average(weights, V):
    weights = np.asarray(weights)
    V = np.asarray(V)
    n_q, n_k = weights.shape
    out = np.zeros((n_q, V.shape[1]))
    for i in range(n_q):
        for j in range(n_k):
            out[i] += weights[i, j] * V[j]
    return out
''', "assumes_two_dimensional_input",
        "two loops over a 2-D weight matrix: no batch axes, and the output is float64 whatever the input"),
    _wrong("h5_concepts01_cosine", A01, "CONCEPTS_01", '''\
CONCEPTS_01 = ("b", "c", "b")
''', "score_is_cosine_similarity",
        "answers that attention compares a query and a key by the cosine of their angle"),
    _right("h5_dot_fsum_zip", A01, "dot_product", '''\
def dot_product(q, k):
    return math.fsum(float(a) * float(b) for a, b in zip(q, k))
''', "a generator over zipped entries summed with math.fsum"),
    _right("h5_scores_einsum", A01, "attention_scores", '''\
def attention_scores(Q, K):
    Q = np.asarray(Q)
    K = np.asarray(K)
    if Q.dtype.kind != "f":
        Q = Q.astype(float)
    if K.dtype.kind != "f":
        K = K.astype(float)
    return np.einsum("...qd,...kd->...qk", Q, K)
''', "einsum over the width, batch axes by ellipsis"),
    _right("h5_softmax_logsumexp", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    top = np.max(x, axis=axis, keepdims=True)
    log_total = top + np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True))
    return np.exp(x - log_total)
''', "exp(x - logsumexp(x)) with the log-sum-exp computed stably"),
    _right("h5_wavg_einsum", A01, "weighted_average", '''\
def weighted_average(weights, V):
    return np.einsum("...qk,...kd->...qd", np.asarray(weights), np.asarray(V))
''', "einsum over the key axis"),
]

# ---------------------------------------------------------------- 02_scaling
NB02 = [
    _wrong("h5_variance_legacy_seed", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    np.random.seed(rng)
    q = np.random.standard_normal((n_samples, d_k))
    k = np.random.standard_normal((n_samples, d_k))
    dots = (q * k).sum(axis=1)
    return float(dots.var(ddof=1))
''', "seeds_global_generator",
        "seeds numpy's legacy global generator with rng: an int seed works, a Generator raises"),
    _wrong("h5_variance_of_products", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    return float(np.var(q * k))
''', "variance_of_terms_not_of_sum",
        "takes the variance of all the entry-wise products (about 1) instead of the variance of their sums"),
    _wrong("h5_scale_in_place", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    scores = np.asarray(scores)
    scores /= math.sqrt(d_k)
    return scores
''', "overwrites_caller_array",
        "divides the caller's array in place (and raises on integer scores)"),
    _wrong("h5_scale_width_from_scores", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    scores = np.asarray(scores)
    return scores / math.sqrt(scores.shape[-1])
''', "key_count_taken_as_width",
        "ignores d_k and divides by the square root of the scores' last axis, which counts keys"),
    _wrong("h5_leading_unshifted_exp", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    scores = raw / math.sqrt(width) if scaled else raw
    e = np.exp(scores)
    return float(e.max() / e.sum())
''', "softmax_without_max_shift",
        "writes its own softmax without the max shift: right up to widths of about 1e5, NaN beyond (unscaled)"),
    _wrong("h5_leading_returns_index", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    scores = raw / math.sqrt(width) if scaled else raw
    return float(np.argmax(softmax(scores)))
''', "argmax_for_max",
        "returns where the largest weight is (index 0) instead of the weight itself"),
    _wrong("h5_jacobian_p_one_minus_p", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    return np.outer(p, 1 - p)
''', "diagonal_formula_everywhere",
        "uses p_i (1 - p_j) for every entry: right on the diagonal, positive instead of -p_i p_j off it"),
    _wrong("h5_jacobian_log_softmax", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    return np.eye(len(p)) - p[None, :]
''', "log_softmax_derivative",
        "writes the Jacobian of log-softmax (delta_ij - p_j), which is near the identity, not 0, when saturated"),
    _wrong("h5_jacobian_inner_product", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    return np.diag(p) - np.dot(p, p)
''', None,
        "np.dot where np.outer was meant: subtracts the scalar sum of p_i^2 from every entry"),
    _wrong("h5_sdpa_scale_by_value_width", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    V = np.asarray(V)
    scores = scale_scores(attention_scores(Q, K), V.shape[-1])
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
''', "divisor_from_value_width",
        "divides by the square root of the values' width d_v; right whenever d_v equals d_k (the seed's example)"),
    _wrong("h5_sdpa_softmax_over_queries", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    weights = softmax(scores, axis=-2)
    return weighted_average(weights, V), weights
''', "softmax_over_query_axis",
        "normalises each key's column of scores (axis -2) instead of each query's row"),
    _wrong("h5_sdpa_width_from_axis_one", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    d_k = Q.shape[1]
    weights = softmax(scale_scores(attention_scores(Q, K), d_k))
    return weighted_average(weights, V), weights
''', "fixed_axis_for_width",
        "reads d_k as Q.shape[1], the width only for 2-D queries; with batch axes it is the number of heads"),
    _wrong("h5_sdpa_divides_weights", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    weights = softmax(attention_scores(Q, K)) / math.sqrt(Q.shape[-1])
    return weighted_average(weights, V), weights
''', "scale_applied_after_softmax",
        "divides the weights by sqrt(d_k) after the softmax instead of the scores before it"),
    _wrong("h5_stop_scores_scaled", A02, "STOP_AND_TRY_SCORES", '''\
STOP_AND_TRY_SCORES = [0.707, 0.0, -0.707]
''', "raw_scores_given_scaled",
        "gives the scaled scores where the raw dot products were asked"),
    _wrong("h5_stop_weights_by_d_k", A02, "STOP_AND_TRY_WEIGHTS", '''\
STOP_AND_TRY_WEIGHTS = softmax(np.array([1.0, 0.0, -1.0]) / 2)
''', "divides_by_d_k_not_its_root",
        "divides the scores by d_k = 2 instead of sqrt(2) before the softmax"),
    _wrong("h5_stop_reason_perpendicular_zero", A02, "STOP_AND_TRY_REASON", '''\
STOP_AND_TRY_REASON = "c"
''', "zero_score_means_zero_weight",
        "picks the reason that a perpendicular key (score 0) gets weight 0"),
    _wrong("h5_concepts02_always_unit", A02, "CONCEPTS_02", '''\
CONCEPTS_02 = ("b",)
''', "divisor_guarantees_scale_in_training",
        "answers that the divisor keeps the scores at unit variance whatever the trained weights are"),
    _right("h5_variance_explicit_formula", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    generator = np.random.default_rng(rng)
    q = generator.standard_normal((n_samples, d_k))
    k = generator.standard_normal((n_samples, d_k))
    dots = np.sum(q * k, axis=1)
    centred = dots - dots.mean()
    return float(centred @ centred / (n_samples - 1))
''', "the unbiased sample variance written out as a centred sum of squares"),
    _right("h5_scale_multiply_reciprocal", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    return np.multiply(scores, 1.0 / math.sqrt(d_k))
''', "multiplies by the reciprocal (a Python float, so float32 stays float32)"),
    _right("h5_leading_closed_form", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    gap = 1.0 if scaled else math.sqrt(width)  # the scores are (2, 1, 0) * gap
    return 1.0 / (1.0 + math.exp(-gap) + math.exp(-2.0 * gap))
''', "the closed form 1 / (1 + e^-g + e^-2g) of the first weight"),
    _right("h5_jacobian_fill_diagonal", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    J = -p[:, None] * p[None, :]
    J[np.diag_indices_from(J)] += p
    return J
''', "-p p^T by broadcasting, then p added on the diagonal"),
    _right("h5_sdpa_einsum_scaled_queries", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    scores = np.einsum("...qd,...kd->...qk", Q / math.sqrt(Q.shape[-1]), np.asarray(K))
    weights = softmax(scores)
    return np.einsum("...qk,...kd->...qd", weights, np.asarray(V)), weights
''', "scales the queries instead of the scores, einsum for both products"),
    _right("h5_stop_scores_comprehension", A02, "STOP_AND_TRY_SCORES", '''\
STOP_AND_TRY_SCORES = [float(np.dot([1.0, 0.0], key)) for key in ([1.0, 0.0], [0.0, 1.0], [-1.0, 0.0])]
''', "the three dot products computed in a list comprehension"),
    _right("h5_stop_weights_by_hand", A02, "STOP_AND_TRY_WEIGHTS", '''\
STOP_AND_TRY_WEIGHTS = [0.576, 0.284, 0.140]
''', "the weights worked out by hand, rounded to three decimals"),
]

# ---------------------------------------------------------------- 03_masking
NB03 = [
    _wrong("h5_causal_triu_transposed", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    return np.triu(np.ones((n_q, n_k), dtype=bool)).T
''', "transpose_of_upper_triangle",
        "transposes the upper triangle: the lower one for a square mask, an (n_k, n_q) array otherwise"),
    _wrong("h5_causal_bottom_right", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)
''', "causal_aligned_bottom_right",
        "aligns the triangle to the bottom-right corner (the last query sees every key); same when square"),
    _wrong("h5_causal_float_ones", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    return np.tril(np.ones((n_q, n_k)))
''', "zero_one_floats_as_mask",
        "returns 1.0/0.0 floats, which a mask reader takes as an additive bias, not as keep/hide"),
    _wrong("h5_padding_query_axis_last", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    keep = np.arange(n_k)[None, :] < lengths[:, None]
    return keep[:, :, None]
''', "padding_hides_query_rows",
        "puts the length-one axis last, (batch, n_k, 1): the mask then hides query rows, not key columns"),
    _wrong("h5_padding_le_length", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    return (np.arange(n_k)[None, :] <= lengths[:, None])[:, None, :]
''', "padding_boundary_off_by_one",
        "j <= length: the first padded key is counted as real (an empty sequence reads one key)"),
    _wrong("h5_padding_sized_by_longest", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    longest = lengths.max()
    keep = np.arange(longest)[None, :] < lengths[:, None]
    return keep[:, None, :]
''', "padded_length_from_data",
        "sizes the mask by the longest sequence instead of n_k; right only when one sequence fills n_k"),
    _wrong("h5_apply_writes_into_scores", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        scores[~np.broadcast_to(mask, scores.shape)] = -np.inf
        return scores
    return scores + mask
''', "overwrites_caller_array",
        "writes -inf into the caller's scores (boolean masks) instead of returning a new array"),
    _wrong("h5_apply_float_mask_as_gate", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        return np.where(mask, scores, -np.inf)
    return np.where(mask == 0, scores, -np.inf)
''', "float_mask_read_as_keep_hide",
        "reads a floating mask as keep (0) or hide (anything else): right for 0/-inf, wrong for a finite bias"),
    _wrong("h5_apply_most_negative_float", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        return np.where(mask, scores, np.finfo(scores.dtype).min)
    return scores + mask
''', "finite_fill_for_hidden",
        "fills hidden scores with the most negative finite float of the dtype instead of -inf"),
    _wrong("h5_sdpa_mask_after_softmax_renorm", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    weights = softmax(scores, axis=-1)
    if mask is not None:
        mask = np.asarray(mask)
        keep = mask if mask.dtype == bool else np.isfinite(mask)
        weights = weights * keep
        weights = weights / weights.sum(axis=-1, keepdims=True)
    return weighted_average(weights, V), weights
''', "mask_after_softmax_renormalised",
        "zeroes the hidden weights after the softmax and renormalises: equal for moderate boolean masks, but a "
        "finite bias is ignored, a fully masked row is 0/0 and large hidden scores swallow the row"),
    _wrong("h5_sdpa_mask_cast_to_bool", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask, dtype=bool), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
''', "every_mask_treated_as_boolean",
        "converts every mask to booleans: a 0/-inf bias comes out inverted (0 hides, -inf keeps)"),
    _wrong("h5_sdpa_output_before_mask", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    weights = softmax(scores, axis=-1)
    output = weighted_average(weights, V)
    if mask is not None:
        weights = softmax(apply_mask(scores, mask), axis=-1)
    return output, weights
''', None,
        "computes the output from the unmasked weights, then masks only the weights it returns"),
    _wrong("h5_sdpa_float64_for_inf", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q, dtype=np.float64)  # float64 so that the scores can hold -inf
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        scores = apply_mask(scores, mask)
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
''', "believes_float32_cannot_hold_inf",
        "casts the queries to float64 so that -inf 'fits', so float32 inputs give float64 results"),
    _right("h5_causal_tril_bool", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    return np.tril(np.ones((n_q, n_q if n_k is None else n_k), dtype=bool))
''', "np.tril of a boolean array of ones"),
    _right("h5_causal_outer_compare", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    return np.greater_equal.outer(np.arange(n_q), np.arange(n_k))
''', "i >= j as an outer comparison"),
    _right("h5_padding_loop", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    mask = np.zeros((len(lengths), 1, n_k), dtype=bool)
    for b, length in enumerate(lengths):
        mask[b, 0, :length] = True
    return mask
''', "a loop that switches on the real keys of each sequence"),
    _right("h5_apply_copyto", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    dtype = scores.dtype if scores.dtype.kind == "f" else np.float64
    if mask.dtype == bool:
        out = np.array(scores, dtype=dtype)  # a copy
        np.copyto(out, -np.inf, where=np.logical_not(mask))
        return out
    return scores.astype(dtype) + mask.astype(dtype)
''', "a copy filled with np.copyto(where=~mask); a floating mask cast to the scores' dtype and added"),
    _right("h5_sdpa_hand_guarded_softmax", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    scores = np.matmul(Q, np.swapaxes(K, -1, -2)) / math.sqrt(Q.shape[-1])
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype == bool:
            scores = np.where(mask, scores, -np.inf)
        else:
            scores = scores + mask.astype(scores.dtype)
    top = scores.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)  # a fully masked row: shift by 0
    e = np.exp(scores - top)
    total = e.sum(axis=-1, keepdims=True)
    weights = e / np.where(total > 0, total, 1)
    return weights @ V, weights
''', "its own softmax, guarded for a fully masked row with np.where"),
]

# ---------------------------------------------------------------- 04_heads
NB04 = [
    _wrong("h5_project_einsum_2d", A04, "project", '''\
def project(X, W):
    return np.einsum("nd,do->no", X, W)
''', "einsum_without_batch_axes",
        "an einsum written for a 2-D X only: batched rows raise"),
    _wrong("h5_params_full_width_heads", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model if d_k is None else d_k
    d_v = d_model if d_v is None else d_v
    count = num_heads * d_model * (2 * d_k + d_v)
    if output_projection:
        count += num_heads * d_v * d_model
    return int(count)
''', "heads_default_to_full_width",
        "gives every head the full width by default, so the heads multiply the parameters; explicit widths right"),
    _wrong("h5_params_three_d_k", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    if d_k is None:
        d_k = d_model // num_heads
    if d_v is None:
        d_v = d_model // num_heads
    count = 3 * num_heads * d_model * d_k  # W_q, W_k, W_v
    if output_projection:
        count += num_heads * d_v * d_model
    return int(count)
''', "value_map_counted_with_key_width",
        "counts the three maps as 3 d_model d_k per head, as if d_v were always d_k"),
    _wrong("h5_params_output_square", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    if d_k is None:
        d_k = d_model // num_heads
    if d_v is None:
        d_v = d_model // num_heads
    count = num_heads * d_model * (2 * d_k + d_v)
    if output_projection:
        count += d_model * d_model
    return int(count)
''', "output_map_always_square",
        "counts W_o as d_model x d_model whatever the heads' value width"),
    _wrong("h5_split_interleaved", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    *batch, n, d_model = X.shape
    X = X.reshape(*batch, n, d_model // num_heads, num_heads)  # (..., n, d, h)
    return np.moveaxis(X, -1, -3)  # (..., h, n, d)
''', "heads_take_strided_columns",
        "reshapes the width as (d, h), so head i takes every h-th column instead of a contiguous slice"),
    _wrong("h5_split_stack_front", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    return np.stack(np.split(X, num_heads, axis=-1), axis=0)
''', "head_axis_before_batch_axes",
        "stacks the slices on axis 0, in front of the batch axes instead of just before the rows"),
    _wrong("h5_merge_reshape_only", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.asarray(X)
    *batch, h, n, d = X.shape
    return X.reshape(*batch, n, h * d)
''', "merge_without_moving_head_axis",
        "reshapes (..., h, n, d) straight to (..., n, h*d) without moving the head axis back next to the width"),
    _wrong("h5_merge_concatenate_first_axis", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.asarray(X)
    return np.concatenate(X, axis=-1)
''', "concatenate_iterates_first_axis",
        "np.concatenate(X) unpacks the first axis, which is the head axis only when there are no batch axes"),
    _wrong("h5_merge_heads_behind_width", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.asarray(X)
    *batch, h, n, d = X.shape
    return np.moveaxis(X, -3, -1).reshape(*batch, n, h * d)
''', "heads_interleaved_on_merge",
        "moves the head axis behind the width, so the merged row interleaves the heads' entries"),
    _wrong("h5_mha_batch_mask_not_expanded", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
''', "mask_batch_axis_meets_head_axis",
        "passes the mask through unchanged: an (n_q, n_k) mask works, a (batch, n_q, n_k) one lines its batch "
        "axis up with the heads"),
    _wrong("h5_mha_divisor_total_width", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(np.shape(W_q)[1])
    if mask is not None:
        m = np.asarray(mask)
        if m.ndim >= 2:
            m = np.expand_dims(m, -3)
        scores = np.where(m, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return project(merge_heads(weights @ V), W_o), weights
''', "divisor_from_projected_width",
        "divides by the square root of W_q's column count (all heads together), not of one head's width"),
    _wrong("h5_mha_reshape_heads_back", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.ndim >= 2:
            mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    *batch, h, n_q, d_v = heads.shape
    return project(heads.reshape(*batch, n_q, h * d_v), W_o), weights
''', "merge_without_moving_head_axis",
        "joins the heads with a reshape of (..., h, n_q, d_v) instead of merge_heads; right for one head"),
    _wrong("h5_mha_keys_from_queries", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_q, W_k), num_heads)
    V = split_heads(project(X_q, W_v), num_heads)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.ndim >= 2:
            mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
''', "keys_values_from_query_rows",
        "projects the keys and values from X_q too: right only for self-attention"),
    _wrong("h5_asymmetry_of_maps", A04, "score_asymmetry", '''\
def score_asymmetry(X, W_q, W_k):
    M = np.asarray(W_q) @ np.asarray(W_k).T
    return float(np.abs(M - M.T).max())
''', "asymmetry_of_map_product",
        "measures how far W_q W_k^T is from symmetric instead of the scores X W_q W_k^T X^T"),
    _wrong("h5_concepts04_alignment_of_inputs", A04, "CONCEPTS_04", '''\
CONCEPTS_04 = ("a", "b", "a")
''', "learned_score_means_raw_alignment",
        "answers that a large learned score means the raw input vectors point the same way"),
    _right("h5_project_einsum", A04, "project", '''\
def project(X, W):
    return np.einsum("...nd,do->...no", np.asarray(X), np.asarray(W))
''', "einsum with batch axes by ellipsis"),
    _right("h5_params_list_of_shapes", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    head = d_model // num_heads
    d_k = head if d_k is None else d_k
    d_v = head if d_v is None else d_v
    shapes = [(d_model, num_heads * d_k), (d_model, num_heads * d_k), (d_model, num_heads * d_v)]
    if output_projection:
        shapes.append((num_heads * d_v, d_model))
    return sum(rows * cols for rows, cols in shapes)
''', "adds up the sizes of the listed matrix shapes"),
    _right("h5_split_stack_minus_three", A04, "split_heads", '''\
def split_heads(X, num_heads):
    return np.stack(np.split(np.asarray(X), num_heads, axis=-1), axis=-3)
''', "np.split along the width, stacked on axis -3"),
    _right("h5_merge_concatenate_heads", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.asarray(X)
    return np.concatenate([X[..., i, :, :] for i in range(X.shape[-3])], axis=-1)
''', "concatenates the heads one by one along the width"),
    _right("h5_mha_einsum_heads", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv = np.asarray(X_q), np.asarray(X_kv)
    W_q, W_k, W_v, W_o = (np.asarray(W) for W in (W_q, W_k, W_v, W_o))
    d_k = W_q.shape[1] // num_heads
    d_v = W_v.shape[1] // num_heads
    Q = (X_q @ W_q).reshape(*X_q.shape[:-1], num_heads, d_k)  # (..., n_q, h, d_k)
    K = (X_kv @ W_k).reshape(*X_kv.shape[:-1], num_heads, d_k)
    V = (X_kv @ W_v).reshape(*X_kv.shape[:-1], num_heads, d_v)
    scores = np.einsum("...qhd,...khd->...hqk", Q, K) / math.sqrt(d_k)
    if mask is not None:
        scores = np.where(np.expand_dims(np.asarray(mask), -3), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    heads = np.einsum("...hqk,...khd->...qhd", weights, V)  # (..., n_q, h, d_v)
    return heads.reshape(*heads.shape[:-2], num_heads * d_v) @ W_o, weights
''', "keeps the heads as an axis after the rows and attends with einsum, no split/merge helpers"),
    _right("h5_asymmetry_einsum", A04, "score_asymmetry", '''\
def score_asymmetry(X, W_q, W_k):
    Q = np.asarray(X) @ np.asarray(W_q)
    K = np.asarray(X) @ np.asarray(W_k)
    S = np.einsum("id,jd->ij", Q, K)
    return float(np.max(np.abs(S - S.T)))
''', "the score table by einsum"),
]

# ---------------------------------------------------------------- 05_cross_attention
NB05 = [
    _wrong("h5_self_causal_from_width", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    mask = causal_mask(X.shape[-1]) if causal else None
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "causal_mask_sized_by_width",
        "sizes the causal mask by the model width X.shape[-1] instead of the number of positions"),
    _wrong("h5_self_causal_transposed", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    mask = causal_mask(X.shape[-2]).T if causal else None
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "causal_reads_the_future",
        "transposes the causal mask, so each position reads itself and the later ones"),
    _wrong("h5_self_causal_float_tril", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    n = X.shape[-2]
    mask = np.tril(np.ones((n, n))) if causal else None
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "zero_one_floats_as_mask",
        "a 0/1 float triangle as the causal mask: it is added to the scores, so it hides nothing"),
    _wrong("h5_cross_encoder_asks", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_enc = np.asarray(X_enc)
    mask = None
    if enc_lengths is not None:
        mask = padding_mask(np.asarray(enc_lengths), X_enc.shape[-2])
    return multi_head_attention(X_enc, X_dec, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "input_side_asks",
        "passes the encoder rows as the queries and the decoder rows as keys and values"),
    _wrong("h5_cross_padding_decoder_length", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_dec = np.asarray(X_dec)
    mask = None
    if enc_lengths is not None:
        mask = padding_mask(np.asarray(enc_lengths), X_dec.shape[-2])
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "padding_over_query_length",
        "builds the padding mask over the decoder's length instead of the encoder's"),
    _wrong("h5_cross_empty_source_bumped", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_enc = np.asarray(X_enc)
    mask = None
    if enc_lengths is not None:
        lengths = np.maximum(np.asarray(enc_lengths), 1)  # an empty sentence would give NaN
        mask = padding_mask(lengths, X_enc.shape[-2])
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "empty_source_given_one_key",
        "lets an empty source read its first (padding) position to 'avoid NaN'; right for every other length"),
    _wrong("h5_concepts05_importance", A05, "CONCEPTS_05", '''\
CONCEPTS_05 = ("a",)
''', "weight_means_general_importance",
        "answers that a high cross-attention weight marks a word that matters in general"),
    _right("h5_self_bool_tril_keywords", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    n = X.shape[-2]
    mask = np.tril(np.ones((n, n), dtype=bool)) if causal else None
    return multi_head_attention(X_q=X, X_kv=X, W_q=W_q, W_k=W_k, W_v=W_v, W_o=W_o,
                                num_heads=num_heads, mask=mask)
''', "a boolean np.tril mask, keyword arguments"),
    _right("h5_self_mask_per_sequence", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    mask = None
    if causal:
        n = X.shape[-2]
        mask = np.broadcast_to(causal_mask(n), X.shape[:-2] + (n, n))  # one copy per sequence
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "the causal mask broadcast to one (n, n) mask per sequence of the batch"),
    _right("h5_cross_mask_by_comparison", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_enc = np.asarray(X_enc)
    mask = None
    if enc_lengths is not None:
        lengths = np.asarray(enc_lengths).reshape(-1, 1, 1)
        mask = np.arange(X_enc.shape[-2]) < lengths  # (batch, 1, n_enc)
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask)
''', "the padding mask built by one broadcast comparison"),
]

# ---------------------------------------------------------------- 06_long_sequences
NB06 = [
    _wrong("h5_table_numbers_not_bytes", A06, "TABLE_BYTES", '''\
TABLE_BYTES = 8 * 4096 * 4096
''', "counts_numbers_not_bytes",
        "counts the weights of the table, forgetting the 4 bytes of each float32"),
    _wrong("h5_blockwise_rescales_total_only", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    dtype = np.result_type(Q, K, V)
    m = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)
    total = np.zeros((*batch, n_q, 1), dtype=dtype)
    acc = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = (Q @ np.swapaxes(K[..., start:stop, :], -1, -2)) * factor
        if mask is not None:
            s = np.where(np.asarray(mask)[..., start:stop], s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(new_m == -np.inf, 0, new_m)
        p = np.exp(s - shift)
        total = total * np.exp(m - shift) + p.sum(axis=-1, keepdims=True)
        acc = acc + p @ V[..., start:stop, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)
''', "weighted_sum_not_rescaled",
        "rescales the running total by e^(m - m') but not the running weighted sum"),
    _wrong("h5_blockwise_average_of_blocks", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    outputs = []
    for start in range(0, K.shape[-2], block_size):
        stop = start + block_size
        block_mask = None if mask is None else np.asarray(mask)[..., start:stop]
        out, _ = scaled_dot_product_attention(Q, K[..., start:stop, :], V[..., start:stop, :],
                                              mask=block_mask, scale=scale)
        outputs.append(out)
    return sum(outputs) / len(outputs)
''', "average_of_per_block_softmax",
        "attends within each block on its own and averages the blocks' outputs; right with a single block"),
    _wrong("h5_blockwise_full_scores_first", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    scores = (Q @ np.swapaxes(K, -1, -2)) * factor  # (..., n_q, n_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    n_q, n_k = scores.shape[-2:]
    m = np.full(scores.shape[:-1] + (1,), -np.inf, dtype=scores.dtype)
    total = np.zeros(scores.shape[:-1] + (1,), dtype=scores.dtype)
    acc = np.zeros(scores.shape[:-1] + (V.shape[-1],), dtype=scores.dtype)
    for start in range(0, n_k, block_size):
        s = scores[..., start:start + block_size]
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(new_m == -np.inf, 0, new_m)
        rescale = np.exp(m - shift)
        p = np.exp(s - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:start + block_size, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)
''', "blocks_over_a_full_table",
        "computes the whole n_q x n_k score table first and then walks it in blocks: exact, but no memory saved"),
    _wrong("h5_blockwise_no_empty_guard", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    dtype = np.result_type(Q, K, V)
    m = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)
    total = np.zeros((*batch, n_q, 1), dtype=dtype)
    acc = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = (Q @ np.swapaxes(K[..., start:stop, :], -1, -2)) * factor
        if mask is not None:
            s = np.where(np.asarray(mask)[..., start:stop], s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        rescale = np.exp(m - new_m)
        p = np.exp(s - new_m)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:stop, :]
        m = new_m
    return acc / total
''', "no_guard_for_all_hidden_so_far",
        "shifts by the running maximum even while it is -inf and divides by a zero total: NaN for a query whose "
        "keys are all hidden (an empty sequence), right otherwise"),
    _right("h5_table_bytes_itemsize", A06, "TABLE_BYTES", '''\
TABLE_BYTES = 8 * 4096 ** 2 * np.dtype(np.float32).itemsize
''', "heads x n^2 x the itemsize of float32"),
    _right("h5_blockwise_logaddexp", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    dtype = np.result_type(Q, K, V)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    lse = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)  # log of the running total
    out = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)  # the output of the keys read so far
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = (Q @ np.swapaxes(K[..., start:stop, :], -1, -2)) * factor
        if mask is not None:
            s = np.where(np.asarray(mask)[..., start:stop], s, -np.inf)
        top = s.max(axis=-1, keepdims=True)
        top = np.where(np.isfinite(top), top, 0)
        e = np.exp(s - top)
        total = e.sum(axis=-1, keepdims=True)
        block_lse = np.log(np.where(total > 0, total, 1)) + top
        block_lse = np.where(total > 0, block_lse, -np.inf)
        new_lse = np.logaddexp(lse, block_lse)
        ref = np.where(np.isfinite(new_lse), new_lse, 0)
        out = out * np.exp(lse - ref) + (e @ V[..., start:stop, :]) * np.exp(top - ref)
        lse = new_lse
    return out
''', "keeps a running log-sum-exp and a normalised output, merged with np.logaddexp"),
]

# ---------------------------------------------------------------- 07_scoring_functions
NB07 = [
    _wrong("h5_additive_tanh_each_side", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    v = np.asarray(v)
    a = np.tanh(np.asarray(Q) @ np.asarray(W_q))  # (..., n_q, h)
    c = np.tanh(np.asarray(K) @ np.asarray(W_k))  # (..., n_k, h)
    return (a @ v)[..., :, None] + (c @ v)[..., None, :]
''', "tanh_split_over_the_sum",
        "applies tanh to each projection separately, so the score is a query term plus a key term"),
    _wrong("h5_additive_pairs_transposed", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    a = np.asarray(Q) @ np.asarray(W_q)
    c = np.asarray(K) @ np.asarray(W_k)
    hidden = a[..., None, :, :] + c[..., :, None, :]  # one hidden vector per pair
    return np.tanh(hidden) @ np.asarray(v)
''', "pair_table_keys_by_queries",
        "puts the new axis on the wrong side, so the pair table is keys x queries (the scores come out transposed)"),
    _wrong("h5_additive_2d_indexing", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    a = np.asarray(Q) @ np.asarray(W_q)
    c = np.asarray(K) @ np.asarray(W_k)
    hidden = a[:, None, :] + c[None, :, :]  # (n_q, n_k, h)
    return np.tanh(hidden) @ np.asarray(v)
''', "assumes_two_dimensional_input",
        "indexes the pair axes as for 2-D queries and keys; batch axes break it"),
    _wrong("h5_scaled_dot_input_width", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    Q, K = np.asarray(Q), np.asarray(K)
    q, k = Q @ np.asarray(W_q), K @ np.asarray(W_k)
    return q @ np.swapaxes(k, -1, -2) / math.sqrt(Q.shape[-1])
''', "divisor_from_unprojected_width",
        "divides by the square root of the queries' input width d_q instead of the projected width h"),
    _wrong("h5_scaled_dot_dot_T", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    q = np.asarray(Q) @ np.asarray(W_q)
    k = np.asarray(K) @ np.asarray(W_k)
    return q @ k.T / math.sqrt(q.shape[-1])
''', "dot_T_reverses_all_axes",
        "transposes the projected keys with .T, which reverses the batch axes too; right for 2-D input"),
    _wrong("h5_bilinear_matrix_transposed", A07, "bilinear_scores", '''\
def bilinear_scores(Q, K, W):
    return np.asarray(Q) @ np.asarray(W).T @ np.swapaxes(np.asarray(K), -1, -2)
''', "bilinear_matrix_orientation",
        "uses W^T, the relation read the other way round (and a shape error when d_q != d_k)"),
    _wrong("h5_costs_tanh_counted", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * d * d + n * n * d
    if kind == "additive":
        return 2 * d * h + h, 2 * n * d * h + 2 * n * n * h  # v and the tanh per hidden unit
    return 2 * d * h, 2 * n * d * h + n * n * h
''', "tanh_counted_as_multiply_add",
        "counts the n^2 h tanh evaluations of the additive score as multiply-adds"),
    _wrong("h5_costs_bilinear_per_pair", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * n * (d * d + d)  # q^T W k for every pair
    parameters = 2 * d * h + (h if kind == "additive" else 0)
    return parameters, 2 * n * d * h + n * n * h
''', "bilinear_product_not_shared",
        "counts q^T W k afresh for every pair instead of computing Q W once"),
    _wrong("h5_budget_rounded", A07, "width_for_budget", '''\
def width_for_budget(kind, d, budget):
    per_unit = 2 * d + (1 if kind == "additive" else 0)
    return round(budget / per_unit)
''', "rounds_instead_of_floor",
        "rounds budget / per-unit cost to the nearest width, which can exceed the budget"),
    _right("h5_additive_einsum", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    a = np.einsum("...qd,dh->...qh", np.asarray(Q), np.asarray(W_q))
    c = np.einsum("...kd,dh->...kh", np.asarray(K), np.asarray(W_k))
    hidden = np.tanh(np.expand_dims(a, -2) + np.expand_dims(c, -3))  # (..., n_q, n_k, h)
    return np.einsum("...qkh,h->...qk", hidden, np.asarray(v))
''', "einsum for the projections and for v, expand_dims for the pairs"),
    _right("h5_scaled_dot_scale_folded", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    W_q = np.asarray(W_q)
    q = np.asarray(Q) @ (W_q / math.sqrt(W_q.shape[1]))
    k = np.asarray(K) @ np.asarray(W_k)
    return np.einsum("...qh,...kh->...qk", q, k)
''', "folds the divisor into W_q, einsum for the dot products"),
    _right("h5_bilinear_einsum_three", A07, "bilinear_scores", '''\
def bilinear_scores(Q, K, W):
    return np.einsum("...qi,ij,...kj->...qk", np.asarray(Q), np.asarray(W), np.asarray(K))
''', "one three-operand einsum"),
    _right("h5_costs_named_terms", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        parameters = d * d
        multiply_adds = n * (d * d) + (n * n) * d
    else:
        parameters = d * h + d * h + (h if kind == "additive" else 0)
        multiply_adds = 2 * (n * d * h) + n * n * h
    return int(parameters), int(multiply_adds)
''', "the terms spelled out one matrix at a time"),
]

VARIANTS = NB01 + NB02 + NB03 + NB04 + NB05 + NB06 + NB07
