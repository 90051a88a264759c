"""Held-out answers of 2026-12-06 (issue 24): a fifth blind set of typical student mistakes and correct rewrites.

Written on 2026-12-03 by a helper session (branch ``wt-heldout5``) **without reading the grader's checks**:
nothing under ``autograder/checks/``, ``tests/checks/`` or ``tests/course/test_catalogue.py`` was opened, nor
anything under ``autograder/catalogue/`` beyond the ``Variant`` class and ``all_variants``
(``catalogue/__init__.py``) and the loader ``fairness.load_variants``; no feedback or misconception texts were
read. Of the earlier held-out sets only the first 72 lines of ``heldout_2026_12_04.py`` (docstring, helpers,
the start of its first variant) and its last 5 lines were read, for the layout. The answers were written from the
notebooks' task texts (``sources/NN_*/NN_*.py``: prose, stubs, the one-line descriptions of the hidden tests),
the reference ``attention_ref`` and the two lesson seeds, imagining students of different backgrounds (a
statistician, a C programmer writing loops, PyTorch habits, literal readers of a formula, the worked example's
numbers and shapes kept as constants, Q/K/V widths and lengths confused, batching by explicit loops, dtypes and
integer inputs, inputs modified in place, rows and columns of a mask swapped, plausible wrong options). The
grader was not run on them, nor ``benchmarks/fairness.py``.

Each answer replaces one solution cell only (the other cells keep the instructor's answers) and defines no name
other than its own task's. A wrong answer is labelled with the misconception in the author's own words (ids the
course does not know; the fairness report lists them as 'unlabelled' with what the checks named), or ``None``
where the mistake is a Python muddle with no one name; ``source`` says the mistake in one line.

How it was checked (a throw-away script, not kept: one probe set per task, the reference's answer computed on
the spot): each cell is executed in a namespace holding what the notebook's first cell imports plus
``attention_ref``'s versions of the notebook's other task functions, and its function is called on inputs of the
kinds the notebooks name -- the seeds' worked examples, square and non-square, one and two leading batch axes,
float32, integer input, boolean masks, floating masks (0/-inf and a finite bias), a padding mask with an empty
sequence, a fully masked row, a causal mask shared by a batch, scores near 1e3 and 1e4, widths from 0.5 to 1e8,
per-head widths d_k != d_v, W_o to another width, block sizes 1, 3, 4, n_k and more than n_k, an explicit
``scale`` -- and compared with ``attention_ref``: same type, shape and dtype, values within 1e-6 (1e-4 for
float32 inputs), no NaN, inputs left unchanged. Results:

* every wrong answer differs from the reference, raises or modifies its input on at least one of those inputs
  (on as few as one: e.g. the float64 loop output only on float32 input, the -1e9 bias only on an empty source
  sentence, a value-width slice only when d_k != d_v, heads stacked in front only with batch axes);
* every correct rewrite agrees on all of them (within 1e-6 in float64, float32 kept float32), except
  ``score_variance``, checked statistically (within 6 standard errors of d_k for d_k = 1, 16, 64 with 20,000
  pairs, the same value for the same seed, a Generator accepted);
* no answer defines a name other than its own task's; ``load_variants`` accepts the file (110 variants).

Counts (wrong / correct / wrong labelled ``None``):

==========================  =====  =======  ====
notebook                    wrong  correct  None
==========================  =====  =======  ====
01_scores_softmax              13        4     0
02_scaling                     17        7     0
03_masking                     13        5     1
04_heads                       15        6     0
05_cross_attention              7        3     1
06_long_sequences               5        2     0
07_scoring_functions            9        4     1
total                          79       31     3
==========================  =====  =======  ====

Measure it (named / vague / wrong on this set alone)::

    .venv/bin/python benchmarks/fairness.py --variants benchmarks/heldout/heldout_2026_12_06.py --seeds 3
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
    _wrong("h6_dot_cosine", A01, "dot_product", '''\
def dot_product(q, k):
    q = np.asarray(q, dtype=float)
    k = np.asarray(k, dtype=float)
    return float(q @ k / (np.linalg.norm(q) * np.linalg.norm(k)))
''', "cosine_for_dot", "divides by the two lengths: the cosine of the angle instead of the dot product"),
    _wrong("h6_dot_mean_of_products", A01, "dot_product", '''\
def dot_product(q, k):
    return float(np.mean(np.multiply(q, k)))
''', "mean_not_sum", "a statistician's mean of the products instead of their sum"),
    _wrong("h6_dot_from_one", A01, "dot_product", '''\
def dot_product(q, k):
    total = 0.0
    for i in range(1, len(q)):  # the sum runs from i = 1 to d_k
        total += q[i] * k[i]
    return float(total)
''', "sum_index_from_one", "reads the formula's sum from i = 1 as a python range from 1, skipping the first entry"),
    _wrong("h6_scores_tensordot", A01, "attention_scores", '''\
def attention_scores(Q, K):
    Q = np.asarray(Q)
    K = np.asarray(K)
    return np.tensordot(Q, K, axes=([-1], [-1]))
''', "contracts_batch_pairs", "tensordot over the last axes pairs every batch entry with every other one (right in 2-D only)"),
    _wrong("h6_scores_keys_rows", A01, "attention_scores", '''\
def attention_scores(Q, K):
    return np.asarray(K) @ np.swapaxes(np.asarray(Q), -1, -2)
''', "keys_on_rows", "K Q^T: one row per key and one column per query, the transpose of the score table"),
    _wrong("h6_scores_loops_float64", A01, "attention_scores", '''\
def attention_scores(Q, K):
    Q = np.asarray(Q)
    K = np.asarray(K)
    out = np.zeros(Q.shape[:-1] + (K.shape[-2],))
    for b in np.ndindex(*Q.shape[:-2]):
        for i in range(Q.shape[-2]):
            for j in range(K.shape[-2]):
                out[b + (i, j)] = np.sum(Q[b + (i,)] * K[b + (j,)])
    return out
''', "output_default_float64", "a C programmer's triple loop into np.zeros, whose default float64 turns float32 input into float64 output"),
    _wrong("h6_softmax_in_place", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    x -= x.max(axis=axis, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=axis, keepdims=True)
    return x
''', "mutates_input", "saves memory by shifting, exponentiating and dividing the caller's array in place"),
    _wrong("h6_softmax_dim1", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
''', "hardcoded_axis", "PyTorch's softmax(dim=1) habit: always normalises axis 1, whatever `axis` says and whatever the rank"),
    _wrong("h6_softmax_min_shift", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    e = np.exp(x - x.min(axis=axis, keepdims=True))  # no negative exponents
    return e / e.sum(axis=axis, keepdims=True)
''', "shift_by_minimum", "subtracts the row minimum instead of the maximum, so a row spanning more than ~700 still overflows"),
    _wrong("h6_softmax_promotes", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=np.float64)  # exp needs full precision
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
''', "promotes_float32", "casts every input to float64, so float32 scores come back as float64"),
    _wrong("h6_wavg_divide_by_count", A01, "weighted_average", '''\
def weighted_average(weights, V):
    weights = np.asarray(weights)
    return weights @ np.asarray(V) / weights.shape[-1]
''', "average_divides_by_count", "reads 'average' literally and divides the weighted sum by the number of keys"),
    _wrong("h6_wavg_out_like_weights", A01, "weighted_average", '''\
def weighted_average(weights, V):
    weights = np.asarray(weights)
    V = np.asarray(V)
    out = np.empty_like(weights)
    for i in range(weights.shape[-2]):
        out[..., i, :] = np.sum(weights[..., i, :, None] * V, axis=-2)
    return out
''', "output_shape_of_weights", "allocates the output like the weights (n_q, n_k) instead of (n_q, d_v); d_v = 1 is silently broadcast"),
    _wrong("h6_concepts01_sophisticated", A01, "CONCEPTS_01", '''\
CONCEPTS_01 = ("b", "c", "a")
''', "attention_uses_special_similarity", "question 3: attention uses a more sophisticated similarity than the dot product"),
    _right("h6_ok_dot_zip", A01, "dot_product", '''\
def dot_product(q, k):
    total = 0.0
    for a, b in zip(q, k):
        total += float(a) * float(b)
    return total
''', "a running float total over zip(q, k)"),
    _right("h6_ok_scores_einsum", A01, "attention_scores", '''\
def attention_scores(Q, K):
    Q = np.asarray(Q) * 1.0  # integers become floats, float32 stays float32
    K = np.asarray(K) * 1.0
    return np.einsum("...id,...jd->...ij", Q, K)
''', "einsum with broadcast batch axes"),
    _right("h6_ok_softmax_logsumexp", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    log_total = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    return np.exp(x - log_total)
''', "exp(x - logsumexp(x)), the statistician's form"),
    _right("h6_ok_wavg_broadcast_sum", A01, "weighted_average", '''\
def weighted_average(weights, V):
    w = np.asarray(weights)
    v = np.asarray(V)
    if w.dtype.kind in "biu":
        w = w.astype(float)
    return (w[..., :, :, None] * v[..., None, :, :]).sum(axis=-2)
''', "broadcast product summed over the key axis"),
]

# ---------------------------------------------------------------- 02_scaling
NB02 = [
    _wrong("h6_var_one_product", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    return float(np.var(q * k))
''', "variance_of_product_not_sum", "the variance of the single products q_i k_i (about 1), not of their sum"),
    _wrong("h6_var_uniform", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    q = rng.random((n_samples, d_k))
    k = rng.random((n_samples, d_k))
    return float(np.var(np.sum(q * k, axis=1), ddof=1))
''', "uniform_not_normal", "draws uniform [0, 1) entries with rng.random instead of standard normal ones"),
    _wrong("h6_scale_by_variance", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    return np.asarray(scores) / d_k
''', "divide_by_variance", "divides by the variance d_k instead of the standard deviation sqrt(d_k)"),
    _wrong("h6_scale_width_from_scores", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    scores = np.asarray(scores)
    return scores / math.sqrt(scores.shape[-1])
''', "n_k_for_d_k", "ignores d_k and reads the width from the scores' last axis, which counts keys"),
    _wrong("h6_scale_in_place", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    scores = np.asarray(scores)
    scores /= math.sqrt(d_k)
    return scores
''', "mutates_input", "divides the caller's array in place (and fails on integer scores)"),
    _wrong("h6_lead_plain_exp", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    scores = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    if scaled:
        scores = scores / math.sqrt(width)
    e = np.exp(scores)
    return float(e[0] / e.sum())
''', "unstable_softmax", "exponentiates the raw scores without subtracting the maximum: inf / inf at large widths"),
    _wrong("h6_lead_table_value", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    if scaled:
        return 0.665  # the table of notebook 01: the scaled weight does not move
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    return float(softmax(raw).max())
''', "hardcodes_example_value", "returns the rounded 0.665 of the worked example for the scaled case"),
    _wrong("h6_jac_inner_product", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    return np.diag(p) - p @ p.T
''', "outer_as_inner", "writes p p^T as p @ p.T, which for a 1-D array is the scalar sum of squares"),
    _wrong("h6_jac_diagonal_only", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    return np.diag(p * (1 - p))
''', "jacobian_diagonal_only", "keeps only dp_i/dx_i = p_i (1 - p_i) and forgets that a score lowers the other weights"),
    _wrong("h6_sdpa2_value_width", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    V = np.asarray(V)
    weights = softmax(scale_scores(attention_scores(Q, K), V.shape[-1]))
    return weighted_average(weights, V), weights
''', "divisor_from_values", "divides by the square root of the value width d_v"),
    _wrong("h6_sdpa2_softmax_queries", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    weights = softmax(scores, axis=-2)
    return weighted_average(weights, V), weights
''', "softmax_over_queries", "normalises each key's column over the queries instead of each query's row over the keys"),
    _wrong("h6_sdpa2_scale_q_in_place", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    Q /= math.sqrt(Q.shape[-1])  # cheaper: scale the n_q x d_k queries, not the scores
    weights = softmax(attention_scores(Q, K))
    return weighted_average(weights, V), weights
''', "mutates_input", "scales the caller's queries in place to save a pass over the scores"),
    _wrong("h6_sdpa2_example_width", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    scores = scale_scores(attention_scores(Q, K), 2)  # d_k = 2, so sqrt(d_k) = 1.414
    weights = softmax(scores)
    return weighted_average(weights, V), weights
''', "hardcodes_example_shape", "keeps the lesson's d_k = 2 as a constant"),
    _wrong("h6_stop_scores_scaled", A02, "STOP_AND_TRY_SCORES", '''\
STOP_AND_TRY_SCORES = [0.707, 0.0, -0.707]
''', "scaled_for_raw", "gives the scaled scores where the raw dot products are asked"),
    _wrong("h6_stop_weights_unscaled", A02, "STOP_AND_TRY_WEIGHTS", '''\
STOP_AND_TRY_WEIGHTS = [0.665, 0.245, 0.090]
''', "weights_without_scaling", "the softmax of the raw scores 1, 0, -1 (notebook 01's numbers), without the division by sqrt(2)"),
    _wrong("h6_stop_reason_perpendicular", A02, "STOP_AND_TRY_REASON", '''\
STOP_AND_TRY_REASON = "c"
''', "zero_score_zero_weight", "believes a score of 0 gives a weight of 0"),
    _wrong("h6_concepts02_always", A02, "CONCEPTS_02", '''\
CONCEPTS_02 = ("b",)
''', "scaling_holds_after_training", "believes the divisor keeps the scores at unit variance throughout training"),
    _right("h6_ok_var_chunked", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    generator = np.random.default_rng(rng)
    dots = np.empty(n_samples)
    for start in range(0, n_samples, 10_000):
        stop = min(start + 10_000, n_samples)
        q = generator.normal(0.0, 1.0, size=(stop - start, d_k))
        k = generator.normal(0.0, 1.0, size=(stop - start, d_k))
        dots[start:stop] = (q * k).sum(axis=1)
    centred = dots - dots.mean()
    return float((centred ** 2).sum() / (n_samples - 1))
''', "chunks of normal draws and the variance written out"),
    _right("h6_ok_scale_power", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    return np.multiply(scores, d_k ** -0.5)
''', "multiplies by d_k ** -0.5, a Python float"),
    _right("h6_ok_lead_closed_form", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    c = 1.0 if scaled else math.sqrt(width)
    # e^{2c} / (e^{2c} + e^{c} + 1), divided through by e^{2c}
    return 1.0 / (1.0 + math.exp(-c) + math.exp(-2.0 * c))
''', "the closed form of the leading weight"),
    _right("h6_ok_jac_loops", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p)
    if p.dtype.kind != "f":
        p = p.astype(float)
    n = p.shape[0]
    J = np.empty((n, n), dtype=p.dtype)
    for i in range(n):
        for j in range(n):
            J[i, j] = p[i] * ((1.0 if i == j else 0.0) - p[j])
    return J
''', "the entries p_i (delta_ij - p_j) in two loops"),
    _right("h6_ok_sdpa2_scaled_queries", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    weights = softmax(attention_scores(Q / math.sqrt(Q.shape[-1]), K))
    return weighted_average(weights, V), weights
''', "scales a copy of the queries instead of the scores"),
    _right("h6_ok_stop_scores_calls", A02, "STOP_AND_TRY_SCORES", '''\
STOP_AND_TRY_SCORES = [dot_product([1, 0], key) for key in ([1, 0], [0, 1], [-1, 0])]
''', "the given dot_product of the query with each key"),
    _right("h6_ok_stop_weights_by_hand", A02, "STOP_AND_TRY_WEIGHTS", '''\
STOP_AND_TRY_WEIGHTS = [math.exp(s / math.sqrt(2)) for s in (1.0, 0.0, -1.0)]
STOP_AND_TRY_WEIGHTS = [w / sum(STOP_AND_TRY_WEIGHTS) for w in STOP_AND_TRY_WEIGHTS]
''', "exponentials of the scaled scores over their total"),
]

# ---------------------------------------------------------------- 03_masking
NB03 = [
    _wrong("h6_causal_float_ones", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    return np.tril(np.ones((n_q, n_k)))
''', "mask_as_floats", "torch.tril(torch.ones(...)) habit: a 0/1 float array where booleans are asked"),
    _wrong("h6_causal_bottom_right", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)
''', "bottom_right_alignment", "aligns the triangle to the bottom-right corner, as some libraries do; differs only when n_q != n_k"),
    _wrong("h6_causal_keys_rows", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    i = np.arange(n_q)[None, :]
    j = np.arange(n_k)[:, None]
    return j <= i
''', "mask_rows_columns_swapped", "puts the keys on the rows and the queries on the columns: an upper triangle of shape (n_k, n_q)"),
    _wrong("h6_pad_less_equal", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    return np.arange(n_k)[None, None, :] <= lengths[:, None, None]
''', "padding_off_by_one", "j <= length: the first padding key stays visible"),
    _wrong("h6_pad_query_axis_last", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    return (np.arange(n_k)[None, :] < lengths[:, None])[:, :, None]
''', "padding_hides_queries", "shape (batch, n_k, 1): the mask runs along the query axis and hides queries instead of keys"),
    _wrong("h6_pad_negative_slice", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    mask = np.ones((len(lengths), 1, n_k), dtype=bool)
    for b, length in enumerate(lengths):
        mask[b, 0, length - n_k:] = False  # the last n_k - length keys are padding
    return mask
''', "negative_slice_zero", "a loop with a negative slice start: an unpadded sequence (length - n_k = 0) gets everything hidden"),
    _wrong("h6_apply_masked_fill", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        return np.where(mask, -np.inf, scores)  # masked_fill(mask, -inf)
    return scores + mask
''', "true_means_hidden", "masked_fill's convention: True marks the hidden positions"),
    _wrong("h6_apply_float_truthy", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    return np.where(np.asarray(mask).astype(bool), scores, -np.inf)
''', "float_mask_as_boolean", "casts every mask to bool: a floating 0 hides the score and -inf keeps it"),
    _wrong("h6_apply_index_in_place", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        scores[~mask] = -np.inf
        return scores
    return scores + mask
''', "mutates_input", "writes -inf into the caller's scores through boolean indexing (and cannot broadcast a padding mask)"),
    _wrong("h6_sdpa3_renormalise", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    weights = softmax(scale_scores(attention_scores(Q, K), Q.shape[-1]))
    if mask is not None:
        mask = np.asarray(mask)
        keep = mask if mask.dtype == bool else np.isfinite(mask)
        weights = weights * keep
        weights = weights / weights.sum(axis=-1, keepdims=True)
    return weighted_average(weights, V), weights
''', "mask_after_softmax", "zeroes the hidden weights after the softmax and renormalises: a finite bias is lost and a fully masked row is 0/0"),
    _wrong("h6_sdpa3_own_softmax", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        scores = apply_mask(scores, mask)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weighted_average(weights, V), weights
''', "no_empty_row_guard", "its own stable softmax without the guard: a query with no allowed key gets NaN"),
    _wrong("h6_sdpa3_mask_by_batch", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        mask = np.asarray(mask)
        for b in range(scores.shape[0]):
            scores[b] = apply_mask(scores[b], mask[b])
    weights = softmax(scores)
    return weighted_average(weights, V), weights
''', "shared_mask_indexed_by_batch", "loops over the batch and indexes the mask by the batch entry, even when one (n_q, n_k) mask is shared"),
    _wrong("h6_sdpa3_if_mask", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask:
        scores = apply_mask(scores, mask)
    weights = softmax(scores)
    return weighted_average(weights, V), weights
''', None, "tests the mask with `if mask:`, which raises for any array of more than one entry"),
    _right("h6_ok_causal_tri", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    return np.tri(n_q, n_q if n_k is None else n_k, dtype=bool)
''', "np.tri with a boolean dtype"),
    _right("h6_ok_causal_rows", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    mask = np.zeros((n_q, n_k), dtype=bool)
    for i in range(n_q):
        mask[i, :i + 1] = True
    return mask
''', "row by row: query i reads keys 0..i"),
    _right("h6_ok_pad_reshape", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    return np.arange(n_k).reshape(1, 1, n_k) < lengths.reshape(-1, 1, 1)
''', "one comparison of reshaped positions and lengths"),
    _right("h6_ok_apply_copyto", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    if scores.dtype.kind != "f":
        scores = scores.astype(float)
    out = scores.copy()
    mask = np.asarray(mask)
    if mask.dtype == np.bool_:
        np.copyto(out, -np.inf, where=np.logical_not(mask))
    else:
        out += mask
    return out
''', "a copy, then copyto where hidden or an in-place add"),
    _right("h6_ok_sdpa3_bias", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        mask = np.asarray(mask)
        bias = np.where(mask, 0.0, -np.inf) if mask.dtype == bool else mask
        scores = scores + bias.astype(scores.dtype)
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
''', "turns a boolean mask into an additive 0/-inf bias"),
]

# ---------------------------------------------------------------- 04_heads
NB04 = [
    _wrong("h6_project_linear_layout", A04, "project", '''\
def project(X, W):
    return np.asarray(X) @ np.asarray(W).T  # as nn.Linear: x @ weight.T
''', "pytorch_weight_layout", "PyTorch's nn.Linear layout (weight of shape (d_out, d_model)): multiplies by W transposed"),
    _wrong("h6_project_float64", A04, "project", '''\
def project(X, W):
    X = np.asarray(X, dtype=np.float64)
    W = np.asarray(W, dtype=np.float64)
    return X @ W
''', "promotes_float32", "casts to float64 for safety, so float32 rows come back as float64"),
    _wrong("h6_params_full_width", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    if d_k is None:
        d_k = d_model
    if d_v is None:
        d_v = d_model
    count = num_heads * d_model * (2 * d_k + d_v)
    if output_projection:
        count += num_heads * d_v * d_model
    return count
''', "heads_multiply_parameters", "gives every head the full width by default, so the heads multiply the parameters"),
    _wrong("h6_params_three_dk", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    head = d_model // num_heads
    d_k = head if d_k is None else d_k
    d_v = head if d_v is None else d_v
    count = num_heads * 3 * d_model * d_k
    if output_projection:
        count += num_heads * d_v * d_model
    return count
''', "three_equal_maps", "counts 3 d_model d_k per head, as if the value map had width d_k too"),
    _wrong("h6_params_wo_square", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model // num_heads if d_k is None else d_k
    d_v = d_model // num_heads if d_v is None else d_v
    count = num_heads * d_model * (2 * d_k + d_v)
    if output_projection:
        count += d_model * d_model
    return count
''', "output_map_always_square", "counts W_o as d_model**2 even when num_heads * d_v differs from d_model"),
    _wrong("h6_split_interleaved", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    *batch, n, d_model = X.shape
    X = X.reshape(*batch, n, d_model // num_heads, num_heads)
    return np.moveaxis(X, -1, -3)
''', "heads_interleaved", "reshapes to (n, d, h): head h gets every h-th column instead of a contiguous slice"),
    _wrong("h6_split_stack_front", A04, "split_heads", '''\
def split_heads(X, num_heads):
    return np.stack(np.split(np.asarray(X), num_heads, axis=-1))
''', "head_axis_first", "stacks the slices on axis 0, in front of the batch axes instead of just before n"),
    _wrong("h6_split_width_from_n", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    d = X.shape[-2] // num_heads  # width of one head
    return np.swapaxes(X.reshape(*X.shape[:-1], num_heads, d), -3, -2)
''', "positions_for_width", "takes the head width from the positions axis n instead of d_model"),
    _wrong("h6_merge_concat_first", A04, "merge_heads", '''\
def merge_heads(X):
    return np.concatenate(list(np.asarray(X)), axis=-1)
''', "merge_iterates_first_axis", "concatenates the entries of the first axis, which is the batch once there are batch axes"),
    _wrong("h6_merge_swap_width", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.asarray(X)
    *batch, h, n, d = X.shape
    return np.swapaxes(X, -3, -1).reshape(*batch, n, h * d)
''', "merge_wrong_axes", "swaps the head axis with the width instead of with the positions before the reshape"),
    _wrong("h6_mha_mean_weights", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None:
        mask = np.expand_dims(np.asarray(mask), -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights.mean(axis=-3)
''', "weights_averaged_over_heads", "PyTorch's average_attn_weights=True: returns the weights averaged over the heads"),
    _wrong("h6_mha_one_width", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Qf, Kf, Vf = project(X_q, W_q), project(X_kv, W_k), project(X_kv, W_v)
    d = Vf.shape[-1] // num_heads  # the width of one head
    m = None if mask is None else np.asarray(mask)
    outs, ws = [], []
    for i in range(num_heads):
        cols = slice(i * d, (i + 1) * d)
        o, w = scaled_dot_product_attention(Qf[..., cols], Kf[..., cols], Vf[..., cols], mask=m)
        outs.append(o)
        ws.append(w)
    return project(np.concatenate(outs, axis=-1), W_o), np.stack(ws, axis=-3)
''', "one_width_for_qkv", "slices queries and keys with the value width d_v, right only when d_k = d_v"),
    _wrong("h6_mha_keys_from_queries", A04, "multi_head_attention", '''\
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
''', "keys_from_asking_rows", "self-attention habit: keys and values come from X_q, the rows that ask"),
    _wrong("h6_asym_relative", A04, "score_asymmetry", '''\
def score_asymmetry(X, W_q, W_k):
    X = np.asarray(X)
    S = (X @ W_q) @ (X @ W_k).T
    return float(np.abs(S - S.T).max() / np.abs(S).max())
''', "gap_relative_to_scores", "divides the gap by the largest score: a relative gap where the absolute one is asked"),
    _wrong("h6_concepts04_inputs_aligned", A04, "CONCEPTS_04", '''\
CONCEPTS_04 = ("a", "b", "a")
''', "alignment_of_raw_inputs", "question 1: a large learned score means the raw inputs point the same way"),
    _right("h6_ok_project_tensordot", A04, "project", '''\
def project(X, W):
    X = np.asarray(X)
    if X.dtype.kind in "biu":
        X = X.astype(float)
    return np.tensordot(X, np.asarray(W), axes=([-1], [0]))
''', "tensordot of the last axis of X with the rows of W"),
    _right("h6_ok_params_per_map", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    head = d_model // num_heads
    d_k = head if d_k is None else d_k
    d_v = head if d_v is None else d_v
    w_q = d_model * num_heads * d_k
    w_k = d_model * num_heads * d_k
    w_v = d_model * num_heads * d_v
    w_o = num_heads * d_v * d_model if output_projection else 0
    return w_q + w_k + w_v + w_o
''', "one term per map"),
    _right("h6_ok_split_stack", A04, "split_heads", '''\
def split_heads(X, num_heads):
    return np.stack(np.split(np.asarray(X), num_heads, axis=-1), axis=-3)
''', "np.split along the width, stacked just before the positions axis"),
    _right("h6_ok_merge_concat", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.asarray(X)
    return np.concatenate([X[..., i, :, :] for i in range(X.shape[-3])], axis=-1)
''', "concatenates the heads one by one along the width"),
    _right("h6_ok_mha_head_loop", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Qf, Kf, Vf = project(X_q, W_q), project(X_kv, W_k), project(X_kv, W_v)
    dk = Qf.shape[-1] // num_heads
    dv = Vf.shape[-1] // num_heads
    m = None if mask is None else np.asarray(mask)
    outs, ws = [], []
    for i in range(num_heads):
        o, w = scaled_dot_product_attention(Qf[..., i * dk:(i + 1) * dk], Kf[..., i * dk:(i + 1) * dk],
                                            Vf[..., i * dv:(i + 1) * dv], mask=m)
        outs.append(o)
        ws.append(w)
    return project(np.concatenate(outs, axis=-1), W_o), np.stack(ws, axis=-3)
''', "one call per head on column slices of its own widths"),
    _right("h6_ok_asym_signed", A04, "score_asymmetry", '''\
def score_asymmetry(X, W_q, W_k):
    X = np.asarray(X)
    S = (X @ W_q) @ (X @ W_k).T
    return float((S - S.T).max())  # S - S^T is antisymmetric: its largest entry is its largest |entry|
''', "the signed maximum of the antisymmetric difference"),
]

# ---------------------------------------------------------------- 05_cross_attention
NB05 = [
    _wrong("h6_self_mask_from_width", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    mask = causal_mask(X.shape[-1]) if causal else None
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "width_for_positions", "builds the causal mask from the width d_model instead of the number of positions"),
    _wrong("h6_self_mask_inverted", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    n = np.asarray(X).shape[-2]
    mask = ~causal_mask(n) if causal else None  # True = blocked, as in nn.MultiheadAttention
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "true_means_hidden", "PyTorch's attn_mask convention (True = not allowed): inverts the causal mask"),
    _wrong("h6_self_flag_not_none", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    n = np.asarray(X).shape[-2]
    mask = causal_mask(n) if causal is not None else None
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', None, "tests the flag with `is not None`, so causal=False still masks"),
    _wrong("h6_cross_encoder_asks", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        mask = padding_mask(np.asarray(enc_lengths), np.asarray(X_enc).shape[-2])
    return multi_head_attention(X_enc, X_dec, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "encoder_asks", "the input side asks and the output side is read"),
    _wrong("h6_cross_pad_decoder_length", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        mask = padding_mask(np.asarray(enc_lengths), np.asarray(X_dec).shape[-2])
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "padding_length_of_queries", "pads the mask to n_dec, the number of queries, instead of n_enc"),
    _wrong("h6_cross_large_negative", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        keep = padding_mask(np.asarray(enc_lengths), np.asarray(X_enc).shape[-2])
        mask = np.where(keep, 0.0, -1e9)  # a large negative bias instead of -inf
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "large_negative_fill", "a -1e9 bias: an empty source sentence gets equal weights instead of zeros"),
    _wrong("h6_concepts05_importance", A05, "CONCEPTS_05", '''\
CONCEPTS_05 = ("a",)
''', "weight_is_importance", "reads a high weight as importance in general"),
    _right("h6_ok_self_tril", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    n = np.shape(X)[-2]
    mask = np.tril(np.ones((n, n), dtype=bool)) if causal else None
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "np.tril of boolean ones"),
    _right("h6_ok_self_bias", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    mask = None
    if causal:
        n = np.shape(X)[-2]
        mask = np.where(np.tri(n, dtype=bool), 0.0, -np.inf)  # an additive 0/-inf bias
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "the causal mask as a floating 0/-inf bias"),
    _right("h6_ok_cross_manual_mask", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        lengths = np.asarray(enc_lengths)
        mask = np.arange(np.shape(X_enc)[-2])[None, None, :] < lengths[:, None, None]
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "the padding mask built by hand"),
]

# ---------------------------------------------------------------- 06_long_sequences
NB06 = [
    _wrong("h6_table_one_head", A06, "TABLE_BYTES", '''\
TABLE_BYTES = 4096 * 4096 * 4
''', "forgets_heads", "the table of one head: forgets the 8 heads"),
    _wrong("h6_table_eight_bytes", A06, "TABLE_BYTES", '''\
TABLE_BYTES = 8 * 4096 * 4096 * 8
''', "float64_bytes", "8 bytes a number, numpy's default float64, though the table is float32"),
    _wrong("h6_block_whole_blocks", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    dtype = np.result_type(Q, K, V)
    m = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)
    total = np.zeros((*batch, n_q, 1), dtype=dtype)
    acc = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
    for b in range(n_k // block_size):
        start, stop = b * block_size, (b + 1) * block_size
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
        if mask is not None:
            s = np.where(mask[..., start:stop] if np.shape(mask)[-1] > 1 else mask, s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(new_m == -np.inf, 0, new_m)
        rescale = np.exp(m - shift)
        p = np.exp(s - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:stop, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)
''', "drops_partial_block", "loops over n_k // block_size whole blocks: the last, partial block is never read"),
    _wrong("h6_block_mask_query_axis", A06, "blockwise_attention", '''\
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
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
        if mask is not None:
            s = np.where(mask[..., start:stop, :], s, -np.inf)  # the keys of this block
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(new_m == -np.inf, 0, new_m)
        rescale = np.exp(m - shift)
        p = np.exp(s - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:stop, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)
''', "mask_sliced_on_query_axis", "slices the mask along its query axis (rows) instead of its key axis (columns)"),
    _wrong("h6_block_first_max", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_k = K.shape[-2]
    m = total = acc = None
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
        if mask is not None:
            s = np.where(mask[..., start:stop] if np.shape(mask)[-1] > 1 else mask, s, -np.inf)
        if m is None:
            m = s.max(axis=-1, keepdims=True)  # one shift for every block: nothing to rescale
            total, acc = 0, 0
        p = np.exp(s - m)
        total = total + p.sum(axis=-1, keepdims=True)
        acc = acc + p @ V[..., start:stop, :]
    return acc / np.where(total == 0, 1, total)
''', "shift_by_first_block", "shifts every block by the first block's maximum instead of a running one, so later blocks can overflow"),
    _right("h6_ok_table_itemsize", A06, "TABLE_BYTES", '''\
TABLE_BYTES = int(8 * 4096 ** 2 * np.dtype(np.float32).itemsize)
''', "heads x n^2 x the itemsize of float32"),
    _right("h6_ok_block_log_space", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1.0 / math.sqrt(Q.shape[-1]) if scale is None else float(scale)
    dtype = np.result_type(Q.dtype, K.dtype, V.dtype, np.float32)
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    n_q, n_k = Q.shape[-2], K.shape[-2]
    mask = None if mask is None else np.asarray(mask)
    Qs = Q * factor
    lse = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)    # log of the running total
    out = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)  # the running average itself
    start = 0
    with np.errstate(divide="ignore"):
        while start < n_k:
            stop = start + block_size
            s = Qs @ np.swapaxes(K[..., start:stop, :], -1, -2)
            if mask is not None:
                part = mask[..., start:stop] if mask.shape[-1] != 1 else mask
                s = np.where(part, s, -np.inf) if mask.dtype == bool else s + part.astype(s.dtype)
            top = s.max(axis=-1, keepdims=True)
            top = np.where(np.isneginf(top), 0, top)
            block_lse = top + np.log(np.exp(s - top).sum(axis=-1, keepdims=True))
            new_lse = np.logaddexp(lse, block_lse)
            ref = np.where(np.isneginf(new_lse), 0, new_lse)
            out = out * np.exp(lse - ref) + np.exp(s - ref) @ V[..., start:stop, :]
            lse = new_lse
            start = stop
    return out
''', "keeps the log of the running total and the normalised average (log-sum-exp form)"),
]

# ---------------------------------------------------------------- 07_scoring_functions
NB07 = [
    _wrong("h6_add_tanh_each", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    a = np.tanh(np.asarray(Q) @ np.asarray(W_q))
    c = np.tanh(np.asarray(K) @ np.asarray(W_k))
    return (a[..., :, None, :] + c[..., None, :, :]) @ np.asarray(v)
''', "tanh_before_sum", "squashes each projection before adding them, so query and key never interact"),
    _wrong("h6_add_paired_rows", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    return np.tanh(np.asarray(Q) @ np.asarray(W_q) + np.asarray(K) @ np.asarray(W_k)) @ np.asarray(v)
''', "pairs_row_i_with_row_i", "reads the formula literally row by row: query i meets only key i"),
    _wrong("h6_add_2d_indexing", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    a = np.asarray(Q) @ np.asarray(W_q)
    c = np.asarray(K) @ np.asarray(W_k)
    hidden = a[:, None, :] + c[None, :, :]
    return np.tanh(hidden) @ np.asarray(v)
''', "new_axes_from_front", "inserts the pair axes counting from the front, right for 2-D inputs only"),
    _wrong("h6_sdot_input_width", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    q = np.asarray(Q) @ np.asarray(W_q)
    k = np.asarray(K) @ np.asarray(W_k)
    return q @ np.swapaxes(k, -1, -2) / math.sqrt(np.shape(K)[-1])
''', "divisor_from_input_width", "divides by the square root of the input width d_k, not the projected width h"),
    _wrong("h6_sdot_one_map", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    W_q = np.asarray(W_q)
    q = np.asarray(Q) @ W_q
    k = np.asarray(K) @ W_q
    return q @ np.swapaxes(k, -1, -2) / math.sqrt(W_q.shape[1])
''', "one_shared_map", "projects the keys with the query map"),
    _wrong("h6_bil_W_transposed", A07, "bilinear_scores", '''\
def bilinear_scores(Q, K, W):
    return np.asarray(Q) @ np.asarray(W).T @ np.swapaxes(np.asarray(K), -1, -2)
''', "bilinear_matrix_transposed", "puts W^T between query and key: rows of W read as the key's entries"),
    _wrong("h6_bil_K_dot_T", A07, "bilinear_scores", '''\
def bilinear_scores(Q, K, W):
    return np.asarray(Q) @ np.asarray(W) @ np.asarray(K).T
''', "transpose_all_axes", "K.T reverses every axis, right for 2-D keys only"),
    _wrong("h6_costs_bilinear_per_pair", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * n * d * d  # q^T W k for every pair
    parameters = 2 * d * h + (h if kind == "additive" else 0)
    return parameters, 2 * n * d * h + n * n * h
''', "bilinear_cost_per_pair", "counts q^T W k afresh for every pair (n^2 d^2) instead of Q W once and a dot product per pair"),
    _wrong("h6_width_precedence", A07, "width_for_budget", '''\
def width_for_budget(kind, d, budget):
    if kind == "additive":
        return budget // 2*d+1
    return budget // 2*d
''', None, "writes budget // 2*d as in the formula: Python reads (budget // 2) * d"),
    _right("h6_ok_add_unit_loop", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    a = np.asarray(Q) @ np.asarray(W_q)  # (..., n_q, h)
    c = np.asarray(K) @ np.asarray(W_k)  # (..., n_k, h)
    v = np.asarray(v)
    total = 0
    for j in range(v.shape[0]):
        total = total + v[j] * np.tanh(a[..., :, None, j] + c[..., None, :, j])
    return total
''', "one hidden unit at a time"),
    _right("h6_ok_sdot_bilinear_form", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    W_q = np.asarray(W_q)
    M = W_q @ np.asarray(W_k).T / math.sqrt(W_q.shape[1])  # (d_q, d_k), rank at most h
    return np.asarray(Q) @ M @ np.swapaxes(np.asarray(K), -1, -2)
''', "the low-rank bilinear matrix W_q W_k^T / sqrt(h)"),
    _right("h6_ok_bil_einsum", A07, "bilinear_scores", '''\
def bilinear_scores(Q, K, W):
    return np.einsum("...id,de,...je->...ij", np.asarray(Q), np.asarray(W), np.asarray(K))
''', "one einsum"),
    _right("h6_ok_costs_table", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    projections = 2 * n * d * h
    table = {
        "additive": (2 * d * h + h, projections + n * n * h),
        "dot": (2 * d * h, projections + n * n * h),
        "bilinear": (d * d, n * d * d + n * n * d),
    }
    return table[kind]
''', "a table of the three kinds"),
]

VARIANTS = NB01 + NB02 + NB03 + NB04 + NB05 + NB06 + NB07
