"""Held-out answers of 2026-12-09: an eighth blind set of typical student mistakes and correct rewrites.

Written by a helper session (branch ``wt-heldout9``) **without reading the grader**: nothing under
``autograder/checks/``, ``tests/checks/``, ``tests/course/test_catalogue.py`` or ``benchmarks/heldout/judgements/``
was opened, nor anything under ``autograder/catalogue/`` beyond ``catalogue/__init__.py`` (its docstring, the
``Variant`` class and ``all_variants``) and the loader ``load_variants`` of ``fairness.py``; no feedback or
misconception texts of the grader were read, and neither the grader, ``benchmarks/fairness.py`` nor any test was run
on these answers. Read: the notebooks' task texts (``sources/NN_*/NN_*.py``: prose, stubs, the one-line descriptions
of the hidden tests), the whole reference ``attention_ref/``, the two lesson seeds (``/work/shared/seeds/*.txt``),
``Grader.numbers`` in ``autograder/notebook/__init__.py`` (to know that ``STOP_Q``/``STOP_K``, ``CONCEPT_ORDER`` and
``TABLE_N``/``TABLE_DTYPE`` are the student's own numbers; the method bodies printed after it were skimmed, none of
the check code they call), and of the earlier held-out sets only the docstring and first 100 lines of
``heldout_2026_12_08.py`` (plus its two-line ``_right`` helper just below them), for the layout. The brief's grep for
``name=`` and ``label=`` finds nothing in the earlier sets (they call ``_wrong``/``_right`` positionally), so the
names, tasks, labels and ``source`` lines of the wrong answers of all seven sets (12_02 to 12_08, 545 of them) were
listed instead with ``load_variants`` (only those four fields were printed, never the cells), to write mostly
different mistakes.

Backgrounds imagined: MATLAB users (``randn(n, d)``'s calling form, ``diag`` of a column, ``np.asmatrix``, 1-based
key indices, ``repmat`` as ``np.resize``, ``.shape`` assigned to avoid a copy); PyTorch/Keras/TensorFlow users
(autocast's float16, FlashAttention's ``exp2`` without ``log2(e)``, Keras's Attention that uses the value as key,
``pack_padded_sequence``'s sorted batch, ``mask.unsqueeze(1)``, a GPT's ``causal=True`` by default, a pre-LN layer
norm, ``BahdanauAttention(normalize=True)``, FLOPs instead of multiply-adds); R and pandas users (NA as a numpy
masked array); pen-and-paper mathematicians (``|q||k|`` with the cosine dropped, ``sqrt(s^2 / d_k)``, the two forms
of the Jacobian mixed, a closed form of the leading weight, the merged matrix ``W_q W_k`` without its transpose, the
diagonal of ``W`` as a weighted dot product); a signal-processing student (``np.convolve`` for a dot product, and
``np.correlate`` rightly); loops-and-lists beginners (a double loop over ``len(Q)``, a generator created inside the
loop, the last loop variable's weights returned); students who test on square or 2-D inputs only (a padding mask
repeated to ``(batch, n_k, n_k)``, a running sum shaped like the queries, ranges compared without a grid); students
who hard-code the worked example (the lesson's numbers in the Stop-and-try answers and in ``TABLE_BYTES``, its 4 bytes
kept, weights rounded like its table, a divisor-free notebook 01 pipeline in notebook 03); literal readers ("points
most nearly in the query's direction" as the largest cosine, "each pair appears twice" halved, "give it the shape of
the scores" with ``np.resize``, the lettering of the options read backwards or taken from a classmate); and Python
slips (``//`` for ``/``, ``==`` for ``=``, ``K[..., a:b]`` cutting the width, ``np.split`` keeping its axis, the
sequence passed once so that the arguments slide, a mask never passed through ``np.asarray``, the two defaults filled
only together). Not labelled as a mistake anywhere: float32 in, float64 out. The Stop-and-try answers use the
per-student ``STOP_Q`` and ``STOP_K``, the concept answers ``CONCEPT_ORDER``.

Each answer replaces one solution cell only (the other cells keep the instructor's answers) and defines no name other
than its own task's (helpers and imports live inside the function). A wrong answer is labelled with the misconception
in the author's own words (not ids of the course), or ``None`` for a Python muddle with no one name; ``source`` says
the mistake in one line. By the author's count 22 of the 85 wrong answers are recurring classics (the same idea as
one of the earlier sets' labels, sometimes by another route: the worked example copied, 1-based keys, the hard choice,
the cosine, the 2-D-only loop and ``np.matrix``, the in-place renormalisation, a padding mask for square scores, NA for
hidden scores, ``np.resize`` for ``reshape``, the boolean-only mask, ``hsplit``, the unpacked axes, ``unsqueeze(1)``,
zeroed padding, the block sliced on the wrong axis, one maximum for all queries, the sigmoid for tanh); 63 are
mistakes none of those names or labels describe.

How it was checked (a throw-away script in /tmp, not kept): each cell is executed in a namespace holding ``math``,
``np``, what the notebook's first cell imports from ``attention_ref`` and ``attention_ref``'s versions of the
notebook's other task functions (for the written values: 15 draws of ``STOP_Q`` (2,) and ``STOP_K`` (3, 2) -- the
lesson's numbers, 11 random ones rounded to one decimal, one where a long key beats a better-aligned one and two
others --, 10 lettering orders per concept question as strings and as tuples, the identity among them, and 8
(``TABLE_N``, ``TABLE_DTYPE``) pairs with Python and numpy ints and dtypes given as strings, types and dtypes); the new
names it defines are compared with its task's; its function is called on 6 to 33 inputs per task of the kinds the
notebooks name -- the seeds' worked examples (lists, integer lists, arrays), square and non-square, n_q > n_k and
n_q < n_k, one and two leading batch axes, float32, integer scores, softmax along axes 0, 1 and -2 of 3-D arrays, a
0-d score, scores of 1e3 and 1e4, rows far apart and rows far below 0, a -inf entry, a zero row and unnormalised
weights, widths 0.5 to 1e8 with and without ``scaled``, one-hot and saturated probability vectors, causal masks with
n_q != n_k, padding masks (batch, 1, n_k) with an empty sequence, boolean masks as lists, float64 and float32
additive masks (0/-inf and finite biases), a fully masked row, an allowed key far below a hidden one, one shared
(n_q, n_k) mask for a batch of heads, (batch, n_q, n_k) masks against 2 and 4 heads, the 512-wide layer of 8 heads,
d_k != d_v and W_o to another width, d_k or d_v given alone, a non-contiguous input to ``split_heads``, enc_lengths
[5, 2], [0, 3] and a batch of 3, block sizes 1, 3, 4, n_k and more than n_k, an explicit ``scale``, d_q != d_k != h,
non-symmetric W, several (n, d, h) and budgets that fit exactly -- and compared with ``attention_ref``: the same type
(a Python float or int where the reference returns one, booleans for masks, a plain ndarray) and shape, values within
rtol 1e-5 / atol 1e-8 (1e-4 and 1e-5 times the largest value for float32 inputs), no NaN, inputs left unchanged,
warnings recorded. ``score_variance`` is checked statistically (within 6 standard errors of d_k for d_k = 1, 16, 64
and seeds 0, 1, 2 with 20,000 pairs, the same value for the same seed, another for another seed, a Generator and
``rng=None`` accepted) and ``blockwise_attention`` also for memory (tracemalloc peak below an eighth of the
n_q x n_k table at 256 queries and 32,768 keys). The same script finds no difference on the instructor's 36 solution
cells (``sources/``). Results:

* every wrong answer differs from the reference, raises or modifies its input on at least one of those inputs (on as
  few as one or two: the magnitude shift only on rows far below 0, the float64-only test only with a float32 mask,
  ``d_v`` following ``d_k`` only when d_k is given alone, the block exponentiated before the maximum only at large
  scores, the largest cosine only for students whose long key wins);
* every correct rewrite agrees on all of them, with no warning and no input modified;
* no answer defines a name other than its own task's; ``load_variants`` accepts the file (121 variants).

Counts (wrong / correct / wrong labelled ``None``):

==========================  =====  =======  ====
notebook                    wrong  correct  None
==========================  =====  =======  ====
01_scores_softmax              14        6     0
02_scaling                     17        8     2
03_masking                     13        5     2
04_heads                       16        6     1
05_cross_attention              7        3     1
06_long_sequences               6        3     0
07_scoring_functions           12        5     0
total                          85       36     6
==========================  =====  =======  ====

Measure it (named / vague / wrong on this set alone)::

    .venv/bin/python benchmarks/fairness.py --variants benchmarks/heldout/heldout_2026_12_09.py --seeds 3
"""
from __future__ import annotations

from autograder.catalogue import Variant

A01, A02, A03, A04 = "01_scores_softmax", "02_scaling", "03_masking", "04_heads"
A05, A06, A07 = "05_cross_attention", "06_long_sequences", "07_scoring_functions"


def _wrong(name, assignment, task, cell, misconception, source):
    return Variant(name, assignment, task, {task: cell}, misconception=misconception, source=source)


def _right(name, assignment, task, cell, source):
    return Variant(name, assignment, task, {task: cell}, correct=True, source=source)


VARIANTS = [
    # ------------------------------------------------------------------ 01 scores and softmax
    _wrong("h9_dot_lengths_multiplied", A01, "dot_product", '''\
def dot_product(q, k):
    # q . k = |q| |k| cos(theta); the angle only tells the direction
    q = np.asarray(q, dtype=float)
    k = np.asarray(k, dtype=float)
    return float(np.linalg.norm(q) * np.linalg.norm(k))
''', "dot_product_as_product_of_lengths",
        "the pen-and-paper |q| |k| cos(theta) with the cosine dropped: only the lengths multiply, so the "
        "perpendicular key (0, 1) and the opposing key (-1, 0) score 1, as high as the aligned (1, 0)"),
    _wrong("h9_dot_convolution", A01, "dot_product", '''\
def dot_product(q, k):
    # multiply and add over the full overlap of the two vectors
    return float(np.convolve(q, k, mode="valid")[0])
''', "convolution_reverses_the_key",
        "a signal-processing student's np.convolve for 'multiply matching entries and add': a convolution "
        "reverses k first, so (1, 0) against (0, 1) scores 1 and against (1, 0) scores 0"),
    _right("h9_dot_correlate_lag_zero", A01, "dot_product", '''\
def dot_product(q, k):
    # the cross-correlation at lag 0: two vectors of one length overlap exactly once
    q = np.asarray(q, dtype=float)
    k = np.asarray(k, dtype=float)
    return float(np.correlate(q, k, mode="valid")[0])
''', "np.correlate in 'valid' mode on two vectors of the same length is the plain sum of products"),

    _wrong("h9_scores_half_precision", A01, "attention_scores", '''\
def attention_scores(Q, K):
    # half precision, as under mixed-precision training: half the memory, twice the speed
    Q = np.asarray(Q, dtype=np.float16)
    K = np.asarray(K, dtype=np.float16)
    return Q @ np.swapaxes(K, -1, -2)
''', "half_precision_scores",
        "a PyTorch autocast habit: the queries and keys cast to float16 first, whose 11-bit significand "
        "leaves about three digits of every score (exact only on the seed's small numbers)"),
    _wrong("h9_scores_double_loop_len", A01, "attention_scores", '''\
def attention_scores(Q, K):
    Q = np.asarray(Q)
    K = np.asarray(K)
    scores = np.zeros((len(Q), len(K)))
    for i in range(len(Q)):
        for j in range(len(K)):
            scores[i, j] = np.sum(Q[i] * K[j])
    return scores
''', "written_for_one_matrix_of_queries",
        "a loops-and-lists double loop over len(Q) and len(K): right for one (n_q, d_k) matrix, but on a "
        "batch len() counts sequences, so the products of whole sequences are summed (or fail to broadcast)"),
    _right("h9_scores_einsum", A01, "attention_scores", '''\
def attention_scores(Q, K):
    # query i and key j share the width index d, which is summed
    return np.einsum("...id,...jd->...ij", np.asarray(Q), np.asarray(K))
''', "einsum with an ellipsis carries (and broadcasts) the batch axes and contracts only the width"),

    _wrong("h9_softmax_powers_of_two", A01, "softmax", '''\
def softmax(x, axis=-1):
    # powers of two are cheaper than exp (the trick of FlashAttention kernels)
    x = np.asarray(x, dtype=float)
    p = np.exp2(x - x.max(axis=axis, keepdims=True))
    return p / p.sum(axis=axis, keepdims=True)
''', "base_two_exponential",
        "FlashAttention's exp2 trick copied without its factor log2(e): the weights are 2^s / sum 2^s, so "
        "the scores (2, 1, 0) give 0.571, 0.286, 0.143 instead of 0.665, 0.245, 0.090"),
    _wrong("h9_softmax_rounded_like_table", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return np.round(e / e.sum(axis=axis, keepdims=True), 3)   # weights to three decimals, as in the table
''', "weights_rounded_like_the_table",
        "the worked example's table shows three decimals, so the function rounds its weights too: the seed "
        "matches the table, but every weight is off by up to 5e-4, small weights become 0 and rows need not sum to 1"),
    _wrong("h9_softmax_nan_patched", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        w = np.exp(x) / np.exp(x).sum(axis=axis, keepdims=True)
    return np.nan_to_num(w)   # large scores give inf / inf = nan: count those as 0
''', "overflow_nan_patched_with_zero",
        "the overflow is noticed but patched instead of avoided: np.nan_to_num turns the inf / inf of large "
        "scores into 0, so a row of scores near 1e3 gets weights that sum to 0 (or all the weight on the wrong key)"),
    _wrong("h9_softmax_axis_moved_not_back", A01, "softmax", '''\
def softmax(x, axis=-1):
    # bring the normalised axis to the end, where the reductions are easy
    x = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
''', "axis_moved_and_not_restored",
        "np.moveaxis brings `axis` to the end and the result is never moved back: right for axis=-1, but "
        "for axis 0 of a (2, 3, 4) array the weights come back with shape (3, 4, 2)"),
    _wrong("h9_softmax_shift_by_magnitude", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    biggest = np.abs(x).max(axis=axis, keepdims=True)   # the largest score, whatever its sign
    e = np.exp(x - biggest)
    return e / e.sum(axis=axis, keepdims=True)
''', "shift_by_largest_magnitude",
        "'subtract the largest score' taken as the largest in size: the same for rows with a positive "
        "maximum, but a row of scores far below 0 is pushed twice as far down, underflows and gives 0/0"),
    _right("h9_softmax_log_sum_exp", A01, "softmax", '''\
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    # log of each slice's total of exponentials, accumulated stably pair by pair
    log_total = np.logaddexp.reduce(x, axis=axis, keepdims=True)
    return np.exp(x - log_total)
''', "softmax as exp(x - logsumexp(x)); np.logaddexp never overflows, so scores of 1e4 are safe"),
    _right("h9_softmax_row_function", A01, "softmax", '''\
def softmax(x, axis=-1):
    def one_slice(s):
        e = np.exp(s - s.max())
        return e / e.sum()

    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    if x.ndim == 0:          # a single score is its own slice
        return np.ones_like(x)
    return np.apply_along_axis(one_slice, axis, x)
''', "a stable one-slice softmax applied along the requested axis with np.apply_along_axis"),

    _wrong("h9_wavg_softmax_again", A01, "weighted_average", '''\
def weighted_average(weights, V):
    # make sure the weights are a proper distribution before averaging
    return softmax(weights) @ np.asarray(V)
''', "weights_passed_through_softmax_again",
        "'the weights are positive and sum to one' enforced with a second softmax: weights that already "
        "sum to 1 are flattened (0.665, 0.245, 0.090 become 0.45, 0.30, 0.25), so 1.425 becomes about 1.8"),
    _wrong("h9_wavg_numpy_matrix", A01, "weighted_average", '''\
def weighted_average(weights, V):
    # matrices multiply as in MATLAB
    return np.asmatrix(weights) @ np.asmatrix(V)
''', "matrix_class_two_dimensional_only",
        "a MATLAB user's np.asmatrix so that the operands behave as matrices: right for one (n_q, n_k) table, "
        "but np.matrix is always 2-D, so batches of sequences and heads raise"),
    _wrong("h9_wavg_normalised_in_place", A01, "weighted_average", '''\
def weighted_average(weights, V):
    weights = np.asarray(weights)
    weights /= weights.sum(axis=-1, keepdims=True)   # an average divides by the total weight
    return weights @ np.asarray(V)
''', "caller_weights_renormalised_in_place",
        "'an average divides by the total weight' done in place on np.asarray(weights), the caller's array: "
        "its weights are overwritten, a row of zero weights becomes NaN and integer weights raise"),
    _right("h9_wavg_broadcast_and_sum", A01, "weighted_average", '''\
def weighted_average(weights, V):
    w = np.asarray(weights)[..., :, :, None]   # (..., n_q, n_k, 1)
    v = np.asarray(V)[..., None, :, :]         # (..., 1, n_k, d_v)
    return (w * v).sum(axis=-2)                # add over the keys
''', "every weight-value product by broadcasting, then the sum over the key axis"),

    _wrong("h9_concepts01_classmate_letters", A01, "CONCEPTS_01", '''\
# CONCEPTS_01 = ("?", "?", "?")  (one letter per question, in order)
CONCEPTS_01 = ("b", "c", "d")
''', "letters_of_another_ordering",
        "the right options chosen but answered with the letters of a classmate's notebook (the lesson's own "
        "lettering); each student's options are lettered in another order, so the letters fit only that order"),
    _wrong("h9_concepts01_order_read_backwards", A01, "CONCEPTS_01", '''\
# CONCEPTS_01 = ("?", "?", "?")  (one letter per question, in order)
CONCEPTS_01 = tuple(shown["abcd".index(right)] for shown, right in zip(CONCEPT_ORDER, "bcd"))
''', "lettering_table_read_backwards",
        "the printed lettering read the wrong way round: the answer is the lesson's letter printed at the "
        "right option's position, instead of the position at which the right option is printed"),
    _right("h9_concepts01_lookup", A01, "CONCEPTS_01", '''\
# CONCEPTS_01 = ("?", "?", "?")  (one letter per question, in order)
CONCEPTS_01 = tuple({lesson: mine for mine, lesson in zip("abcd", shown)}[right]
                    for shown, right in zip(CONCEPT_ORDER, "bcd"))
''', "a lookup table from the lesson's letters to the letters printed in this notebook"),

    # ------------------------------------------------------------------ 02 scaling
    _wrong("h9_var_generator_in_loop", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    dots = []
    for _ in range(n_samples):
        gen = np.random.default_rng(rng)   # seeded, so that the experiment can be reproduced
        q = gen.standard_normal(d_k)
        k = gen.standard_normal(d_k)
        dots.append(q @ k)
    return float(np.var(dots, ddof=1))
''', "generator_recreated_for_every_sample",
        "the generator is created inside the loop: with rng=None every pair is fresh, but with a seed every "
        "pair is the same pair, so the estimate is exactly 0"),
    _wrong("h9_var_randn_call", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    q = rng.standard_normal(n_samples, d_k)    # randn(n, d), as in MATLAB
    k = rng.standard_normal(n_samples, d_k)
    return float(np.var(np.sum(q * k, axis=1), ddof=1))
''', None,
        "MATLAB's randn(n, d) calling form: Generator.standard_normal takes the shape as one tuple and reads "
        "its second argument as a dtype, so the call raises TypeError"),
    _right("h9_var_one_pair_at_a_time", A02, "score_variance", '''\
def score_variance(d_k, n_samples=100_000, rng=None):
    gen = np.random.default_rng(rng)
    dots = np.empty(n_samples)
    for i in range(n_samples):          # one (query, key) pair at a time
        q = gen.standard_normal(d_k)
        k = gen.standard_normal(d_k)
        dots[i] = q @ k
    return float(dots.var(ddof=1))
''', "a plain loop over the pairs with one generator created once; the same seed draws the same pairs"),

    _wrong("h9_scale_floor_division", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    return np.asarray(scores) // math.sqrt(d_k)
''', None,
        "// typed for / (a habit from index arithmetic): the scaled scores are floored, so 1 / sqrt(2) "
        "becomes 0 and -0.5 becomes -1"),
    _wrong("h9_scale_root_of_square", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    scores = np.asarray(scores)
    # the variance of a score is d_k: divide the square by d_k, then take the root
    return np.sqrt(scores ** 2 / d_k)
''', "square_root_of_the_whole_quotient",
        "the variance argument applied to the scores themselves: sqrt(s^2 / d_k) is |s| / sqrt(d_k), so "
        "every negative score comes back positive"),
    _right("h9_scale_negative_half_power", A02, "scale_scores", '''\
def scale_scores(scores, d_k):
    # d_k ** -0.5 is a Python float, so float32 scores stay float32
    return np.multiply(scores, d_k ** -0.5)
''', "multiplication by d_k^(-1/2), which np.multiply returns as a new array"),

    _wrong("h9_lead_width_truncated", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    width = int(width)    # a width counts entries
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    if scaled:
        raw = raw / math.sqrt(width)
    return float(softmax(raw).max())
''', "width_truncated_to_an_integer",
        "the width taken as a whole number of entries although the task allows any positive number: a "
        "width of 0.5 becomes 0 (NaN when scaled, 1/3 unscaled) and 2.5 is computed as 2"),
    _right("h9_lead_closed_form", A02, "leading_weight", '''\
def leading_weight(width, scaled=True):
    # the leading weight of the scores (2c, c, 0) is 1 / (1 + e^(-c) + e^(-2c))
    c = 1.0 if scaled else math.sqrt(width)
    return 1.0 / (1.0 + math.exp(-c) + math.exp(-2.0 * c))
''', "the leading weight worked out by hand; the exponentials are of negative numbers, so nothing overflows"),

    _wrong("h9_jac_diagonal_twice", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    # on the diagonal p_i (1 - p_i), off the diagonal -p_i p_j
    return np.diag(p * (1 - p)) - np.outer(p, p)
''', "diagonal_term_subtracted_twice",
        "the two forms of the Jacobian mixed: the diagonal written as p_i (1 - p_i) and then p p^T "
        "subtracted everywhere, so the diagonal is p_i - 2 p_i^2"),
    _wrong("h9_jac_diag_of_column", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float).reshape(-1, 1)   # a column vector, p(:) in MATLAB
    return np.diag(p) - p @ p.T
''', "diag_of_a_column_extracts",
        "MATLAB's diag(p) builds a matrix from a column; numpy's np.diag of an (n, 1) array extracts its "
        "diagonal, the single entry p_0, so every entry becomes p_0 - p_i p_j"),
    _right("h9_jac_delta_form", A02, "softmax_jacobian", '''\
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    # p_i (delta_ij - p_j)
    return p[:, None] * (np.eye(p.shape[0]) - p[None, :])
''', "the formula p_i (delta_ij - p_j) typed literally with the identity matrix"),

    _wrong("h9_sdpa2_values_as_keys", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    # as Keras's Attention()([query, value]): the values are compared with the queries
    scores = scale_scores(attention_scores(Q, V), Q.shape[-1])
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
''', "values_used_as_keys",
        "Keras's Attention layer takes [query, value] and uses the value as the key when none is given: "
        "the queries are compared with V instead of K (raises when d_v != d_k)"),
    _wrong("h9_sdpa2_output_from_unscaled", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    raw = attention_scores(Q, K)
    output = weighted_average(softmax(raw), V)               # as in notebook 01
    weights = softmax(scale_scores(raw, Q.shape[-1]))        # the new, scaled weights
    return output, weights
''', "output_from_the_unscaled_weights",
        "notebook 01's output line kept and the scaled weights computed beside it: the weights returned are "
        "right, but the output averages the values with the unscaled ones"),
    _right("h9_sdpa2_einsum", A02, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    scores = scale_scores(np.einsum("...qd,...kd->...qk", Q, K), K.shape[-1])
    weights = softmax(scores)
    return np.einsum("...qk,...kv->...qv", weights, V), weights
''', "both products as einsums, with d_k read off the keys (the same width as the queries')"),

    _wrong("h9_stop_scores_lesson_example", A02, "STOP_AND_TRY_SCORES", '''\
# STOP_AND_TRY_SCORES = the raw dot products of the query with keys 1, 2 and 3
STOP_AND_TRY_SCORES = [1.0, 0.0, -1.0]
''', "worked_example_copied",
        "the raw scores of the lesson's worked example (q = (1, 0) against (1, 0), (0, 1), (-1, 0)) typed "
        "in instead of those of the student's own STOP_Q and STOP_K"),
    _wrong("h9_stop_scores_one_based", A02, "STOP_AND_TRY_SCORES", '''\
# STOP_AND_TRY_SCORES = the raw dot products of the query with keys 1, 2 and 3
STOP_AND_TRY_SCORES = [float(STOP_Q @ STOP_K[i]) for i in range(1, 4)]
''', "keys_numbered_from_one",
        "the keys k_1, k_2, k_3 indexed as the question numbers them (and as MATLAB would), 1 to 3: "
        "STOP_K[3] does not exist and the cell raises IndexError"),
    _right("h9_stop_scores_query_first", A02, "STOP_AND_TRY_SCORES", '''\
# STOP_AND_TRY_SCORES = the raw dot products of the query with keys 1, 2 and 3
STOP_AND_TRY_SCORES = STOP_Q @ STOP_K.T
''', "the query times the keys as columns: the same three dot products"),

    _wrong("h9_stop_weights_lesson_example", A02, "STOP_AND_TRY_WEIGHTS", '''\
# STOP_AND_TRY_WEIGHTS = the scaled attention weights (d_k = 2) of keys 1, 2 and 3
STOP_AND_TRY_WEIGHTS = [0.576, 0.284, 0.140]
''', "worked_example_copied",
        "the weights of the lesson's worked example copied instead of computed from the student's own numbers"),
    _wrong("h9_stop_weights_winner_takes_all", A02, "STOP_AND_TRY_WEIGHTS", '''\
# STOP_AND_TRY_WEIGHTS = the scaled attention weights (d_k = 2) of keys 1, 2 and 3
STOP_AND_TRY_WEIGHTS = np.eye(3)[np.argmax(STOP_K @ STOP_Q)]
''', "hard_choice_weights",
        "the best key takes all the weight (1, 0, 0 in its place), the argmax of notebook 01, although with "
        "the softmax every key keeps a positive weight"),
    _right("h9_stop_weights_root_of_exponentials", A02, "STOP_AND_TRY_WEIGHTS", '''\
# STOP_AND_TRY_WEIGHTS = the scaled attention weights (d_k = 2) of keys 1, 2 and 3
STOP_AND_TRY_WEIGHTS = (np.exp(STOP_K @ STOP_Q) ** (1 / math.sqrt(2))
                        / np.sum(np.exp(STOP_K @ STOP_Q) ** (1 / math.sqrt(2))))
''', "e^(s / sqrt 2) written as (e^s)^(1 / sqrt 2) and normalised by hand"),

    _wrong("h9_stop_largest_smallest_angle", A02, "STOP_AND_TRY_LARGEST", '''\
# STOP_AND_TRY_LARGEST = 1, 2 or 3
STOP_AND_TRY_LARGEST = int(np.argmax(STOP_K @ STOP_Q / np.linalg.norm(STOP_K, axis=1))) + 1
''', "direction_without_length",
        "'points most nearly in the query's direction' taken literally: the key with the smallest angle "
        "(the largest cosine) is named, though the weight follows the dot product, in which a longer key can win"),
    _wrong("h9_stop_largest_lesson_answer", A02, "STOP_AND_TRY_LARGEST", '''\
# STOP_AND_TRY_LARGEST = 1, 2 or 3
STOP_AND_TRY_LARGEST = 1
''', "worked_example_copied",
        "the lesson's answer (key 1, which points along q = (1, 0)) copied without looking at the student's own keys"),

    _wrong("h9_stop_reason_equal_weights", A02, "STOP_AND_TRY_REASON", '''\
# STOP_AND_TRY_REASON = one letter from the list above, as a string
STOP_AND_TRY_REASON = "e"
''', "softmax_gives_equal_weights",
        "reason e: believes the softmax gives every key the same weight and the winner is decided by its place "
        "in the list (the weights printed are close for small scaled scores)"),

    _wrong("h9_concepts02_classmate_letter", A02, "CONCEPTS_02", '''\
# CONCEPTS_02 = ("?",)  (one letter)
CONCEPTS_02 = ("a",)
''', "letters_of_another_ordering",
        "the right option answered with the letter it has in a classmate's notebook (the lesson's lettering), "
        "not the letter printed in the student's own"),
    _right("h9_concepts02_position", A02, "CONCEPTS_02", '''\
# CONCEPTS_02 = ("?",)  (one letter)
CONCEPTS_02 = ("abcd"[CONCEPT_ORDER[0].index("a")],)
''', "the position at which the right option is printed, as a letter"),

    # ------------------------------------------------------------------ 03 masking
    _wrong("h9_causal_ranges_not_grid", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    return np.arange(n_k) <= np.arange(n_q)
''', "ranges_compared_entry_by_entry",
        "the rule j <= i written without the new axes that make a grid: the two ranges are compared entry "
        "by entry, a 1-D row of True for a square mask and a broadcast error otherwise"),
    _wrong("h9_causal_comparison_for_assignment", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k == n_q
    return np.tril(np.ones((n_q, n_k), dtype=bool))
''', None,
        "== typed for =: the default is never assigned, so a call without n_k builds np.ones((n_q, None)) "
        "and raises TypeError (non-square calls are right)"),
    _right("h9_causal_np_tri", A03, "causal_mask", '''\
def causal_mask(n_q, n_k=None):
    # np.tri: ones at and below the diagonal, starting at the top-left corner
    return np.tri(n_q, n_q if n_k is None else n_k, dtype=bool)
''', "np.tri(N, M) is the top-left aligned lower triangle, diagonal included"),

    _wrong("h9_pad_sorted_by_length", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    # longest sequence first, as pack_padded_sequence expects
    lengths = np.sort(np.asarray(lengths))[::-1]
    return (np.arange(n_k)[None, :] < lengths[:, None])[:, None, :]
''', "batch_sorted_by_length",
        "PyTorch's pack_padded_sequence habit (enforce_sorted): the lengths sorted longest first, so the rows "
        "of the mask no longer belong to their sequences unless the batch came sorted"),
    _wrong("h9_pad_repeated_for_queries", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    keys = np.arange(n_k)[None, :] < lengths[:, None]      # (batch, n_k)
    return np.repeat(keys[:, None, :], n_k, axis=1)       # the same row for every query
''', "query_axis_given_length_n_k",
        "tested on self-attention only: the key mask is repeated for n_k query rows, shape (batch, n_k, n_k), "
        "which does not broadcast against scores with n_q != n_k (the task asks for an axis of length one)"),
    _wrong("h9_pad_lengths_without_axis", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    return (np.arange(n_k) < lengths).reshape(len(lengths), 1, n_k)
''', "lengths_compared_without_new_axis",
        "the positions compared with the lengths without a new axis: fine for a batch of one sequence, a "
        "broadcast or reshape error for every larger batch"),
    _right("h9_pad_fill_loop", A03, "padding_mask", '''\
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    mask = np.zeros((lengths.shape[0], 1, n_k), dtype=bool)
    for b, length in enumerate(lengths):
        mask[b, 0, :length] = True      # the real keys of sequence b
    return mask
''', "a loop that switches on the first lengths[b] keys of each row (an empty slice for length 0)"),

    _wrong("h9_apply_float_mask_multiplied", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        return np.where(mask, scores, -np.inf)
    return scores * mask      # a floating mask weights the scores
''', "floating_mask_multiplied",
        "a floating mask used as a multiplicative weight instead of an additive bias: 0 (keep) turns a score "
        "into 0, -inf turns it into -inf, +inf or NaN depending on its sign, a bias of 2 doubles it"),
    _wrong("h9_apply_masked_array", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        # hidden scores marked as missing, like NA in R
        return np.ma.masked_array(scores, mask=~np.broadcast_to(mask, scores.shape))
    return scores + mask
''', "hidden_scores_marked_missing",
        "an R user's NA: a numpy masked array that only flags the hidden scores; underneath they keep their "
        "values (no -inf), and np.asarray or the softmax read them as ordinary scores"),
    _wrong("h9_apply_only_float64_is_bias", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    if mask.dtype == np.float64:       # an additive bias
        return scores + mask
    return np.where(mask, scores, -np.inf)
''', "float32_mask_read_as_boolean",
        "only float64 recognised as a floating mask: a float32 bias goes through np.where as if it were "
        "boolean, so its 0 (keep) hides the score and its -inf keeps it"),
    _wrong("h9_apply_mask_not_converted", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    if mask.dtype == bool:
        return np.where(mask, scores, -np.inf)
    return scores + mask
''', None,
        "np.asarray applied to the scores but not to the mask: a mask given as a list (array_like, as the "
        "docstring allows) has no .dtype and the call raises AttributeError"),
    _right("h9_apply_copy_then_fill", A03, "apply_mask", '''\
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    out = scores.astype(np.result_type(scores.dtype, np.float16))   # a floating copy; float32 stays float32
    if mask.dtype == np.bool_:
        out[~np.broadcast_to(mask, out.shape)] = -np.inf
        return out
    return out + mask
''', "a floating copy of the scores, the hidden entries set to -inf through the broadcast mask"),

    _wrong("h9_sdpa3_division_dropped", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = attention_scores(Q, K)
    if mask is not None:
        scores = apply_mask(scores, mask)
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
''', "division_dropped_with_the_mask",
        "notebook 01's pipeline extended with the mask, and notebook 02's division by sqrt(d_k) left out "
        "(the notebook is about masks)"),
    _wrong("h9_sdpa3_rows_renormalised", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        scores = apply_mask(scores, mask)
    weights = softmax(scores, axis=-1)
    weights = weights / weights.sum(axis=-1, keepdims=True)   # make sure every row sums to 1
    return weighted_average(weights, V), weights
''', "rows_renormalised_after_the_softmax",
        "a 'to be safe' renormalisation after the guarded softmax: harmless on ordinary rows, but the zero "
        "row of a query with no allowed key becomes 0/0 = NaN (with a warning)"),
    _wrong("h9_sdpa3_mask_resized", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        mask = np.resize(mask, scores.shape)    # give the mask the shape of the scores
        scores = apply_mask(scores, mask)
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
''', "np_resize_for_broadcasting",
        "MATLAB's repmat habit: np.resize tiles the flat mask to the scores' shape, which equals broadcasting "
        "for one shared (n_q, n_k) mask but hands the queries of one sequence the padding rows of the others"),
    _wrong("h9_sdpa3_boolean_index_only", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])   # a new array: safe to write into
    if mask is not None:
        scores[~np.broadcast_to(mask, scores.shape)] = -np.inf
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
''', "every_mask_used_as_boolean_index",
        "the mask used only as a boolean index: right for boolean masks, but ~ of a floating mask raises "
        "TypeError, so additive masks (0/-inf or a finite bias) are not supported"),
    _right("h9_sdpa3_nan_to_zero", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        scores = apply_mask(scores, mask)
    with np.errstate(invalid="ignore"):
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))   # nan on a row with no allowed key
        weights = e / e.sum(axis=-1, keepdims=True)
    weights = np.nan_to_num(weights, nan=0.0)                     # such a row reads nothing
    return weighted_average(weights, V), weights
''', "its own stable softmax; the NaN of a row with no allowed key (silenced) is replaced by zero weights"),
    _right("h9_sdpa3_guarded_denominator", A03, "scaled_dot_product_attention", '''\
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        scores = apply_mask(scores, mask)
    top = scores.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)        # a row with no allowed key: shift by 0
    e = np.exp(scores - top)
    weights = e / (e.sum(axis=-1, keepdims=True) + 1e-30)   # a total of at least 1, or exactly 0
    return weighted_average(weights, V), weights
''', "the row maximum replaced by 0 where it is -inf, and a tiny term that keeps 0/0 away (every other "
        "total is at least 1)"),

    # ------------------------------------------------------------------ 04 heads
    _wrong("h9_project_layer_norm_first", A04, "project", '''\
def project(X, W):
    X = np.asarray(X)
    # normalise each row before the map, as in a pre-LN transformer
    X = (X - X.mean(axis=-1, keepdims=True)) / X.std(axis=-1, keepdims=True)
    return X @ np.asarray(W)
''', "layer_norm_inside_the_map",
        "a pre-LN transformer's layer norm put inside the learned map: each row is standardised before "
        "X W, which is no longer linear (and NaN for rows of width 1)"),
    _wrong("h9_project_embedding_scale", A04, "project", '''\
def project(X, W):
    X = np.asarray(X)
    # the paper multiplies the learned weights by sqrt(d_model)
    return (X @ np.asarray(W)) * math.sqrt(X.shape[-1])
''', "embedding_scale_applied_to_the_map",
        "the paper's sqrt(d_model) factor of the embedding layers (section 3.4) applied to every learned map: "
        "the queries, keys and values come out sqrt(d_model) times too large (right only for d_model = 1)"),
    _right("h9_project_np_dot", A04, "project", '''\
def project(X, W):
    # np.dot contracts the last axis of X with the first axis of a 2-D W
    return np.dot(X, W)
''', "np.dot with a 2-D second argument is the row-wise map for any number of leading axes"),

    _wrong("h9_count_output_map_one_head", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model // num_heads if d_k is None else d_k
    d_v = d_model // num_heads if d_v is None else d_v
    count = num_heads * d_model * (2 * d_k + d_v)
    if output_projection:
        count += d_v * d_model          # W_o maps a head back to the model width
    return count
''', "output_map_sized_for_one_head",
        "W_o counted as d_v x d_model, one head's worth, although it reads the concatenation of all the heads "
        "(num_heads * d_v rows): right for one head only (262,144 becomes 32,768 for 8 heads of 64)"),
    _wrong("h9_count_shared_query_key_map", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model // num_heads if d_k is None else d_k
    d_v = d_model // num_heads if d_v is None else d_v
    count = num_heads * d_model * (d_k + d_v)   # queries and keys live in one space: one map serves both
    if output_projection:
        count += num_heads * d_v * d_model
    return count
''', "one_map_for_queries_and_keys",
        "queries and keys 'compared in the same space' given one shared map, against section 2 (one map "
        "would make every score table symmetric): d_model * d_k per head is missing"),
    _wrong("h9_count_value_width_follows_key", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    if d_k is None:
        d_k = d_model // num_heads
    if d_v is None:
        d_v = d_k                        # the values as wide as the keys
    count = num_heads * d_model * (2 * d_k + d_v)
    if output_projection:
        count += num_heads * d_v * d_model
    return count
''', "value_width_defaults_to_key_width",
        "a missing d_v defaults to the given d_k rather than to d_model // num_heads: right when neither or "
        "both are given, wrong for a call with d_k alone"),
    _wrong("h9_count_defaults_only_together", A04, "attention_param_count", '''\
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    if d_k is None and d_v is None:
        d_k = d_v = d_model // num_heads
    count = num_heads * d_model * (2 * d_k + d_v)
    if output_projection:
        count += num_heads * d_v * d_model
    return int(count)
''', None,
        "the two defaults filled in only when both widths are missing: a call that gives d_k alone (or d_v "
        "alone) multiplies by None and raises TypeError"),

    _wrong("h9_split_shape_assigned", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    *batch, n, d_model = X.shape
    X.shape = (*batch, n, num_heads, d_model // num_heads)   # reshape without a copy
    return np.swapaxes(X, -3, -2)
''', "caller_array_reshaped_in_place",
        "a C/MATLAB memory habit: the shape attribute assigned to avoid a copy, but np.asarray returned the "
        "caller's array, which is left with shape (..., n, h, d) (and a non-contiguous input raises)"),
    _wrong("h9_split_hsplit", A04, "split_heads", '''\
def split_heads(X, num_heads):
    # cut the columns into num_heads equal slices and stack them
    return np.stack(np.hsplit(np.asarray(X), num_heads))
''', "hsplit_cuts_the_second_axis",
        "np.hsplit splits the second axis, which is the width only for a 2-D array: with batch axes it cuts "
        "the positions (or the heads of a stack), and the head axis lands in front of the batch"),
    _right("h9_split_stack_slices", A04, "split_heads", '''\
def split_heads(X, num_heads):
    X = np.asarray(X)
    width = X.shape[-1] // num_heads
    # head h: columns h*width to (h+1)*width of every row, stacked just before the rows
    return np.stack([X[..., h * width:(h + 1) * width] for h in range(num_heads)], axis=-3)
''', "contiguous column slices stacked on the axis before the positions"),

    _wrong("h9_merge_split_keeps_axis", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.asarray(X)
    pieces = np.split(X, X.shape[-3], axis=-3)     # one piece per head
    return np.concatenate(pieces, axis=-1)         # joined end to end along the width
''', "length_one_head_axis_left",
        "np.split keeps the split axis with length one, so the joined array is (..., 1, n, h * d): the values "
        "are in place but the head axis is never removed"),
    _wrong("h9_merge_unpacked_in_output_order", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.asarray(X)
    *batch, n, h, d = X.shape       # n rows, h heads of width d
    return np.swapaxes(X, -3, -2).reshape(*batch, n, h * d)
''', "input_axes_unpacked_in_output_order",
        "the input's axes unpacked in the order of the output's (n, h, d) instead of (h, n, d): the "
        "result is (..., h, n * d), right only when there are as many heads as positions"),
    _right("h9_merge_concatenate_heads", A04, "merge_heads", '''\
def merge_heads(X):
    X = np.asarray(X)
    # row i: head 0's row i, then head 1's row i, ...
    return np.concatenate([X[..., i, :, :] for i in range(X.shape[-3])], axis=-1)
''', "the heads taken one by one and concatenated along the width"),

    _wrong("h9_mha_values_not_split", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = project(X_kv, W_v)                       # every head reads the whole values
    if mask is not None:
        mask = np.expand_dims(np.asarray(mask), -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
''', "values_not_split_into_heads",
        "only the queries and keys are cut into heads: each head averages the full-width values, so the "
        "merged heads are num_heads times too wide for W_o (raises unless there is one head)"),
    _wrong("h9_mha_last_head_weights", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    outputs = []
    for h in range(num_heads):
        out_h, weights = scaled_dot_product_attention(Q[..., h, :, :], K[..., h, :, :], V[..., h, :, :],
                                                      mask=mask)
        outputs.append(out_h)
    return project(np.concatenate(outputs, axis=-1), W_o), weights
''', "weights_of_the_last_head_only",
        "a loop over the heads collects every output but returns the loop variable's weights: the output is "
        "right, the weights are the last head's table only, shape (..., n_q, n_k)"),
    _wrong("h9_mha_mask_unsqueeze_one", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None:
        mask = np.asarray(mask)[:, None]         # mask.unsqueeze(1): the head axis
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
''', "head_axis_always_inserted_at_one",
        "PyTorch's mask.unsqueeze(1), written for (batch, n_q, n_k) masks: a shared (n_q, n_k) mask becomes "
        "(n_q, 1, n_k), whose rows line up with the heads (a shape error, or wrong rows when n_q == num_heads)"),
    _right("h9_mha_loop_over_heads", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv = np.asarray(X_q), np.asarray(X_kv)
    W_q, W_k, W_v, W_o = (np.asarray(W) for W in (W_q, W_k, W_v, W_o))
    d_k = W_q.shape[1] // num_heads
    d_v = W_v.shape[1] // num_heads
    outputs, tables = [], []
    for h in range(num_heads):                   # each head with its own slice of the three maps
        q = X_q @ W_q[:, h * d_k:(h + 1) * d_k]
        k = X_kv @ W_k[:, h * d_k:(h + 1) * d_k]
        v = X_kv @ W_v[:, h * d_v:(h + 1) * d_v]
        out, w = scaled_dot_product_attention(q, k, v, mask=mask)
        outputs.append(out)
        tables.append(w)
    return np.concatenate(outputs, axis=-1) @ W_o, np.stack(tables, axis=-3)
''', "one head at a time with column slices of the maps; the mask needs no head axis then"),
    _right("h9_mha_output_map_blocks", A04, "multi_head_attention", '''\
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.ndim >= 2:
            mask = mask[..., None, :, :]            # the same mask for every head
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)   # (..., h, n_q, d_v)
    W_o = np.asarray(W_o)
    blocks = W_o.reshape(num_heads, W_o.shape[0] // num_heads, W_o.shape[1])   # the rows of W_o head by head
    return np.einsum("...hqd,hdo->...qo", heads, blocks), weights
''', "Concat(heads) W_o computed as the sum over heads of head_i times its own block of rows of W_o"),

    _wrong("h9_asym_gap_halved", A04, "score_asymmetry", '''\
def score_asymmetry(X, W_q, W_k):
    X = np.asarray(X)
    S = (X @ np.asarray(W_q)) @ (X @ np.asarray(W_k)).T
    return float(np.abs(S - S.T).max() / 2)    # every pair appears twice in S - S^T
''', "gap_halved_for_double_counting",
        "'each pair appears twice in S - S^T' (as (i, j) and (j, i)) answered by halving the gap, although "
        "the largest single gap is asked, which counts nothing twice"),
    _wrong("h9_asym_difference_of_maxima", A04, "score_asymmetry", '''\
def score_asymmetry(X, W_q, W_k):
    X = np.asarray(X)
    S = (X @ np.asarray(W_q)) @ (X @ np.asarray(W_k)).T
    return float(abs(S.max() - S.T.max()))
''', "largest_entries_compared_not_pairs",
        "the gap between 'i reads j' and 'j reads i' taken as the gap between the largest entries of S and "
        "S^T, which are the same number: 0 for every pair of maps"),
    _right("h9_asym_signed_maximum", A04, "score_asymmetry", '''\
def score_asymmetry(X, W_q, W_k):
    X = np.asarray(X)
    S = (X @ np.asarray(W_q)) @ (X @ np.asarray(W_k)).T
    # S - S^T is antisymmetric: each gap appears once with each sign, so its maximum is the largest gap
    return float((S - S.T).max())
''', "no absolute value needed: the largest entry of the antisymmetric S - S^T is the largest gap"),

    _wrong("h9_concepts04_order_read_backwards", A04, "CONCEPTS_04", '''\
# CONCEPTS_04 = ("?", "?", "?")  (one letter per question, in order)
CONCEPTS_04 = tuple(shown["abcd".index(right)] for shown, right in zip(CONCEPT_ORDER, "dba"))
''', "lettering_table_read_backwards",
        "the printed lettering read the wrong way round: the lesson's letter printed at the right option's "
        "position, instead of the position at which the right option is printed"),

    # ------------------------------------------------------------------ 05 cross-attention
    _wrong("h9_self_causal_by_default", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=True):
    X = np.asarray(X)
    mask = causal_mask(X.shape[-2]) if causal else None
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "causal_by_default",
        "a GPT-trained habit: the signature's default changed to causal=True, so a call without the flag (the "
        "self-attention of an encoder) hides the later positions"),
    _wrong("h9_self_sequence_passed_once", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    mask = causal_mask(X.shape[-2]) if causal else None
    return multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', None,
        "X passed once ('the sequence reads itself'), so every later positional argument slides one place "
        "and the call raises (num_heads missing)"),
    _right("h9_self_all_true_mask", A05, "self_attention", '''\
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    n = np.shape(X)[-2]
    # without the causal flag every position may read every position
    mask = causal_mask(n) if causal else np.ones((n, n), dtype=bool)
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "an all-True mask when not causal hides nothing, so it equals no mask"),

    _wrong("h9_cross_trimmed_to_longest", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_enc = np.asarray(X_enc)
    if enc_lengths is not None:
        X_enc = X_enc[..., :int(np.max(enc_lengths)), :]   # drop the padding columns
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads)
''', "padding_trimmed_not_masked",
        "the batch cut to its longest sentence instead of masked: the weights lose columns (n_enc becomes "
        "max(enc_lengths)) and the padding of every shorter sentence is still read"),
    _wrong("h9_cross_maps_swapped", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_enc = np.asarray(X_enc)
    mask = None if enc_lengths is None else padding_mask(np.asarray(enc_lengths), X_enc.shape[-2])
    return multi_head_attention(X_dec, X_enc, W_k, W_q, W_v, W_o, num_heads, mask=mask)
''', "query_and_key_maps_swapped",
        "the roles of the sequences are right, but the two maps are passed in each other's place: the decoder's "
        "rows go through W_k and the encoder's through W_q"),
    _wrong("h9_cross_lengths_as_mask", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    # the layer hides the padding given the true lengths
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=enc_lengths)
''', "lengths_handed_over_as_mask",
        "the lengths passed where a mask is expected (as to APIs that take sequence lengths): an integer "
        "array of shape (batch,) is no mask of the scores, and the call raises"),
    _wrong("h9_cross_padding_zeroed", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_enc = np.asarray(X_enc)
    if enc_lengths is not None:
        real = padding_mask(np.asarray(enc_lengths), X_enc.shape[-2])   # (batch, 1, n_enc)
        X_enc = X_enc * real[:, 0, :, None]                            # padded positions set to zero
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads)
''', "padding_zeroed_instead_of_masked",
        "padding 'removed' by zeroing its rows: a zero key scores 0, an ordinary score, so the padded "
        "positions keep a positive weight (an empty sentence gets uniform weights, not zeros)"),
    _right("h9_cross_mask_by_hand", A05, "cross_attention", '''\
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None
    if enc_lengths is not None:
        n_enc = np.shape(X_enc)[-2]
        lengths = np.asarray(enc_lengths).reshape(-1, 1, 1)          # (batch, 1, 1)
        mask = np.arange(n_enc).reshape(1, 1, n_enc) < lengths       # (batch, 1, n_enc): key j is real
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
''', "the padding mask written out with reshapes instead of padding_mask"),

    _wrong("h9_concepts05_classmate_letter", A05, "CONCEPTS_05", '''\
# CONCEPTS_05 = ("?",)  (one letter)
CONCEPTS_05 = ("b",)
''', "letters_of_another_ordering",
        "the right option answered with the letter it has in a classmate's notebook (the lesson's lettering)"),
    _right("h9_concepts05_zip_lookup", A05, "CONCEPTS_05", '''\
# CONCEPTS_05 = ("?",)  (one letter)
CONCEPTS_05 = (dict(zip(CONCEPT_ORDER[0], "abcd"))["b"],)
''', "a dictionary from the lesson's letters to the printed ones"),

    # ------------------------------------------------------------------ 06 long sequences
    _wrong("h9_table_lesson_example", A06, "TABLE_BYTES", '''\
# TABLE_BYTES = ...  (bytes of the weights of 8 heads, n_q = n_k = TABLE_N, in TABLE_DTYPE)
TABLE_BYTES = 536_870_912
''', "worked_example_copied",
        "the lesson's example (n = 4096, float32) copied instead of computed with the student's own "
        "TABLE_N and TABLE_DTYPE"),
    _wrong("h9_table_example_itemsize", A06, "TABLE_BYTES", '''\
# TABLE_BYTES = ...  (bytes of the weights of 8 heads, n_q = n_k = TABLE_N, in TABLE_DTYPE)
TABLE_BYTES = 8 * TABLE_N * TABLE_N * 4
''', "example_dtype_kept",
        "the own length used but the example's 4 bytes kept whatever TABLE_DTYPE says (right only for float32)"),
    _right("h9_table_python_ints", A06, "TABLE_BYTES", '''\
# TABLE_BYTES = ...  (bytes of the weights of 8 heads, n_q = n_k = TABLE_N, in TABLE_DTYPE)
TABLE_BYTES = int(TABLE_N) ** 2 * np.dtype(TABLE_DTYPE).itemsize * 8
''', "n^2 weights of itemsize bytes, for 8 heads, as a Python int"),

    _wrong("h9_block_width_sliced", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full((*batch, n_q, 1), -np.inf)
    total = np.zeros((*batch, n_q, 1))
    acc = np.zeros((*batch, n_q, V.shape[-1]))
    for start in range(0, n_k, block_size):
        K_block = K[..., start:start + block_size]      # the next block of keys
        V_block = V[..., start:start + block_size]
        s = Q @ np.swapaxes(K_block, -1, -2) * factor
        if mask is not None:
            s = np.where(mask[..., start:start + block_size] if np.shape(mask)[-1] > 1 else mask, s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(new_m == -np.inf, 0, new_m)
        p = np.exp(s - shift)
        rescale = np.exp(m - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V_block
        m = new_m
    return acc / np.where(total == 0, 1, total)
''', "block_sliced_along_the_width",
        "K[..., a:b] with the ellipsis cuts the last axis, the width, not the keys: with one block it is "
        "the whole computation, with more blocks (or a block narrower than d_k) the products raise"),
    _wrong("h9_block_exponentiated_before_max", A06, "blockwise_attention", '''\
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
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
        if mask is not None:
            s = np.where(mask[..., start:stop] if np.shape(mask)[-1] > 1 else mask, s, -np.inf)
        shift = np.where(m == -np.inf, 0, m)
        p = np.exp(s - shift)                           # this block, on the scale of the running maximum
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        new_shift = np.where(new_m == -np.inf, 0, new_m)
        rescale = np.exp(shift - new_shift)
        total = (total + p.sum(axis=-1, keepdims=True)) * rescale
        acc = (acc + p @ V[..., start:stop, :]) * rescale
        m = new_m
    return acc / np.where(total == 0, 1, total)
''', "block_exponentiated_before_the_maximum_is_updated",
        "the new block exponentiated against the old running maximum and rescaled afterwards: exact in exact "
        "arithmetic, but the first block is exponentiated unshifted, so scores near 1e3 overflow to inf and NaN"),
    _wrong("h9_block_accumulator_like_queries", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_k = K.shape[-2]
    m = np.full(Q.shape[:-1] + (1,), -np.inf)
    total = np.zeros(Q.shape[:-1] + (1,))
    acc = np.zeros_like(Q, dtype=float)               # one running row per query
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
        if mask is not None:
            s = np.where(mask[..., start:stop] if np.shape(mask)[-1] > 1 else mask, s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(new_m == -np.inf, 0, new_m)
        p = np.exp(s - shift)
        rescale = np.exp(m - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:stop, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)
''', "accumulator_shaped_like_the_queries",
        "the running weighted sum allocated with np.zeros_like(Q): tested with d_v = d_k it is right, but it "
        "has the queries' width, so values of another width do not broadcast into it"),
    _wrong("h9_block_one_max_for_all", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = -np.inf                                      # the running maximum
    total = np.zeros((*batch, n_q, 1))
    acc = np.zeros((*batch, n_q, V.shape[-1]))
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
        if mask is not None:
            s = np.where(mask[..., start:stop] if np.shape(mask)[-1] > 1 else mask, s, -np.inf)
        new_m = max(m, s.max())
        shift = 0.0 if new_m == -np.inf else new_m
        rescale = math.exp(m - shift)
        p = np.exp(s - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:stop, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)
''', "one_running_maximum_for_every_query",
        "one running maximum for the whole block (s.max() without an axis) instead of one per query: exact "
        "while all rows are of similar size, but a query whose scores lie far below another's underflows to 0"),
    _right("h9_block_two_passes", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_k = K.shape[-2]
    blocks = [(start, min(start + block_size, n_k)) for start in range(0, n_k, block_size)]

    def block_scores(start, stop):
        s = (Q * factor) @ np.swapaxes(K[..., start:stop, :], -1, -2)    # (..., n_q, b)
        if mask is not None:
            m = np.asarray(mask)
            m = m[..., start:stop] if m.shape[-1] > 1 else m
            s = np.where(m, s, -np.inf) if m.dtype == bool else s + m
        return s

    top = None                      # first pass: each query's largest score
    for start, stop in blocks:
        block_top = block_scores(start, stop).max(axis=-1, keepdims=True)
        top = block_top if top is None else np.maximum(top, block_top)
    top = np.where(np.isneginf(top), 0, top)
    total, acc = 0, 0               # second pass: every block on that one scale
    for start, stop in blocks:
        e = np.exp(block_scores(start, stop) - top)
        total = total + e.sum(axis=-1, keepdims=True)
        acc = acc + e @ V[..., start:stop, :]
    return acc / np.where(total == 0, 1, total)
''', "two passes over the key blocks: the row maxima first, then the totals and sums on that one "
        "scale (no rescaling needed, one block of scores at a time)"),
    _right("h9_block_log_domain", A06, "blockwise_attention", '''\
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_k = K.shape[-2]
    log_total = None     # per query: log of the running total of exp(score)
    out = None           # per query: the softmax-weighted average of the values read so far
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = (Q @ np.swapaxes(K[..., start:stop, :], -1, -2)) * factor
        if mask is not None:
            m = np.asarray(mask)
            s = np.where(m[..., start:stop] if m.shape[-1] > 1 else m, s, -np.inf)
        block_max = s.max(axis=-1, keepdims=True)
        safe_max = np.where(np.isneginf(block_max), 0, block_max)
        e = np.exp(s - safe_max)
        block_total = e.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore"):
            block_log = safe_max + np.log(block_total)        # -inf for a block with no allowed key
        block_out = (e @ V[..., start:stop, :]) / np.where(block_total == 0, 1, block_total)
        if log_total is None:
            log_total, out = block_log, block_out
        else:
            new_log = np.logaddexp(log_total, block_log)
            safe_new = np.where(np.isneginf(new_log), 0, new_log)
            out = out * np.exp(log_total - safe_new) + block_out * np.exp(block_log - safe_new)
            log_total = new_log
    return out
''', "a running normalised average merged block by block with log-sum-exp weights"),

    # ------------------------------------------------------------------ 07 scoring functions
    _wrong("h9_add_units_not_summed", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    a = np.asarray(Q) @ np.asarray(W_q)       # (..., n_q, h)
    c = np.asarray(K) @ np.asarray(W_k)       # (..., n_k, h)
    return np.asarray(v) * np.tanh(a[..., :, None, :] + c[..., None, :, :])
''', "hidden_units_weighted_not_summed",
        "v applied entry by entry and never summed over the hidden units: a table (..., n_q, n_k, h) instead "
        "of one score per pair"),
    _wrong("h9_add_v_from_the_left", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    a = np.asarray(Q) @ np.asarray(W_q)
    c = np.asarray(K) @ np.asarray(W_k)
    return np.asarray(v) @ np.tanh(a[..., :, None, :] + c[..., None, :, :])   # v^T tanh(...)
''', "scoring_vector_multiplied_from_the_left",
        "v^T tanh(...) typed in the formula's order: a 1-D v on the left of @ meets the key axis of the pair "
        "table, not the hidden axis (a shape error unless n_k == h, and then the wrong sums)"),
    _wrong("h9_add_logistic", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    a = np.asarray(Q) @ np.asarray(W_q)
    c = np.asarray(K) @ np.asarray(W_k)
    hidden = a[..., :, None, :] + c[..., None, :, :]
    return (1 / (1 + np.exp(-hidden))) @ np.asarray(v)      # the squashing of a feed-forward unit
''', "logistic_sigmoid_for_tanh",
        "the hidden layer squashed with the logistic sigmoid of a textbook neural network instead of tanh: "
        "values in (0, 1), centred on 0.5, not in (-1, 1)"),
    _wrong("h9_add_v_normalised", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    v = np.asarray(v)
    v = v / np.linalg.norm(v)             # normalize=True, as in TensorFlow's BahdanauAttention
    a = np.asarray(Q) @ np.asarray(W_q)
    c = np.asarray(K) @ np.asarray(W_k)
    return np.tanh(a[..., :, None, :] + c[..., None, :, :]) @ v
''', "scoring_vector_normalised",
        "TensorFlow's BahdanauAttention(normalize=True) carried over: v divided by its length, so every score "
        "is scaled by 1 / |v| (right only for a unit v)"),
    _right("h9_add_concatenated_pair", A07, "additive_scores", '''\
def additive_scores(Q, K, W_q, W_k, v):
    Q, K = np.asarray(Q), np.asarray(K)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2])
    q_pairs = np.broadcast_to(Q[..., :, None, :], (*batch, n_q, n_k, Q.shape[-1]))
    k_pairs = np.broadcast_to(K[..., None, :, :], (*batch, n_q, n_k, K.shape[-1]))
    pairs = np.concatenate([q_pairs, k_pairs], axis=-1)              # [q; k] for every pair
    W = np.concatenate([np.asarray(W_q), np.asarray(W_k)], axis=0)   # [q; k] W = q W_q + k W_k
    return np.tanh(pairs @ W) @ np.asarray(v)
''', "Bahdanau's concatenated form: [q; k] times the stacked maps is q W_q + k W_k"),

    _wrong("h9_sdot_maps_swapped", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    q = np.asarray(Q) @ np.asarray(W_k)
    k = np.asarray(K) @ np.asarray(W_q)
    return q @ np.swapaxes(k, -1, -2) / math.sqrt(np.shape(W_q)[1])
''', "query_and_key_maps_swapped",
        "the two maps applied to each other's side: the queries through W_k, the keys through W_q (a shape "
        "error when d_q != d_k, the transposed relation when they agree)"),
    _wrong("h9_sdot_merged_without_transpose", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    W_q, W_k = np.asarray(W_q), np.asarray(W_k)
    M = W_q @ W_k / math.sqrt(W_q.shape[1])          # q^T (W_q W_k / sqrt(h)) k: one matrix
    return np.asarray(Q) @ M @ np.swapaxes(np.asarray(K), -1, -2)
''', "merged_matrix_missing_transpose",
        "section 3's merged form W_q W_k^T / sqrt(h) typed without the transpose: a shape error unless "
        "h == d_k, and then a different matrix"),
    _right("h9_sdot_bilinear_matrix", A07, "scaled_dot_scores", '''\
def scaled_dot_scores(Q, K, W_q, W_k):
    W_q, W_k = np.asarray(W_q), np.asarray(W_k)
    M = W_q @ W_k.T / math.sqrt(W_q.shape[1])        # the bilinear matrix of rank at most h
    return np.asarray(Q) @ M @ np.swapaxes(np.asarray(K), -1, -2)
''', "the dot-product score as the bilinear score of section 3 with W = W_q W_k^T / sqrt(h)"),

    _wrong("h9_bil_W_on_both_sides", A07, "bilinear_scores", '''\
def bilinear_scores(Q, K, W):
    W = np.asarray(W)
    return (np.asarray(Q) @ W) @ np.swapaxes(np.asarray(K) @ W, -1, -2)
''', "matrix_applied_to_query_and_key",
        "W used like the projections of the dot-product score, on both the query and the key: q W W^T k^T "
        "instead of q W k^T (a shape error when d_q != d_k)"),
    _wrong("h9_bil_diagonal_only", A07, "bilinear_scores", '''\
def bilinear_scores(Q, K, W):
    w = np.diag(np.asarray(W))            # one weight per entry
    return (np.asarray(Q) * w) @ np.swapaxes(np.asarray(K), -1, -2)
''', "only_the_diagonal_of_W",
        "the bilinear score read as a weighted dot product: only W's diagonal is used, so the off-diagonal "
        "entries (entry i of the query meeting entry j of the key) are lost"),
    _right("h9_bil_einsum", A07, "bilinear_scores", '''\
def bilinear_scores(Q, K, W):
    return np.einsum("...qi,ij,...kj->...qk", np.asarray(Q), np.asarray(W), np.asarray(K))
''', "q_i W_ij k_j summed over i and j, written as one einsum"),

    _wrong("h9_costs_flops", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    # every step is a multiply and an add
    if kind == "bilinear":
        return d * d, 2 * (n * d * d + n * n * d)
    parameters = 2 * d * h + (h if kind == "additive" else 0)
    return parameters, 2 * (2 * n * d * h + n * n * h)
''', "flops_counted_for_multiply_adds",
        "a GPU habit: FLOPs counted (a multiplication and an addition each), twice the multiply-adds the "
        "task asks for"),
    _wrong("h9_costs_projection_per_pair", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * d * d + n * n * d
    parameters = 2 * d * h + (h if kind == "additive" else 0)
    return parameters, n * n * (2 * d * h + h)      # each pair: q W_q and k W_k, then h for its score
''', "projections_recomputed_for_every_pair",
        "the two projections charged to every pair (n^2 of them) instead of once per query and once per key"),
    _wrong("h9_costs_bilinear_keys_projected", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, 2 * n * d * d + n * n * d      # Q W and K W, then a dot product per pair
    parameters = 2 * d * h + (h if kind == "additive" else 0)
    return parameters, 2 * n * d * h + n * n * h
''', "bilinear_charged_two_projections",
        "the bilinear score charged a projection of the keys too, by analogy with the other two; only Q W "
        "is computed, and each pair then takes a dot product with the raw key"),
    _right("h9_costs_lookup", A07, "score_costs", '''\
def score_costs(kind, n, d, h):
    projections = 2 * n * d * h
    table = {
        "additive": (2 * d * h + h, projections + n * n * h),
        "dot": (2 * d * h, projections + n * n * h),
        "bilinear": (d * d, n * d * d + n * n * d),
    }
    return table[kind]
''', "the three counts as a lookup table"),

    _wrong("h9_width_v_sized_by_items", A07, "width_for_budget", '''\
def width_for_budget(kind, d, budget):
    if kind == "additive":
        return (budget - d) // (2 * d)     # W_q and W_k (d x h each) and v, one entry per input entry
    return budget // (2 * d)
''', "scoring_vector_sized_by_item_width",
        "v given the items' width d instead of the hidden width h: the additive budget loses d parameters "
        "up front instead of one per hidden unit"),
    _right("h9_width_divmod", A07, "width_for_budget", '''\
def width_for_budget(kind, d, budget):
    per_unit = 2 * d + (kind == "additive")     # a column of W_q and W_k, plus an entry of v for additive
    width, _ = divmod(budget, per_unit)
    return width
''', "the cost of one hidden unit and divmod for the whole number of units"),
]
