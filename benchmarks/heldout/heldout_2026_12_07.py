"""Held-out answers of 2026-12-07 (issue 24): a sixth blind set of typical student mistakes and correct rewrites.

Written on 2026-12-03 by a helper session (branch ``wt-heldout6``) **without reading the grader**: nothing under
``autograder/checks/``, ``tests/checks/``, ``tests/course/test_catalogue.py`` or
``benchmarks/heldout/judgements/`` was opened, nor anything under ``autograder/catalogue/`` beyond the ``Variant``
class and ``all_variants`` (``catalogue/__init__.py``) and the loader ``load_variants`` (``fairness.py``); no
feedback or misconception texts of the grader were read. Of the earlier held-out sets only the docstring, the
first ~80 lines and the last 10 lines of ``heldout_2026_12_06.py`` were read (for the layout), and of all five
sets (12_02 to 12_06) only the variant names and their ``source`` lines, to write different mistakes. The
answers were written from the notebooks' task texts (``sources/NN_*/NN_*.py``: prose, stubs, the one-line
descriptions of the hidden tests), the reference ``attention_ref`` and the two lesson seeds, imagining students
of different backgrounds: a statistician (X^T Y, centring by the mean, z-scores, np.average, np.cov, the
Frobenius norm), a C programmer (while loops, integer dtypes kept, in-place steps on a copy), PyTorch habits
(ReLU, biases in nn.MultiheadAttention, the (out, in) layout of Linear, True = padding, unsqueeze forgotten),
literal readers of a formula (delta_ij - p_i p_j, "the Jacobian at p", "swap the axes n, h", "each row's own
maximum"), lengths, widths and dimensions confused (Q.ndim as d_k, lengths as last indices, bits as bytes),
explicit batching written for one batch axis, masks with rows and columns swapped, wrong shifts before the
exponential (by the mean, after exp, a running maximum started at 0), Python slips (``d_k**1/2``,
``dtype is bool``, ``is not None`` on a flag, ``/`` for ``//``, ``if enc_lengths:``) and plausible wrong
options. The grader was not run on them, nor ``benchmarks/fairness.py``. Not labelled as a mistake anywhere:
float32 in, float64 out (the course never asks for the dtype to be kept). The Stop-and-try answers use the
per-student numbers ``STOP_Q`` and ``STOP_K`` of notebook 02, never the lesson's typed numbers.

Each answer replaces one solution cell only (the other cells keep the instructor's answers) and defines no name
other than its own task's. A wrong answer is labelled with the misconception in the author's own words (ids the
course does not know; the fairness report lists them as 'unlabelled' with what the checks named), or ``None``
where the mistake is a Python muddle with no one name; ``source`` says the mistake in one line.

How it was checked (a throw-away script, not kept: one probe set per task, the reference's answer computed on the
spot): each cell is executed in a namespace holding ``math``, ``np``, what the notebook's first cell imports from
``attention_ref`` and ``attention_ref``'s versions of the notebook's other task functions (for the Stop-and-try
items, 12 random draws of ``STOP_Q`` (2,) and ``STOP_K`` (3, 2)), and its function is called on inputs of the kinds
the notebooks name -- the seeds' worked examples (as lists, integer lists and arrays), square and non-square, one
and two leading batch axes, float32, integer input, unnormalised weights and a zero row, softmax along axes 0 and 1
of a 3-D array, scores of 1e3 and 1e4 and rows far apart, widths from 0.5 to 1e8 with and without ``scaled``,
saturated probability vectors, boolean masks of the scores' shape, a padding mask (batch, 1, n_k) with an empty
sequence, one (n_q, n_k) mask shared by a batch of heads, floating masks (0/-inf and a finite bias), a fully masked
row, allowed keys more than 1,000 below a masked one, the 512-wide layer of 8 heads, d_k != d_v and W_o to another
width, a (batch, n_q, n_k) mask, enc_lengths as an array, a list, [0, 3] and [0], block sizes 1, 3, 4, n_k and more
than n_k, an explicit ``scale``, rows whose every score lies far below 0, budgets that fit a width exactly -- and
compared with ``attention_ref``: same type and shape (booleans for masks, a Python float or int where the reference
returns one), values within 1e-6 (1e-4 for float32 inputs), no NaN, inputs left unchanged. The written values
(``CONCEPTS_*``, ``TABLE_BYTES``, ``STOP_AND_TRY_*``) were compared with the instructor's answers and with
``STOP_K @ STOP_Q`` and its scaled softmax (weights within 1e-3). The same script run on the instructor's 36
solution cells (``sources/``) finds no difference. Results:

* every wrong answer differs from the reference, raises or modifies its input on at least one of those inputs
  (on as few as one: the mean shift only on a row spread over 2e3, the in-place copy only on integer scores,
  the square ``tril_indices`` only with fewer keys than queries, a negative bias read as "hide" only on a
  finite bias, ``scale`` as a divisor only with an explicit scale, the running maximum started at 0 only when
  every score of a row lies far below 0);
* every correct rewrite agrees on all of them (float32 kept float32; an integer ``Q @ K^T`` stays integer, as
  the instructor's does), except ``score_variance``, checked statistically (within 6 standard errors of d_k for
  d_k = 1, 16, 64 and seeds 0, 1, 2 with 20,000 pairs, the same value for the same seed, a Generator
  accepted); the wrong variances fail that check on 8, 9 and 9 of the 9 (d_k, seed) pairs (the one-query
  variance happens to land near d_k once);
* no answer defines a name other than its own task's; ``load_variants`` accepts the file (113 variants).

Counts (wrong / correct / wrong labelled ``None``):

==========================  =====  =======  ====
notebook                    wrong  correct  None
==========================  =====  =======  ====
01_scores_softmax              14        4     0
02_scaling                     19        8     1
03_masking                     12        5     1
04_heads                       15        6     2
05_cross_attention              6        3     1
06_long_sequences               7        2     0
07_scoring_functions            8        4     0
total                          81       32     5
==========================  =====  =======  ====

Measure it (named / vague / wrong on this set alone)::

    .venv/bin/python benchmarks/fairness.py --variants benchmarks/heldout/heldout_2026_12_07.py --seeds 3
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
    _wrong("h7_dot_negative_distance", A01, "dot_product", '''\
def dot_product(q, k):
    # the closer the two vectors, the better they match: score = minus the squared distance
    q = np.asarray(q, dtype=float)
    k = np.asarray(k, dtype=float)
    return float(-np.sum((q - k) ** 2))
''', "closeness_as_score", "the score read as closeness (minus the squared distance, option c of question 3), "
         "not the dot product; the seed's (1, 0) against itself scores 0 instead of 1"),
    _wrong("h7_dot_entrywise_products", A01, "dot_product", '''\
def dot_product(q, k):
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    return q * k  # multiply matching entries
''', "products_not_summed", "the first half of 'multiply matching entries and add the results': "
         "returns the array of products, not their sum"),
    _wrong("h7_scores_swap_first_axes", A01, "attention_scores", '''\
def attention_scores(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    return Q @ np.swapaxes(K, 0, 1)  # transpose K: swap its two axes
''', "transpose_of_leading_axes", "the transpose written as 'swap axes 0 and 1': right for one (n_k, d_k) "
         "matrix, but on a batch it swaps batch axes and leaves the key and width axes alone"),
    _wrong("h7_scores_feature_cross_product", A01, "attention_scores", '''\
def attention_scores(Q, K):
    Q = np.asarray(Q, dtype=float)
    K = np.asarray(K, dtype=float)
    return Q.T @ K  # cross-products, as X^T Y in a regression
''', "features_crossed_not_rows", "a statistician's X^T Y: pairs up the widths (d_k x d_k) instead of "
         "the rows; raises unless n_q = n_k, and then gives a d_k x d_k table"),
    _wrong("h7_scores_scaled_already", A01, "attention_scores", '''\
def attention_scores(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    d_k = Q.shape[-1]
    return Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_k)  # scaled dot-product scores
''', "scaled_before_asked", "the /sqrt(d_k) of 'scaled dot-product attention' (question 3 of the same "
         "notebook) put into the raw scores of section 2"),
    _wrong("h7_softmax_mean_shift", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    centred = x - x.mean(axis=axis, keepdims=True)  # centre the scores, as before any exp
    e = np.exp(centred)
    return e / e.sum(axis=axis, keepdims=True)
''', "shift_by_mean", "a statistician centres by the row mean instead of subtracting the row maximum: "
         "right values, but a row with a spread of 2e3 still overflows"),
    _wrong("h7_softmax_divide_out_max", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    e = np.exp(x) / np.exp(x.max(axis=axis, keepdims=True))  # e^(s - m) = e^s / e^m
    return e / e.sum(axis=axis, keepdims=True)
''', "shift_after_exp", "the shift by the maximum done after exponentiating (e^s / e^m): the same "
         "algebra, but np.exp(1000) is already inf, so large scores give nan"),
    _wrong("h7_softmax_scores_over_max", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    x = x / np.abs(x).max(axis=axis, keepdims=True)  # bring the scores into [-1, 1] so exp cannot overflow
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)
''', "scores_rescaled_not_shifted", "overflow avoided by dividing the scores by their largest size: "
         "stable, but it changes the weights (2, 1, 0 give 0.506, 0.307, 0.186)"),
    _wrong("h7_softmax_row_max_always", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    e = np.exp(x - x.max(axis=-1, keepdims=True))  # subtract each row's own maximum
    return e / e.sum(axis=axis, keepdims=True)
''', "shift_not_along_axis", "'each row's own maximum' taken literally: the shift is along the last axis "
         "whatever `axis` is; right for axis=-1, wrong values for axis=0 of a 3-D array"),
    _wrong("h7_softmax_integer_copy", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.array(x)  # my own copy, so the caller's scores stay as they were
    x -= x.max(axis=axis, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=axis, keepdims=True)
    return x
''', "integer_scores_kept_integer", "memory-saving in-place steps on a copy: fine for floats, but "
         "np.array keeps integer scores such as [2, 1, 0] integer and the in-place exp raises"),
    _wrong("h7_wavg_transposed_weights", A01, "weighted_average", '''\
def weighted_average(weights, V):
    weights, V = np.asarray(weights), np.asarray(V)
    # key j is column j of the weights and row j of V: turn the weights so the keys line up
    return np.swapaxes(weights, -1, -2) @ V
''', "weights_transposed", "the weights turned so that 'the keys line up' with V: raises unless "
         "n_q = n_k, and a square table averages with the columns instead of the rows"),
    _wrong("h7_wavg_missing_new_axes", A01, "weighted_average", '''\
def weighted_average(weights, V):
    weights, V = np.asarray(weights), np.asarray(V)
    return (weights * V).sum(axis=-2)  # weight every value, then add over the keys
''', "broadcast_without_new_axes", "PyTorch's (w.unsqueeze(-1) * V).sum(-2) without the new axes: "
         "the product broadcasts the wrong way ((1, 3) * (3, 1) is 3 x 3) or raises"),
    _wrong("h7_wavg_np_average", A01, "weighted_average", '''\
def weighted_average(weights, V):
    weights = np.asarray(weights, dtype=float)
    V = np.asarray(V, dtype=float)
    return np.array([np.average(V, axis=0, weights=w) for w in weights])
''', "average_renormalises_2d_only", "a statistician's np.average, one query at a time: divides by the "
         "sum of each row's weights and works on one 2-D table only (raises on batches and on a zero row)"),
    _wrong("h7_concepts01_distance", A01, "CONCEPTS_01", '''\
CONCEPTS_01 = ("b", "c", "c")
''', "closeness_as_score", "question 3 answered with the distance ('the closer, the higher the weight')"),
    _right("h7_ok_dot_while_loop", A01, "dot_product", '''\
def dot_product(q, k):
    total = 0.0
    i = 0
    while i < len(q):
        total += float(q[i]) * float(k[i])
        i += 1
    return total
''', "a C programmer's while loop with a float accumulator"),
    _right("h7_ok_scores_broadcast_sum", A01, "attention_scores", '''\
def attention_scores(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    # every query row against every key row: (..., n_q, 1, d) * (..., 1, n_k, d), summed over d
    return (Q[..., :, None, :] * K[..., None, :, :]).sum(axis=-1)
''', "the products of every pair broadcast out and summed over the width"),
    _right("h7_ok_softmax_moveaxis", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    last = np.moveaxis(x, axis, -1)  # work on the last axis, move it back at the end
    e = np.exp(last - last.max(axis=-1)[..., None])
    return np.moveaxis(e / e.sum(axis=-1)[..., None], -1, axis)
''', "the normalised axis moved to the end and back, the row maximum re-broadcast by hand"),
    _right("h7_ok_wavg_flat_batch_loop", A01, "weighted_average", '''\
def weighted_average(weights, V):
    weights, V = np.asarray(weights), np.asarray(V)
    batch = np.broadcast_shapes(weights.shape[:-2], V.shape[:-2])
    w = np.broadcast_to(weights, batch + weights.shape[-2:]).reshape(-1, *weights.shape[-2:])
    v = np.broadcast_to(V, batch + V.shape[-2:]).reshape(-1, *V.shape[-2:])
    out = np.stack([a @ b for a, b in zip(w, v)])  # one (n_q, n_k) @ (n_k, d_v) per sequence
    return out.reshape(batch + (weights.shape[-2], V.shape[-1]))
''', "an explicit loop over the flattened batch axes, reshaped back"),
]

# ---------------------------------------------------------------- 02_scaling
NB02 = [
    _wrong("h7_var_one_query_many_keys", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    q = rng.standard_normal(d_k)                     # one query ...
    keys = rng.standard_normal((n_samples, d_k))     # ... against n_samples keys
    return float(np.var(keys @ q, ddof=1))
''', "one_query_reused", "one query drawn once and met by every key: the variance given that query "
         "(its squared length, chi-square around d_k), not the variance over independent pairs"),
    _wrong("h7_var_query_is_key", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    x = rng.standard_normal((n_samples, d_k))
    dots = np.einsum("ij,ij->i", x, x)  # q . k for each pair
    return float(np.var(dots, ddof=1))
''', "query_equals_key", "one array of draws used as both the queries and the keys: the dot products "
         "are squared lengths, whose variance is 2 d_k"),
    _wrong("h7_var_int_seed_as_generator", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    if rng is None:
        rng = np.random.default_rng()
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    return float(np.var((q * k).sum(axis=1), ddof=1))
''', "seed_not_passed_to_default_rng", "default_rng called only when no rng is given: an integer seed is "
         "then used as a generator and raises AttributeError"),
    _wrong("h7_scale_multiplies", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    return np.asarray(scores) * math.sqrt(d_k)  # scale by sqrt(d_k)
''', "multiplies_by_root", "'scale by the square root' done as a multiplication"),
    _wrong("h7_scale_power_precedence", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    return np.asarray(scores) / d_k**1/2  # d_k to the power 1/2
''', None, "d_k**1/2 parses as (d_k**1)/2: the scores are divided by d_k and then by 2"),
    _wrong("h7_scale_standardise", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    scores = np.asarray(scores, dtype=float)
    # the divisor is a variance normalisation: give the scores mean 0 and variance 1
    return (scores - scores.mean()) / scores.std()
''', "standardised_by_sample_statistics", "a statistician reads 'variance normalisation' as z-scoring "
         "the scores at hand; d_k is never used and the mean is subtracted too"),
    _wrong("h7_lead_flag_means_already_scaled", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    # scaled=True: the scores are already scaled, nothing more to divide
    scores = raw if scaled else raw / math.sqrt(width)
    return float(softmax(scores).max())
''', "scaled_flag_inverted", "the flag read as 'the input is already scaled': both curves are swapped, "
         "scaled grows towards 1 and unscaled stays at 0.665"),
    _wrong("h7_lead_raw_linear_in_width", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    raw = np.array([2.0, 1.0, 0.0]) * width  # dot products grow with the width
    scores = raw / math.sqrt(width) if scaled else raw
    return float(softmax(scores).max())
''', "raw_scores_grow_linearly", "the raw scores grown like the width instead of its square root: "
         "the scaled curve is no longer flat (right only at width 1)"),
    _wrong("h7_jac_identity_minus_outer", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    return np.eye(len(p)) - np.outer(p, p)  # delta_ij - p_i p_j
''', "kronecker_delta_without_p", "p_i (delta_ij - p_j) expanded as delta_ij - p_i p_j: the diagonal "
         "gets 1 - p_j^2 instead of p_j (1 - p_j), and a saturated softmax no longer gives a zero Jacobian"),
    _wrong("h7_jac_softmax_of_p", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    w = softmax(np.asarray(p, dtype=float))  # the softmax at p
    return np.diag(w) - np.outer(w, w)
''', "jacobian_at_input_p", "'the Jacobian of the softmax at p' read with p as the scores: the softmax "
         "is applied to the probabilities once more"),
    _wrong("h7_sdpa2_scaled_twice", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    d_k = Q.shape[-1]
    scores = attention_scores(Q, K) / math.sqrt(d_k)  # scaled scores
    weights = softmax(scale_scores(scores, d_k))
    return weighted_average(weights, V), weights
''', "scaled_twice", "the division written out and scale_scores called as well: scores divided by d_k"),
    _wrong("h7_sdpa2_ndim_as_width", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.ndim)  # d_k, the dimension of the queries
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
''', "ndim_as_key_width", "'the dimension of the queries' taken as Q.ndim: right on the lesson's 2-D "
         "example (d_k = 2 = ndim), wrong on every other width and on batches"),
    _wrong("h7_sdpa2_returns_scores", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    scores = scale_scores(attention_scores(Q, K), np.shape(Q)[-1])
    return weighted_average(softmax(scores), V), scores
''', "returns_scores_as_weights", "the scaled scores returned in place of the weights (the output is right)"),
    _wrong("h7_sdpa2_both_sides_divided", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q, K = np.asarray(Q), np.asarray(K)
    root = math.sqrt(Q.shape[-1])
    weights = softmax(attention_scores(Q / root, K / root))  # scale the queries and the keys alike
    return weighted_average(weights, V), weights
''', "queries_and_keys_both_divided", "the divisor applied to both factors, so the scores are divided by d_k"),
    _wrong("h7_stop_scores_entrywise", A02, "STOP_AND_TRY_SCORES", '''\
STOP_AND_TRY_SCORES = STOP_K * STOP_Q  # each key times the query
''', "products_not_summed", "'q times k' as numpy's entrywise product: a 3 x 2 table, not three dot products"),
    _wrong("h7_stop_weights_no_exp", A02, "STOP_AND_TRY_WEIGHTS", '''\
STOP_AND_TRY_WEIGHTS = (STOP_K @ STOP_Q / math.sqrt(2)) / (STOP_K @ STOP_Q / math.sqrt(2)).sum()
''', "normalised_without_exponential", "the scaled scores divided by their total, without the "
         "exponential: weights that can be negative or huge"),
    _wrong("h7_stop_largest_longest_key", A02, "STOP_AND_TRY_LARGEST", '''\
STOP_AND_TRY_LARGEST = int(np.argmax(np.linalg.norm(STOP_K, axis=1))) + 1
''', "longest_key_wins", "the longest key taken as the winner (reason b), whatever its direction"),
    _wrong("h7_stop_reason_longest", A02, "STOP_AND_TRY_REASON", '''\
STOP_AND_TRY_REASON = "b"
''', "longest_key_wins", "'that key is the longest, and a longer key always gets more weight'"),
    _wrong("h7_concepts02_power_of_two", A02, "CONCEPTS_02", '''\
CONCEPTS_02 = ("c",)
''', "unit_variance_needs_power_of_two", "every width in the notebook's plots is a power of two"),
    _right("h7_ok_var_np_cov", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    q = rng.normal(0.0, 1.0, size=(n_samples, d_k))
    k = rng.normal(0.0, 1.0, size=(n_samples, d_k))
    return float(np.cov((q * k).sum(axis=1)))  # np.cov of one variable is its variance (ddof=1)
''', "a statistician's np.cov of the one variable"),
    _right("h7_ok_scale_negative_power", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    return np.multiply(scores, d_k ** -0.5)
''', "multiplied by d_k to the power -1/2 (a Python float: float32 stays float32)"),
    _right("h7_ok_lead_scale_cancels", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    # scaled, the sqrt(width) cancels and the scores are (2, 1, 0) at every width
    scores = np.array([2.0, 1.0, 0.0]) * (1.0 if scaled else math.sqrt(width))
    e = np.exp(scores - scores.max())
    return float(e.max() / e.sum())
''', "the cancellation done before the softmax, an own stable softmax"),
    _right("h7_ok_jac_broadcast", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p)
    if p.dtype.kind != "f":
        p = p.astype(float)
    return np.diagflat(p) - p[:, None] * p[None, :]
''', "diagflat and a broadcast outer product"),
    _right("h7_ok_sdpa2_fourth_roots", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q, K = np.asarray(Q), np.asarray(K)
    quarter = Q.shape[-1] ** 0.25  # sqrt(d_k) split evenly between the queries and the keys
    weights = softmax(attention_scores(Q / quarter, K / quarter))
    return weighted_average(weights, V), weights
''', "the divisor split as a fourth root on each side"),
    _right("h7_ok_stop_scores_listcomp", A02, "STOP_AND_TRY_SCORES", '''\
STOP_AND_TRY_SCORES = [float(STOP_Q @ key) for key in STOP_K]
''', "one dot product per key, as a list"),
    _right("h7_ok_stop_weights_exp", A02, "STOP_AND_TRY_WEIGHTS", '''\
STOP_AND_TRY_WEIGHTS = np.exp(STOP_K @ STOP_Q / 2 ** 0.5) / np.exp(STOP_K @ STOP_Q / 2 ** 0.5).sum()
''', "the softmax typed out (the scores are small: no shift needed)"),
    _right("h7_ok_stop_largest_from_weights", A02, "STOP_AND_TRY_LARGEST", '''\
STOP_AND_TRY_LARGEST = int(np.argmax(softmax(STOP_K @ STOP_Q / math.sqrt(2)))) + 1
''', "the argmax of the weights, numbered from 1"),
]

# ---------------------------------------------------------------- 03_masking
NB03 = [
    _wrong("h7_causal_always_square", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    # queries and keys are the same sequence, so the mask is n x n
    return np.tril(np.ones((n_q, n_q), dtype=bool))
''', "n_k_ignored", "the mask built square from n_q whatever n_k is: right for self-attention only"),
    _wrong("h7_causal_square_tril_indices", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    mask = np.zeros((n_q, n_k), dtype=bool)
    mask[np.tril_indices(n_q)] = True
    return mask
''', "square_triangle_indices", "np.tril_indices(n_q) lists a square triangle: right when n_k >= n_q, "
         "an IndexError when there are fewer keys than queries"),
    _wrong("h7_pad_true_marks_padding", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    return (np.arange(n_k) >= lengths[:, None])[:, None, :]  # True where the padding is
''', "true_marks_padding", "PyTorch's key_padding_mask habit (True = padding) against this course's "
         "True = may attend"),
    _wrong("h7_pad_one_based_strict", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    positions = np.arange(1, n_k + 1)  # positions 1, 2, ..., n_k
    return (positions < lengths[:, None])[:, None, :]
''', "one_based_positions", "positions counted from 1 but the 0-based rule j < L kept: the last real "
         "key of every sequence is hidden"),
    _wrong("h7_apply_dtype_is_bool", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores, mask = np.asarray(scores), np.asarray(mask)
    if mask.dtype is bool:
        return np.where(mask, scores, -np.inf)
    return scores + mask
''', None, "`mask.dtype is bool` is never true (a numpy dtype is not the type bool): every boolean "
         "mask is added, True as +1 and False as 0"),
    _wrong("h7_apply_true_hides", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores, mask = np.asarray(scores), np.asarray(mask)
    if mask.dtype == bool:
        return np.where(mask, -np.inf, scores)  # the masked positions become -inf
    return scores + mask
''', "true_means_hidden", "'masked' read as the True entries: keeps exactly the keys it should hide"),
    _wrong("h7_apply_boolean_index", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    out = np.array(scores, dtype=float)  # a copy: the caller still needs the scores
    mask = np.asarray(mask)
    if mask.dtype == bool:
        out[~mask] = -np.inf
    else:
        out += mask
    return out
''', "boolean_index_needs_full_shape", "boolean indexing with a mask that only broadcasts: right when "
         "the mask has the scores' shape, an IndexError for a (batch, 1, n_k) or shared (n_q, n_k) mask"),
    _wrong("h7_apply_negative_bias_hides", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores, mask = np.asarray(scores), np.asarray(mask)
    if mask.dtype != bool:
        mask = mask >= 0  # floating mask: 0 keeps, negative hides
    return np.where(mask, scores, -np.inf)
''', "bias_read_as_keep_or_hide", "a floating mask turned into keep/hide: 0 and -inf work, but a finite "
         "bias hides (negative) or does nothing (positive) instead of shifting the score"),
    _wrong("h7_sdpa3_mask_transposed", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        # a mask is indexed [key, query]: key j may be seen by query i
        scores = apply_mask(scores, np.swapaxes(mask, -1, -2))
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
''', "mask_rows_are_keys", "the mask's rows taken as keys: a causal mask lets every query see the "
         "future instead of the past, a padding mask raises or hides queries"),
    _wrong("h7_sdpa3_float_mask_ignored", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None and np.asarray(mask).dtype == bool:
        scores = apply_mask(scores, mask)
    weights = softmax(scores)
    return weighted_average(weights, V), weights
''', "float_mask_ignored", "only boolean masks applied: a floating mask (0/-inf or a bias) is dropped"),
    _wrong("h7_sdpa3_mask_reshaped", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        mask = np.reshape(mask, scores.shape)  # give the mask the shape of the scores
        scores = apply_mask(scores, mask)
    weights = softmax(scores)
    return weighted_average(weights, V), weights
''', "mask_reshaped_not_broadcast", "reshape where broadcast_to was meant: right when the mask already "
         "has the scores' shape, raises for a padding mask or one mask shared by a batch"),
    _wrong("h7_sdpa3_bool_as_bias", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        scores = apply_mask(scores, np.asarray(mask, dtype=scores.dtype))  # same dtype as the scores
    weights = softmax(scores)
    return weighted_average(weights, V), weights
''', "boolean_mask_cast_to_bias", "the mask cast to the scores' dtype 'to be safe': True becomes a +1 "
         "bias, False a 0 bias, and nothing is hidden"),
    _right("h7_ok_causal_not_upper", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return ~np.triu(np.ones((n_q, n_k), dtype=bool), k=1)  # everything but the strict future
''', "the complement of the strict upper triangle"),
    _right("h7_ok_causal_fromfunction", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    return np.fromfunction(lambda i, j: j <= i, (n_q, n_k), dtype=int)
''', "np.fromfunction on the index grids"),
    _right("h7_ok_pad_three_axes", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    return np.arange(n_k) < np.asarray(lengths)[:, None, None]  # (n_k,) vs (batch, 1, 1)
''', "the comparison broadcast straight to (batch, 1, n_k)"),
    _right("h7_ok_apply_bias_from_bool", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores, mask = np.asarray(scores), np.asarray(mask)
    if mask.dtype == bool:
        bias = np.zeros(mask.shape, dtype=scores.dtype if scores.dtype.kind == "f" else float)
        bias[~mask] = -np.inf
        mask = bias
    return scores + mask
''', "a boolean mask converted to a 0/-inf bias, then added like a floating one"),
    _right("h7_ok_sdpa3_multiply_where", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = attention_scores(Q, K) * (1.0 / math.sqrt(Q.shape[-1]))
    if mask is not None:
        mask = np.asarray(mask)
        scores = np.where(mask, scores, -np.inf) if mask.dtype == bool else scores + mask
    weights = softmax(scores)
    return weights @ np.asarray(V), weights
''', "scale by multiplication, mask inline, the given guarded softmax"),
]

# ---------------------------------------------------------------- 04_heads
NB04 = [
    _wrong("h7_project_flattened_batch", A04, "project", '''\
def project(X, W):
    X, W = np.asarray(X), np.asarray(W)
    return X.reshape(-1, X.shape[-1]) @ W  # every position of every sequence as one row
''', "batch_flattened_not_restored", "the batch flattened into rows for one matrix product and never "
         "reshaped back: right for 2-D X, (batch * n, d_out) for a batch"),
    _wrong("h7_count_one_head", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    if d_k is None:
        d_k = d_model // num_heads
    if d_v is None:
        d_v = d_model // num_heads
    maps = d_model * (2 * d_k + d_v)  # W_q, W_k, W_v
    out = d_v * d_model if output_projection else 0
    return maps + out
''', "counts_one_head_only", "the per-head formula d_model (2 d_k + d_v) used for the whole layer: "
         "right with one head only"),
    _wrong("h7_count_with_biases", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model // num_heads if d_k is None else d_k
    d_v = d_model // num_heads if d_v is None else d_v
    count = num_heads * (d_model + 1) * (2 * d_k + d_v)  # weights and biases of W_q, W_k, W_v
    if output_projection:
        count += (num_heads * d_v + 1) * d_model  # W_o and its bias
    return count
''', "biases_counted", "PyTorch's nn.MultiheadAttention has in_proj_bias and out_proj.bias; the notebook's "
         "maps have no bias"),
    _wrong("h7_count_is_not_none", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    if d_k is None:
        d_k = d_model // num_heads
    if d_v is None:
        d_v = d_model // num_heads
    count = num_heads * d_model * (2 * d_k + d_v)
    if output_projection is not None:
        count += num_heads * d_v * d_model
    return count
''', None, "the `is not None` test of the optional widths copied to the flag: False is not None, so W_o "
         "is always counted"),
    _wrong("h7_split_three_axes_only", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    b, n, d_model = X.shape
    return X.reshape(b, n, num_heads, d_model // num_heads).transpose(0, 2, 1, 3)
''', "written_for_one_batch_axis", "written for (batch, n, d_model) with the axes hard-coded: raises on "
         "a single 2-D sequence and on two batch axes"),
    _wrong("h7_split_true_division", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    *batch, n, d_model = X.shape
    return np.swapaxes(X.reshape(*batch, n, num_heads, d_model / num_heads), -3, -2)
''', None, "d_model / num_heads is a float, and reshape refuses a float size (TypeError)"),
    _wrong("h7_split_swaps_last_two", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    *batch, n, d_model = X.shape
    X = X.reshape(*batch, n, num_heads, d_model // num_heads)
    return np.swapaxes(X, -2, -1)  # swap the axes n, h
''', "wrong_pair_of_axes_swapped", "'swap the axes n, h' done on the last two axes (h and d): "
         "(..., n, d, h) instead of (..., h, n, d)"),
    _wrong("h7_merge_sums_heads", A04, "merge_heads", '''\
def merge_heads(X):
    return np.asarray(X).sum(axis=-3)  # join the heads back into one
''', "heads_added_not_concatenated", "'joining the heads' done by adding them: width d instead of h * d"),
    _wrong("h7_merge_one_batch_axis", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.swapaxes(np.asarray(X), -3, -2)  # (batch, n, h, d)
    return X.reshape(X.shape[0], X.shape[1], -1)
''', "written_for_one_batch_axis", "the reshape written for exactly one batch axis: right for "
         "(batch, h, n, d), wrong shape for (h, n, d) and for two batch axes"),
    _wrong("h7_mha_queries_from_read_rows", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_kv, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.ndim >= 2:
            mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
''', "queries_from_read_rows", "all three projections made from X_kv (written with self-attention in "
         "mind): invisible when X_q is X_kv, wrong rows and shape otherwise"),
    _wrong("h7_mha_output_map_transposed", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None and np.ndim(mask) >= 2:
        mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return merge_heads(heads) @ np.asarray(W_o).T, weights  # out_proj: x W_o^T
''', "output_map_transposed", "PyTorch's Linear layout (out_features, in_features) applied to W_o: "
         "raises when W_o is not square, wrong values when it is"),
    _wrong("h7_mha_weights_merged", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.ndim >= 2:
            mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), merge_heads(weights)  # heads joined back, like the output
''', "weights_merged_like_values", "the weights of the heads merged like the head outputs: "
         "(..., n_q, h * n_k) instead of one table per head"),
    _wrong("h7_asym_frobenius", A04, "score_asymmetry", '''\
def score_asymmetry(X, W_q, W_k):
    X = np.asarray(X)
    S = (X @ np.asarray(W_q)) @ (X @ np.asarray(W_k)).T
    return float(np.linalg.norm(S - S.T))  # size of the asymmetric part
''', "norm_not_largest_gap", "the Frobenius norm of S - S^T (all gaps together, each counted twice) "
         "instead of the largest single gap"),
    _wrong("h7_asym_query_map_twice", A04, "score_asymmetry", '''\
def score_asymmetry(X, W_q, W_k):
    X = np.asarray(X)
    S = (X @ np.asarray(W_q)) @ (X @ np.asarray(W_q)).T
    return float(np.abs(S - S.T).max())
''', "query_map_used_for_keys", "the key side written with W_q (copy-paste): the table is symmetric "
         "and the gap always 0"),
    _wrong("h7_concepts04_heads_split_sentence", A04, "CONCEPTS_04", '''\
CONCEPTS_04 = ("d", "b", "b")
''', "heads_divide_the_sentence", "question 3: each head taken to read its own part of the sentence"),
    _right("h7_ok_project_np_dot", A04, "project", '''\
def project(X, W):
    return np.dot(X, W)  # for a 2-D W, np.dot sums the last axis of X against the rows of W
''', "np.dot, which equals matmul when the second factor is a matrix"),
    _right("h7_ok_count_total_widths", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    qk_width = num_heads * (d_model // num_heads if d_k is None else d_k)  # columns of W_q (and W_k)
    v_width = num_heads * (d_model // num_heads if d_v is None else d_v)   # columns of W_v
    total = 2 * d_model * qk_width + d_model * v_width
    return int(total + (v_width * d_model if output_projection else 0))
''', "counted from the total widths of the wide maps"),
    _right("h7_ok_split_moveaxis", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    return np.moveaxis(X.reshape(*X.shape[:-1], num_heads, -1), -2, -3)
''', "reshape with -1 for the head width, then moveaxis"),
    _right("h7_ok_merge_moveaxis", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.moveaxis(np.asarray(X), -3, -2)  # (..., n, h, d)
    return X.reshape(*X.shape[:-2], -1)
''', "moveaxis back and a reshape with -1"),
    _right("h7_ok_mha_mask_index", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv = np.asarray(X_q), np.asarray(X_kv)
    heads_q = split_heads(X_q @ np.asarray(W_q), num_heads)
    heads_k = split_heads(X_kv @ np.asarray(W_k), num_heads)
    heads_v = split_heads(X_kv @ np.asarray(W_v), num_heads)
    if mask is not None and np.ndim(mask) >= 2:
        mask = np.asarray(mask)[..., None, :, :]  # one mask for every head
    out, weights = scaled_dot_product_attention(heads_q, heads_k, heads_v, mask)
    return merge_heads(out) @ np.asarray(W_o), weights
''', "inline products and a None index for the head axis of the mask"),
    _right("h7_ok_asym_pair_loop", A04, "score_asymmetry", '''\
def score_asymmetry(X, W_q, W_k):
    X = np.asarray(X)
    S = (X @ np.asarray(W_q)) @ (X @ np.asarray(W_k)).T
    gap = 0.0
    for i in range(len(S)):
        for j in range(i + 1, len(S)):
            gap = max(gap, abs(S[i, j] - S[j, i]))
    return float(gap)
''', "a loop over the pairs above the diagonal"),
]

# ---------------------------------------------------------------- 05_cross_attention
NB05 = [
    _wrong("h7_self_flag_as_mask", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=causal)
''', "flag_passed_as_mask", "the causal flag handed over as the mask: True hides nothing (no causal "
         "mask), False hides every key (zero output)"),
    _wrong("h7_self_query_map_for_keys", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    mask = causal_mask(X.shape[-2]) if causal else None
    return multi_head_attention(X, X, W_q, W_q, W_v, W_o, num_heads, mask=mask)  # the sequence asks itself
''', "query_map_used_for_keys", "'the sequence reads itself' taken as one map for asking and being asked: "
         "W_q passed for W_k, so every score table is symmetric"),
    _wrong("h7_cross_if_lengths", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths:
        mask = padding_mask(enc_lengths, np.shape(X_enc)[-2])
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', None, "`if enc_lengths:` on an array: raises for several lengths, and a batch of one empty "
         "sentence (lengths [0]) counts as 'no lengths'"),
    _wrong("h7_cross_head_axis_twice", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_enc = np.asarray(X_enc)
    mask = None
    if enc_lengths is not None:
        # (batch, 1, 1, n_enc): an axis for the heads, as notebook 04 says
        mask = padding_mask(enc_lengths, X_enc.shape[-2])[:, None]
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "head_axis_added_twice", "the head axis of notebook 04 added by hand although multi_head_attention "
         "adds it: the batch axis of the mask no longer lines up"),
    _wrong("h7_cross_lengths_minus_one", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_enc = np.asarray(X_enc)
    mask = None
    if enc_lengths is not None:
        last = np.asarray(enc_lengths) - 1  # index of the last real word
        mask = padding_mask(last, X_enc.shape[-2])
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "lengths_read_as_last_index", "the lengths turned into the index of the last real word before "
         "padding_mask: that word is hidden too, and an empty sentence gives -1"),
    _wrong("h7_concepts05_others_masked", A05, "CONCEPTS_05", '''\
CONCEPTS_05 = ("c",)
''', "weight_means_others_masked", "a weight of 0.7 read as the other words having been masked out"),
    _right("h7_ok_self_comparison_mask", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    n = np.shape(X)[-2]
    mask = (np.arange(n)[:, None] >= np.arange(n)) if causal else None  # key j <= query i
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask)
''', "the causal mask by a comparison, passed positionally"),
    _right("h7_ok_cross_lengths_compare", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        mask = np.arange(np.shape(X_enc)[-2]) < np.asarray(enc_lengths)[:, None, None]
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "the padding mask by a broadcast comparison"),
    _right("h7_ok_cross_len_of_first", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    if enc_lengths is None:
        return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads)
    n_enc = len(X_enc[0])  # X_enc is (batch, n_enc, d_model) when lengths are given
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads,
                                mask=padding_mask(enc_lengths, n_enc))
''', "two calls, n_enc read off the first sentence"),
]

# ---------------------------------------------------------------- 06_long_sequences
NB06 = [
    _wrong("h7_table_bits", A06, "TABLE_BYTES", '''\
TABLE_BYTES = 8 * 4096 * 4096 * 32  # float32
''', "bits_not_bytes", "the 32 of float32 (bits) used as the size of a number in bytes"),
    _wrong("h7_table_mebibytes", A06, "TABLE_BYTES", '''\
TABLE_BYTES = 8 * 4096 * 4096 * 4 // 2**20  # in MiB
''', "unit_not_bytes", "the answer given in MiB (512) although the question asks for bytes"),
    _wrong("h7_table_linear_in_n", A06, "TABLE_BYTES", '''\
TABLE_BYTES = 8 * 4096 * 4  # 8 heads, 4096 weights, 4 bytes
''', "table_linear_in_n", "one weight per position instead of one per (query, key) pair"),
    _wrong("h7_block_rescale_inverted", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full((*batch, n_q, 1), -np.inf)
    total = np.zeros((*batch, n_q, 1))
    acc = np.zeros((*batch, n_q, V.shape[-1]))
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = (Q @ np.swapaxes(K[..., start:stop, :], -1, -2)) * factor
        if mask is not None:
            s = np.where(mask[..., start:stop] if np.shape(mask)[-1] > 1 else mask, s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        safe = np.where(np.isneginf(new_m), 0.0, new_m)
        grow = np.exp(safe - np.where(np.isneginf(m), safe, m))  # how much the maximum grew
        p = np.exp(s - safe)
        total = total * grow + p.sum(axis=-1, keepdims=True)
        acc = acc * grow + p @ V[..., start:stop, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)
''', "rescale_factor_inverted", "the old sums multiplied by e^(m' - m), how much the maximum grew, "
         "instead of e^(m - m'): right with one block, wrong once a later block raises the maximum"),
    _wrong("h7_block_scale_as_divisor", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    divisor = math.sqrt(Q.shape[-1]) if scale is None else scale  # the scale of the scores
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full((*batch, Q.shape[-2], 1), -np.inf)
    total = np.zeros((*batch, Q.shape[-2], 1))
    acc = np.zeros((*batch, Q.shape[-2], V.shape[-1]))
    for start in range(0, K.shape[-2], block_size):
        s = Q @ np.swapaxes(K[..., start:start + block_size, :], -1, -2) / divisor
        if mask is not None:
            block_mask = mask[..., start:start + block_size] if np.shape(mask)[-1] > 1 else mask
            s = np.where(block_mask, s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(np.isneginf(new_m), 0.0, new_m)
        p = np.exp(s - shift)
        rescale = np.exp(m - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:start + block_size, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)
''', "scale_read_as_divisor", "`scale` taken as the divisor sqrt(d_k) instead of the factor: right by "
         "default, wrong whenever a scale is given"),
    _wrong("h7_block_max_starts_at_zero", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    # start the running maximum at 0: no -inf, so no -inf - -inf to guard against
    m = np.zeros((*batch, Q.shape[-2], 1))
    total = np.zeros_like(m)
    acc = np.zeros((*batch, Q.shape[-2], V.shape[-1]))
    for start in range(0, K.shape[-2], block_size):
        stop = min(start + block_size, K.shape[-2])
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
        if mask is not None:
            s = np.where(mask[..., start:stop] if np.shape(mask)[-1] > 1 else mask, s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        p = np.exp(s - new_m)
        total = total * np.exp(m - new_m) + p.sum(axis=-1, keepdims=True)
        acc = acc * np.exp(m - new_m) + p @ V[..., start:stop, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)
''', "running_max_initialised_to_zero", "the running maximum started at 0 to avoid the -inf guard: "
         "exact while some score is above about -700, but when every score of a row lies far below 0 "
         "all exponentials underflow and the row becomes zeros"),
    _wrong("h7_block_slices_first_axis", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_k = K.shape[-2]
    out_shape = np.broadcast_shapes(Q.shape[:-1] + (1,), V.shape[:-2] + (1, 1))
    m = np.full(out_shape, -np.inf)
    total = np.zeros(out_shape)
    acc = np.zeros(out_shape[:-1] + (V.shape[-1],))
    for start in range(0, n_k, block_size):
        K_block, V_block = K[start:start + block_size], V[start:start + block_size]  # the next keys
        s = Q @ np.swapaxes(K_block, -1, -2) * factor
        if mask is not None:
            block_mask = np.asarray(mask)
            block_mask = block_mask[..., start:start + block_size] if block_mask.shape[-1] > 1 else block_mask
            s = np.where(block_mask, s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(np.isneginf(new_m), 0.0, new_m)
        rescale = np.exp(m - shift)
        p = np.exp(s - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V_block
        m = new_m
    return acc / np.where(total == 0, 1, total)
''', "blocks_cut_along_first_axis", "K[start:stop] cuts the first axis: the keys of one (n_k, d_k) "
         "matrix, but the batch entries of a batched K and V"),
    _right("h7_ok_table_literal", A06, "TABLE_BYTES", '''\
TABLE_BYTES = 536_870_912  # 8 heads x 4096 x 4096 weights x 4 bytes
''', "the number worked out by hand and typed with underscores"),
    _right("h7_ok_block_scaled_keys", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    dtype = np.result_type(Q, K, V)
    if mask is not None:
        mask = np.broadcast_to(mask, (*batch, n_q, n_k))  # a view: no n_q x n_k copy is made
    best = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)
    norm = np.zeros((*batch, n_q, 1), dtype=dtype)
    out = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
    for start in range(0, n_k, block_size):
        keys = K[..., start:start + block_size, :] * factor  # scale the keys of this block
        s = Q @ np.swapaxes(keys, -1, -2)
        if mask is not None:
            s = np.where(mask[..., start:start + block_size], s, -np.inf)
        new_best = np.maximum(best, s.max(axis=-1, keepdims=True))
        ref = np.where(np.isneginf(new_best), 0, new_best)
        decay = np.exp(best - ref)
        e = np.exp(s - ref)
        norm = norm * decay + e.sum(axis=-1, keepdims=True)
        out = out * decay + e @ V[..., start:start + block_size, :]
        best = new_best
    return out / np.where(norm > 0, norm, 1)
''', "the keys of each block scaled instead of the queries, the mask broadcast as a view and sliced"),
]

# ---------------------------------------------------------------- 07_scoring_functions
NB07 = [
    _wrong("h7_add_tanh_after_v", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    a = np.asarray(Q) @ np.asarray(W_q)
    c = np.asarray(K) @ np.asarray(W_k)
    return np.tanh((a[..., :, None, :] + c[..., None, :, :]) @ np.asarray(v))
''', "squash_after_weighting", "the tanh applied after v: tanh(v^T (q W_q + k W_k)), every score "
         "squashed into (-1, 1) and the pair's hidden units never squashed"),
    _wrong("h7_add_relu", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    hidden = (np.asarray(Q) @ np.asarray(W_q))[..., :, None, :] + (np.asarray(K) @ np.asarray(W_k))[..., None, :, :]
    return np.maximum(hidden, 0) @ np.asarray(v)  # the hidden layer's activation
''', "relu_for_tanh", "a feed-forward layer written with the ReLU a PyTorch user reaches for, not tanh"),
    _wrong("h7_sdot_no_divisor", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    q = np.asarray(Q) @ np.asarray(W_q)
    k = np.asarray(K) @ np.asarray(W_k)
    return q @ np.swapaxes(k, -1, -2)
''', "divisor_left_out", "the two projections and the dot product, without the division by sqrt(h)"),
    _wrong("h7_bil_divisor_added", A07, "bilinear_scores", '''\
def bilinear_scores(Q, K, W):
    Q, K = np.asarray(Q), np.asarray(K)
    return Q @ np.asarray(W) @ np.swapaxes(K, -1, -2) / math.sqrt(K.shape[-1])  # keep the scores' scale
''', "dot_product_divisor_carried_over", "notebook 02's 1/sqrt(d_k) carried over to the bilinear score, "
         "which has no divisor"),
    _wrong("h7_costs_dot_with_v", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * d * d + n * n * d
    # W_q, W_k and the scoring vector
    return 2 * d * h + h, 2 * n * d * h + n * n * h
''', "dot_given_a_scoring_vector", "the additive count copied to the dot product: h parameters of a "
         "vector v the dot product does not have"),
    _wrong("h7_costs_projection_once", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * d * d + n * n * d
    parameters = 2 * d * h + (h if kind == "additive" else 0)
    return parameters, n * d * h + n * n * h  # project the n items, then h per pair
''', "projection_counted_once", "'the projections of the n items' counted once, although the n queries "
         "and the n keys are projected by two maps"),
    _wrong("h7_costs_bilinear_with_h", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * h, n * d * h + n * n * h  # one d x h matrix
    extra = h if kind == "additive" else 0
    return 2 * d * h + extra, 2 * n * d * h + n * n * h
''', "bilinear_given_hidden_width", "the bilinear matrix given the hidden width h like the other two "
         "(h plays no part there: W is d x d)"),
    _wrong("h7_width_strict_budget", A07, "width_for_budget", '''\
def width_for_budget(kind, d, budget):
    per_unit = 2 * d + (1 if kind == "additive" else 0)
    h = 1
    while (h + 1) * per_unit < budget:  # stay under the budget
        h += 1
    return h
''', "strict_budget_inequality", "'within the budget' read as strictly below it: when a width uses the "
         "budget exactly (dot, d = 16, 256) it is refused"),
    _right("h7_ok_add_query_loop", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    Q, K, v = np.asarray(Q), np.asarray(K), np.asarray(v)
    queries = Q @ np.asarray(W_q)
    keys = K @ np.asarray(W_k)
    rows = [np.tanh(queries[..., i:i + 1, :] + keys) @ v for i in range(Q.shape[-2])]  # query i vs all keys
    return np.stack(rows, axis=-2)
''', "a loop over the queries, each against every key at once"),
    _right("h7_ok_sdot_scale_inputs", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    h = np.shape(W_q)[1]
    q = (np.asarray(Q) / math.sqrt(h)) @ np.asarray(W_q)  # the map is linear: scale before projecting
    k = np.asarray(K) @ np.asarray(W_k)
    return q @ np.swapaxes(k, -1, -2)
''', "the divisor applied to the raw queries before the projection"),
    _right("h7_ok_bil_keys_through_WT", A07, "bilinear_scores", '''\
def bilinear_scores(Q, K, W):
    return np.asarray(Q) @ np.swapaxes(np.asarray(K) @ np.asarray(W).T, -1, -2)  # (K W^T)^T = W K^T
''', "W moved onto the keys as K W^T, then transposed"),
    _right("h7_ok_width_count_up", A07, "width_for_budget", '''\
def width_for_budget(kind, d, budget):
    per_unit = 2 * d + (kind == "additive")
    h = 0
    while (h + 1) * per_unit <= budget:
        h += 1
    return h
''', "a count upwards while the next width still fits"),
]

VARIANTS = NB01 + NB02 + NB03 + NB04 + NB05 + NB06 + NB07
