"""Held-out answers of 2026-12-04 (issue 24): a third set of typical student mistakes and correct rewrites.

Written on 2026-12-03 by a helper session (branch ``wt-heldout3``) **without reading the grader's checks**:
nothing under ``autograder/checks/``, ``tests/checks/`` or ``tests/course/test_catalogue.py`` was opened, nor
anything under ``autograder/catalogue/`` beyond the ``Variant`` class and the loader (``fairness.load_variants``,
with the two modules' docstrings and imports); of the earlier held-out sets only the layout of
``heldout_2026_12_03.py`` was read (its first 72 lines: docstring, helpers and three variants; and its last 5
lines). The answers were written from the notebooks' task texts (``sources/NN_*/NN_*.py``: prose, stubs, the
descriptions of the hidden tests), the reference ``attention_ref`` and the seeds. The grader was not run on them.

Each answer replaces one solution cell only (the other cells keep the instructor's answers). A wrong answer is
labelled with the misconception in the author's own words (ids the course does not know; the fairness report
lists them as 'unlabelled' with what the checks named), or ``None`` where the mistake is a muddle with no one
name; ``source`` says the mistake in one line.

How it was checked (a throw-away script, not kept: one probe set per task, the reference's answer computed
on the spot): each cell is executed in a namespace holding what the notebook's first cell imports plus
``attention_ref``'s versions of the notebook's other functions, and its function is called on inputs of the
kinds the notebooks' hidden-test descriptions name -- the seeds' worked examples, non-square and square,
batched (one and two leading axes), float32, integer input, boolean and floating masks (0/-inf and a finite
bias), a causal mask shared by a batch, padding with an empty sequence, a fully masked row, scores of 1e3
and 1e4, widths up to 1e8, several block sizes (1, one that does not divide n_k, n_k, more than n_k) -- and
compared with ``attention_ref``: same shape and dtype, values within 1e-6 (1e-4 for float32 inputs), no NaN,
inputs left unchanged. Results:

* every wrong answer differs from the reference, raises or modifies its input on at least one of those inputs
  (on as few as one: e.g. the -1e9 fill only on a fully masked row, masking before the scaling only on a
  finite additive bias, a per-width count only when d_k and d_v are given);
* every correct rewrite agrees on all of them (within 1e-6 in float64, with float32 kept float32), with these
  exceptions by design: ``score_variance`` is checked statistically (within 6 standard errors of d_k for
  d_k = 1, 16, 64 with 20,000 pairs, the same value for the same seed, a Generator accepted);
  ``STOP_AND_TRY_WEIGHTS`` is rounded to three decimals, which the task allows;
* no answer redefines a name other than its own task's.

Counts (wrong / correct / wrong labelled ``None``):

==========================  =====  =======  ====
notebook                    wrong  correct  None
==========================  =====  =======  ====
01_scores_softmax              13        4     1
02_scaling                     17        7     1
03_masking                     13        5     0
04_heads                       15        6     0
05_cross_attention              7        3     1
06_long_sequences               5        2     0
07_scoring_functions            9        4     0
total                          79       31     3
==========================  =====  =======  ====

Measure it (named / vague / wrong on this set alone)::

    .venv/bin/python benchmarks/fairness.py --variants benchmarks/heldout/heldout_2026_12_04.py --seeds 3

Measured (--seeds 3; "named" counts the 'unlabelled' answers whose printed names a person read as right):
held out, on main d3dcc4f: named 68/79, vague 9, wrong 0, missed 2 (float32 in, float64 out: the course asks
no dtype); spent, on branch wt-diag2 (issue 24, the classes of the 9 vague ones: a fixed number of axes, a sum
over the value width, square maps in a count, a negated or width-sized causal mask, and 3 observed mutations):
named 77/79, vague 0, wrong 0, missed 2, strays 0, seed-dependent pairs 0.
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
    _wrong("h4_dot_outer_sum", A01, "dot_product", '''\
def dot_product(q, k):
    # every entry of q times every entry of k, then add them all up
    return float(np.outer(q, k).sum())
''', "dot_product.every_pair_of_entries",
        "multiplies every entry of q with every entry of k (outer product) before adding, not matching entries"),
    _wrong("h4_dot_cosine", A01, "dot_product", '''\
def dot_product(q, k):
    q = np.asarray(q, dtype=float)
    k = np.asarray(k, dtype=float)
    # similarity should not depend on how long the vectors are
    return float(q @ k / (np.linalg.norm(q) * np.linalg.norm(k)))
''', "dot_product.divides_by_lengths",
        "returns the cosine (divides by both lengths): the key (0.5, 0.5) scores 0.707 instead of 0.5"),
    _wrong("h4_scores_dot_dot_T", A01, "attention_scores", '''\
def attention_scores(Q, K):
    Q = np.asarray(Q)
    K = np.asarray(K)
    return np.dot(Q, K.T)
''', "attention_scores.transposes_every_axis",
        "K.T reverses every axis, not just the last two: right for 2-D inputs, wrong shape with batch axes"),
    _wrong("h4_scores_fixed_three_axes", A01, "attention_scores", '''\
def attention_scores(Q, K):
    Q = np.asarray(Q)
    K = np.asarray(K)
    # (batch, n_k, d_k) -> (batch, d_k, n_k)
    return np.matmul(Q, np.transpose(K, (0, 2, 1)))
''', None,
        "transposes with a hard-coded axis order (0, 2, 1): works for exactly one batch axis, raises for a "
        "plain (n_k, d_k) matrix or for (batch, heads, n_k, d_k)"),
    _wrong("h4_softmax_no_shift", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)
''', "softmax.no_max_subtraction", "exponentiates the raw scores: exp(1000) overflows and the row becomes nan"),
    _wrong("h4_softmax_global_max", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    e = np.exp(x - np.max(x))   # subtract the largest score so nothing overflows
    return e / e.sum(axis=axis, keepdims=True)
''', "softmax.one_max_for_all_rows",
        "subtracts the maximum of the whole array, not each row's own: a row far below the largest one "
        "underflows to 0/0"),
    _wrong("h4_softmax_axis_ignored", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=-1, keepdims=True)
''', "softmax.ignores_axis", "always normalises the last axis whatever `axis` says"),
    _wrong("h4_softmax_no_keepdims", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    e = np.exp(x - x.max(axis=axis))
    return e / e.sum(axis=axis)
''', "softmax.reduced_axis_not_kept",
        "reduces without keepdims: the row maxima and sums broadcast along the wrong axis (right for 1-D "
        "scores, wrong or raising for a matrix)"),
    _wrong("h4_softmax_inplace", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    x -= x.max(axis=axis, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=axis, keepdims=True)
    return x
''', "softmax.modifies_input",
        "works in place on np.asarray(x), which is the caller's array: the scores are overwritten by the weights"),
    _wrong("h4_softmax_float64", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.array(x, dtype=np.float64)   # a copy, in double precision to be safe
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)
''', "softmax.promotes_float32", "casts every input to float64, so float32 scores come back as float64 weights"),
    _wrong("h4_wavg_divides_by_count", A01, "weighted_average", '''\
def weighted_average(weights, V):
    weights = np.asarray(weights)
    V = np.asarray(V)
    # an average is a sum divided by how many items there are
    return (weights @ V) / V.shape[-2]
''', "weighted_average.divides_by_n_k",
        "divides the weighted sum by the number of keys: the weights already sum to one"),
    _wrong("h4_wavg_sums_value_axis", A01, "weighted_average", '''\
def weighted_average(weights, V):
    weights = np.asarray(weights)
    V = np.asarray(V)
    products = weights[..., :, :, None] * V[..., None, :, :]   # (..., n_q, n_k, d_v)
    return products.sum(axis=-1)
''', "weighted_average.sums_over_value_width",
        "forms every weight-value product but adds them over d_v instead of over the keys: one number per key"),
    _wrong("h4_concepts01_gates", A01, "CONCEPTS_01", '''\
CONCEPTS_01 = ("a", "c", "d")
''', "concepts01.gates_block_gradients",
        "believes the recurrent network's gates stop gradients, instead of the fixed-size state it must compress into"),
    _right("h4_dot_zip_loop", A01, "dot_product", '''\
def dot_product(q, k):
    total = 0.0
    for a, b in zip(q, k):
        total += float(a) * float(b)
    return total
''', "a Python loop over pairs of entries with zip"),
    _right("h4_scores_einsum", A01, "attention_scores", '''\
def attention_scores(Q, K):
    return np.einsum("...id,...jd->...ij", np.asarray(Q), np.asarray(K))
''', "einsum over the shared width, batch axes carried by the ellipsis"),
    _right("h4_softmax_logsumexp", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    m = np.max(x, axis=axis, keepdims=True)
    log_total = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    return np.exp(x - log_total)
''', "log-sum-exp form: exp(x - logsumexp(x)), stable because of the row maximum inside the log"),
    _right("h4_wavg_key_loop", A01, "weighted_average", '''\
def weighted_average(weights, V):
    weights = np.asarray(weights)
    V = np.asarray(V)
    n_k = V.shape[-2]
    out = weights[..., :, 0:1] * V[..., 0:1, :]
    for j in range(1, n_k):
        out = out + weights[..., :, j:j + 1] * V[..., j:j + 1, :]
    return out
''', "adds one key's contribution (a weight column times a value row) at a time"),
]

# ---------------------------------------------------------------- 02_scaling
NB02 = [
    _wrong("h4_variance_per_entry", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    return float(np.var(q * k, ddof=1))
''', "score_variance.products_not_summed",
        "takes the variance of the individual products q_i k_i (about 1 at every width) instead of their sums"),
    _wrong("h4_variance_fresh_rng", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    gen = np.random.default_rng()
    q = gen.standard_normal((n_samples, d_k))
    k = gen.standard_normal((n_samples, d_k))
    dots = (q * k).sum(axis=1)
    return float(dots.var(ddof=1))
''', "score_variance.ignores_rng", "makes a fresh unseeded generator: the same seed does not give the same estimate"),
    _wrong("h4_variance_std", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.sum(q * k, axis=1)
    return float(np.std(dots))
''', "score_variance.standard_deviation", "returns the standard deviation (about sqrt(d_k)), not the variance"),
    _wrong("h4_scale_by_d", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    return np.asarray(scores) / d_k
''', "scale_scores.divides_by_d_k", "divides by d_k itself instead of its square root"),
    _wrong("h4_scale_np_sqrt", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    return np.asarray(scores) / np.sqrt(d_k)
''', "scale_scores.promotes_float32", "np.sqrt(d_k) is a float64 scalar: float32 scores come back as float64"),
    _wrong("h4_scale_inplace", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    scores = np.asarray(scores)
    scores /= math.sqrt(d_k)
    return scores
''', "scale_scores.modifies_input", "divides in place: the caller's raw scores are overwritten"),
    _wrong("h4_leading_not_grown", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    scores = np.array([2.0, 1.0, 0.0])
    if scaled:
        scores = scores / math.sqrt(width)
    return float(softmax(scores).max())
''', None,
        "starts from (2, 1, 0) without multiplying by sqrt(width), then divides: the scaled curve falls "
        "towards 1/3 and the unscaled one stays flat"),
    _wrong("h4_leading_naive_exp", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    s = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    if scaled:
        s = s / math.sqrt(width)
    e = np.exp(s)
    return float(e.max() / e.sum())
''', "leading_weight.unstable_softmax",
        "its own softmax without the maximum: at very large widths exp overflows and the weight is nan"),
    _wrong("h4_jacobian_diag_only", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    return np.diag(p * (1 - p))
''', "softmax_jacobian.diagonal_only",
        "keeps only the diagonal p_i (1 - p_i): raising one score does not lower the other weights"),
    _wrong("h4_jacobian_inner", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    return np.diag(p) - p @ p
''', "softmax_jacobian.inner_product",
        "subtracts the scalar p . p from every entry instead of the outer product p p^T"),
    _wrong("h4_sdpa_scale_n_k", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    K = np.asarray(K)
    scores = scale_scores(attention_scores(Q, K), K.shape[-2])
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
''', "sdpa.divides_by_number_of_keys", "passes the number of keys as d_k (the scores' last axis counts keys)"),
    _wrong("h4_sdpa_softmax_queries", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    weights = softmax(scores, axis=-2)
    return weighted_average(weights, V), weights
''', "sdpa.softmax_over_queries", "normalises each column (over the queries) instead of each row"),
    _wrong("h4_sdpa_axis_1", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    d_k = Q.shape[1]
    scores = scale_scores(attention_scores(Q, K), d_k)
    weights = softmax(scores)
    return weighted_average(weights, V), weights
''', "sdpa.d_k_from_second_axis",
        "reads d_k from axis 1: right for a plain (n_q, d_k) matrix, the number of heads or queries once "
        "there are batch axes"),
    _wrong("h4_sdpa_own_softmax", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    K = np.asarray(K)
    V = np.asarray(V)
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ V, weights
''', "sdpa.unstable_softmax", "writes its own softmax without subtracting the row maximum: nan at large scores"),
    _wrong("h4_stop_scores_scaled", A02, "STOP_AND_TRY_SCORES", '''\
STOP_AND_TRY_SCORES = [1 / math.sqrt(2), 0.0, -1 / math.sqrt(2)]
''', "stop_and_try.raw_scores_scaled", "gives the scaled scores where the raw dot products were asked"),
    _wrong("h4_stop_weights_unscaled", A02, "STOP_AND_TRY_WEIGHTS", '''\
STOP_AND_TRY_WEIGHTS = softmax(np.array([1.0, 0.0, -1.0]))
''', "stop_and_try.weights_without_scaling", "the softmax of the raw scores: forgets the division by sqrt(2)"),
    _wrong("h4_concepts02_always", A02, "CONCEPTS_02", '''\
CONCEPTS_02 = ("b",)
''', "concepts02.unit_variance_always",
        "believes the divisor keeps the scores at unit variance throughout training"),
    _right("h4_variance_manual", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    gen = np.random.default_rng(rng)
    q = gen.standard_normal((n_samples, d_k))
    k = gen.standard_normal((n_samples, d_k))
    dots = (q * k).sum(axis=1)
    mean = dots.mean()
    return float(((dots - mean) ** 2).sum() / (n_samples - 1))
''', "the sample variance written out: squared deviations over n - 1"),
    _right("h4_scale_reciprocal", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    factor = 1.0 / d_k ** 0.5
    return np.asarray(scores) * factor
''', "multiplies by the reciprocal of d_k ** 0.5 (a Python float, so float32 stays float32)"),
    _right("h4_leading_closed_form", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    gap = 1.0 if scaled else math.sqrt(width)   # distance between neighbouring scores
    # the leading weight is 1 / (1 + e^-gap + e^-2gap), which cannot overflow
    return 1.0 / (1.0 + math.exp(-gap) + math.exp(-2 * gap))
''', "closed form: divide numerator and denominator by the leading exponential"),
    _right("h4_jacobian_loops", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    n = len(p)
    J = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            delta = 1.0 if i == j else 0.0
            J[i, j] = p[i] * (delta - p[j])
    return J
''', "entry by entry, p_i (delta_ij - p_j), in two loops"),
    _right("h4_sdpa_scale_queries", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    K = np.asarray(K)
    d_k = Q.shape[-1]
    scores = np.einsum("...qd,...kd->...qk", Q / math.sqrt(d_k), K)
    weights = softmax(scores)
    output = np.einsum("...qk,...kv->...qv", weights, np.asarray(V))
    return output, weights
''', "scales the queries before the product, einsum for both products"),
    _right("h4_stop_weights_rounded", A02, "STOP_AND_TRY_WEIGHTS", '''\
STOP_AND_TRY_WEIGHTS = [0.576, 0.284, 0.140]
''', "the weights worked out by hand, rounded to three decimals (the task allows it)"),
    _right("h4_stop_scores_computed", A02, "STOP_AND_TRY_SCORES", '''\
STOP_AND_TRY_SCORES = attention_scores(np.array([[1.0, 0.0]]),
                                       np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]))[0]
''', "computed with the given attention_scores, first (only) row"),
]

# ---------------------------------------------------------------- 03_masking
NB03 = [
    _wrong("h4_causal_triu", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    return np.triu(np.ones((n_q, n_k), dtype=bool))
''', "causal_mask.upper_triangle", "keeps the upper triangle: each query may read the future and not the past"),
    _wrong("h4_causal_strict", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    i = np.arange(n_q)[:, None]
    j = np.arange(n_k)[None, :]
    return j < i
''', "causal_mask.excludes_diagonal",
        "j < i instead of j <= i: a position may not read itself, the first row reads nothing"),
    _wrong("h4_causal_bottom_right", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    # the last query sees every key
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)
''', "causal_mask.bottom_right_aligned", "aligns the triangle to the bottom-right corner; right only when n_q == n_k"),
    _wrong("h4_padding_2d", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    return np.arange(n_k)[None, :] < lengths[:, None]
''', "padding_mask.no_query_axis",
        "returns (batch, n_k) without the query axis, so it lines up with the wrong axes of the scores"),
    _wrong("h4_padding_le", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    keys = np.arange(n_k)
    return (keys[None, :] <= lengths[:, None])[:, None, :]
''', "padding_mask.off_by_one", "j <= length keeps one padded key per sequence"),
    _wrong("h4_apply_where_always", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    return np.where(mask, scores, -np.inf)
''', "apply_mask.float_mask_as_boolean",
        "treats every mask as boolean: a floating mask's 0 (keep) hides the score and its biases are not added"),
    _wrong("h4_apply_minus_1e9", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        return np.where(mask, scores, -1e9)
    return scores + mask
''', "apply_mask.large_negative_instead_of_inf", "fills hidden scores with -1e9 instead of -inf"),
    _wrong("h4_apply_inplace", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        scores[~mask] = -np.inf
        return scores
    scores += mask
    return scores
''', "apply_mask.modifies_scores",
        "writes into the caller's scores (and boolean indexing cannot broadcast a (batch, 1, n_k) mask)"),
    _wrong("h4_sdpa_mask_after", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    weights = softmax(scores, axis=-1)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype == bool:
            weights = weights * mask
        else:
            weights = weights * np.exp(mask)
    return weighted_average(weights, V), weights
''', "sdpa.mask_after_softmax", "masks the weights after the softmax: the remaining weights no longer sum to one"),
    _wrong("h4_sdpa_fill_1e9", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype == bool:
            scores = np.where(mask, scores, -1e9)
        else:
            scores = scores + mask
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
''', "sdpa.large_negative_fill",
        "hides with -1e9: a query with no allowed key gets equal weights on every hidden key instead of zeros"),
    _wrong("h4_sdpa_mask_then_scale", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = attention_scores(Q, K)
    if mask is not None:
        scores = apply_mask(scores, mask)
    scores = scale_scores(scores, Q.shape[-1])
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
''', "sdpa.mask_before_scaling",
        "applies the mask to the raw scores and scales afterwards: boolean masks survive, an additive bias "
        "is divided by sqrt(d_k)"),
    _wrong("h4_sdpa_mask_inverted", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype == bool:
            scores = np.where(mask, -np.inf, scores)   # True marks the positions to hide
        else:
            scores = scores + mask
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
''', "sdpa.mask_inverted", "reads True as 'hidden' (the opposite of the course's convention)"),
    _wrong("h4_sdpa_nan_empty_row", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        scores = apply_mask(scores, mask)
    m = scores.max(axis=-1, keepdims=True)
    e = np.exp(scores - m)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weighted_average(weights, V), weights
''', "sdpa.nan_on_fully_masked_row",
        "its own stable softmax without the guard: a query with no allowed key gets -inf - -inf = nan"),
    _right("h4_causal_tri", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    return np.tri(n_q, n_q if n_k is None else n_k, dtype=bool)
''', "np.tri: ones on and below the diagonal, top-left aligned"),
    _right("h4_padding_loop", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    mask = np.zeros((len(lengths), 1, n_k), dtype=bool)
    for b, length in enumerate(lengths):
        mask[b, 0, :length] = True
    return mask
''', "a loop over the sequences, slicing the real keys"),
    _right("h4_apply_bias", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    if scores.dtype.kind != "f":
        scores = scores.astype(float)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        bias = np.where(mask, 0.0, -np.inf).astype(scores.dtype)
    else:
        bias = mask.astype(scores.dtype)
    return scores + bias
''', "turns a boolean mask into an additive bias of 0 / -inf and adds it"),
    _right("h4_sdpa_manual_guard", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
    if mask is not None:
        mask = np.asarray(mask)
        scores = np.where(mask, scores, -np.inf) if mask.dtype == bool else scores + mask
    top = scores.max(axis=-1, keepdims=True)
    top = np.where(np.isneginf(top), 0, top)     # a row with nothing allowed
    e = np.exp(scores - top)
    total = e.sum(axis=-1, keepdims=True)
    weights = e / np.where(total == 0, 1, total)
    return weights @ V, weights
''', "its own masked softmax with the guard for a fully masked row"),
    _right("h4_sdpa_bias_mask", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype == bool:
            mask = np.where(mask, 0.0, -np.inf).astype(scores.dtype)
        scores = scores + mask
    weights = softmax(scores)
    return weighted_average(weights, V), weights
''', "converts a boolean mask to an additive 0 / -inf bias, then uses the given softmax"),
]

# ---------------------------------------------------------------- 04_heads
NB04 = [
    _wrong("h4_project_W_T", A04, "project", '''\
def project(X, W):
    return np.asarray(X) @ np.asarray(W).T
''', "project.map_transposed", "multiplies by W^T: right only when W happens to be square and symmetric"),
    _wrong("h4_project_einsum_2d", A04, "project", '''\
def project(X, W):
    return np.einsum("nd,do->no", np.asarray(X), np.asarray(W))
''', "project.no_batch_axes", "einsum subscripts for a plain matrix: raises when X has batch axes"),
    _wrong("h4_count_square_maps", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    count = 3 * d_model * d_model
    if output_projection:
        count += d_model * d_model
    return int(count)
''', "param_count.ignores_head_widths",
        "always 3 d_model^2 (+ d_model^2): ignores the per-head widths when they are given"),
    _wrong("h4_count_full_width_heads", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model if d_k is None else d_k
    d_v = d_model if d_v is None else d_v
    count = num_heads * d_model * (2 * d_k + d_v)
    if output_projection:
        count += num_heads * d_v * d_model
    return count
''', "param_count.heads_multiply_parameters",
        "gives every head the full width by default, so 8 heads cost 8 times one head"),
    _wrong("h4_split_interleaved", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    *batch, n, d_model = X.shape
    d = d_model // num_heads
    X = X.reshape(*batch, n, d, num_heads)     # (..., n, d, h)
    return np.moveaxis(X, -1, -3)              # (..., h, n, d)
''', "split_heads.interleaved_columns",
        "reshapes to (n, d, h): head h takes every num_heads-th column instead of one contiguous slice"),
    _wrong("h4_split_reshape_only", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    *batch, n, d_model = X.shape
    return X.reshape(*batch, num_heads, n, d_model // num_heads)
''', "split_heads.reshape_without_swap",
        "reshapes straight to (h, n, d): rows of different positions end up in one head"),
    _wrong("h4_merge_reshape_only", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.asarray(X)
    *batch, h, n, d = X.shape
    return X.reshape(*batch, n, h * d)
''', "merge_heads.reshape_without_swap", "reshapes without moving the head axis back next to the width"),
    _wrong("h4_merge_concat_rows", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.asarray(X)
    heads = [X[..., i, :, :] for i in range(X.shape[-3])]
    return np.concatenate(heads, axis=-2)
''', "merge_heads.concatenates_positions",
        "joins the heads along the position axis (h n rows of width d) instead of the width"),
    _wrong("h4_mha_full_width_scale", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(np.shape(W_q)[1])
    if mask is not None:
        mask = np.asarray(mask)
        if mask.ndim >= 2:
            mask = np.expand_dims(mask, -3)
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores)
    return project(merge_heads(weights @ V), W_o), weights
''', "mha.divisor_of_full_width", "divides by the square root of the full projected width, not of one head's width"),
    _wrong("h4_mha_values_from_queries", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_q, W_v), num_heads)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.ndim >= 2:
            mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
''', "mha.values_from_query_rows", "projects the values from X_q: the keys come from the read rows, the values do not"),
    _wrong("h4_mha_no_W_o", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None:
        mask = np.expand_dims(np.asarray(mask), -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return merge_heads(heads), weights
''', "mha.no_output_projection", "returns the concatenated heads without applying W_o"),
    _wrong("h4_mha_mask_no_head_axis", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
''', "mha.mask_without_head_axis",
        "passes the mask on unchanged: a (batch, n_q, n_k) mask lines its batch axis up with the heads"),
    _wrong("h4_mha_weights_mean", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.ndim >= 2:
            mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights.mean(axis=-3)   # one table, like the plot
''', "mha.weights_averaged_over_heads", "returns the weights averaged over the heads, not every head's table"),
    _wrong("h4_asymmetry_sum", A04, "score_asymmetry", '''\
def score_asymmetry(X, W_q, W_k):
    X = np.asarray(X)
    S = (X @ W_q) @ (X @ W_k).T
    return float(np.abs(S - S.T).sum())
''', "score_asymmetry.sum_not_max", "adds every gap (each one twice) instead of taking the largest"),
    _wrong("h4_concepts04_alignment", A04, "CONCEPTS_04", '''\
CONCEPTS_04 = ("a", "b", "a")
''', "concepts04.alignment_of_inputs",
        "reads a large learned score as the raw inputs pointing the same way"),
    _right("h4_project_tensordot", A04, "project", '''\
def project(X, W):
    return np.tensordot(np.asarray(X), np.asarray(W), axes=([-1], [0]))
''', "tensordot over X's last axis and W's first"),
    _right("h4_count_per_head_loop", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    head_k = d_model // num_heads if d_k is None else d_k
    head_v = d_model // num_heads if d_v is None else d_v
    total = 0
    for _ in range(num_heads):
        total += d_model * head_k      # this head's W_q
        total += d_model * head_k      # W_k
        total += d_model * head_v      # W_v
        if output_projection:
            total += head_v * d_model  # this head's rows of W_o
    return total
''', "adds up the maps head by head"),
    _right("h4_split_stack_slices", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    d = X.shape[-1] // num_heads
    return np.stack([X[..., i * d:(i + 1) * d] for i in range(num_heads)], axis=-3)
''', "stacks contiguous column slices on a new head axis"),
    _right("h4_merge_concat_width", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.asarray(X)
    return np.concatenate([X[..., i, :, :] for i in range(X.shape[-3])], axis=-1)
''', "concatenates the heads along the width"),
    _right("h4_mha_head_loop", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    W_q, W_k, W_v, W_o = (np.asarray(W) for W in (W_q, W_k, W_v, W_o))
    dk = W_q.shape[1] // num_heads
    dv = W_v.shape[1] // num_heads
    out = 0
    all_weights = []
    for i in range(num_heads):
        q = project(X_q, W_q[:, i * dk:(i + 1) * dk])
        k = project(X_kv, W_k[:, i * dk:(i + 1) * dk])
        v = project(X_kv, W_v[:, i * dv:(i + 1) * dv])
        head, w = scaled_dot_product_attention(q, k, v, mask=mask)   # mask (..., n_q, n_k) fits one head
        out = out + project(head, W_o[i * dv:(i + 1) * dv, :])        # this head's rows of W_o
        all_weights.append(w)
    return out, np.stack(all_weights, axis=-3)
''', "one head at a time on column slices of the maps; concat then W_o written as a sum over heads"),
    _right("h4_asymmetry_signed", A04, "score_asymmetry", '''\
def score_asymmetry(X, W_q, W_k):
    X = np.asarray(X)
    S = X @ W_q @ (X @ W_k).T
    return float((S - S.T).max())   # S - S^T is antisymmetric, so its max is the largest |gap|
''', "signed maximum of S - S^T, which equals the largest absolute gap because the difference is antisymmetric"),
]

# ---------------------------------------------------------------- 05_cross_attention
NB05 = [
    _wrong("h4_self_causal_inverted", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    mask = None
    if causal:
        mask = ~causal_mask(X.shape[-2])   # hide what the causal mask marks
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "self_attention.causal_mask_inverted", "negates the causal mask: each position reads only the future"),
    _wrong("h4_self_mask_from_width", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    mask = causal_mask(X.shape[-1]) if causal else None
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "self_attention.mask_sized_by_width",
        "sizes the causal mask by the width d_model instead of the number of positions"),
    _wrong("h4_cross_roles_swapped", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_enc = np.asarray(X_enc)
    mask = None
    if enc_lengths is not None:
        mask = padding_mask(np.asarray(enc_lengths), X_enc.shape[-2])
    return multi_head_attention(X_enc, X_dec, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "cross.queries_from_encoder", "the encoder asks and the decoder is read: queries and keys/values swapped"),
    _wrong("h4_cross_mask_query_axis", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_enc = np.asarray(X_enc)
    mask = None
    if enc_lengths is not None:
        lengths = np.asarray(enc_lengths)
        mask = (np.arange(X_enc.shape[-2]) < lengths[:, None])[:, :, None]   # (batch, n_enc, 1)
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "cross.padding_on_query_axis", "puts the padding along the query axis (batch, n_enc, 1) instead of the key axis"),
    _wrong("h4_cross_mask_from_decoder", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_dec = np.asarray(X_dec)
    mask = None
    if enc_lengths is not None:
        mask = padding_mask(np.asarray(enc_lengths), X_dec.shape[-2])
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', None, "builds the padding mask for n_dec keys (the decoder's length) instead of n_enc"),
    _wrong("h4_cross_causal_too", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_dec, X_enc = np.asarray(X_dec), np.asarray(X_enc)
    mask = causal_mask(X_dec.shape[-2], X_enc.shape[-2])   # the decoder must not peek
    if enc_lengths is not None:
        mask = mask & padding_mask(np.asarray(enc_lengths), X_enc.shape[-2])
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "cross.causal_mask_on_source", "adds a causal mask although every output position may read the whole input"),
    _wrong("h4_concepts05_importance", A05, "CONCEPTS_05", '''\
CONCEPTS_05 = ("a",)
''', "concepts05.weight_is_importance", "reads a high weight as general importance of the input word"),
    _right("h4_self_tril", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    n = np.shape(X)[-2]
    mask = np.tril(np.ones((n, n), dtype=bool)) if causal else None
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask)
''', "builds the lower triangle with np.tril, mask passed positionally"),
    _right("h4_self_all_true", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    n = np.shape(X)[-2]
    mask = causal_mask(n) if causal else np.ones((n, n), dtype=bool)   # all True = nothing hidden
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "an all-True mask when not causal, which hides nothing"),
    _right("h4_cross_inline_mask", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        n_enc = np.shape(X_enc)[-2]
        real = np.arange(n_enc)[None, :] < np.asarray(enc_lengths)[:, None]   # (batch, n_enc)
        mask = real[:, None, :]                                             # (batch, 1, n_enc)
    return multi_head_attention(X_q=X_dec, X_kv=X_enc, W_q=W_q, W_k=W_k, W_v=W_v, W_o=W_o,
                                num_heads=num_heads, mask=mask)
''', "builds the padding mask inline, keyword arguments"),
]

# ---------------------------------------------------------------- 06_long_sequences
NB06 = [
    _wrong("h4_table_one_head", A06, "TABLE_BYTES", '''\
TABLE_BYTES = 4096 * 4096 * 4
''', "table_bytes.one_head", "the table of one head: forgets that each of the 8 heads has its own"),
    _wrong("h4_block_no_rescale", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_k = K.shape[-2]
    m = None
    total = 0
    acc = 0
    for start in range(0, n_k, block_size):
        s = Q @ np.swapaxes(K[..., start:start + block_size, :], -1, -2) * factor
        if mask is not None:
            s = np.where(mask[..., start:start + block_size], s, -np.inf)
        block_max = s.max(axis=-1, keepdims=True)
        m = block_max if m is None else np.maximum(m, block_max)
        m_safe = np.where(np.isneginf(m), 0, m)
        p = np.exp(s - m_safe)
        total = total + p.sum(axis=-1, keepdims=True)
        acc = acc + p @ V[..., start:start + block_size, :]
    return acc / np.where(total == 0, 1, total)
''', "blockwise.no_rescaling",
        "subtracts the running maximum but never rescales what was accumulated under the old one"),
    _wrong("h4_block_short_loop", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    dtype = np.result_type(Q, K, V)
    m = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)
    total = np.zeros((*batch, n_q, 1), dtype=dtype)
    acc = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
    for b in range(n_k // block_size):            # number of blocks
        start, stop = b * block_size, (b + 1) * block_size
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
        if mask is not None:
            s = np.where(mask[..., start:stop], s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(np.isneginf(new_m), 0, new_m)
        p = np.exp(s - shift)
        total = total * np.exp(m - shift) + p.sum(axis=-1, keepdims=True)
        acc = acc * np.exp(m - shift) + p @ V[..., start:stop, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)
''', "blockwise.drops_last_partial_block",
        "loops n_k // block_size times: the last, shorter block is never read when block_size does not divide n_k"),
    _wrong("h4_block_no_empty_guard", A06, "blockwise_attention", '''\
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
            s = np.where(mask[..., start:stop], s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        p = np.exp(s - new_m)
        correction = np.exp(m - new_m)
        total = total * correction + p.sum(axis=-1, keepdims=True)
        acc = acc * correction + p @ V[..., start:stop, :]
        m = new_m
    return acc / total
''', "blockwise.no_guard_for_masked_rows",
        "no guard while every key seen is masked: -inf - -inf = nan, and an empty sequence divides 0 by 0"),
    _wrong("h4_block_unscaled", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1.0 if scale is None else scale
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
            s = np.where(mask[..., start:stop], s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(np.isneginf(new_m), 0, new_m)
        p = np.exp(s - shift)
        total = total * np.exp(m - shift) + p.sum(axis=-1, keepdims=True)
        acc = acc * np.exp(m - shift) + p @ V[..., start:stop, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)
''', "blockwise.default_scale_missing", "treats scale=None as 1: the default 1/sqrt(d_k) is never applied"),
    _right("h4_table_power_of_two", A06, "TABLE_BYTES", '''\
TABLE_BYTES = 2 ** 3 * 2 ** 12 * 2 ** 12 * 2 ** 2   # heads * n_q * n_k * bytes, all powers of two
''', "the same product written as powers of two"),
    _right("h4_block_two_pass", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    c = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_k = K.shape[-2]

    def block_scores(start):
        s = Q @ np.swapaxes(K[..., start:start + block_size, :], -1, -2) * c
        if mask is not None:
            block = mask[..., start:start + block_size] if np.shape(mask)[-1] > 1 else mask
            s = np.where(block, s, -np.inf)
        return s

    # pass 1: each query's largest allowed score, one block at a time
    m = None
    for start in range(0, n_k, block_size):
        block_max = block_scores(start).max(axis=-1, keepdims=True)
        m = block_max if m is None else np.maximum(m, block_max)
    m = np.where(np.isneginf(m), 0, m)
    # pass 2: exponentials relative to that final maximum need no rescaling
    total = 0
    acc = 0
    for start in range(0, n_k, block_size):
        p = np.exp(block_scores(start) - m)
        total = total + p.sum(axis=-1, keepdims=True)
        acc = acc + p @ V[..., start:start + block_size, :]
    return acc / np.where(total == 0, 1, total)
''', "two passes over the key blocks: first the row maxima, then the sums (no rescaling needed)"),
]

# ---------------------------------------------------------------- 07_scoring_functions
NB07 = [
    _wrong("h4_additive_tanh_parts", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    v = np.asarray(v)
    a = np.tanh(np.asarray(Q) @ W_q) @ v   # (..., n_q)
    c = np.tanh(np.asarray(K) @ W_k) @ v   # (..., n_k)
    return a[..., :, None] + c[..., None, :]
''', "additive.tanh_of_each_part",
        "takes the tanh of the query part and of the key part separately and adds: no interaction between the pair"),
    _wrong("h4_additive_pairs_swapped", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    a = np.asarray(Q) @ np.asarray(W_q)
    c = np.asarray(K) @ np.asarray(W_k)
    hidden = a[..., None, :, :] + c[..., :, None, :]
    return np.tanh(hidden) @ np.asarray(v)
''', "additive.keys_by_queries", "inserts the new axes the other way round: one row per key, shape (n_k, n_q)"),
    _wrong("h4_dotscores_input_width", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    Q = np.asarray(Q)
    q = Q @ np.asarray(W_q)
    k = np.asarray(K) @ np.asarray(W_k)
    return q @ np.swapaxes(k, -1, -2) / math.sqrt(Q.shape[-1])
''', "scaled_dot.divides_by_input_width",
        "divides by the square root of the input width d_q, not of the projected width h"),
    _wrong("h4_dotscores_T", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    q = np.asarray(Q) @ np.asarray(W_q)
    k = np.asarray(K) @ np.asarray(W_k)
    return q @ k.T / math.sqrt(q.shape[-1])
''', "scaled_dot.transposes_every_axis", "k.T reverses the batch axes too: right for plain matrices only"),
    _wrong("h4_bilinear_W_T", A07, "bilinear_scores", '''\
def bilinear_scores(Q, K, W):
    Q, K, W = np.asarray(Q), np.asarray(K), np.asarray(W)
    return Q @ W.T @ np.swapaxes(K, -1, -2)
''', "bilinear.matrix_transposed", "uses W^T: the reversed relation, equal only for a symmetric W"),
    _wrong("h4_costs_no_projections", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * n * d
    params = 2 * d * h + (h if kind == "additive" else 0)
    return params, n * n * h
''', "score_costs.pair_work_only", "counts only the per-pair work, not the projections of the queries and keys"),
    _wrong("h4_costs_bilinear_per_pair", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * n * (d * d + d)   # q^T W k for every pair
    params = 2 * d * h + (h if kind == "additive" else 0)
    return params, 2 * n * d * h + n * n * h
''', "score_costs.bilinear_matrix_per_pair", "recomputes q^T W for every pair instead of Q W once"),
    _wrong("h4_width_round", A07, "width_for_budget", '''\
def width_for_budget(kind, d, budget):
    per_unit = 2 * d + 1 if kind == "additive" else 2 * d
    return max(1, round(budget / per_unit))
''', "width_for_budget.rounds_to_nearest", "rounds to the nearest width, which can exceed the budget"),
    _wrong("h4_width_no_v", A07, "width_for_budget", '''\
def width_for_budget(kind, d, budget):
    return budget // (2 * d)
''', "width_for_budget.forgets_v", "gives additive the same width as dot: forgets the h entries of v"),
    _right("h4_additive_key_loop", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    a = np.asarray(Q) @ np.asarray(W_q)      # (..., n_q, h)
    c = np.asarray(K) @ np.asarray(W_k)      # (..., n_k, h)
    v = np.asarray(v)
    columns = []
    for j in range(c.shape[-2]):
        columns.append(np.tanh(a + c[..., j:j + 1, :]) @ v)   # key j against every query
    return np.stack(columns, axis=-1)
''', "one key at a time, stacked as columns"),
    _right("h4_dotscores_folded", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    W_q = np.asarray(W_q)
    q = np.asarray(Q) @ (W_q / math.sqrt(W_q.shape[-1]))   # fold the divisor into the query map
    k = np.asarray(K) @ np.asarray(W_k)
    return np.einsum("...ih,...jh->...ij", q, k)
''', "folds 1/sqrt(h) into W_q, einsum for the pairs"),
    _right("h4_bilinear_einsum", A07, "bilinear_scores", '''\
def bilinear_scores(Q, K, W):
    return np.einsum("...ia,ab,...jb->...ij", np.asarray(Q), np.asarray(W), np.asarray(K))
''', "one einsum over both widths"),
    _right("h4_width_bisection", A07, "width_for_budget", '''\
def width_for_budget(kind, d, budget):
    def params(h):
        return 2 * d * h + (h if kind == "additive" else 0)
    lo, hi = 1, max(1, budget)          # params(lo) fits, the answer is at most the budget
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if params(mid) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return lo
''', "bisection on the width for the largest one whose parameters fit"),
]

VARIANTS = NB01 + NB02 + NB03 + NB04 + NB05 + NB06 + NB07
