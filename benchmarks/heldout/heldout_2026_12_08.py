"""Held-out answers of 2026-12-08 (issue 24): a seventh blind set of typical student mistakes and correct rewrites.

Written on 2026-12-03 by a helper session (branch ``wt-heldout7``) **without reading the grader**: nothing under
``autograder/checks/``, ``tests/checks/``, ``tests/course/test_catalogue.py`` or
``benchmarks/heldout/judgements/`` was opened, nor anything under ``autograder/catalogue/`` beyond the ``Variant``
class and ``all_variants`` (``catalogue/__init__.py``) and the loader ``load_variants`` (``fairness.py``), nor the
lead's ``/work/team/h7_*`` files; no feedback or misconception texts of the grader were read, and neither the grader
nor ``benchmarks/fairness.py`` was run on these answers. Of the earlier held-out sets only the docstring, the first
100 lines and the last 10 lines of ``heldout_2026_12_07.py`` were read (for the layout), and of all six sets (12_02
to 12_07) only the variant names and the lines holding their labels and ``source`` texts (a grep), to write
different mistakes. Also read: ``Grader.numbers`` in ``autograder/notebook/__init__.py`` (to know that ``STOP_Q``,
``STOP_K`` are the student's numbers). The answers were written from the notebooks' task texts
(``sources/NN_*/NN_*.py``: prose, stubs, the one-line descriptions of the hidden tests), the reference
``attention_ref`` and the two lesson seeds, imagining students of different backgrounds: MATLAB users (``q' * k``
as a 1 x 1 matrix, ``W * V`` typed as ``*``, ``sum(A)`` down the columns, ``sort(..., 'descend')``, column-major
``reshape``, inclusive ``start:stop``, ``size(W)``, 1-based positions), PyTorch/Keras/Hugging Face habits
(``log_softmax``, ``generate_square_subsequent_mask``'s 0/-inf form, a Dense layer's activation, an encoder layer
that returns only the output, ``padding_side='left'``, initialisation-scaled entries), texts with column vectors
(keys stored as columns, ``V^T W^T`` and ``W^T X^T`` not transposed back, weights keys-by-queries, ``W q`` for rows),
keys and values confused (the keys averaged, ``W_k``/``W_v`` swapped, the value map not counted), einsum and
``np.vectorize`` users (einsum's implicit output order), loops-and-lists students (a nested list, a half-filled
symmetric loop, a row loop for one 2-D mask), students who tested on square inputs only (an (n_q, n_q) table, heads
with n == d, a padding mask that is (n_k, n_k)), students who hard-code the worked example (the paper's head width
64), a physicist (the component of q along k), a pandas user (NaN for hidden scores), literal readers of the tasks
and hidden-test lines ("d_model**2 fewer", "the square root of the dimension", "an axis of length one") and Python
or IEEE slips (``/`` for ``//``, ``-inf * 0``). Not labelled as a mistake anywhere: float32 in, float64 out (the
course never asks for the dtype to be kept). The Stop-and-try answers use the per-student numbers ``STOP_Q`` and
``STOP_K`` of notebook 02, never the lesson's typed numbers.

Each answer replaces one solution cell only (the other cells keep the instructor's answers) and defines no name
other than its own task's (helpers, classes and imports live inside the function). A wrong answer is labelled with
the misconception in the author's own words (ids the course does not know; the fairness report lists them as
'unlabelled' with what the checks named), or ``None`` where the mistake is a Python or arithmetic muddle with no one
name; ``source`` says the mistake in one line.

How it was checked (a throw-away script, not kept): each cell is executed in a namespace holding ``math``, ``np``,
what the notebook's first cell imports from ``attention_ref`` and ``attention_ref``'s versions of the notebook's other
task functions (for the Stop-and-try items, 13 draws of ``STOP_Q`` (2,) and ``STOP_K`` (3, 2): the lesson's numbers,
11 random ones rounded to one decimal and one with a strongly opposed key); the new names the cell defines are
compared with its task's; its function is called on 4 to 19 inputs per task of the kinds the notebooks name -- the
seeds' worked examples (as lists, integer lists and arrays), square and non-square, n_q > n_k and n_q < n_k, one and
two leading batch axes, float32, integer input, unnormalised weights and a zero row, softmax along axes 0 and 1 of a
3-D array, scores of 1e3 and 1e4, rows far apart and rows far below 0, a -inf entry, widths from 0.5 to 1e8 with and
without ``scaled``, saturated and one-hot probability vectors, boolean masks of the scores' shape, causal masks with
n_q != n_k, padding masks (batch, 1, n_k) with an empty sequence, one (n_q, n_k) mask shared by a batch of heads,
floating masks (0/-inf and a finite bias), a fully masked row, allowed keys more than 1,000 below a masked one, a
(batch, n_q, n_k) mask (batch 2 and 4, against 2 and 4 heads), the 512-wide layer of 8 heads, d_k != d_v and W_o to
another width, enc_lengths as an array, a list, [0, 3] and a batch of 3 with n_dec = 3, block sizes 1, 3, 4, n_k
and more than n_k, an explicit ``scale``, d_q != d_k != h and d_q = d_k = h, non-symmetric W, several (n, d, h) and
budgets that fit a width exactly -- and compared with ``attention_ref``: same type and shape (booleans for masks, a
Python float or int where the reference returns one), values within 1e-6 (1e-4 for float32 inputs), no NaN, inputs
left unchanged. The written values (``CONCEPTS_*``, ``TABLE_BYTES``, ``STOP_AND_TRY_*``) were compared with the
instructor's answers and with ``STOP_K @ STOP_Q`` and its scaled softmax (weights within 1e-3). The same script run
on the instructor's 36 solution cells (``sources/``) finds no difference. Results:

* every wrong answer differs from the reference, raises or modifies its input on at least one of those inputs (on
  as few as one or two: the NaN of ``log(mask)`` only with floating masks, the mask applied again to the weights
  only with floating masks, the unmasked fallback and the -1e9 fill only on a fully masked row or an empty
  sequence, W_o removed as ``d_model**2`` only when num_heads * d_v != d_model, the mask's head axis in front only
  with a (batch, n_q, n_k) mask, the dot product charged for v only where the extra unit crosses a multiple, the
  (d, n) unpacking of ``merge_heads`` only when n != d);
* every correct rewrite agrees on all of them, with the reference's or the instructor's dtype (float32 kept
  float32; an integer ``Q @ K^T`` stays integer, as the instructor's does) and without a warning (numpy errors
  raised, underflow aside), except ``score_variance``, checked statistically (within 6 standard errors of d_k for
  d_k = 1, 16, 64 and seeds 0, 1, 2 with 20,000 pairs, the same value for the same seed, another for another seed,
  a Generator accepted); the two wrong variances fail that check on 6 (the initialisation scale is right at
  d_k = 1) and 9 of the 9 (d_k, seed) pairs;
* no answer defines a name other than its own task's; ``load_variants`` accepts the file (120 variants).

Counts (wrong / correct / wrong labelled ``None``):

==========================  =====  =======  ====
notebook                    wrong  correct  None
==========================  =====  =======  ====
01_scores_softmax              15        6     0
02_scaling                     16        9     0
03_masking                     12        4     2
04_heads                       17        6     1
05_cross_attention              7        3     0
06_long_sequences               6        2     0
07_scoring_functions           12        5     0
total                          85       35     3
==========================  =====  =======  ====

Measure it (named / vague / wrong on this set alone)::

    .venv/bin/python benchmarks/fairness.py --variants benchmarks/heldout/heldout_2026_12_08.py --seeds 3
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
    _wrong("h8_dot_product_of_sums", A01, "dot_product", '''\
def dot_product(q, k):
    # multiply and add: total of q times total of k
    q = np.asarray(q, dtype=float)
    k = np.asarray(k, dtype=float)
    return float(q.sum() * k.sum())
''', "product_of_sums", "'multiply and add' done in the other order: the sum of q times the sum of k, so "
       "the perpendicular keys (1, 0) and (0, 1) score 1"),
    _wrong("h8_dot_scalar_projection", A01, "dot_product", '''\
def dot_product(q, k):
    # how far q reaches along the direction of k (the component of q along k)
    q = np.asarray(q, dtype=float)
    k = np.asarray(k, dtype=float)
    return float(q @ k / np.linalg.norm(k))
''', "scalar_projection_onto_key", "a physics student's 'component of q along k': divides by the key's "
       "length only, right for the unit keys (1, 0), (0, 1), (-1, 0), not for (0.5, 0.5)"),
    _wrong("h8_dot_matlab_one_by_one", A01, "dot_product", '''\
def dot_product(q, k):
    # q' * k, as in MATLAB, with column vectors
    q = np.asarray(q, dtype=float).reshape(-1, 1)
    k = np.asarray(k, dtype=float).reshape(-1, 1)
    return q.T @ k
''', "one_by_one_matrix_for_scalar", "MATLAB's q' * k on column vectors: the number is right but comes back "
       "as a 1 x 1 array, not a Python float"),
    _wrong("h8_scores_keys_as_columns", A01, "attention_scores", '''\
def attention_scores(Q, K):
    # S = Q K: the keys are the columns of K (K is already "K transposed")
    return np.asarray(Q) @ np.asarray(K)
''', "keys_stored_as_columns", "S = QK copied from a text that stores the keys as columns (d_k, n_k): no "
       "transpose; raises unless n_k = d_k, and then gives the wrong values"),
    _wrong("h8_scores_square_loop", A01, "attention_scores", '''\
def attention_scores(Q, K):
    Q = np.asarray(Q)
    K = np.asarray(K)
    n = Q.shape[-2]
    scores = np.zeros(Q.shape[:-1] + (n,), dtype=np.result_type(Q, K))
    for j in range(n):
        scores[..., j] = np.sum(Q * K[..., j:j + 1, :], axis=-1)
    return scores
''', "assumes_as_many_keys_as_queries", "tested on square examples only: the table is sized (n_q, n_q) and "
       "filled key by key, so extra keys are cut off and fewer keys raise"),
    _wrong("h8_scores_softmaxed", A01, "attention_scores", '''\
def attention_scores(Q, K):
    Q = np.asarray(Q)
    K = np.asarray(K)
    raw = Q @ np.swapaxes(K, -1, -2)
    # the attention scores of a query: how its attention is shared out over the keys
    e = np.exp(raw - raw.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
''', "scores_normalised_to_weights", "'attention scores' taken for the attention weights (many blog posts "
       "call the softmax output the scores): every row already sums to 1"),
    _wrong("h8_softmax_log_probabilities", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    # stable: log-sum-exp with the maximum taken out, as torch.log_softmax does
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))
''', "returns_log_probabilities", "PyTorch's log_softmax (what a classifier's loss takes) returned: "
       "log-weights, all negative, rows do not sum to 1"),
    _wrong("h8_softmax_divide_by_largest", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    # normalise so that the best key gets weight 1
    return e / e.max(axis=axis, keepdims=True)
''', "normalised_by_largest_not_total", "normalises by the largest exponential (1 after the shift) instead "
       "of by the total: the leading weight is 1 and the rows sum to more than 1"),
    _wrong("h8_softmax_sigmoid", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    # squash every score into (0, 1), stable for both signs
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = 1 / (1 + np.exp(-x[pos]))
    ex = np.exp(x[~pos])
    out[~pos] = ex / (1 + ex)
    return out
''', "sigmoid_for_softmax", "a multi-label classifier's sigmoid: each score squashed on its own, nothing "
       "shared across the keys, so the rows do not sum to 1"),
    _wrong("h8_softmax_grand_total", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / np.sum(e)
''', "one_total_for_all_rows", "np.sum without an axis: one grand total for the whole array, right for a "
       "single row of scores, every row sums to less than 1 otherwise"),
    _wrong("h8_wavg_queries_as_columns", A01, "weighted_average", '''\
def weighted_average(weights, V):
    # column form from my notes: out = V^T w^T, one column per query
    weights = np.asarray(weights)
    V = np.asarray(V)
    return np.swapaxes(V, -1, -2) @ np.swapaxes(weights, -1, -2)
''', "output_queries_as_columns", "the column-vector form V^T W^T of a linear-algebra text, never transposed "
       "back: one column per query, shape (d_v, n_q)"),
    _wrong("h8_wavg_matlab_star", A01, "weighted_average", '''\
def weighted_average(weights, V):
    # output = W * V
    return np.asarray(weights) * np.asarray(V)
''', "elementwise_for_matrix_product", "MATLAB's W * V (a matrix product there) typed as numpy's *, which "
       "multiplies entry by entry and broadcasts (the worked example becomes a 3 x 3 table)"),
    _wrong("h8_wavg_argmax_value", A01, "weighted_average", '''\
def weighted_average(weights, V):
    weights = np.asarray(weights)
    V = np.asarray(V)
    best = np.argmax(weights, axis=-1)          # (..., n_q): the key each query trusts most
    return np.take_along_axis(V, best[..., :, None], axis=-2)
''', "hard_choice_not_average", "reads only the value of each query's largest weight (the argmax of "
       "section 6) instead of averaging all the values with their weights"),
    _wrong("h8_wavg_einsum_implicit", A01, "weighted_average", '''\
def weighted_average(weights, V):
    # sum over the shared key index k
    return np.einsum("...qk,...kd", np.asarray(weights), np.asarray(V))
''', "einsum_implicit_output_order", "einsum without '->': numpy then orders the free indices "
       "alphabetically, so '...qk,...kd' returns '...dq', one row per value column"),
    _wrong("h8_concepts01_state_width", A01, "CONCEPTS_01", '''\
CONCEPTS_01 = ("d", "c", "d")
''', "recurrent_limit_is_width", "question 1 answered d: the recurrent network's limit taken to be the "
       "width of its hidden state, not the compression into one fixed-size state"),
    _right("h8_ok_dot_reduce", A01, "dot_product", '''\
def dot_product(q, k):
    from functools import reduce
    from operator import add, mul
    return float(reduce(add, map(mul, q, k), 0.0))
''', "functools.reduce of the pairwise products"),
    _right("h8_ok_scores_transpose_perm", A01, "attention_scores", '''\
def attention_scores(Q, K):
    # as with jnp.transpose: spell out the permutation that swaps the last two axes only
    Q = np.asarray(Q)
    K = np.asarray(K)
    perm = list(range(K.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return np.matmul(Q, np.transpose(K, perm))
''', "an explicit axis permutation for the transpose"),
    _right("h8_ok_scores_vectorize", A01, "attention_scores", '''\
def attention_scores(Q, K):
    # jax.vmap habit: write it for one query and one key, let numpy map it over every pair
    pair = np.vectorize(lambda q, k: q @ k, signature="(d),(d)->()")
    Q = np.asarray(Q)
    K = np.asarray(K)
    return pair(Q[..., :, np.newaxis, :], K[..., np.newaxis, :, :])
''', "np.vectorize with a gufunc signature over every (query, key) pair"),
    _right("h8_ok_softmax_apply_along_axis", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)

    def one_row(row):
        e = np.exp(row - row.max())
        return e / e.sum()

    return np.apply_along_axis(one_row, axis, x)
''', "a one-row softmax applied along the axis with np.apply_along_axis"),
    _right("h8_ok_softmax_expand_dims", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float64)
    top = np.expand_dims(np.max(x, axis=axis), axis)
    e = np.exp(x - top)
    total = np.expand_dims(np.sum(e, axis=axis), axis)
    return e / total
''', "reduced without keepdims, the axis put back with np.expand_dims"),
    _right("h8_ok_wavg_column_form", A01, "weighted_average", '''\
def weighted_average(weights, V):
    # my notes use columns: out^T = V^T W^T; transpose the last two axes back at the end
    weights = np.asarray(weights)
    V = np.asarray(V)
    return np.swapaxes(np.swapaxes(V, -1, -2) @ np.swapaxes(weights, -1, -2), -1, -2)
''', "the column-vector form, transposed back"),
]

# ---------------------------------------------------------------- 02_scaling
NB02 = [
    _wrong("h8_var_initialisation_scale", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    # entries drawn as a layer is initialised: mean 0, standard deviation 1/sqrt(d_k)
    std = 1 / math.sqrt(d_k)
    q = rng.normal(0.0, std, size=(n_samples, d_k))
    k = rng.normal(0.0, std, size=(n_samples, d_k))
    return float(np.var(np.sum(q * k, axis=1), ddof=1))
''', "entries_scaled_like_initialisation", "Xavier/LeCun initialisation habit: entries of variance 1/d_k "
       "instead of 1, so the estimate is about 1/d_k (right at d_k = 1 only)"),
    _wrong("h8_var_matlab_column_sum", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = sum(q * k)        # add up the products
    return float(np.var(dots, ddof=1))
''', "summed_over_samples", "MATLAB's sum(A) adds down the columns: Python's sum over the rows adds the "
       "samples, leaving d_k totals of variance n_samples (NaN at d_k = 1)"),
    _wrong("h8_scale_isqrt", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    # integer square root: exact for the widths 16 and 64
    return np.asarray(scores) / math.isqrt(d_k)
''', "integer_square_root", "math.isqrt, exact on the paper's perfect squares, truncates sqrt(2) to 1: no "
       "scaling at d_k = 2 and a wrong divisor at every width that is not a square"),
    _wrong("h8_scale_shift", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    # bring the scores back down by their typical size sqrt(d_k)
    return np.asarray(scores) - math.sqrt(d_k)
''', "shift_for_division", "'bring the scores back down by their typical size' done by subtracting "
       "sqrt(d_k): a shift, which the softmax does not even see"),
    _wrong("h8_lead_sort_ascending", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    scores = raw / math.sqrt(width) if scaled else raw
    weights = softmax(scores)
    return float(np.sort(weights)[0])      # largest first
''', "sort_taken_as_descending", "MATLAB's sort(w, 'descend') habit: np.sort sorts ascending, so [0] is the "
       "smallest weight (0.090 when scaled), not the leading one"),
    _wrong("h8_lead_sqrt_of_score_count", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    if scaled:
        raw = raw / math.sqrt(raw.size)     # divide by the square root of the dimension
    return float(softmax(raw).max())
''', "divisor_from_number_of_scores", "'the square root of the dimension' taken from the score vector, which "
       "has 3 entries (the keys), not from the width: the scaled curve saturates too"),
    _wrong("h8_jac_transpose_of_1d", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    return np.diag(p) - p * p.T       # diag(p) - p p^T
''', "transpose_of_1d_is_noop", "p p^T typed as p * p.T: .T does nothing to a 1-D array, so row i subtracts "
       "the squares p_j^2 instead of p_i p_j"),
    _wrong("h8_jac_lower_half", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = [float(x) for x in p]
    n = len(p)
    J = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):       # J is symmetric, half of it is enough
            J[i][j] = p[i] * ((1.0 if i == j else 0.0) - p[j])
    return J
''', "symmetric_half_not_mirrored", "a loop over j <= i 'because J is symmetric', never mirrored: the upper "
       "triangle stays 0"),
    _wrong("h8_sdpa2_keys_averaged", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, K), weights
''', "keys_averaged_for_values", "keys and values mixed up in the last step: the weights average the keys "
       "(what each item advertises) instead of the values (what it passes on)"),
    _wrong("h8_sdpa2_divisor_on_values", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    V = np.asarray(V)
    weights = softmax(attention_scores(Q, K), axis=-1)
    # everything here is linear, so the 1/sqrt(d_k) can go on the values at the end
    return weighted_average(weights, V / math.sqrt(Q.shape[-1])), weights
''', "divisor_moved_past_softmax", "'it is all linear': the 1/sqrt(d_k) moved onto the values, across the "
       "softmax, which is not linear; the weights are unscaled and the output shrunk"),
    _wrong("h8_sdpa2_weights_keys_by_queries", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    # column convention of my textbook: A = softmax(K^T Q / sqrt(d)), one column per query
    Q = np.asarray(Q)
    d_k = Q.shape[-1]
    A = softmax(scale_scores(attention_scores(K, Q), d_k), axis=-2)   # (..., n_k, n_q), columns sum to 1
    output = weighted_average(np.swapaxes(A, -1, -2), V)
    return output, A
''', "weights_keys_by_queries", "a text with column vectors computes A = softmax(K^T Q) column by column: "
       "the output is right, but the weights come back keys by queries, (n_k, n_q)"),
    _wrong("h8_stop_scores_sorted", A02, "STOP_AND_TRY_SCORES", '''\
STOP_AND_TRY_SCORES = sorted(STOP_K @ STOP_Q, reverse=True)
''', "scores_sorted_not_in_key_order", "the three scores listed from the largest down, which loses the "
       "order of the keys"),
    _wrong("h8_stop_weights_sqrt_of_keys", A02, "STOP_AND_TRY_WEIGHTS", '''\
STOP_AND_TRY_WEIGHTS = softmax(STOP_K @ STOP_Q / math.sqrt(len(STOP_K)))
''', "divisor_from_number_of_keys", "divides by the square root of the number of keys (3) instead of "
       "sqrt(d_k) = sqrt(2)"),
    _wrong("h8_stop_largest_magnitude", A02, "STOP_AND_TRY_LARGEST", '''\
STOP_AND_TRY_LARGEST = int(np.argmax(np.abs(STOP_K @ STOP_Q))) + 1
''', "largest_magnitude_wins", "the key whose score is largest in size wins, so a strongly opposed key "
       "(a large negative score) is picked"),
    _wrong("h8_stop_reason_reorders", A02, "STOP_AND_TRY_REASON", '''\
STOP_AND_TRY_REASON = "d"
''', "division_reorders_scores", "believes dividing by sqrt(d_k) can change which key has the largest "
       "score"),
    _wrong("h8_concepts02_masked_positions", A02, "CONCEPTS_02", '''\
CONCEPTS_02 = ("d",)
''', "unit_variance_at_masked_positions", "mixes up the divisor with the mask of the next notebook: "
       "unit variance 'only where a mask hides'"),
    _right("h8_ok_var_second_moment", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.einsum("nd,nd->n", q, k)
    # q . k has mean 0 by symmetry, so its variance is its mean square
    return float(np.mean(dots ** 2))
''', "the mean square of the dot products (their mean is known to be 0)"),
    _right("h8_ok_scale_row_comprehension", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    divisor = math.sqrt(d_k)
    return np.array([row / divisor for row in np.asarray(scores)])
''', "one row at a time in a list comprehension, then np.array"),
    _right("h8_ok_lead_logaddexp", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    gap = 1.0 if scaled else math.sqrt(width)     # distance between neighbouring scores
    scores = np.array([2.0, 1.0, 0.0]) * gap
    return float(np.exp(scores[0] - np.logaddexp.reduce(scores)))
''', "the log of the total with np.logaddexp.reduce"),
    _right("h8_ok_jac_einsum", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    n = p.shape[0]
    return np.einsum("i,ij->ij", p, np.eye(n) - p[np.newaxis, :])    # p_i (delta_ij - p_j)
''', "einsum of p with the identity minus p"),
    _right("h8_ok_sdpa2_inner_class", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    class _Attention:
        def __init__(self, d_k):
            self.factor = 1 / math.sqrt(d_k)

        def __call__(self, Q, K, V):
            weights = softmax(attention_scores(Q, K) * self.factor, axis=-1)
            return weighted_average(weights, V), weights

    Q = np.asarray(Q)
    return _Attention(Q.shape[-1])(Q, K, V)
''', "a small callable class defined inside the function"),
    _right("h8_ok_sdpa2_step_list", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    steps = [
        lambda s: scale_scores(s, Q.shape[-1]),
        lambda s: softmax(s, axis=-1),
    ]
    weights = attention_scores(Q, K)
    for step in steps:
        weights = step(weights)
    return weighted_average(weights, V), weights
''', "the steps as a list of functions applied in turn"),
    _right("h8_ok_stop_scores_row_times_keys", A02, "STOP_AND_TRY_SCORES", '''\
STOP_AND_TRY_SCORES = STOP_Q @ STOP_K.T
''', "MATLAB's q * K' : the query row times the keys as columns"),
    _right("h8_ok_stop_weights_typed_out", A02, "STOP_AND_TRY_WEIGHTS", '''\
STOP_AND_TRY_WEIGHTS = np.exp(STOP_K @ STOP_Q / 2 ** 0.5) / np.exp(STOP_K @ STOP_Q / 2 ** 0.5).sum()
''', "the exponentials over their total, typed on one line"),
    _right("h8_ok_stop_largest_max_key", A02, "STOP_AND_TRY_LARGEST", '''\
STOP_AND_TRY_LARGEST = max((1, 2, 3), key=lambda j: float(STOP_K[j - 1] @ STOP_Q))
''', "max over the key numbers with the score as the key function"),
]

# ---------------------------------------------------------------- 03_masking
NB03 = [
    _wrong("h8_causal_additive_form", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    # like generate_square_subsequent_mask: 0 where allowed, -inf above the diagonal
    return np.triu(np.full((n_q, n_k), -np.inf), k=1)
''', "additive_mask_returned", "PyTorch's generate_square_subsequent_mask returns the additive form "
       "(0 / -inf); the task asks for booleans, True = may attend"),
    _wrong("h8_causal_nested_list", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    return [[j <= i for j in range(n_k)] for i in range(n_q)]
''', None, "a list of lists built row by row and never turned into an array"),
    _wrong("h8_pad_both_sides", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    real = np.arange(n_k)[None, :] < lengths[:, None]       # (batch, n_k)
    # a padded position neither reads nor is read
    return real[:, :, None] & real[:, None, :]               # (batch, n_k, n_k)
''', "padding_hides_queries_and_keys", "'padding is not real input' applied to both sides: a (batch, n_k, n_k) "
       "mask that also hides the padded queries; it fits only scores with n_q = n_k"),
    _wrong("h8_pad_axis_in_front", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    mask = np.arange(n_k) < lengths[:, np.newaxis]     # (batch, n_k)
    return mask[np.newaxis]                           # the axis of length one
''', "length_one_axis_in_front", "'give it an axis of length one' done with mask[np.newaxis], which puts "
       "it in front: (1, batch, n_k) lines the batch up with the queries"),
    _wrong("h8_pad_left_padding", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    positions = np.arange(n_k)
    # the padding sits in front of each sequence, the real tokens at the end
    return (positions[None, :] >= n_k - lengths[:, None])[:, None, :]
''', "padding_at_the_start", "Hugging Face's padding_side='left' (the setting for batched generation): "
       "the padding taken to be at the start of each sequence; the notebook pads at the end"),
    _wrong("h8_apply_log_of_mask", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask, dtype=float)
    # True/False -> 1/0, and log 1 = 0 keeps, log 0 = -inf hides: one rule for every mask
    with np.errstate(divide="ignore", invalid="ignore"):
        return scores + np.log(mask)
''', "floating_mask_read_as_probabilities", "the mask read as probabilities of attending and turned into a "
       "bias with log: right for booleans, but an additive mask's 0 becomes -inf and its -inf NaN"),
    _wrong("h8_apply_nan_fill", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        # hidden scores are missing values
        return np.where(mask, scores, np.nan)
    return scores + mask
''', "nan_for_hidden", "a pandas user marks the hidden scores as missing (NaN) instead of -inf; a "
       "softmax over a row with a NaN is NaN everywhere"),
    _wrong("h8_apply_inf_times_inverted", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        mask = -np.inf * ~mask        # the bias: -inf where hidden, 0 where allowed
    return scores + mask
''', None, "the boolean mask turned into a bias as -inf times the inverted mask: -inf * 0 is NaN, so "
           "every allowed score becomes NaN"),
    _wrong("h8_sdpa3_mask_weights_again", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        scores = apply_mask(scores, mask)
    weights = softmax(scores, axis=-1)
    if mask is not None:
        weights = np.where(mask, weights, 0.0)    # make sure hidden keys get exactly 0
    return weighted_average(weights, V), weights
''', "floating_mask_used_as_keep_flags", "'to be safe' the mask applied once more to the weights with "
       "np.where: harmless for booleans, but a floating mask's 0 (keep) is falsy and zeroes the allowed keys"),
    _wrong("h8_sdpa3_empty_row_reads_all", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    raw = scale_scores(attention_scores(Q, K), Q.shape[-1])
    scores = raw if mask is None else apply_mask(raw, mask)
    # a query that may read nothing falls back to reading everything
    nothing = np.all(scores == -np.inf, axis=-1, keepdims=True)
    scores = np.where(nothing, raw, scores)
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
''', "fully_masked_row_unmasked", "a query with no allowed key 'falls back' to unmasked attention over "
       "every key instead of getting zero weights and a zero output"),
    _wrong("h8_sdpa3_query_axis_inserted", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        # a padding mask (batch, n_k) needs its query axis
        scores = apply_mask(scores, np.expand_dims(mask, -2))
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
''', "query_axis_added_to_mask", "expects padding masks of shape (batch, n_k) and inserts the query axis "
       "itself, into masks that already have one: an (n_q, n_k) mask becomes (n_q, 1, n_k)"),
    _wrong("h8_sdpa3_row_loop", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    weights = np.zeros_like(scores, dtype=float)
    for i in range(scores.shape[0]):
        allowed = np.ones(scores.shape[1], dtype=bool) if mask is None else np.asarray(mask)[i]
        if allowed.any():
            weights[i, allowed] = softmax(scores[i, allowed])
    return weights @ V, weights
''', "one_2d_boolean_mask_assumed", "row by row, keeping only the allowed keys: right for one 2-D sequence "
       "with an (n_q, n_k) boolean mask; wrong or raises on batches, padding masks and floating masks"),
    _right("h8_ok_causal_outer", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    return np.greater_equal.outer(np.arange(n_q), np.arange(n_k))
''', "np.greater_equal.outer of the query and key positions"),
    _right("h8_ok_pad_one_based", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    # positions counted from 1 as in my MATLAB notes: key p (1..n_k) is real when p <= length
    p = np.arange(1, n_k + 1)
    return p <= np.asarray(lengths).reshape(-1, 1, 1)
''', "1-based positions with <=, broadcast to (batch, 1, n_k)"),
    _right("h8_ok_apply_masked_array", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    if scores.dtype.kind != "f":
        scores = scores.astype(float)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        hidden = np.broadcast_to(~mask, scores.shape)
        return np.ma.masked_array(scores, mask=hidden, copy=True).filled(-np.inf)
    return scores + mask
''', "a numpy masked array filled with -inf"),
    _right("h8_ok_sdpa3_nan_to_num", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    s = attention_scores(Q, K) / math.sqrt(Q.shape[-1])
    if mask is not None:
        s = apply_mask(s, mask)
    with np.errstate(invalid="ignore"):
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        weights = e / e.sum(axis=-1, keepdims=True)
    weights = np.nan_to_num(weights, nan=0.0)     # a row with no allowed key: 0/0 -> 0
    return weighted_average(weights, V), weights
''', "its own softmax, the NaN of a fully masked row replaced by 0 with np.nan_to_num"),
]

# ---------------------------------------------------------------- 04_heads
NB04 = [
    _wrong("h8_project_positions_as_columns", A04, "project", '''\
def project(X, W):
    # y = W^T x for every column x: the positions are the columns
    X = np.asarray(X)
    W = np.asarray(W)
    return W.T @ np.swapaxes(X, -1, -2)
''', "positions_as_columns", "the column-vector form y = W^T x applied to X^T (positions as columns) and "
       "never transposed back: (d_out, n) instead of (n, d_out)"),
    _wrong("h8_project_with_activation", A04, "project", '''\
def project(X, W):
    # a dense layer: the linear map, then its activation
    return np.tanh(np.asarray(X) @ np.asarray(W))
''', "activation_after_map", "Keras's Dense(activation='tanh') habit: the learned map followed by an "
       "activation, where the query, key and value maps are linear"),
    _wrong("h8_count_values_share_keys", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    if d_k is None:
        d_k = d_model // num_heads
    if d_v is None:
        d_v = d_model // num_heads
    # W_q asks and W_k answers; the value is what the key points at, read through the same map
    count = num_heads * 2 * d_model * d_k
    if output_projection:
        count += num_heads * d_v * d_model
    return count
''', "value_map_not_counted", "the value read as 'what the key points at' and given no map of its own: "
       "W_v is left out of the count"),
    _wrong("h8_count_square_removed", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model // num_heads if d_k is None else d_k
    d_v = d_model // num_heads if d_v is None else d_v
    total = num_heads * d_model * (2 * d_k + d_v) + num_heads * d_v * d_model
    if not output_projection:
        total -= d_model ** 2          # d_model**2 fewer
    return total
''', "removed_output_map_taken_square", "'output_projection=False leaves out d_model**2' taken literally: "
       "W_o removed as d_model**2 even when num_heads * d_v differs from d_model"),
    _wrong("h8_count_paper_head_width", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = 64 if d_k is None else d_k      # the paper's head width
    d_v = 64 if d_v is None else d_v
    count = num_heads * d_model * (2 * d_k + d_v)
    if output_projection:
        count += num_heads * d_v * d_model
    return count
''', "paper_head_width_hardcoded", "the worked example's head width 64 (512 / 8) typed in as the default: "
       "right for the paper's layer only, wrong for one head of 512 and any other width"),
    _wrong("h8_count_float_widths", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_k or d_model / num_heads
    d_v = d_v or d_model / num_heads
    count = num_heads * d_model * (2 * d_k + d_v)
    if output_projection:
        count += num_heads * d_v * d_model
    return count
''', None, "'/' where '//' was meant: the default head width is a float, so the count comes back as "
           "1048576.0, a float, not an int"),
    _wrong("h8_split_positions", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    # each head gets its own stretch of the sequence
    return np.stack(np.split(X, num_heads, axis=-2), axis=-3)
''', "heads_cut_along_positions", "the heads cut along the positions (each head its own part of the "
       "sentence) instead of along the width"),
    _wrong("h8_split_fortran_order", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    *batch, n, d_model = X.shape
    d = d_model // num_heads
    # reshape as in MATLAB, then the heads in front of the positions
    return np.swapaxes(np.reshape(X, (*batch, n, num_heads, d), order="F"), -3, -2)
''', "column_major_reshape", "MATLAB's reshape is column-major; order='F' kept from a port: the width is "
       "cut in the wrong order (and with batch axes the sequences are mixed)"),
    _wrong("h8_split_argument_as_width", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    *batch, n, d_model = X.shape
    # num_heads columns for each head
    X = X.reshape(*batch, n, d_model // num_heads, num_heads)
    return np.swapaxes(X, -3, -2)
''', "head_count_read_as_head_width", "num_heads read as the number of columns per head: d_model // num_heads "
       "heads of width num_heads (the shape is right only when num_heads**2 == d_model)"),
    _wrong("h8_merge_n_and_d_swapped", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.asarray(X)
    *batch, h, d, n = X.shape       # heads, then each head's rows
    return np.swapaxes(X, -3, -2).reshape(*batch, n, h * d)
''', "positions_and_width_confused", "the last two axes unpacked as (d, n): right when the examples have "
       "n == d (square heads), scrambled and misshapen otherwise"),
    _wrong("h8_merge_no_reshape", A04, "merge_heads", '''\
def merge_heads(X):
    # undo the split: the heads back behind the positions
    return np.swapaxes(np.asarray(X), -3, -2)
''', "head_axis_kept", "the swap undone but the reshape forgotten: (..., n, h, d), the heads never joined "
       "into one width"),
    _wrong("h8_mha_key_value_maps_swapped", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_v), num_heads)
    V = split_heads(project(X_kv, W_k), num_heads)
    if mask is not None:
        mask = np.expand_dims(np.asarray(mask), -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
''', "key_and_value_maps_swapped", "keys made with W_v and values with W_k: raises when d_k != d_v, wrong "
       "values when the widths agree"),
    _wrong("h8_mha_mask_axis_front", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None:
        mask = np.asarray(mask)[np.newaxis]      # one more axis, for the heads
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
''', "head_axis_in_front_of_batch", "the head axis of the mask added at the front (mask[None]): right for "
       "one (n_q, n_k) mask, but a (batch, n_q, n_k) mask lines its batch up with the heads"),
    _wrong("h8_mha_queries_prescaled", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    Q = Q / math.sqrt(Q.shape[-1])      # divide by the head width, not by the full width
    if mask is not None:
        mask = np.expand_dims(np.asarray(mask), -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
''', "scaled_again_before_given_attention", "the head width's divisor applied by hand to the queries, and "
       "again inside the given scaled_dot_product_attention: the scores are divided by d_k"),
    _wrong("h8_asym_scaled_scores", A04, "score_asymmetry", '''\
def score_asymmetry(X, W_q, W_k):
    Q = np.asarray(X) @ np.asarray(W_q)
    K = np.asarray(X) @ np.asarray(W_k)
    S = Q @ K.T / math.sqrt(Q.shape[1])      # the scores attention really uses
    return float(np.max(np.abs(S - S.T)))
''', "gap_of_scaled_scores", "measured on the scores divided by sqrt(d_k), as attention uses them, where "
       "the task defines s_ij as the plain dot product"),
    _wrong("h8_asym_weights", A04, "score_asymmetry", '''\
def score_asymmetry(X, W_q, W_k):
    S = (np.asarray(X) @ np.asarray(W_q)) @ (np.asarray(X) @ np.asarray(W_k)).T
    A = softmax(S, axis=-1)             # who reads whom, as weights
    return float(np.abs(A - A.T).max())
''', "gap_of_weights_not_scores", "the gap measured on the softmax weights, whose rows are normalised "
       "separately, so even one shared map gives a gap above 0"),
    _wrong("h8_concepts04_label_meaning", A04, "CONCEPTS_04", '''\
CONCEPTS_04 = ("c", "b", "a")
''', "key_meaning_fixed_before_training", "question 1 answered c: the library analogy taken literally, a key "
       "carries its meaning before training as a label does"),
    _right("h8_ok_project_broadcast_sum", A04, "project", '''\
def project(X, W):
    X = np.asarray(X)
    W = np.asarray(W)
    # every output column is a weighted sum of the input columns
    return (X[..., :, :, np.newaxis] * W).sum(axis=-2)
''', "broadcast products summed over the input width"),
    _right("h8_ok_count_flag_as_factor", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    head = d_model // num_heads
    d_k = head if d_k is None else d_k
    d_v = head if d_v is None else d_v
    per_head = d_model * (d_k + d_k + d_v) + d_v * d_model * bool(output_projection)
    return int(num_heads * per_head)
''', "per head, the flag used as a 0/1 factor for W_o's share"),
    _right("h8_ok_split_permutation", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    nd = X.ndim
    *batch, n, d_model = X.shape
    X = X.reshape(*batch, n, num_heads, d_model // num_heads)
    perm = list(range(nd - 2)) + [nd - 1, nd - 2, nd]
    return X.transpose(perm)
''', "reshape, then a transpose with a permutation built from ndim"),
    _right("h8_ok_merge_einsum", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.asarray(X)
    *batch, h, n, d = X.shape
    return np.einsum("...hnd->...nhd", X).reshape(*batch, n, h * d)
''', "einsum for the axis swap, then a reshape"),
    _right("h8_ok_mha_tensordot_heads", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv = np.asarray(X_q), np.asarray(X_kv)

    def heads_of(X, W):
        W = np.asarray(W)
        W = W.reshape(W.shape[0], num_heads, W.shape[1] // num_heads)        # (d_model, h, d)
        return np.moveaxis(np.tensordot(X, W, axes=([-1], [0])), -2, -3)   # (..., h, n, d)

    Q, K, V = heads_of(X_q, W_q), heads_of(X_kv, W_k), heads_of(X_kv, W_v)
    if mask is not None:
        mask = np.asarray(mask)[..., np.newaxis, :, :]
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    joined = np.moveaxis(heads, -3, -2)
    joined = joined.reshape(*joined.shape[:-2], -1)
    return joined @ np.asarray(W_o), weights
''', "the maps reshaped into heads and applied with tensordot, no split/merge helpers"),
    _right("h8_ok_asym_upper_triangle", A04, "score_asymmetry", '''\
def score_asymmetry(X, W_q, W_k):
    X = np.asarray(X)
    S = X @ np.asarray(W_q) @ np.asarray(W_k).T @ X.T
    return float(np.max(np.abs(np.triu(S - S.T))))
''', "X W_q W_k^T X^T, the largest gap read from the upper triangle"),
]

# ---------------------------------------------------------------- 05_cross_attention
NB05 = [
    _wrong("h8_self_strictly_earlier", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    n = X.shape[-2]
    mask = None
    if causal:
        mask = np.tril(np.ones((n, n), dtype=bool), k=-1)    # only the earlier positions
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "position_cannot_read_itself", "'may not read the words after it' built as 'only the words before "
       "it' (k=-1): a position cannot read itself and the first one reads nothing"),
    _wrong("h8_self_output_only", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    mask = causal_mask(X.shape[-2]) if causal else None
    output, _ = multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
    return output
''', "returns_output_only", "PyTorch's encoder layer returns only the output: the weights are dropped, "
       "not the pair (output, weights)"),
    _wrong("h8_self_no_maps", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    # self-attention: the sequence is its own queries, keys and values
    X = np.asarray(X)
    mask = causal_mask(X.shape[-2]) if causal else None
    return scaled_dot_product_attention(X, X, X, mask=mask)
''', "sequence_used_without_maps", "'queries, keys and values all come from X' read as 'are X': no learned "
       "maps, no heads, no output map"),
    _wrong("h8_cross_lengths_ignored", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    # the decoder asks, the encoder answers
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads)
''', "padding_lengths_ignored", "the roles right, but enc_lengths is accepted and never used: the padding "
       "is read like real input"),
    _wrong("h8_cross_lengths_as_padding", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_enc = np.asarray(X_enc)
    mask = None
    if enc_lengths is not None:
        n_enc = X_enc.shape[-2]
        # enc_lengths[b] padded positions at the end of sentence b
        mask = padding_mask(n_enc - np.asarray(enc_lengths), n_enc)
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "lengths_read_as_padding_counts", "enc_lengths read as the number of padded positions of each sentence "
       "rather than its true length"),
    _wrong("h8_cross_mask_no_query_axis", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_enc = np.asarray(X_enc)
    mask = None
    if enc_lengths is not None:
        n_enc = X_enc.shape[-2]
        mask = np.arange(n_enc) < np.asarray(enc_lengths)[:, None]     # (batch, n_enc)
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "padding_mask_missing_query_axis", "the padding mask built as (batch, n_enc), without the query axis: "
       "it lines the batch up with the queries"),
    _wrong("h8_concepts05_value_length", A05, "CONCEPTS_05", '''\
CONCEPTS_05 = ("d",)
''', "weight_is_value_length", "reads the weight 0.7 as the length of that word's value vector relative to "
       "the others"),
    _right("h8_ok_self_outer_mask", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    positions = np.arange(X.shape[-2])
    mask = np.greater_equal.outer(positions, positions) if causal else None
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "the causal mask as np.greater_equal.outer of the positions"),
    _right("h8_ok_cross_kwargs", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    extra = {}
    if enc_lengths is not None:
        extra["mask"] = padding_mask(np.asarray(enc_lengths), np.shape(X_enc)[-2])
    return multi_head_attention(X_q=X_dec, X_kv=X_enc, W_q=W_q, W_k=W_k, W_v=W_v, W_o=W_o,
                                num_heads=num_heads, **extra)
''', "keyword arguments, the mask passed only when there are lengths"),
    _right("h8_ok_cross_list_mask", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        n_enc = np.asarray(X_enc).shape[-2]
        rows = [[[j < length for j in range(n_enc)]] for length in enc_lengths]
        mask = np.array(rows, dtype=bool)            # (batch, 1, n_enc)
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "the padding mask built as nested lists, then np.array"),
]

# ---------------------------------------------------------------- 06_long_sequences
_BLOCKWISE_LOOP = '''\
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
        if mask is not None:
            block_mask = mask[..., start:stop] if np.shape(mask)[-1] > 1 else mask
            s = np.where(block_mask, s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(new_m == -np.inf, 0, new_m)
        rescale = np.exp(m - shift)
        p = np.exp(s - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:stop, :]
        m = new_m
'''

_BLOCKWISE_START = '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full((*batch, n_q, 1), -np.inf)
    total = np.zeros((*batch, n_q, 1))
    acc = np.zeros((*batch, n_q, V.shape[-1]))
'''

NB06 = [
    _wrong("h8_table_scores_and_weights", A06, "TABLE_BYTES", '''\
TABLE_BYTES = 2 * 8 * 4096 * 4096 * 4     # the scores, then the weights
''', "scores_and_weights_both_counted", "counts two tables, the scores and the weights, where the question "
       "asks for the table of weights"),
    _wrong("h8_table_lower_triangle", A06, "TABLE_BYTES", '''\
TABLE_BYTES = 8 * (4096 * 4097 // 2) * 4     # only the lower triangle is ever nonzero
''', "causal_half_table", "a causal model's weights 'only need the lower triangle': n(n+1)/2 per head, "
       "but the question's table is the full n x n"),
    _wrong("h8_block_inclusive_end", A06, "blockwise_attention", _BLOCKWISE_START + '''\
    for start in range(0, n_k, block_size):
        stop = min(start + block_size - 1, n_k)      # the last key of this block
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
        if mask is not None:
            block_mask = mask[..., start:stop] if np.shape(mask)[-1] > 1 else mask
            s = np.where(block_mask, s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(new_m == -np.inf, 0, new_m)
        rescale = np.exp(m - shift)
        p = np.exp(s - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:stop, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)
''', "slice_end_taken_inclusive", "MATLAB's start:stop includes stop: the block is made to end at "
       "start + block_size - 1, which numpy's slice leaves out, so one key per block is never read "
       "(block size 1 reads nothing)"),
    _wrong("h8_block_no_final_division", A06, "blockwise_attention", _BLOCKWISE_START + _BLOCKWISE_LOOP + '''\
    return acc
''', "total_never_divided", "the running weighted sum returned as it is: the final division by the "
       "running total is forgotten"),
    _wrong("h8_block_value_width_scale", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(V.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full((*batch, n_q, 1), -np.inf)
    total = np.zeros((*batch, n_q, 1))
    acc = np.zeros((*batch, n_q, V.shape[-1]))
''' + _BLOCKWISE_LOOP + '''\
    return acc / np.where(total == 0, 1, total)
''', "default_scale_from_value_width", "the default factor 1/sqrt(d) computed with the width of the values "
       "(the output width) instead of the width of the queries and keys"),
    _wrong("h8_block_minus_1e9", A06, "blockwise_attention", _BLOCKWISE_START + '''\
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
        if mask is not None:
            block_mask = mask[..., start:stop] if np.shape(mask)[-1] > 1 else mask
            s = np.where(block_mask, s, -1e9)         # a large negative number instead of -inf
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(new_m == -np.inf, 0, new_m)
        rescale = np.exp(m - shift)
        p = np.exp(s - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:stop, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)
''', "large_negative_fill", "masked scores set to -1e9 to avoid -inf arithmetic: a query whose keys are "
       "all hidden gets the plain average of their values instead of zeros"),
    _right("h8_ok_table_shift", A06, "TABLE_BYTES", '''\
TABLE_BYTES = (8 * 4096 * 4096) << 2      # times 4 bytes
''', "the count of weights shifted left by 2 (times 4 bytes)"),
    _right("h8_ok_block_generator", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    if scale is None:
        scale = 1 / math.sqrt(Q.shape[-1])
    n_k = K.shape[-2]

    def blocks():
        for start in range(0, n_k, block_size):
            stop = min(n_k, start + block_size)
            s = (Q * scale) @ np.swapaxes(K[..., start:stop, :], -1, -2)
            if mask is not None:
                mk = np.asarray(mask)
                s = np.where(mk[..., start:stop] if mk.shape[-1] > 1 else mk, s, -np.inf)
            yield s, V[..., start:stop, :]

    m = total = acc = None
    for s, v in blocks():
        block_max = s.max(axis=-1, keepdims=True)
        new_m = block_max if m is None else np.maximum(m, block_max)
        safe = np.where(np.isneginf(new_m), 0.0, new_m)
        p = np.exp(s - safe)
        if m is None:
            total, acc = p.sum(axis=-1, keepdims=True), p @ v
        else:
            r = np.exp(m - safe)
            total = total * r + p.sum(axis=-1, keepdims=True)
            acc = acc * r + p @ v
        m = new_m
    return acc / np.where(total == 0, 1, total)
''', "a generator of score blocks and an online softmax started from the first block"),
]

# ---------------------------------------------------------------- 07_scoring_functions
NB07 = [
    _wrong("h8_add_key_map_for_queries", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    a = np.asarray(Q) @ np.asarray(W_k)
    c = np.asarray(K) @ np.asarray(W_k)
    hidden = a[..., :, None, :] + c[..., None, :, :]
    return np.tanh(hidden) @ np.asarray(v)
''', "key_map_used_for_queries", "the key map used for the queries too (copy-paste of the line below): "
       "raises when d_q != d_k, wrong values otherwise"),
    _wrong("h8_add_mean_over_units", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    a = np.asarray(Q) @ np.asarray(W_q)
    c = np.asarray(K) @ np.asarray(W_k)
    hidden = np.tanh(a[..., :, None, :] + c[..., None, :, :])
    return (hidden * np.asarray(v)).mean(axis=-1)
''', "hidden_units_averaged", "v^T h computed as the mean of v * h: the weighted hidden units averaged "
       "(divided by h) instead of summed"),
    _wrong("h8_add_column_maps", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    # Bahdanau writes W_a s + U_a h for column vectors: W q for each query
    a = np.asarray(Q) @ np.asarray(W_q).T
    c = np.asarray(K) @ np.asarray(W_k).T
    hidden = a[..., :, None, :] + c[..., None, :, :]
    return np.tanh(hidden) @ np.asarray(v)
''', "column_vector_maps_transposed", "the paper's column-vector W q carried over to rows as q W^T, although "
       "the notebook's maps act as q W: raises unless d_q = d_k = h"),
    _wrong("h8_sdot_keys_by_queries", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    q = np.asarray(Q) @ np.asarray(W_q)
    k = np.asarray(K) @ np.asarray(W_k)
    # one column per query, as in K^T Q
    return k @ np.swapaxes(q, -1, -2) / math.sqrt(q.shape[-1])
''', "keys_by_queries", "the table computed as K Q^T (one row per key), the convention of a text that "
       "stores queries as columns: the transpose of the asked (n_q, n_k) table"),
    _wrong("h8_sdot_size_of_map", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    W_q = np.asarray(W_q)
    q = np.asarray(Q) @ W_q
    k = np.asarray(K) @ np.asarray(W_k)
    h = W_q.size                      # size(W_q): the projected width
    return q @ np.swapaxes(k, -1, -2) / math.sqrt(h)
''', "size_counts_every_entry", "MATLAB's size(W_q) habit: numpy's .size counts every entry (d_q * h), so "
       "the divisor is sqrt(d_q h) instead of sqrt(h)"),
    _wrong("h8_bil_row_pairs", A07, "bilinear_scores", '''\
def bilinear_scores(Q, K, W):
    # q^T W k, one query with its key
    return np.sum((np.asarray(Q) @ np.asarray(W)) * np.asarray(K), axis=-1)
''', "pairs_row_i_with_row_i", "q_i^T W k_i for matching rows only: the diagonal of the table, raises when "
       "n_q != n_k"),
    _wrong("h8_bil_symmetrised", A07, "bilinear_scores", '''\
def bilinear_scores(Q, K, W):
    W = np.asarray(W)
    # only the symmetric part of W matters in q^T W k
    W_sym = (W + W.T) / 2
    return np.asarray(Q) @ W_sym @ np.swapaxes(np.asarray(K), -1, -2)
''', "symmetric_part_only", "the quadratic-form fact x^T A x = x^T ((A + A^T)/2) x carried over to "
       "q^T W k, where q and k differ: the relation is symmetrised (and W must be square)"),
    _wrong("h8_costs_divisor_counted", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * d * d + n * n * d
    if kind == "additive":
        return 2 * d * h + h, 2 * n * d * h + n * n * h
    # dot: the projections, one dot product per pair, and the division by sqrt(h) of every pair
    return 2 * d * h, 2 * n * d * h + n * n * h + n * n
''', "divisor_counted_as_multiply", "the division of each score by sqrt(h) counted as one more "
       "multiply-add per pair, which the task leaves out"),
    _wrong("h8_costs_pair_sum_counted", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * d * d + n * n * d
    if kind == "dot":
        return 2 * d * h, 2 * n * d * h + n * n * h
    # additive, per pair: q W_q + k W_k (h of them) and then v^T (h more)
    return 2 * d * h + h, 2 * n * d * h + 2 * n * n * h
''', "pair_additions_counted", "the h additions q W_q + k W_k of every pair counted as multiply-adds, on "
       "top of the h of v^T"),
    _wrong("h8_costs_v_not_counted", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * d * d + n * n * d
    # additive and dot both learn a query map and a key map of d x h
    return 2 * d * h, 2 * n * d * h + n * n * h
''', "scoring_vector_not_counted", "additive's parameters counted as its two maps only: the h entries of v "
       "are left out"),
    _wrong("h8_width_loop_one_past", A07, "width_for_budget", '''\
def width_for_budget(kind, d, budget):
    per_unit = 2 * d + (1 if kind == "additive" else 0)
    h = 1
    while h * per_unit <= budget:
        h += 1
    return h
''', "returns_first_width_over_budget", "the loop stops at the first width that no longer fits and "
       "returns it, one more than the largest that does"),
    _wrong("h8_width_dot_charged_v", A07, "width_for_budget", '''\
def width_for_budget(kind, d, budget):
    # every hidden unit costs a row of W_q, a row of W_k and its weight in v
    return budget // (2 * d + 1)
''', "dot_charged_for_scoring_vector", "the additive count used for both kinds: the dot product is charged "
       "for a vector v it does not have"),
    _right("h8_ok_add_concatenation", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    # Bahdanau's form: one map over the concatenation [q; k]
    Q, K = np.asarray(Q), np.asarray(K)
    W = np.concatenate([np.asarray(W_q), np.asarray(W_k)], axis=0)       # (d_q + d_k, h)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2])
    q_side = np.broadcast_to(Q[..., :, None, :], (*batch, n_q, n_k, Q.shape[-1]))
    k_side = np.broadcast_to(K[..., None, :, :], (*batch, n_q, n_k, K.shape[-1]))
    pairs = np.concatenate([q_side, k_side], axis=-1)                    # (..., n_q, n_k, d_q + d_k)
    return np.tanh(pairs @ W) @ np.asarray(v)
''', "the concatenation form: one map applied to [q; k] for every pair"),
    _right("h8_ok_sdot_vecdot", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    q = np.asarray(Q) @ np.asarray(W_q)
    k = np.asarray(K) @ np.asarray(W_k)
    return np.vecdot(q[..., :, None, :], k[..., None, :, :]) / math.sqrt(q.shape[-1])
''', "np.vecdot over broadcast pairs"),
    _right("h8_ok_bil_broadcast_pairs", A07, "bilinear_scores", '''\
def bilinear_scores(Q, K, W):
    QW = np.asarray(Q) @ np.asarray(W)           # (..., n_q, d_k)
    K = np.asarray(K)
    return (QW[..., :, None, :] * K[..., None, :, :]).sum(axis=-1)
''', "Q W once, then broadcast products with the keys summed over d_k"),
    _right("h8_ok_costs_match", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    match kind:
        case "bilinear":
            params, per_pair, projections = d * d, d, n * d * d
        case "additive" | "dot":
            params = 2 * d * h + (h if kind == "additive" else 0)
            per_pair, projections = h, 2 * n * d * h
    return params, projections + n * n * per_pair
''', "a match statement: parameters, projections and per-pair work"),
    _right("h8_ok_width_divmod", A07, "width_for_budget", '''\
def width_for_budget(kind, d, budget):
    per_unit = d + d + (kind == "additive")
    h, _ = divmod(budget, per_unit)
    return h
''', "divmod, the bool of the kind as the extra unit"),
]

VARIANTS = NB01 + NB02 + NB03 + NB04 + NB05 + NB06 + NB07
