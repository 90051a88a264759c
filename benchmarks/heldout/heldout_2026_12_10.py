"""Held-out answers of 2026-12-10: a ninth blind set, aimed at the mistakes students make most often.

Written by a helper session (branch ``wt-heldout10``) **without reading the grader**: nothing under
``autograder/checks/``, ``tests/checks/``, ``tests/course/test_catalogue.py`` or ``benchmarks/heldout/judgements/``
was opened, nor anything under ``autograder/catalogue/`` beyond ``catalogue/__init__.py`` (its docstring, the
``Variant`` class and ``all_variants``) and the loader ``load_variants`` of ``fairness.py``; no feedback or
misconception texts of the grader were read, and neither the grader, ``benchmarks/fairness.py`` nor any test was run
on these answers. Read: the notebooks' task texts (``sources/NN_*/NN_*.py``: prose, stubs, the one-line descriptions
of the hidden tests, the instructor's solution cells), the whole reference ``attention_ref/``, the two lesson seeds
(``/work/shared/seeds/*.txt``), ``Grader.numbers`` in ``autograder/notebook/__init__.py`` (to know what
``STOP_Q``/``STOP_K``, ``CONCEPT_ORDER`` and ``TABLE_N``/``TABLE_DTYPE`` are), and of the earlier held-out sets only
the docstring and first 100 lines of ``heldout_2026_12_09.py`` (and its import line just below them), for the
layout. ``Grader.numbers`` was called once for each per-student item of a bare course (no answer in the namespace)
to see the form of the numbers (``STOP_Q`` a float array (2,), ``STOP_K`` (3, 2), ``CONCEPT_ORDER`` an array of
lettering strings such as ``'cadb'``, ``(TABLE_N, TABLE_DTYPE)`` an int and a dtype name) and the option texts a
student is shown for the concept questions; nothing else of the grader was called. The earlier sets' names and
labels were not listed this time: this set aims at the typical mistakes, which earlier sets may share.

Students imagined: a class of 300 meeting attention for the first time, most of them writing the first thing the
formula suggests and testing it on the worked example only. The common mistakes (68 of the 86): the dot product not
summed or taken as a cosine; ``K.T`` on batched keys, ``K Q^T``, ``np.dot`` on stacks, a reshape for a transpose;
the softmax without its maximum, with one maximum for the whole array, summed over everything, without
``keepdims``, ignoring ``axis``, in place; a weighted sum divided again by ``n_k`` or taken entrywise; the variance
from numpy's global random state or as a standard deviation; ``/ d_k``, ``/ sqrt(n_k)`` read off the scores, the
example's ``sqrt(2)`` hard-coded, the scores divided in place; a naive exponential in ``leading_weight``; the
Jacobian's diagonal only; attention without the divisor, with the softmax over axis 0, with queries and keys
swapped, with ``d_k = len(Q[0])``; the Stop-and-try answers with the lesson's scores, unscaled weights, a 0-based key
number and reason c; a causal mask meaning "hidden", without its diagonal or always square; a padding mask with
``<=`` or without its query axis; a boolean mask read backwards, multiplied in, or written into the caller's scores;
the mask after the softmax and ``-1e9`` for ``-inf``; ``X W^T`` and a 2-D-only ``project``; one head counted, or
every head at full width; heads split or merged by a bare reshape, or split for 2-D input only; ``sqrt(d_model)`` as
the head divisor, a mask without a head axis, keys and values from ``X_q``, no ``W_o``; the upper triangle as the
causal mask and ``len(X)`` as the sequence length; cross-attention with the roles swapped or a causal mask; the
table of one head; the online softmax without the rescaling, with the whole table, or without its last partial block;
the tanh of each projection, ``sqrt(d_q)`` and ``k.T`` in the scoring functions, ``v`` not counted; concept
questions answered with the plausible wrong option (cosine, "at every step of training", "more heads multiply the
parameters", "important in general"). The rarer but plausible ones (18): a loop from index 1, the ``scaled`` flag
read backwards, a padding mask of shape ``(batch, n_k, 1)``, a floating mask read as booleans, the queries divided
in place, an additive bias divided by ``sqrt(d_k)``, a missing pair of parentheses in the parameter count, heads
dealt out column by column, heads stacked along the positions, the Frobenius norm for the largest gap, a 0/1 float
causal mask, a padding mask along the queries or squeezed to ``(batch, n_enc)``, bits for bytes, one softmax per
block averaged, query i paired with key i only, the width rounded up, ``/`` for ``//``. Not labelled as a mistake
anywhere: float32 in, float64 out. The Stop-and-try answers use the per-student ``STOP_Q`` and ``STOP_K``, the
concept answers ``CONCEPT_ORDER``, ``TABLE_BYTES`` the student's ``TABLE_N`` and ``TABLE_DTYPE``.

Each answer replaces one solution cell only (the other cells keep the instructor's answers) and defines no name other
than its own task's (helpers and imports live inside the function). A wrong answer is labelled with the misconception
in the author's own words (not ids of the course), or ``None`` for a Python or arithmetic muddle (3: the loop from
index 1, the missing parentheses, ``/`` for ``//``); ``source`` says the mistake in one line. Correct rewrites are
written differently from the solutions (fsum, einsum, log-sum-exp, moveaxis, closed forms, ``np.tri``,
``np.greater.outer``, boolean indexing, additive biases, ``tensordot``, ``np.split``/``np.stack``, a running
log-sum-exp, a two-pass blockwise attention, ``divmod``, dictionaries and ``str.find`` for the letters).

How it was checked (a throw-away script in /tmp, not kept): each cell is executed in a namespace holding ``math``,
``np``, what the notebook's first cell imports from ``attention_ref`` and ``attention_ref``'s versions of the
notebook's other task functions; the names it defines are compared with its task's; its function is called on 4 to
30 inputs per task of the kinds the notebooks name -- the seeds' worked examples (lists, integer lists, arrays),
square and non-square shapes with n_q > n_k and n_q < n_k, one and two leading batch axes, float32, scores of 1e3
and 1e4, rows far apart and far below 0, a single -inf score, softmax along axes 0, 1 and -2 of a 3-D array, widths
0.5 to 1e8 with and without ``scaled``, one-hot and saturated probability vectors, causal masks with n_q != n_k,
padding masks (batch, 1, n_k) with an empty sequence, boolean masks as lists, float64 and float32 additive masks
(0/-inf and finite biases), a fully masked row, one shared (n_q, n_k) mask for a batch of heads, (batch, n_q, n_k)
masks with as many and with more sequences than heads, the 512-wide layer of 8 heads, d_k != d_v and W_o to another
width, d_k or d_v given alone, a non-contiguous input to ``split_heads``, enc_lengths [5, 2], [0, 3], a batch of 3
and of 5 (as a list), n_dec = n_enc, block sizes 1, 3, 4, n_k and more than n_k, scores that grow from block to
block, an explicit ``scale``, d_q != d_k != h, non-symmetric W, budgets that fit exactly and not -- and compared with
``attention_ref``: the same type (a Python float or int where the reference returns one, booleans for masks, an
ndarray) and shape, values within rtol 1e-5 / atol 1e-8 (1e-4 and 1e-5 times the largest value for float32
inputs), the same -inf entries, no NaN, inputs left unchanged, overflow/invalid/divide warnings recorded.
``score_variance`` is checked statistically (within 6 standard errors of d_k for d_k = 1, 16, 64 and seeds 0, 1, 2
with 20,000 pairs, the same value for the same seed, another for another seed, a Generator and the default call
accepted) and ``blockwise_attention`` also for memory (tracemalloc peak below an eighth of the n_q x n_k table at 256
queries and 32,768 keys, float64 and float32). The written values are checked on 26 draws of ``STOP_Q``/``STOP_K``
(the lesson's, 24 random ones rounded to one decimal with a clear winner, one more), 15 letterings per concept
notebook (the identity and 14 random orders) and 9 (``TABLE_N``, ``TABLE_DTYPE``) pairs (Python and numpy ints,
dtypes as names, types and dtype objects). The same script finds no difference on the instructor's 36 solution
cells (``sources/``), so none of those inputs lies outside what the tasks allow (06's text allows boolean masks only,
so its floating mask was dropped). Results:

* every wrong answer differs from the reference, raises or modifies its input on at least one of those inputs (some
  on few: ``-1e9`` only on a fully masked row or an empty sequence, the bias divided by sqrt(d_k) only with a finite
  floating mask, ``len(Q[0])`` only with batch axes, the mask without a head axis only with a (batch, n_q, n_k)
  mask, the whole table only on memory); each per-student wrong answer is wrong on every non-lesson draw (the
  lesson's copied scores are right on the lesson's numbers only);
* every correct rewrite agrees on all of them, with no warning and no input modified, on every draw;
* no answer defines a name other than its own task's; ``load_variants`` accepts the file (121 variants).

Counts (wrong / correct / wrong labelled ``None``):

==========================  =====  =======  ====
notebook                    wrong  correct  None
==========================  =====  =======  ====
01_scores_softmax              16        6     1
02_scaling                     18        7     0
03_masking                     14        6     0
04_heads                       16        6     1
05_cross_attention              8        3     0
06_long_sequences               6        3     0
07_scoring_functions            8        4     1
total                          86       35     3
==========================  =====  =======  ====

Measure it (named / vague / wrong on this set alone)::

    .venv/bin/python benchmarks/fairness.py --variants benchmarks/heldout/heldout_2026_12_10.py --seeds 3
"""
from __future__ import annotations

import textwrap

from autograder.catalogue import Variant

N01, N02, N03, N04 = "01_scores_softmax", "02_scaling", "03_masking", "04_heads"
N05, N06, N07 = "05_cross_attention", "06_long_sequences", "07_scoring_functions"


def _cell(source: str) -> str:
    return textwrap.dedent(source).strip("\n") + "\n"


def _wrong(name, assignment, task, source_code, label, source):
    return Variant(name=f"h10_{name}", assignment=assignment, task=task, answers={task: _cell(source_code)},
                   correct=False, misconception=label, source=source)


def _right(name, assignment, task, source_code, source):
    return Variant(name=f"h10_{name}", assignment=assignment, task=task, answers={task: _cell(source_code)},
                   correct=True, source=source)


VARIANTS = [
    # ------------------------------------------------------------------ 01 · scores and softmax
    _wrong("01_dot_elementwise", N01, "dot_product", """
        def dot_product(q, k):
            q = np.asarray(q, dtype=float)
            k = np.asarray(k, dtype=float)
            return q * k
        """,
        "the dot product taken as the entrywise product of the two vectors, never added up into one number",
        "returns q * k, an array of products, instead of their sum"),
    _wrong("01_dot_cosine", N01, "dot_product", """
        def dot_product(q, k):
            q = np.asarray(q, dtype=float)
            k = np.asarray(k, dtype=float)
            return float(np.sum(q * k) / (np.linalg.norm(q) * np.linalg.norm(k)))
        """,
        "the score believed to be the cosine similarity: the lengths of the query and the key divided out",
        "divides q . k by |q| |k| (the key (0.5, 0.5) scores 0.707 instead of 0.5)"),
    _wrong("01_dot_loop_from_one", N01, "dot_product", """
        def dot_product(q, k):
            total = 0.0
            for i in range(1, len(q)):
                total += q[i] * k[i]
            return float(total)
        """,
        None,
        "the loop starts at index 1 (as in 1-based pseudocode), so the first product is never added"),
    _wrong("01_scores_dot_T", N01, "attention_scores", """
        def attention_scores(Q, K):
            Q = np.asarray(Q)
            K = np.asarray(K)
            return Q @ K.T
        """,
        "K.T believed to transpose each key matrix, but it reverses every axis, batch axes included",
        "Q @ K.T: right for 2-D inputs, wrong or an error as soon as there are batch or head axes"),
    _wrong("01_scores_keys_by_queries", N01, "attention_scores", """
        def attention_scores(Q, K):
            return np.matmul(np.asarray(K), np.swapaxes(np.asarray(Q), -1, -2))
        """,
        "queries and keys swapped: the table is laid out one row per key (K Q^T) instead of one row per query",
        "K @ Q^T gives shape (..., n_k, n_q), the transpose of the scores"),
    _wrong("01_scores_np_dot", N01, "attention_scores", """
        def attention_scores(Q, K):
            Q = np.asarray(Q, dtype=float)
            K = np.asarray(K, dtype=float)
            return np.dot(Q, np.swapaxes(K, -1, -2))
        """,
        "np.dot believed to be a batched matrix product; on stacked arrays it pairs every batch entry with every other",
        "np.dot instead of @: right in 2-D, shape (..., n_q, ..., n_k) with batch axes"),
    _wrong("01_scores_reshape_not_transpose", N01, "attention_scores", """
        def attention_scores(Q, K):
            Q = np.asarray(Q)
            K = np.asarray(K)
            n_k, d_k = K.shape[-2], K.shape[-1]
            return Q @ K.reshape(*K.shape[:-2], d_k, n_k)
        """,
        "reshape to (d_k, n_k) taken for a transpose: it keeps the memory order and regroups the entries of the keys",
        "K.reshape(..., d_k, n_k) instead of swapping the last two axes"),
    _wrong("01_softmax_no_max", N01, "softmax", """
        def softmax(x, axis=-1):
            x = np.asarray(x, dtype=float)
            e = np.exp(x)
            return e / np.sum(e, axis=axis, keepdims=True)
        """,
        "the maximum is not subtracted before exponentiating, so large scores overflow to inf and give nan",
        "exp(x) / sum(exp(x)) straight from the formula: nan at scores of 1e3"),
    _wrong("01_softmax_global_max", N01, "softmax", """
        def softmax(x, axis=-1):
            x = np.asarray(x, dtype=float)
            e = np.exp(x - np.max(x))
            return e / e.sum(axis=axis, keepdims=True)
        """,
        "one maximum of the whole array subtracted instead of each row's own, so a row far below it underflows to 0/0",
        "x - x.max() with no axis: rows of very different sizes give nan"),
    _wrong("01_softmax_whole_sum", N01, "softmax", """
        def softmax(x, axis=-1):
            x = np.asarray(x, dtype=float)
            e = np.exp(x - x.max(axis=axis, keepdims=True))
            return e / e.sum()
        """,
        "normalised by the total of the whole array instead of along the axis, so the rows do not each sum to one",
        "e / e.sum() without axis: right for one row, wrong for a table of scores"),
    _wrong("01_softmax_no_keepdims", N01, "softmax", """
        def softmax(x, axis=-1):
            x = np.asarray(x, dtype=float)
            m = np.max(x, axis=axis)
            e = np.exp(x - m)
            return e / np.sum(e, axis=axis)
        """,
        "the reduced axis dropped (no keepdims), so the row maxima and sums broadcast along the wrong axis",
        "max and sum without keepdims=True: right for one row, wrong values or an error on a table"),
    _wrong("01_softmax_axis_ignored", N01, "softmax", """
        def softmax(x, axis=-1):
            x = np.asarray(x, dtype=float)
            shifted = x - x.max(axis=-1, keepdims=True)
            e = np.exp(shifted)
            return e / e.sum(axis=-1, keepdims=True)
        """,
        "the axis argument ignored: always normalises along the last axis",
        "hard-codes axis=-1 in the max and the sum, so softmax(x, axis=0) normalises the wrong slices"),
    _wrong("01_softmax_in_place", N01, "softmax", """
        def softmax(x, axis=-1):
            x = np.asarray(x)
            if x.dtype.kind != "f":
                x = x.astype(float)
            x -= x.max(axis=axis, keepdims=True)
            np.exp(x, out=x)
            x /= x.sum(axis=axis, keepdims=True)
            return x
        """,
        "works in place on the caller's scores (np.asarray does not copy), overwriting them with the weights",
        "x -= max, np.exp(x, out=x), x /= sum on the array that was passed in"),
    _wrong("01_wavg_divide_by_n", N01, "weighted_average", """
        def weighted_average(weights, V):
            weights = np.asarray(weights)
            V = np.asarray(V)
            return (weights @ V) / weights.shape[-1]
        """,
        "an average believed to need a division by the number of keys, though the weights already sum to one",
        "(weights @ V) / n_k: the worked example gives 0.475 instead of 1.425"),
    _wrong("01_wavg_elementwise", N01, "weighted_average", """
        def weighted_average(weights, V):
            return np.asarray(weights) * np.asarray(V)
        """,
        "the weighted sum written as an entrywise product of the weights and the values, with no sum over the keys",
        "weights * V instead of weights @ V (broadcasts to a wrong shape or fails)"),
    _wrong("01_concepts_cosine", N01, "CONCEPTS_01", """
        CONCEPTS_01 = tuple("abcd"[shown.index(pick)] for shown, pick in zip(CONCEPT_ORDER, "bcb"))
        """,
        "scaled dot-product attention believed to compare a query and a key by their cosine (lengths divided out)",
        "question 3 answered with the cosine option; questions 1 and 2 right"),

    _right("01_dot_fsum", N01, "dot_product", """
        def dot_product(q, k):
            return math.fsum(float(a) * float(b) for a, b in zip(np.ravel(q), np.ravel(k)))
        """,
        "products added with math.fsum over zip of the two vectors"),
    _right("01_scores_einsum", N01, "attention_scores", """
        def attention_scores(Q, K):
            return np.einsum("...id,...jd->...ij", np.asarray(Q), np.asarray(K))
        """,
        "einsum over the shared width, batch axes carried by the ellipsis"),
    _right("01_softmax_logsumexp", N01, "softmax", """
        def softmax(x, axis=-1):
            x = np.asarray(x)
            if x.dtype.kind != "f":
                x = x.astype(np.float64)
            shifted = x - np.max(x, axis=axis, keepdims=True)
            log_total = np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
            return np.exp(shifted - log_total)
        """,
        "exp(x - max - log-sum-exp): the normalisation done in the log domain"),
    _right("01_softmax_moveaxis", N01, "softmax", """
        def softmax(x, axis=-1):
            x = np.asarray(x)
            if not np.issubdtype(x.dtype, np.floating):
                x = x.astype(float)
            y = np.moveaxis(x, axis, -1)
            e = np.exp(y - y.max(axis=-1, keepdims=True))
            return np.moveaxis(e / e.sum(axis=-1, keepdims=True), -1, axis)
        """,
        "the axis moved last, normalised there and moved back"),
    _right("01_wavg_einsum", N01, "weighted_average", """
        def weighted_average(weights, V):
            return np.einsum("...qk,...kd->...qd", np.asarray(weights), np.asarray(V))
        """,
        "einsum over the key axis"),
    _right("01_concepts_dict", N01, "CONCEPTS_01", """
        CONCEPTS_01 = tuple(dict(zip(order, "abcd"))[lesson] for order, lesson in zip(CONCEPT_ORDER, ["b", "c", "d"]))
        """,
        "the shown letter of each right option looked up in a dictionary built from CONCEPT_ORDER"),

    # ------------------------------------------------------------------ 02 · scaling
    _wrong("02_variance_global_random", N02, "score_variance", """
        def score_variance(d_k, n_samples=100_000, rng=None):
            q = np.random.randn(n_samples, d_k)
            k = np.random.randn(n_samples, d_k)
            return float(np.var(np.sum(q * k, axis=1)))
        """,
        "the rng argument ignored: numpy's global random state is used, so a seed does not reproduce the estimate",
        "np.random.randn instead of np.random.default_rng(rng)"),
    _wrong("02_variance_std", N02, "score_variance", """
        def score_variance(d_k, n_samples=100_000, rng=None):
            rng = np.random.default_rng(rng)
            q = rng.standard_normal((n_samples, d_k))
            k = rng.standard_normal((n_samples, d_k))
            return float(np.std((q * k).sum(axis=1)))
        """,
        "the standard deviation returned where the variance is asked (about sqrt(d_k) instead of d_k)",
        "np.std of the dot products instead of np.var"),
    _wrong("02_scale_by_d_k", N02, "scale_scores", """
        def scale_scores(scores, d_k):
            return np.asarray(scores) / d_k
        """,
        "divides by d_k itself instead of its square root",
        "scores / d_k: (2, 1, 0) with d_k = 2 gives (1, 0.5, 0)"),
    _wrong("02_scale_in_place", N02, "scale_scores", """
        def scale_scores(scores, d_k):
            scores = np.asarray(scores, dtype=float)
            scores /= math.sqrt(d_k)
            return scores
        """,
        "divides the caller's array in place (np.asarray returns the same float64 array, /= overwrites it)",
        "scores /= sqrt(d_k) on the array passed in"),
    _wrong("02_scale_width_from_scores", N02, "scale_scores", """
        def scale_scores(scores, d_k):
            scores = np.asarray(scores)
            return scores / math.sqrt(scores.shape[-1])
        """,
        "the key width read from the last axis of the scores, which counts keys, not d_k",
        "divides by sqrt(scores.shape[-1]) = sqrt(n_k) and ignores the d_k argument"),
    _wrong("02_scale_hardcoded_2", N02, "scale_scores", """
        def scale_scores(scores, d_k):
            return np.asarray(scores) / math.sqrt(2)
        """,
        "the worked example's d_k = 2 hard-coded in the divisor",
        "always divides by sqrt(2), whatever d_k is passed"),
    _wrong("02_leading_flag_backwards", N02, "leading_weight", """
        def leading_weight(width, scaled=True):
            raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
            if not scaled:
                raw = raw / math.sqrt(width)
            return float(softmax(raw).max())
        """,
        "the scaled flag read backwards: divides when scaled is false and keeps the raw scores when it is true",
        "`if not scaled:` where `if scaled:` was meant"),
    _wrong("02_leading_naive_exp", N02, "leading_weight", """
        def leading_weight(width, scaled=True):
            scores = np.array([2.0, 1.0, 0.0]) * np.sqrt(width)
            if scaled:
                scores = scores / np.sqrt(width)
            e = np.exp(scores)
            return float(e[0] / e.sum())
        """,
        "exponentiates the raw scores without subtracting the maximum: the unscaled weight overflows at large widths",
        "its own exp / sum instead of the stable softmax: nan once 2 sqrt(width) passes about 709"),
    _wrong("02_jacobian_diagonal_only", N02, "softmax_jacobian", """
        def softmax_jacobian(p):
            p = np.asarray(p, dtype=float)
            return np.diag(p * (1 - p))
        """,
        "only the diagonal p_i (1 - p_i) kept: raising one score is believed to leave the other weights unchanged",
        "np.diag(p * (1 - p)), the cross terms -p_i p_j dropped"),
    _wrong("02_sdpa_no_scale", N02, "scaled_dot_product_attention", """
        def scaled_dot_product_attention(Q, K, V):
            weights = softmax(attention_scores(Q, K), axis=-1)
            return weighted_average(weights, V), weights
        """,
        "the division by sqrt(d_k) forgotten: the softmax of the raw scores",
        "softmax(Q K^T) V, scale_scores never called"),
    _wrong("02_sdpa_softmax_axis0", N02, "scaled_dot_product_attention", """
        def scaled_dot_product_attention(Q, K, V):
            Q = np.asarray(Q)
            scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
            weights = softmax(scores, axis=0)
            return weighted_average(weights, V), weights
        """,
        "the softmax taken over the first axis (across queries or batch entries) instead of along each query's keys",
        "softmax(scores, axis=0): columns normalised instead of rows"),
    _wrong("02_sdpa_keys_ask", N02, "scaled_dot_product_attention", """
        def scaled_dot_product_attention(Q, K, V):
            d_k = np.shape(K)[-1]
            weights = softmax(scale_scores(attention_scores(K, Q), d_k))
            output = weighted_average(weights, V)
            return output, weights
        """,
        "queries and keys swapped: each key scores the queries (K Q^T), so the weights are laid out by keys",
        "attention_scores(K, Q): wrong weights for square inputs, an error when n_q != n_k"),
    _wrong("02_sdpa_len_q0", N02, "scaled_dot_product_attention", """
        def scaled_dot_product_attention(Q, K, V):
            d_k = len(Q[0])
            scores = attention_scores(Q, K) / math.sqrt(d_k)
            weights = softmax(scores)
            return weighted_average(weights, V), weights
        """,
        "d_k read as len(Q[0]), the key width only for a 2-D Q: with batch axes it is the size of the next axis",
        "len(Q[0]) as d_k, written and tested on one sequence only"),
    _wrong("02_stop_scores_lesson", N02, "STOP_AND_TRY_SCORES", """
        STOP_AND_TRY_SCORES = [1, 0, -1]
        """,
        "the worked example's raw scores copied instead of computing the student's own query against their keys",
        "the lesson's 1, 0, -1 instead of STOP_K @ STOP_Q"),
    _wrong("02_stop_weights_unscaled", N02, "STOP_AND_TRY_WEIGHTS", """
        STOP_AND_TRY_WEIGHTS = softmax(STOP_K @ STOP_Q)
        """,
        "the weights of the raw scores: the division by sqrt(2) forgotten",
        "softmax of the unscaled scores (sharper than asked)"),
    _wrong("02_stop_largest_zero_based", N02, "STOP_AND_TRY_LARGEST", """
        STOP_AND_TRY_LARGEST = int(np.argmax(softmax(STOP_K @ STOP_Q / math.sqrt(2))))
        """,
        "numpy's 0-based index of the largest weight reported as the key's number, which counts from 1",
        "argmax without the + 1"),
    _wrong("02_stop_reason_zero_weight", N02, "STOP_AND_TRY_REASON", """
        STOP_AND_TRY_REASON = "c"
        """,
        "the softmax believed to give a weight of 0 to scores of 0 or below, so the only positive score takes all",
        "reason c chosen"),
    _wrong("02_concepts_every_step", N02, "CONCEPTS_02", """
        CONCEPTS_02 = ("abcd"[CONCEPT_ORDER[0].index("b")],)
        """,
        "the division by sqrt(d_k) believed to keep the scores at unit variance at every step of training",
        "the option 'at every step of training, whatever values the learned weights take'"),

    _right("02_variance_manual", N02, "score_variance", """
        def score_variance(d_k, n_samples=100_000, rng=None):
            gen = np.random.default_rng(rng)
            q = gen.standard_normal(size=(n_samples, d_k))
            k = gen.standard_normal(size=(n_samples, d_k))
            dots = (q * k).sum(axis=1)
            return float(((dots - dots.mean()) ** 2).sum() / (n_samples - 1))
        """,
        "products summed by hand and the unbiased variance written out"),
    _right("02_scale_divide_power", N02, "scale_scores", """
        def scale_scores(scores, d_k):
            return np.divide(scores, d_k ** 0.5)
        """,
        "np.divide by d_k ** 0.5 (a Python float, float32 kept)"),
    _right("02_leading_closed_form", N02, "leading_weight", """
        def leading_weight(width, scaled=True):
            gap = 1.0 if scaled else math.sqrt(width)
            return float(1.0 / (1.0 + math.exp(-gap) + math.exp(-2.0 * gap)))
        """,
        "the leading weight in closed form, 1 / (1 + e^-g + e^-2g) with the gap g between neighbouring scores"),
    _right("02_jacobian_broadcast", N02, "softmax_jacobian", """
        def softmax_jacobian(p):
            p = np.asarray(p, dtype=float)
            return p[:, None] * (np.eye(p.shape[0]) - p[None, :])
        """,
        "p_i (delta_ij - p_j) by broadcasting"),
    _right("02_sdpa_scaled_queries", N02, "scaled_dot_product_attention", """
        def scaled_dot_product_attention(Q, K, V):
            Q = np.asarray(Q)
            scaled_queries = Q / math.sqrt(Q.shape[-1])
            weights = softmax(attention_scores(scaled_queries, K))
            return weighted_average(weights, V), weights
        """,
        "the queries divided by sqrt(d_k) before the dot products"),
    _right("02_stop_weights_by_hand", N02, "STOP_AND_TRY_WEIGHTS", """
        STOP_AND_TRY_WEIGHTS = np.exp(STOP_K @ STOP_Q / 2 ** 0.5) / np.sum(np.exp(STOP_K @ STOP_Q / 2 ** 0.5))
        """,
        "the exponentials of the scaled scores divided by their total, written out"),
    _right("02_stop_largest_max_key", N02, "STOP_AND_TRY_LARGEST", """
        STOP_AND_TRY_LARGEST = 1 + max(range(3), key=lambda j: float(STOP_Q @ STOP_K[j]))
        """,
        "the key with the largest dot product found with max(..., key=...), counted from 1"),

    # ------------------------------------------------------------------ 03 · masking
    _wrong("03_causal_true_is_future", N03, "causal_mask", """
        def causal_mask(n_q, n_k=None):
            if n_k is None:
                n_k = n_q
            return np.triu(np.ones((n_q, n_k), dtype=bool), k=1)
        """,
        "True put on the positions to hide (the future), the opposite of the course's True = may attend",
        "np.triu(..., k=1): the mask of the hidden keys"),
    _wrong("03_causal_no_diagonal", N03, "causal_mask", """
        def causal_mask(n_q, n_k=None):
            n_k = n_q if n_k is None else n_k
            i = np.arange(n_q)[:, None]
            j = np.arange(n_k)[None, :]
            return j < i
        """,
        "the diagonal excluded: a position is believed not to read itself",
        "j < i instead of j <= i (the first query may read nothing)"),
    _wrong("03_causal_always_square", N03, "causal_mask", """
        def causal_mask(n_q, n_k=None):
            return np.tril(np.ones((n_q, n_q))).astype(bool)
        """,
        "the mask assumed square: n_k ignored",
        "np.tril of an n_q x n_q array whatever n_k is"),
    _wrong("03_padding_off_by_one", N03, "padding_mask", """
        def padding_mask(lengths, n_k):
            lengths = np.asarray(lengths)
            keep = np.arange(n_k)[None, :] <= lengths[:, None]
            return keep[:, None, :]
        """,
        "off by one: key j = length is kept, so the first padded position is read",
        "j <= L_b instead of j < L_b"),
    _wrong("03_padding_no_query_axis", N03, "padding_mask", """
        def padding_mask(lengths, n_k):
            lengths = np.asarray(lengths)
            return np.arange(n_k) < lengths[:, None]
        """,
        "no query axis: a (batch, n_k) mask lines its batch axis up with the queries of (batch, n_q, n_k) scores",
        "returns shape (batch, n_k) instead of (batch, 1, n_k)"),
    _wrong("03_padding_axis_last", N03, "padding_mask", """
        def padding_mask(lengths, n_k):
            lengths = np.asarray(lengths)
            mask = np.zeros((len(lengths), n_k), dtype=bool)
            for b, length in enumerate(lengths):
                mask[b, :length] = True
            return mask[:, :, None]
        """,
        "the length-one axis put last: (batch, n_k, 1) varies along the queries and hides query rows, not keys",
        "mask[:, :, None] instead of mask[:, None, :]"),
    _wrong("03_apply_inverted", N03, "apply_mask", """
        def apply_mask(scores, mask):
            scores = np.asarray(scores)
            mask = np.asarray(mask)
            if mask.dtype == bool:
                return np.where(mask, -np.inf, scores)
            return scores + mask
        """,
        "a boolean mask read as True = hidden: the allowed scores become -inf and the hidden ones are kept",
        "np.where(mask, -inf, scores), the arguments of where swapped"),
    _wrong("03_apply_multiply", N03, "apply_mask", """
        def apply_mask(scores, mask):
            scores = np.asarray(scores)
            mask = np.asarray(mask)
            if mask.dtype == bool:
                return scores * mask
            return scores + mask
        """,
        "the scores multiplied by the boolean mask: a hidden score becomes 0, which the softmax still reads (e^0 = 1)",
        "scores * mask instead of -inf where the mask is False"),
    _wrong("03_apply_in_place", N03, "apply_mask", """
        def apply_mask(scores, mask):
            scores = np.asarray(scores)
            mask = np.asarray(mask)
            if mask.dtype == bool:
                np.copyto(scores, -np.inf, where=~mask)
            else:
                scores += mask
            return scores
        """,
        "the caller's scores overwritten in place instead of a new array",
        "np.copyto / += on the array that was passed in"),
    _wrong("03_sdpa_mask_after_softmax", N03, "scaled_dot_product_attention", """
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
        """,
        "the mask applied to the weights after the softmax: hidden keys still shape the rest, rows no longer sum to 1",
        "softmax first, then weights * mask"),
    _wrong("03_sdpa_fill_minus_1e9", N03, "scaled_dot_product_attention", """
        def scaled_dot_product_attention(Q, K, V, mask=None):
            Q = np.asarray(Q)
            scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
            if mask is not None:
                mask = np.asarray(mask)
                if mask.dtype == bool:
                    scores = np.where(mask, scores, -1e9)
                else:
                    scores = scores + mask
            weights = softmax(scores)
            return weighted_average(weights, V), weights
        """,
        "a large negative number instead of -inf: a query with no allowed key gets equal weights on the hidden keys",
        "np.where(mask, scores, -1e9): a fully masked row averages every key instead of giving zeros"),
    _wrong("03_sdpa_float_mask_as_bool", N03, "scaled_dot_product_attention", """
        def scaled_dot_product_attention(Q, K, V, mask=None):
            Q = np.asarray(Q)
            scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
            if mask is not None:
                scores = np.where(mask, scores, -np.inf)
            weights = softmax(scores)
            return weighted_average(weights, V), weights
        """,
        "every mask read as booleans: a floating mask's 0 (keep) hides the key, its -inf keeps it, no bias is added",
        "np.where(mask, ...) whatever the mask's dtype"),
    _wrong("03_sdpa_scales_q_in_place", N03, "scaled_dot_product_attention", """
        def scaled_dot_product_attention(Q, K, V, mask=None):
            Q = np.asarray(Q)
            Q /= math.sqrt(Q.shape[-1])
            scores = attention_scores(Q, K)
            if mask is not None:
                scores = apply_mask(scores, mask)
            weights = softmax(scores)
            return weighted_average(weights, V), weights
        """,
        "the caller's queries divided in place to save a pass (np.asarray does not copy)",
        "Q /= sqrt(d_k) on the array passed in"),
    _wrong("03_sdpa_mask_before_scaling", N03, "scaled_dot_product_attention", """
        def scaled_dot_product_attention(Q, K, V, mask=None):
            Q = np.asarray(Q)
            scores = attention_scores(Q, K)
            if mask is not None:
                scores = apply_mask(scores, mask)
            scores = scale_scores(scores, Q.shape[-1])
            weights = softmax(scores)
            return weighted_average(weights, V), weights
        """,
        "the mask applied to the raw scores before the division, so an additive bias is divided by sqrt(d_k) too",
        "mask, then scale: right for booleans and 0/-inf, wrong for a finite bias"),

    _right("03_causal_tri", N03, "causal_mask", """
        def causal_mask(n_q, n_k=None):
            return np.tri(n_q, n_q if n_k is None else n_k, dtype=bool)
        """,
        "np.tri with the key count as its second size"),
    _right("03_padding_outer", N03, "padding_mask", """
        def padding_mask(lengths, n_k):
            real = np.greater.outer(np.asarray(lengths), np.arange(n_k))
            return np.expand_dims(real, 1)
        """,
        "np.greater.outer of the lengths and the key positions, then a query axis"),
    _right("03_apply_fill_copy", N03, "apply_mask", """
        def apply_mask(scores, mask):
            scores = np.asarray(scores)
            mask = np.asarray(mask)
            if mask.dtype != bool:
                return scores + mask
            out = np.array(scores, dtype=scores.dtype if scores.dtype.kind == "f" else float)
            out[~np.broadcast_to(mask, out.shape)] = -np.inf
            return out
        """,
        "a copy of the scores with the hidden entries set through a broadcast boolean index"),
    _right("03_apply_bias", N03, "apply_mask", """
        def apply_mask(scores, mask):
            mask = np.asarray(mask)
            bias = np.where(mask, 0.0, -np.inf) if mask.dtype == bool else mask
            return np.add(scores, bias)
        """,
        "a boolean mask turned into a 0/-inf bias and added"),
    _right("03_sdpa_bias", N03, "scaled_dot_product_attention", """
        def scaled_dot_product_attention(Q, K, V, mask=None):
            Q = np.asarray(Q)
            s = attention_scores(Q, K) / math.sqrt(Q.shape[-1])
            if mask is not None:
                m = np.asarray(mask)
                s = s + (np.where(m, 0.0, -np.inf).astype(s.dtype) if m.dtype == bool else m)
            w = softmax(s)
            return w @ np.asarray(V), w
        """,
        "a boolean mask added as a 0/-inf bias in the scores' dtype, the given softmax guarding empty rows"),
    _right("03_sdpa_einsum", N03, "scaled_dot_product_attention", """
        def scaled_dot_product_attention(Q, K, V, mask=None):
            Q = np.asarray(Q)
            scores = np.einsum("...qd,...kd->...qk", Q / math.sqrt(Q.shape[-1]), np.asarray(K))
            if mask is not None:
                scores = apply_mask(scores, mask)
            weights = softmax(scores, axis=-1)
            return np.einsum("...qk,...kd->...qd", weights, np.asarray(V)), weights
        """,
        "einsum for both products, the queries scaled first"),

    # ------------------------------------------------------------------ 04 · heads
    _wrong("04_project_transposed", N04, "project", """
        def project(X, W):
            return np.asarray(X) @ np.asarray(W).T
        """,
        "the map applied as W x in the column-vector (PyTorch weight) convention: X W^T instead of X W",
        "X @ W.T: an error for a non-square map, wrong values for a square one"),
    _wrong("04_project_2d_einsum", N04, "project", """
        def project(X, W):
            return np.einsum("nd,de->ne", X, W)
        """,
        "written for one sequence: a 2-D X only, the batch axes not allowed for",
        "einsum('nd,de->ne'): fails with leading batch axes"),
    _wrong("04_count_one_head", N04, "attention_param_count", """
        def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
            d_k = d_model // num_heads if d_k is None else d_k
            d_v = d_model // num_heads if d_v is None else d_v
            total = d_model * (2 * d_k + d_v)
            if output_projection:
                total += d_v * d_model
            return int(total)
        """,
        "the maps of one head counted, not one set of maps per head",
        "d_model (2 d_k + d_v) + d_v d_model with no factor num_heads"),
    _wrong("04_count_full_width_heads", N04, "attention_param_count", """
        def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
            if d_k is None:
                d_k = d_model
            if d_v is None:
                d_v = d_model
            count = num_heads * d_model * (2 * d_k + d_v)
            if output_projection:
                count += num_heads * d_v * d_model
            return count
        """,
        "every head given the full width d_model, so the heads are believed to multiply the parameters",
        "default head width d_model instead of d_model // num_heads: 8 heads of 512 count 8 times one"),
    _wrong("04_count_precedence", N04, "attention_param_count", """
        def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
            if d_k is None:
                d_k = d_model // num_heads
            if d_v is None:
                d_v = d_model // num_heads
            count = num_heads * d_model * 2 * d_k + d_v
            if output_projection:
                count += num_heads * d_v * d_model
            return int(count)
        """,
        None,
        "the parentheses around (2 d_k + d_v) left out: d_v is added once instead of multiplied"),
    _wrong("04_split_reshape_only", N04, "split_heads", """
        def split_heads(X, num_heads):
            X = np.asarray(X)
            *batch, n, d_model = X.shape
            return X.reshape(*batch, num_heads, n, d_model // num_heads)
        """,
        "reshape straight to (h, n, d) without the transpose: the flat array is cut in the wrong places",
        "one reshape to (..., num_heads, n, d), no swap of the axes"),
    _wrong("04_split_2d_only", N04, "split_heads", """
        def split_heads(X, num_heads):
            X = np.asarray(X)
            n, d_model = X.shape
            return X.reshape(n, num_heads, d_model // num_heads).transpose(1, 0, 2)
        """,
        "written for one sequence: a 2-D X only, the batch axes not allowed for",
        "n, d_model = X.shape and transpose(1, 0, 2): an error with leading axes"),
    _wrong("04_split_interleaved", N04, "split_heads", """
        def split_heads(X, num_heads):
            X = np.asarray(X)
            *batch, n, d_model = X.shape
            X = X.reshape(*batch, n, d_model // num_heads, num_heads)
            return np.moveaxis(X, -1, -3)
        """,
        "the width dealt out column by column: head h gets every num_heads-th column instead of one contiguous slice",
        "reshape to (n, d, h) and move the last axis in front"),
    _wrong("04_merge_reshape_only", N04, "merge_heads", """
        def merge_heads(X):
            X = np.asarray(X)
            *batch, h, n, d = X.shape
            return X.reshape(*batch, n, h * d)
        """,
        "reshape straight to (n, h d) without swapping the head axis back: rows of different positions are mixed",
        "one reshape, no transpose"),
    _wrong("04_merge_along_positions", N04, "merge_heads", """
        def merge_heads(X):
            X = np.asarray(X)
            return np.concatenate([X[..., i, :, :] for i in range(X.shape[-3])], axis=-2)
        """,
        "the heads stacked along the positions instead of joined end to end along the width",
        "np.concatenate(heads, axis=-2): shape (..., h n, d)"),
    _wrong("04_mha_divisor_d_model", N04, "multi_head_attention", """
        def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
            Q = split_heads(project(X_q, W_q), num_heads)
            K = split_heads(project(X_kv, W_k), num_heads)
            V = split_heads(project(X_kv, W_v), num_heads)
            d_model = np.shape(X_q)[-1]
            scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(d_model)
            if mask is not None:
                mask = np.asarray(mask)
                if mask.ndim >= 2:
                    mask = np.expand_dims(mask, -3)
                scores = np.where(mask, scores, -np.inf)
            weights = softmax(scores, axis=-1)
            return project(merge_heads(weights @ V), W_o), weights
        """,
        "each head divides by the square root of the full width d_model instead of its own width",
        "its own attention with / sqrt(d_model): sqrt(512) instead of sqrt(64) for 8 heads"),
    _wrong("04_mha_mask_no_head_axis", N04, "multi_head_attention", """
        def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
            Q = split_heads(project(X_q, W_q), num_heads)
            K = split_heads(project(X_kv, W_k), num_heads)
            V = split_heads(project(X_kv, W_v), num_heads)
            heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
            return project(merge_heads(heads), W_o), weights
        """,
        "the mask passed on without a head axis, so a (batch, n_q, n_k) mask lines its batch axis up with the heads",
        "mask handed to scaled_dot_product_attention as it is"),
    _wrong("04_mha_kv_from_queries", N04, "multi_head_attention", """
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
        """,
        "keys and values projected from the rows that ask (X_q) instead of the rows that are read (X_kv)",
        "project(X_q, W_k) and project(X_q, W_v)"),
    _wrong("04_mha_no_output_map", N04, "multi_head_attention", """
        def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
            Q = split_heads(project(X_q, W_q), num_heads)
            K = split_heads(project(X_kv, W_k), num_heads)
            V = split_heads(project(X_kv, W_v), num_heads)
            if mask is not None:
                mask = np.asarray(mask)
                if mask.ndim >= 2:
                    mask = np.expand_dims(mask, -3)
            heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
            return merge_heads(heads), weights
        """,
        "the concatenated heads returned as the output, without the output projection W_o",
        "merge_heads(heads) not multiplied by W_o"),
    _wrong("04_asymmetry_frobenius", N04, "score_asymmetry", """
        def score_asymmetry(X, W_q, W_k):
            S = project(X, W_q) @ project(X, W_k).T
            return float(np.linalg.norm(S - S.T))
        """,
        "the size of the whole difference S - S^T (its Frobenius norm) given instead of its largest entry",
        "np.linalg.norm(S - S.T) instead of np.abs(S - S.T).max()"),
    _wrong("04_concepts_heads_multiply", N04, "CONCEPTS_04", """
        CONCEPTS_04 = tuple("abcd"[list(order).index(pick)] for order, pick in zip(CONCEPT_ORDER, ("d", "b", "c")))
        """,
        "several heads believed to multiply the parameters and so make the model larger",
        "question 3 answered with 'more heads multiply the parameters'; questions 1 and 2 right"),

    _right("04_project_tensordot", N04, "project", """
        def project(X, W):
            return np.tensordot(np.asarray(X), np.asarray(W), axes=([-1], [0]))
        """,
        "np.tensordot over the width of X and the rows of W"),
    _right("04_count_shapes", N04, "attention_param_count", """
        def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
            width = d_model // num_heads
            key_width = width if d_k is None else d_k
            value_width = width if d_v is None else d_v
            shapes = [(d_model, num_heads * key_width)] * 2 + [(d_model, num_heads * value_width)]
            if output_projection:
                shapes.append((num_heads * value_width, d_model))
            return int(sum(rows * cols for rows, cols in shapes))
        """,
        "the entries of each map counted from its shape"),
    _right("04_split_stack", N04, "split_heads", """
        def split_heads(X, num_heads):
            return np.stack(np.split(np.asarray(X), num_heads, axis=-1), axis=-3)
        """,
        "np.split of the width into equal slices, stacked on a new head axis before the positions"),
    _right("04_merge_concatenate", N04, "merge_heads", """
        def merge_heads(X):
            X = np.asarray(X)
            return np.concatenate([X[..., i, :, :] for i in range(X.shape[-3])], axis=-1)
        """,
        "the heads concatenated along the width, one after the other"),
    _right("04_mha_moveaxis", N04, "multi_head_attention", """
        def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
            X_q, X_kv = np.asarray(X_q), np.asarray(X_kv)

            def cut(Y):
                Y = Y.reshape(Y.shape[:-1] + (num_heads, Y.shape[-1] // num_heads))
                return np.moveaxis(Y, -2, -3)

            Q, K, V = cut(X_q @ np.asarray(W_q)), cut(X_kv @ np.asarray(W_k)), cut(X_kv @ np.asarray(W_v))
            if mask is not None:
                mask = np.asarray(mask)
                if mask.ndim >= 2:
                    mask = mask[..., None, :, :]
            heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
            joined = np.moveaxis(heads, -3, -2)
            joined = joined.reshape(joined.shape[:-2] + (-1,))
            return joined @ np.asarray(W_o), weights
        """,
        "heads cut and joined with reshape and moveaxis inside the function, the mask given a head axis by indexing"),
    _right("04_concepts_find", N04, "CONCEPTS_04", """
        CONCEPTS_04 = tuple("abcd"[str(order).find(right)] for order, right in zip(CONCEPT_ORDER, "dba"))
        """,
        "the shown letter of each right option found with str.find"),

    # ------------------------------------------------------------------ 05 · cross-attention
    _wrong("05_self_upper_triangle", N05, "self_attention", """
        def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
            X = np.asarray(X)
            n = X.shape[-2]
            mask = np.triu(np.ones((n, n), dtype=bool)) if causal else None
            return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
        """,
        "the causal mask keeps the later positions (upper triangle) instead of the earlier ones",
        "np.triu where np.tril was meant: each position reads itself and the future"),
    _wrong("05_self_len_is_batch", N05, "self_attention", """
        def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
            mask = causal_mask(len(X)) if causal else None
            return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
        """,
        "the sequence length read as len(X), which is the batch size once X has a batch axis",
        "causal_mask(len(X)): right for a 2-D X only"),
    _wrong("05_self_float_01_mask", N05, "self_attention", """
        def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
            X = np.asarray(X)
            mask = causal_mask(X.shape[-2]).astype(float) if causal else None
            return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
        """,
        "a 0/1 float mask believed to hide the zeros, but a floating mask is added as a bias and hides nothing",
        "causal_mask(n).astype(float) passed as the mask"),
    _wrong("05_cross_roles_swapped", N05, "cross_attention", """
        def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
            mask = None
            if enc_lengths is not None:
                mask = padding_mask(np.asarray(enc_lengths), np.shape(X_enc)[-2])
            return multi_head_attention(X_enc, X_dec, W_q, W_k, W_v, W_o, num_heads, mask=mask)
        """,
        "the input side asks and the output side is read: queries from the encoder, keys and values from the decoder",
        "multi_head_attention(X_enc, X_dec, ...)"),
    _wrong("05_cross_padding_on_queries", N05, "cross_attention", """
        def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
            X_enc = np.asarray(X_enc)
            mask = None
            if enc_lengths is not None:
                mask = np.swapaxes(padding_mask(np.asarray(enc_lengths), X_enc.shape[-2]), -1, -2)
            return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
        """,
        "the padding mask laid along the queries (rows) instead of the keys (columns)",
        "padding mask transposed to (batch, n_enc, 1)"),
    _wrong("05_cross_causal", N05, "cross_attention", """
        def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
            n_dec, n_enc = np.shape(X_dec)[-2], np.shape(X_enc)[-2]
            mask = causal_mask(n_dec, n_enc)
            if enc_lengths is not None:
                mask = mask & padding_mask(np.asarray(enc_lengths), n_enc)
            return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
        """,
        "a causal mask put on cross-attention, though every output position may read the whole input sentence",
        "causal_mask(n_dec, n_enc) combined with the padding mask"),
    _wrong("05_cross_mask_squeezed", N05, "cross_attention", """
        def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
            X_enc = np.asarray(X_enc)
            mask = None
            if enc_lengths is not None:
                mask = padding_mask(np.asarray(enc_lengths), X_enc.shape[-2])[:, 0, :]
            return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
        """,
        "the padding mask squeezed to (batch, n_enc), so its batch axis lines up with the queries",
        "padding_mask(...)[:, 0, :]: the query axis of length one removed"),
    _wrong("05_concepts_general_importance", N05, "CONCEPTS_05", """
        CONCEPTS_05 = ("abcd"[str(CONCEPT_ORDER[0]).find("a")],)
        """,
        "a high cross-attention weight read as the input word's importance in general",
        "the option 'that input word matters more than the others, in general'"),

    _right("05_self_tril", N05, "self_attention", """
        def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
            X = np.asarray(X)
            n = X.shape[-2]
            mask = np.tril(np.ones((n, n), dtype=bool)) if causal else None
            return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask)
        """,
        "the causal mask built with np.tril of booleans"),
    _right("05_cross_arange", N05, "cross_attention", """
        def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
            if enc_lengths is None:
                return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads)
            keep = np.arange(np.shape(X_enc)[-2]) < np.asarray(enc_lengths)[:, None, None]
            return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=keep)
        """,
        "the (batch, 1, n_enc) mask built from the lengths by one comparison"),
    _right("05_concepts_chr", N05, "CONCEPTS_05", """
        CONCEPTS_05 = (chr(ord("a") + list(CONCEPT_ORDER[0]).index("b")),)
        """,
        "the shown letter computed with chr and ord"),

    # ------------------------------------------------------------------ 06 · long sequences
    _wrong("06_table_one_head", N06, "TABLE_BYTES", """
        TABLE_BYTES = TABLE_N * TABLE_N * np.dtype(TABLE_DTYPE).itemsize
        """,
        "the table of one head: the 8 heads forgotten",
        "n^2 x itemsize without the factor 8"),
    _wrong("06_table_bits", N06, "TABLE_BYTES", """
        TABLE_BYTES = 8 * TABLE_N ** 2 * np.finfo(TABLE_DTYPE).bits
        """,
        "counts the bits of each number instead of its bytes",
        "np.finfo(dtype).bits (32 for float32) where the itemsize (4) is needed"),
    _wrong("06_block_no_rescale", N06, "blockwise_attention", """
        def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
            Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
            factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
            n_q, n_k = Q.shape[-2], K.shape[-2]
            batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
            m = np.full((*batch, n_q, 1), -np.inf)
            total = np.zeros((*batch, n_q, 1))
            acc = np.zeros((*batch, n_q, V.shape[-1]))
            for start in range(0, n_k, block_size):
                stop = start + block_size
                s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
                if mask is not None:
                    block_mask = mask[..., start:stop] if np.shape(mask)[-1] > 1 else mask
                    s = np.where(block_mask, s, -np.inf)
                m = np.maximum(m, s.max(axis=-1, keepdims=True))
                shift = np.where(m == -np.inf, 0, m)
                p = np.exp(s - shift)
                total = total + p.sum(axis=-1, keepdims=True)
                acc = acc + p @ V[..., start:stop, :]
            return acc / np.where(total == 0, 1, total)
        """,
        "the running total and sum not rescaled by e^(m - m') when the maximum grows: blocks add on different scales",
        "online softmax without the rescaling factor"),
    _wrong("06_block_full_table", N06, "blockwise_attention", """
        def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
            Q = np.asarray(Q)
            factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
            scores = Q @ np.swapaxes(np.asarray(K), -1, -2) * factor
            if mask is not None:
                scores = np.where(mask, scores, -np.inf)
            weights = softmax(scores, axis=-1)
            return weights @ np.asarray(V)
        """,
        "the whole n_q x n_k table of scores and weights built at once: the blocks never used",
        "ordinary attention with block_size ignored (right values, memory of the full table)"),
    _wrong("06_block_last_block_dropped", N06, "blockwise_attention", """
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
        """,
        "off by one block: the last, partial block is never read (range(n_k // block_size))",
        "blocks counted with n_k // block_size: keys past the last full block are dropped"),
    _wrong("06_block_separate_softmaxes", N06, "blockwise_attention", """
        def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
            Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
            factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
            n_k = K.shape[-2]
            out = 0
            blocks = 0
            for start in range(0, n_k, block_size):
                stop = min(start + block_size, n_k)
                s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
                if mask is not None:
                    block_mask = mask[..., start:stop] if np.shape(mask)[-1] > 1 else mask
                    s = np.where(block_mask, s, -np.inf)
                out = out + softmax(s, axis=-1) @ V[..., start:stop, :]
                blocks += 1
            return out / blocks
        """,
        "a softmax taken within each block and the block outputs averaged, as if the blocks had equal total weight",
        "per-block softmax, then the mean of the block outputs"),

    _right("06_table_nbytes", N06, "TABLE_BYTES", """
        TABLE_BYTES = int(np.zeros((), dtype=TABLE_DTYPE).nbytes * 8 * TABLE_N ** 2)
        """,
        "the bytes of one number taken from a zero-dimensional array of the dtype"),
    _right("06_block_logsumexp", N06, "blockwise_attention", """
        def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
            Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
            factor = 1.0 / math.sqrt(Q.shape[-1]) if scale is None else float(scale)
            mask = None if mask is None else np.asarray(mask)
            n_q, n_k = Q.shape[-2], K.shape[-2]
            batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
            dtype = np.result_type(Q, K, V)
            out = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
            lse = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)
            for start in range(0, n_k, block_size):
                stop = min(n_k, start + block_size)
                s = (Q @ np.swapaxes(K[..., start:stop, :], -1, -2)) * factor
                if mask is not None:
                    part = mask if mask.ndim == 0 or mask.shape[-1] == 1 else mask[..., start:stop]
                    s = np.where(part, s, -np.inf) if part.dtype == bool else s + part
                top = s.max(axis=-1, keepdims=True)
                top = np.where(np.isfinite(top), top, 0)
                e = np.exp(s - top)
                block_sum = e.sum(axis=-1, keepdims=True)
                with np.errstate(divide="ignore"):
                    block_lse = top + np.log(block_sum)
                new_lse = np.logaddexp(lse, block_lse)
                ref = np.where(np.isfinite(new_lse), new_lse, 0)
                out = out * np.exp(lse - ref) + (e @ V[..., start:stop, :]) * np.exp(top - ref)
                lse = new_lse
            return out
        """,
        "the output kept normalised block by block, with a running log-sum-exp instead of a running maximum and total"),
    _right("06_block_two_pass", N06, "blockwise_attention", """
        def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
            Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
            factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
            n_q, n_k = Q.shape[-2], K.shape[-2]
            batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
            dtype = np.result_type(Q, K, V)
            starts = range(0, n_k, block_size)

            def block_scores(start):
                stop = min(start + block_size, n_k)
                s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
                if mask is not None:
                    m = np.asarray(mask)
                    part = m[..., start:stop] if m.ndim and m.shape[-1] > 1 else m
                    s = np.where(part, s, -np.inf) if part.dtype == bool else s + part
                return s

            row_max = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)
            for start in starts:
                row_max = np.maximum(row_max, block_scores(start).max(axis=-1, keepdims=True))
            row_max = np.where(row_max == -np.inf, 0, row_max)
            total = np.zeros((*batch, n_q, 1), dtype=dtype)
            acc = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
            for start in starts:
                p = np.exp(block_scores(start) - row_max)
                total = total + p.sum(axis=-1, keepdims=True)
                acc = acc + p @ V[..., start:min(start + block_size, n_k), :]
            return acc / np.where(total == 0, 1, total)
        """,
        "two passes over the key blocks: the row maximum first, then the totals and weighted sums with it"),

    # ------------------------------------------------------------------ 07 · scoring functions
    _wrong("07_additive_tanh_each", N07, "additive_scores", """
        def additive_scores(Q, K, W_q, W_k, v):
            a = np.tanh(np.asarray(Q) @ np.asarray(W_q))
            c = np.tanh(np.asarray(K) @ np.asarray(W_k))
            return (a[..., :, None, :] + c[..., None, :, :]) @ np.asarray(v)
        """,
        "the tanh applied to each projection separately instead of to their sum, so query and key never interact",
        "tanh(q W_q) + tanh(k W_k), then v"),
    _wrong("07_additive_pairs_by_index", N07, "additive_scores", """
        def additive_scores(Q, K, W_q, W_k, v):
            hidden = np.tanh(np.asarray(Q) @ np.asarray(W_q) + np.asarray(K) @ np.asarray(W_k))
            return hidden @ np.asarray(v)
        """,
        "query i added to key i only, not every query to every key",
        "Q W_q + K W_k with no new axes: one score per position, an error when n_q != n_k"),
    _wrong("07_dot_divisor_input_width", N07, "scaled_dot_scores", """
        def scaled_dot_scores(Q, K, W_q, W_k):
            Q, K = np.asarray(Q), np.asarray(K)
            q, k = Q @ np.asarray(W_q), K @ np.asarray(W_k)
            return q @ np.swapaxes(k, -1, -2) / math.sqrt(Q.shape[-1])
        """,
        "divided by the square root of the input width d_q instead of the projected width h",
        "sqrt(Q.shape[-1]) as the divisor"),
    _wrong("07_dot_T_batched", N07, "scaled_dot_scores", """
        def scaled_dot_scores(Q, K, W_q, W_k):
            q = np.asarray(Q) @ np.asarray(W_q)
            k = np.asarray(K) @ np.asarray(W_k)
            return q @ k.T / math.sqrt(q.shape[-1])
        """,
        "k.T believed to transpose each key matrix, but it reverses every axis, batch axes included",
        "q @ k.T: right in 2-D, wrong or an error with leading axes"),
    _wrong("07_bilinear_W_transposed", N07, "bilinear_scores", """
        def bilinear_scores(Q, K, W):
            return np.asarray(Q) @ np.asarray(W).T @ np.swapaxes(np.asarray(K), -1, -2)
        """,
        "W transposed: the query's entries matched with W's columns and the key's with its rows",
        "Q W^T K^T: wrong for a non-symmetric W, an error when d_q != d_k"),
    _wrong("07_costs_no_v", N07, "score_costs", """
        def score_costs(kind, n, d, h):
            if kind == "bilinear":
                return d * d, n * d * d + n * n * d
            return 2 * d * h, 2 * n * d * h + n * n * h
        """,
        "the additive score's learned vector v left out of its parameters",
        "additive counted as 2 d h parameters, like the dot product"),
    _wrong("07_budget_rounded_up", N07, "width_for_budget", """
        def width_for_budget(kind, d, budget):
            per_unit = 2 * d + 1 if kind == "additive" else 2 * d
            return math.ceil(budget / per_unit)
        """,
        "the width rounded up, so its parameters exceed the budget",
        "math.ceil(budget / per_unit) instead of the floor"),
    _wrong("07_budget_true_division", N07, "width_for_budget", """
        def width_for_budget(kind, d, budget):
            if kind == "additive":
                return budget / (2 * d + 1)
            return budget / (2 * d)
        """,
        None,
        "/ instead of //: a fractional width (a float) instead of the largest whole width"),

    _right("07_additive_einsum", N07, "additive_scores", """
        def additive_scores(Q, K, W_q, W_k, v):
            a = np.asarray(Q) @ np.asarray(W_q)
            c = np.asarray(K) @ np.asarray(W_k)
            return np.einsum("...qkh,h->...qk", np.tanh(np.expand_dims(a, -2) + np.expand_dims(c, -3)), np.asarray(v))
        """,
        "the pair axis made with expand_dims, the hidden units weighted with einsum"),
    _right("07_dot_einsum", N07, "scaled_dot_scores", """
        def scaled_dot_scores(Q, K, W_q, W_k):
            W_k = np.asarray(W_k)
            q, k = np.asarray(Q) @ np.asarray(W_q), np.asarray(K) @ W_k
            return np.einsum("...ih,...jh->...ij", q, k) / math.sqrt(W_k.shape[-1])
        """,
        "einsum over the projected width, divided by the square root of W_k's columns"),
    _right("07_bilinear_einsum", N07, "bilinear_scores", """
        def bilinear_scores(Q, K, W):
            return np.einsum("...qi,ij,...kj->...qk", np.asarray(Q), np.asarray(W), np.asarray(K))
        """,
        "one einsum over the query's entries (rows of W) and the key's (columns of W)"),
    _right("07_budget_divmod", N07, "width_for_budget", """
        def width_for_budget(kind, d, budget):
            per_unit = 2 * d + (kind == "additive")
            return int(divmod(budget, per_unit)[0])
        """,
        "the whole number of hidden units that fit, from divmod"),
]
