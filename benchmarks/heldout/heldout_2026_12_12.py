"""Held-out answers of 2026-12-12: an eleventh blind set, aimed at the mistakes students make most often.

Written by a helper session **without reading the grader**: nothing under ``autograder/checks/``, ``tests/``,
``autograder/catalogue/`` (beyond ``catalogue/__init__.py``: the ``Variant`` dataclass and ``all_variants``; and of
``catalogue/fairness.py`` only the function ``load_variants`` and its import lines, extracted with ``ast``),
``benchmarks/heldout/judgements/``, ``/work/judge11`` or ``/work/heldout11`` was opened; no feedback or misconception
texts of the grader were read, and neither the grader, ``benchmarks/fairness.py`` nor any test was run on these
answers. Read: the notebooks' task texts (``sources/NN_*/NN_*.py``: prose, stubs, the one-line hidden-test
descriptions, the instructor's solution cells), the reference ``attention_ref/`` (its public API, ``scores.py``,
``_validate.as_float_array``, ``softmax_jacobian`` and ``score_costs``/``width_for_budget``), the two lesson seeds
``/work/shared/seeds/*.txt``, the method ``Grader.numbers`` of ``autograder/notebook/__init__.py``, and of the earlier
held-out sets only the module docstrings of ``heldout_2026_12_11.py`` and ``heldout_2026_12_10.py`` and the 40 lines
after the docstring of ``heldout_2026_12_11.py`` (imports, ``_wrong``/``_right``), for the layout. ``Grader.numbers``
was called once per per-student item of a bare course to see the form of the numbers and the option texts a
student is shown for the concept questions (``STOP_Q`` a float (2,) array, ``STOP_K`` (3, 2), ``CONCEPT_ORDER`` an
array of lettering strings, ``(TABLE_N, TABLE_DTYPE)`` an int and a dtype name); nothing else of the grader was
called. As this set aims at the typical mistakes, some will coincide with earlier sets' (whose answers were not read).

Students imagined: a class of 300 meeting attention for the first time, writing the first thing the formula
suggests and testing it on the worked example only; spellings vary on purpose (comprehensions, loops, ``math``
sums, ``np.einsum``, ``np.matmul``, ``@``, ``np.dot``, in-place ``out=``, helpers inside the function, Python floats).

Common mistakes (about 80%): the products of the dot product returned as a list and never summed, or divided by
both lengths (a cosine); ``K.T`` on batched keys and ``K Q^T`` in the scores; the softmax without its maximum (overflow), with one maximum for the whole array, divided
by row sums that lost their axis (no ``keepdims``), or computed in place on the caller's scores; the weighted sum
divided again by the number of keys, ``np.dot`` on stacked weights; the variance drawn from numpy's global random
state (the seed ignored) or returned as a standard deviation; ``/ d_k`` for ``/ sqrt(d_k)``, ``sqrt(n_k)`` read off
the scores' shape, the caller's scores divided in place; the leading weight from bare ``math.exp`` (overflow); the
Jacobian's diagonal only, and ``p @ p.T`` on a 1-D vector taken for the outer product; attention without the
scaling or with the softmax over the query axis; Stop-and-try on the student's own ``STOP_Q``/``STOP_K``: scores
given already scaled, weights without the scaling, the key number 0-based, reason b (the longest key); the concept
questions answered with the tempting wrong option (cosine; "at every step of training"; "more heads multiply the
parameters"; "the input vectors point the same way"; "important in general"), through the student's
``CONCEPT_ORDER``; a causal mask from ``np.triu`` (True = hidden), without its diagonal, or always square; a padding
mask with ``<=`` or without its query axis; a boolean mask multiplied in, read backwards, or written into the
caller's scores; the weights zeroed after the softmax and ``-1e9`` for ``-inf``; ``X W^T``; ``project`` for one 2-D
sequence only; one head counted, or every head at full width; heads split or merged by a bare reshape; the mask
passed to the heads without a head axis, ``sqrt(d_model)`` as the head divisor, no ``W_o``; a causal mask from
``np.triu`` or from ``len(X)``; cross-attention with the roles swapped, with a causal mask, or with a padding mask
without its query axis; the table of one head, numbers counted instead of bytes, bits for bytes; the online softmax
without the rescaling or with NaN once a whole block is masked; the tanh of each projection separately, query i met
with key i only, ``sqrt(d_q)`` for ``sqrt(h)``, ``W^T`` in the bilinear score, ``v`` counted neither in the
parameters nor in the budget.

Rarer but plausible (about 20%): the loop over ``range(len(q) - 1)``; Stop-and-try weights taken as the scaled
scores divided by their sum (no exponential); cosines as the Stop-and-try scores; the mask applied before the
scaling (a finite bias then divided by sqrt(d_k)); the own softmax after masking that NaNs on a fully masked row;
``np.concatenate(list(X), axis=-1)`` joining the batch instead of the heads; the blockwise answer that builds the
whole score table (wrong on memory only); the projections left out of the multiply-adds; a divisor carried into the
bilinear score; ``round`` for the floor in ``width_for_budget``. Labelled ``None`` (Python/arithmetic muddles, 3):
the loop that stops one early, the 0-based key number, ``round`` in ``width_for_budget``.

Correct rewrites, written differently from the solutions: ``sum(map(lambda ...))``; einsum with ellipses (scores,
bilinear, attention with a 0/-inf bias); a log-sum-exp softmax and one through ``moveaxis``; the weighted average
as a loop over keys; a single ``(2, n, d_k)`` normal draw with the variance written as a mean of squares;
multiplication by ``d_k ** -0.5``; ``1 / sum(exp((c - 2) * unit))``; ``p[:, None] * (I - p[None, :])``;
``np.matmul``/``moveaxis`` attention; ``np.dot`` per key and ``math.exp`` by hand for Stop-and-try; a dictionary for
the letters; ``np.fromfunction``; a padding mask filled by slices; ``np.copyto`` on a broadcast copy;
``W.T @ X[..., None]``; the maps' shapes multiplied out; ``np.split``/``np.stack``; heads concatenated one by one; a
multi-head attention without ``split_heads`` (heads as an einsum axis); ``X W_q W_k^T X^T``; ``np.tril`` for self
attention; a hand-made ``(batch, 1, n_enc)`` mask; ``nbytes`` of eight numbers; a blockwise attention with a running
log-sum-exp; additive scores by a loop over keys; a dictionary of cost formulas; an exact ``Fraction`` floor.

Counts (wrong / right / wrong labelled None):

==========================  =====  =====  ====
notebook                    wrong  right  None
==========================  =====  =====  ====
01_scores_softmax              12      6     1
02_scaling                     17      7     1
03_masking                     12      4     0
04_heads                       12      6     0
05_cross_attention              6      2     0
06_long_sequences               6      2     0
07_scoring_functions            9      5     1
total                          74     32     3
==========================  =====  =====  ====

Each answer replaces one solution cell only (the other cells keep the instructor's) and defines no name other than
its own task's (helpers and imports live inside the function; the value cells are single expressions).

How it was checked (a throw-away script in /tmp, not kept): each cell is executed, with warnings raised as errors,
in a namespace holding ``math``, ``np``, what the notebook's first cell imports from ``attention_ref`` and
``attention_ref``'s versions of the notebook's other task functions (notebook 02's attention as the reference
without a mask), plus invented per-student numbers (the lesson's query and keys and three others with one decimal,
letterings ``abcd`` and two permutations per question, tables ``(4096, float32)``, ``(3000, float16)``,
``(1536, float64)``, ``(np.int64(2048), float32)``); the names each cell defines are compared with its task's; its
function is called on 3 to 14 inputs per task -- the seeds' worked examples (lists, integer lists, arrays), square
and non-square shapes, one and two batch axes, float32, scores of 1e3 and 1e4, rows far apart, softmax along axes
0, 1 and -2, widths 0.5 to 1e8 scaled and not, one-hot and saturated probability vectors, causal masks with
n_q != n_k, padding masks with an empty sequence, floating 0/-inf masks and finite biases, a fully masked row,
(n_q, n_k) and (batch, n_q, n_k) masks for the heads (batch 2 and 3 with 2 heads), d_k != d_v, width 512 with 8
heads, enc_lengths with a 0 and as a list, block sizes 1 to more than n_k, growing scores, an explicit ``scale``,
budgets that fit exactly and not -- and compared with ``attention_ref`` (float64 within 1e-6, float32 kept and
within 1e-4, booleans exactly, ints as ints, no NaN, the same -inf entries), inputs checked unchanged.
``score_variance`` is checked statistically (within 6 standard errors of d_k at 1, 16, 64, seeds 0 and 1, the same
seed giving the same value, a Generator accepted) and ``blockwise_attention`` also for memory (tracemalloc peak
below an eighth of the 256 x 32,768 table). Every wrong answer differs, raises or modifies its input on at least one
input (every per-student wrong answer on every non-lesson draw); every rewrite agrees on all of them, with no
warning. ``fairness.load_variants`` loads the file (106 variants).
"""
from __future__ import annotations

import textwrap

from autograder.catalogue import Variant

A01, A02, A03, A04 = "01_scores_softmax", "02_scaling", "03_masking", "04_heads"
A05, A06, A07 = "05_cross_attention", "06_long_sequences", "07_scoring_functions"


def _wrong(name, assignment, task, misconception, source, code):
    return Variant(name=name, assignment=assignment, task=task, answers={task: textwrap.dedent(code).strip() + "\n"},
                   misconception=misconception, source=source)


def _right(name, assignment, task, source, code):
    return Variant(name=name, assignment=assignment, task=task, answers={task: textwrap.dedent(code).strip() + "\n"},
                   correct=True, source=source)


VARIANTS = [
    # ------------------------------------------------------------------ 01 scores and softmax
    _wrong("h12_dot_list_of_products", A01, "dot_product", "products_left_unsummed",
           "returns the list of products q_i * k_i (a comprehension) and never adds them up", """
        def dot_product(q, k):
            return [float(a) * float(b) for a, b in zip(q, k)]
        """),
    _wrong("h12_dot_normalised_by_lengths", A01, "dot_product", "score_is_cosine_of_angle",
           "divides the sum of products by both vector lengths (math.sqrt of the sums of squares): a cosine", """
        def dot_product(q, k):
            num = sum(a * b for a, b in zip(q, k))
            len_q = math.sqrt(sum(a * a for a in q))
            len_k = math.sqrt(sum(b * b for b in k))
            return float(num / (len_q * len_k))
        """),
    _wrong("h12_dot_loop_stops_early", A01, "dot_product", None,
           "the loop runs over range(len(q) - 1), so the last product is never added", """
        def dot_product(q, k):
            total = 0.0
            for i in range(len(q) - 1):
                total += q[i] * k[i]
            return float(total)
        """),
    _right("h12_dot_map_lambda", A01, "dot_product",
           "sum of map(lambda) over the pairs, converted with float", """
        def dot_product(q, k):
            return float(sum(map(lambda a, b: float(a) * float(b), q, k)))
        """),
    _wrong("h12_scores_full_transpose", A01, "attention_scores", "transpose_reverses_batch_axes",
           "uses np.matmul(Q, K.T): .T reverses every axis, so batched keys are scrambled", """
        def attention_scores(Q, K):
            Q = np.array(Q, dtype=float)
            K = np.array(K, dtype=float)
            return np.matmul(Q, K.T)
        """),
    _wrong("h12_scores_keys_times_queries", A01, "attention_scores", "scores_indexed_key_by_query",
           "computes K @ Q^T, one row per key instead of one row per query", """
        def attention_scores(Q, K):
            Q, K = np.asarray(Q), np.asarray(K)
            return K @ np.swapaxes(Q, -1, -2)
        """),
    _right("h12_scores_einsum_ellipsis", A01, "attention_scores",
           "np.einsum with ellipses over the shared width", """
        def attention_scores(Q, K):
            Q, K = np.asarray(Q), np.asarray(K)
            if Q.dtype.kind != "f":
                Q = Q.astype(float)
            if K.dtype.kind != "f":
                K = K.astype(float)
            return np.einsum("...id,...jd->...ij", Q, K)
        """),
    _wrong("h12_softmax_plain_exp", A01, "softmax", "no_max_subtraction_overflow",
           "exponentiates the raw scores without subtracting the maximum: inf/inf = nan at scores of 1e3", """
        def softmax(x, axis=-1):
            x = np.asarray(x, dtype=float)
            e = np.exp(x)
            return e / np.sum(e, axis=axis, keepdims=True)
        """),
    _wrong("h12_softmax_one_global_max", A01, "softmax", "single_max_for_whole_array",
           "subtracts np.max(x) of the whole array, so a row far below the others underflows to 0/0", """
        def softmax(x, axis=-1):
            x = np.asarray(x, dtype=float)
            e = np.exp(x - np.max(x))
            return e / e.sum(axis=axis, keepdims=True)
        """),
    _wrong("h12_softmax_sum_without_keepdims", A01, "softmax", "reduced_axis_not_kept_for_broadcast",
           "divides by e.sum(axis=axis) without keepdims, so the row sums broadcast along the wrong axis", """
        def softmax(x, axis=-1):
            x = np.asarray(x, dtype=float)
            e = np.exp(x - x.max(axis=axis, keepdims=True))
            return e / e.sum(axis=axis)
        """),
    _wrong("h12_softmax_overwrites_scores", A01, "softmax", "modifies_caller_array_in_place",
           "subtracts the maximum, exponentiates and divides in place on np.asarray(x), overwriting the caller's scores", """
        def softmax(x, axis=-1):
            x = np.asarray(x)
            if x.dtype.kind != "f":
                x = x.astype(float)
            x -= x.max(axis=axis, keepdims=True)
            np.exp(x, out=x)
            x /= x.sum(axis=axis, keepdims=True)
            return x
        """),
    _right("h12_softmax_log_sum_exp", A01, "softmax",
           "log-softmax with a log-sum-exp, exponentiated at the end", """
        def softmax(x, axis=-1):
            x = np.asarray(x)
            if x.dtype.kind != "f":
                x = x.astype(np.float64)
            m = np.max(x, axis=axis, keepdims=True)
            lse = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
            return np.exp(x - lse)
        """),
    _right("h12_softmax_moveaxis", A01, "softmax",
           "moves the axis last, normalises the last axis with a helper, moves it back", """
        def softmax(x, axis=-1):
            def last_axis(z):
                z = z - z.max(axis=-1)[..., None]
                z = np.exp(z)
                return z / z.sum(axis=-1)[..., None]
            x = np.array(x, copy=True)
            if not np.issubdtype(x.dtype, np.floating):
                x = x.astype(float)
            return np.moveaxis(last_axis(np.moveaxis(x, axis, -1)), -1, axis)
        """),
    _wrong("h12_wavg_divided_by_keys", A01, "weighted_average", "weighted_sum_divided_again",
           "divides weights @ V by the number of keys, as if the weighted sum still needed averaging", """
        def weighted_average(weights, V):
            weights, V = np.asarray(weights), np.asarray(V)
            return weights @ V / weights.shape[-1]
        """),
    _wrong("h12_wavg_np_dot_batches", A01, "weighted_average", "np_dot_on_stacked_arrays",
           "uses np.dot, which for 3-D/4-D stacks pairs every batch with every other instead of matching them", """
        def weighted_average(weights, V):
            return np.dot(np.asarray(weights), np.asarray(V))
        """),
    _right("h12_wavg_sum_over_keys", A01, "weighted_average",
           "accumulates weights[..., :, j, None] * V[..., None, j, :] over the keys in a loop", """
        def weighted_average(weights, V):
            weights, V = np.asarray(weights), np.asarray(V)
            if weights.dtype.kind != "f":
                weights = weights.astype(float)
            out = weights[..., :, :1] * V[..., None, 0, :]
            for j in range(1, weights.shape[-1]):
                out = out + weights[..., :, j:j + 1] * V[..., None, j, :]
            return out
        """),
    _wrong("h12_concepts01_cosine", A01, "CONCEPTS_01", "score_is_cosine_of_angle",
           "answers question 3 with the cosine option (lengths divided out), 1 and 2 right, in the student's lettering", """
        CONCEPTS_01 = tuple("abcd"[order.index(pick)] for order, pick in zip(CONCEPT_ORDER, "bcb"))
        """),
    _right("h12_concepts01_dict", A01, "CONCEPTS_01",
           "a dictionary from lesson letter to shown letter for each question", """
        CONCEPTS_01 = tuple({lesson: shown for shown, lesson in zip("abcd", order)}[right]
                            for order, right in zip(CONCEPT_ORDER, ("b", "c", "d")))
        """),
    # ------------------------------------------------------------------ 02 scaling
    _wrong("h12_variance_global_random", A02, "score_variance", "seed_argument_ignored",
           "draws with np.random.randn (numpy's global state), ignoring rng, so a seed does not reproduce the estimate", """
        def score_variance(d_k, n_samples=100_000, rng=None):
            q = np.random.randn(n_samples, d_k)
            k = np.random.randn(n_samples, d_k)
            return float(np.var((q * k).sum(axis=1)))
        """),
    _wrong("h12_variance_is_std", A02, "score_variance", "standard_deviation_for_variance",
           "returns the standard deviation of the dot products (about sqrt(d_k)) instead of their variance", """
        def score_variance(d_k, n_samples=100_000, rng=None):
            gen = np.random.default_rng(rng)
            dots = np.array([gen.standard_normal(d_k) @ gen.standard_normal(d_k) for _ in range(n_samples)])
            return float(np.std(dots))
        """),
    _right("h12_variance_one_draw", A02, "score_variance",
           "one normal draw of shape (2, n, d_k), dot products by einsum, the variance written as a mean of squares", """
        def score_variance(d_k, n_samples=100_000, rng=None):
            gen = np.random.default_rng(rng)
            q, k = gen.normal(0.0, 1.0, size=(2, n_samples, d_k))
            s = np.einsum("nd,nd->n", q, k)
            return float(((s - s.mean()) ** 2).sum() / (n_samples - 1))
        """),
    _wrong("h12_scale_by_width", A02, "scale_scores", "divides_by_width_not_its_root",
           "divides by d_k instead of sqrt(d_k)", """
        def scale_scores(scores, d_k):
            return np.asarray(scores) / float(d_k)
        """),
    _wrong("h12_scale_root_of_keys", A02, "scale_scores", "width_read_from_score_shape",
           "ignores d_k and divides by the square root of the scores' last axis (the number of keys)", """
        def scale_scores(scores, d_k):
            scores = np.asarray(scores)
            return scores / math.sqrt(scores.shape[-1])
        """),
    _wrong("h12_scale_in_place", A02, "scale_scores", "modifies_caller_array_in_place",
           "divides in place with np.divide(..., out=scores), overwriting the caller's scores", """
        def scale_scores(scores, d_k):
            scores = np.asarray(scores)
            if scores.dtype.kind != "f":
                scores = scores.astype(float)
            np.divide(scores, math.sqrt(d_k), out=scores)
            return scores
        """),
    _right("h12_scale_multiply_reciprocal", A02, "scale_scores",
           "multiplies by the Python float d_k ** -0.5 (float32 stays float32)", """
        def scale_scores(scores, d_k):
            scores = np.asarray(scores)
            if scores.dtype.kind != "f":
                scores = scores.astype(float)
            return scores * (1.0 / d_k ** 0.5)
        """),
    _wrong("h12_leading_bare_exponentials", A02, "leading_weight", "no_max_subtraction_overflow",
           "exponentiates the raw scores with math.exp and no maximum: overflow at large unscaled widths", """
        def leading_weight(width, scaled=True):
            root = math.sqrt(width)
            s = [2 * root, root, 0.0]
            if scaled:
                s = [x / root for x in s]
            e = [math.exp(x) for x in s]
            return max(e) / sum(e)
        """),
    _right("h12_leading_relative_exponentials", A02, "leading_weight",
           "1 over the sum of exp(score - leading score), written with math.exp", """
        def leading_weight(width, scaled=True):
            unit = 1.0 if scaled else math.sqrt(width)
            return 1.0 / sum(math.exp((c - 2.0) * unit) for c in (2.0, 1.0, 0.0))
        """),
    _wrong("h12_jacobian_diagonal_only", A02, "softmax_jacobian", "jacobian_without_cross_terms",
           "returns only the diagonal p_i (1 - p_i), leaving out the off-diagonal -p_i p_j", """
        def softmax_jacobian(p):
            p = np.asarray(p, dtype=float)
            return np.diag(p * (1.0 - p))
        """),
    _wrong("h12_jacobian_inner_product", A02, "softmax_jacobian", "outer_product_taken_as_inner",
           "subtracts p @ p.T, which on a 1-D vector is the scalar sum p_i^2, from every entry", """
        def softmax_jacobian(p):
            p = np.asarray(p, dtype=float)
            return np.diag(p) - p @ p.T
        """),
    _right("h12_jacobian_eye_broadcast", A02, "softmax_jacobian",
           "p[:, None] * (I - p[None, :]) by broadcasting", """
        def softmax_jacobian(p):
            p = np.asarray(p)
            if p.dtype.kind != "f":
                p = p.astype(float)
            return p[:, None] * (np.eye(p.shape[0], dtype=p.dtype) - p[None, :])
        """),
    _wrong("h12_sdpa_no_divisor", A02, "scaled_dot_product_attention", "scaling_left_out",
           "never calls scale_scores: softmax of the raw scores", """
        def scaled_dot_product_attention(Q, K, V):
            weights = softmax(attention_scores(Q, K))
            output = weighted_average(weights, V)
            return output, weights
        """),
    _wrong("h12_sdpa_softmax_over_queries", A02, "scaled_dot_product_attention", "softmax_along_query_axis",
           "normalises with softmax(..., axis=-2), so the columns (over queries) sum to 1 instead of the rows", """
        def scaled_dot_product_attention(Q, K, V):
            d_k = np.shape(Q)[-1]
            w = softmax(scale_scores(attention_scores(Q, K), d_k), axis=-2)
            return weighted_average(w, V), w
        """),
    _right("h12_sdpa_matmul_by_hand", A02, "scaled_dot_product_attention",
           "np.matmul with moveaxis and a Python-float divisor, then the given softmax", """
        def scaled_dot_product_attention(Q, K, V):
            Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
            raw = np.matmul(Q, np.moveaxis(K, -1, -2))
            w = softmax(raw / math.sqrt(Q.shape[-1]), axis=-1)
            return np.matmul(w, V), w
        """),
    _wrong("h12_stop_scores_scaled", A02, "STOP_AND_TRY_SCORES", "raw_scores_given_scaled",
           "gives the student's scores already divided by sqrt(2), not the raw dot products", """
        STOP_AND_TRY_SCORES = [float(k @ STOP_Q) / math.sqrt(2) for k in STOP_K]
        """),
    _wrong("h12_stop_scores_cosine", A02, "STOP_AND_TRY_SCORES", "score_is_cosine_of_angle",
           "gives the cosines of the student's query with each key (dot products divided by both lengths)", """
        STOP_AND_TRY_SCORES = STOP_K @ STOP_Q / (np.linalg.norm(STOP_K, axis=1) * np.linalg.norm(STOP_Q))
        """),
    _right("h12_stop_scores_np_dot", A02, "STOP_AND_TRY_SCORES",
           "a list of np.dot of the query with each key", """
        STOP_AND_TRY_SCORES = [float(np.dot(STOP_Q, key)) for key in STOP_K]
        """),
    _wrong("h12_stop_weights_unscaled", A02, "STOP_AND_TRY_WEIGHTS", "scaling_left_out",
           "softmax of the student's raw scores, without the division by sqrt(2)", """
        STOP_AND_TRY_WEIGHTS = softmax(np.array([STOP_Q @ k for k in STOP_K]))
        """),
    _wrong("h12_stop_weights_no_exponential", A02, "STOP_AND_TRY_WEIGHTS", "normalised_scores_without_exp",
           "divides the scaled scores by their sum (no exponential), as if the softmax were a plain normalisation", """
        STOP_AND_TRY_WEIGHTS = (STOP_K @ STOP_Q / math.sqrt(2)) / np.sum(STOP_K @ STOP_Q / math.sqrt(2))
        """),
    _right("h12_stop_weights_by_hand", A02, "STOP_AND_TRY_WEIGHTS",
           "math.exp of each scaled score divided by their total, as the lesson does by hand", """
        STOP_AND_TRY_WEIGHTS = [math.exp(float(k @ STOP_Q) / math.sqrt(2))
                                / sum(math.exp(float(j @ STOP_Q) / math.sqrt(2)) for j in STOP_K)
                                for k in STOP_K]
        """),
    _wrong("h12_stop_largest_zero_based", A02, "STOP_AND_TRY_LARGEST", None,
           "gives np.argmax of the student's scores, a 0-based index, not the key number 1 to 3", """
        STOP_AND_TRY_LARGEST = int(np.argmax(STOP_K @ STOP_Q))
        """),
    _wrong("h12_stop_reason_longest", A02, "STOP_AND_TRY_REASON", "longest_key_wins",
           "answers b: the longest key always gets more weight", """
        STOP_AND_TRY_REASON = "b"
        """),
    _wrong("h12_concepts02_always", A02, "CONCEPTS_02", "scaling_holds_throughout_training",
           "answers that the divisor gives unit-variance scores at every step of training, in the student's lettering", """
        CONCEPTS_02 = ("abcd"[CONCEPT_ORDER[0].index("b")],)
        """),
    # ------------------------------------------------------------------ 03 masking
    _wrong("h12_causal_upper_triangle", A03, "causal_mask", "mask_marks_hidden_positions",
           "returns np.triu(..., k=1) as booleans: True on the future keys, the ones to hide", """
        def causal_mask(n_q, n_k=None):
            n_k = n_q if n_k is None else n_k
            return np.triu(np.ones((n_q, n_k)), k=1).astype(bool)
        """),
    _wrong("h12_causal_strict_lower", A03, "causal_mask", "position_cannot_read_itself",
           "uses j < i, so the diagonal (a position reading itself) is hidden", """
        def causal_mask(n_q, n_k=None):
            if n_k is None:
                n_k = n_q
            return np.array([[j < i for j in range(n_k)] for i in range(n_q)], dtype=bool).reshape(n_q, n_k)
        """),
    _wrong("h12_causal_always_square", A03, "causal_mask", "causal_mask_assumed_square",
           "ignores n_k and always builds an n_q x n_q triangle", """
        def causal_mask(n_q, n_k=None):
            return np.tril(np.ones((n_q, n_q), dtype=bool))
        """),
    _right("h12_causal_fromfunction", A03, "causal_mask",
           "np.fromfunction with j <= i", """
        def causal_mask(n_q, n_k=None):
            n_k = n_q if n_k is None else n_k
            return np.fromfunction(lambda i, j: j <= i, (n_q, n_k), dtype=int)
        """),
    _wrong("h12_padding_less_equal", A03, "padding_mask", "padding_boundary_off_by_one",
           "keeps keys with j <= length, so the first padded key is readable", """
        def padding_mask(lengths, n_k):
            lengths = np.asarray(lengths)
            return np.arange(n_k)[None, None, :] <= lengths[:, None, None]
        """),
    _wrong("h12_padding_two_dimensional", A03, "padding_mask", "padding_mask_missing_query_axis",
           "returns shape (batch, n_k) with no query axis, which does not broadcast against (batch, n_q, n_k)", """
        def padding_mask(lengths, n_k):
            return np.array([[j < L for j in range(n_k)] for L in lengths], dtype=bool).reshape(len(lengths), n_k)
        """),
    _right("h12_padding_loop_fill", A03, "padding_mask",
           "a zeros array of shape (batch, 1, n_k) filled row by row with slices", """
        def padding_mask(lengths, n_k):
            lengths = np.asarray(lengths)
            out = np.zeros((lengths.shape[0], 1, n_k), dtype=bool)
            for b, length in enumerate(lengths):
                out[b, 0, :int(length)] = True
            return out
        """),
    _wrong("h12_apply_multiplied", A03, "apply_mask", "mask_multiplied_into_scores",
           "multiplies the scores by the mask, so a hidden score becomes 0 (weight e^0 = 1) instead of -inf", """
        def apply_mask(scores, mask):
            return np.asarray(scores) * np.asarray(mask)
        """),
    _wrong("h12_apply_inverted", A03, "apply_mask", "mask_marks_hidden_positions",
           "puts -inf where the mask is True, reading True as 'hidden'", """
        def apply_mask(scores, mask):
            scores, mask = np.asarray(scores), np.asarray(mask)
            if mask.dtype == bool:
                return np.where(mask, -np.inf, scores)
            return scores + mask
        """),
    _wrong("h12_apply_into_callers_scores", A03, "apply_mask", "modifies_caller_array_in_place",
           "writes -inf into the caller's scores through boolean indexing and returns the same array", """
        def apply_mask(scores, mask):
            scores, mask = np.asarray(scores), np.asarray(mask)
            if mask.dtype == bool:
                scores[~np.broadcast_to(mask, scores.shape)] = -np.inf
            else:
                scores += mask
            return scores
        """),
    _right("h12_apply_copyto", A03, "apply_mask",
           "np.copyto of -inf into a floating copy where the mask is False; floating masks added", """
        def apply_mask(scores, mask):
            scores, mask = np.asarray(scores), np.asarray(mask)
            if mask.dtype != bool:
                return scores + mask
            out = scores.astype(np.result_type(scores.dtype, np.float16), copy=True)
            out = np.broadcast_to(out, np.broadcast_shapes(out.shape, mask.shape)).copy()
            np.copyto(out, -np.inf, where=~mask)
            return out
        """),
    _wrong("h12_sdpa_zero_after_softmax", A03, "scaled_dot_product_attention", "masking_after_softmax",
           "takes the softmax of all scores and then multiplies the hidden weights by 0, so rows no longer sum to 1", """
        def scaled_dot_product_attention(Q, K, V, mask=None):
            Q = np.asarray(Q)
            weights = softmax(scale_scores(attention_scores(Q, K), Q.shape[-1]))
            if mask is not None:
                mask = np.asarray(mask)
                weights = weights * mask if mask.dtype == bool else weights * np.exp(mask)
            return weighted_average(weights, V), weights
        """),
    _wrong("h12_sdpa_fill_large_negative", A03, "scaled_dot_product_attention", "large_negative_instead_of_minus_inf",
           "hides keys with -1e9 instead of -inf, so a fully masked row gets equal weights instead of zeros", """
        def scaled_dot_product_attention(Q, K, V, mask=None):
            Q = np.asarray(Q)
            s = scale_scores(attention_scores(Q, K), Q.shape[-1])
            if mask is not None:
                mask = np.asarray(mask)
                s = np.where(mask, s, -1e9) if mask.dtype == bool else s + mask
            w = softmax(s)
            return weighted_average(w, V), w
        """),
    _wrong("h12_sdpa_mask_before_scaling", A03, "scaled_dot_product_attention", "mask_applied_before_scaling",
           "applies the mask to the raw scores and scales afterwards, so a finite additive bias is divided by sqrt(d_k)", """
        def scaled_dot_product_attention(Q, K, V, mask=None):
            Q = np.asarray(Q)
            scores = attention_scores(Q, K)
            if mask is not None:
                scores = apply_mask(scores, mask)
            weights = softmax(scale_scores(scores, Q.shape[-1]))
            return weighted_average(weights, V), weights
        """),
    _wrong("h12_sdpa_own_softmax_nan", A03, "scaled_dot_product_attention", "fully_masked_row_unguarded",
           "uses its own softmax after masking with -inf, so a query with no allowed key gets -inf - -inf = NaN", """
        def scaled_dot_product_attention(Q, K, V, mask=None):
            Q = np.asarray(Q)
            s = scale_scores(attention_scores(Q, K), Q.shape[-1])
            if mask is not None:
                s = apply_mask(s, mask)
            e = np.exp(s - s.max(axis=-1, keepdims=True))
            w = e / e.sum(axis=-1, keepdims=True)
            return weighted_average(w, V), w
        """),
    _right("h12_sdpa_bias_einsum", A03, "scaled_dot_product_attention",
           "einsum scores, a boolean mask turned into a 0/-inf bias of the scores' dtype, the given softmax", """
        def scaled_dot_product_attention(Q, K, V, mask=None):
            Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
            s = np.einsum("...qd,...kd->...qk", Q, K)
            if s.dtype.kind != "f":
                s = s.astype(float)
            s = s / math.sqrt(Q.shape[-1])
            if mask is not None:
                mask = np.asarray(mask)
                if mask.dtype == bool:
                    s = s + np.where(mask, 0.0, -np.inf).astype(s.dtype)
                else:
                    s = s + mask
            w = softmax(s, axis=-1)
            return np.einsum("...qk,...kd->...qd", w, V), w
        """),
    # ------------------------------------------------------------------ 04 heads
    _wrong("h12_project_transposed_map", A04, "project", "map_applied_transposed",
           "computes X @ W.T, as if W had one row per output entry", """
        def project(X, W):
            return np.matmul(np.asarray(X), np.asarray(W).T)
        """),
    _wrong("h12_project_single_sequence", A04, "project", "no_leading_batch_axes",
           "np.einsum('nd,de->ne'), which only accepts one 2-D sequence and fails on batch axes", """
        def project(X, W):
            return np.einsum("nd,de->ne", np.asarray(X), np.asarray(W))
        """),
    _right("h12_project_column_vectors", A04, "project",
           "W^T applied to every row as a column vector (W.T @ X[..., None]), then squeezed", """
        def project(X, W):
            X, W = np.asarray(X), np.asarray(W)
            return np.squeeze(W.T @ X[..., None], axis=-1)
        """),
    _wrong("h12_params_one_head", A04, "attention_param_count", "counted_one_head_only",
           "counts the maps of one head (no factor num_heads) plus its slice of W_o", """
        def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
            d_k = d_model // num_heads if d_k is None else d_k
            d_v = d_model // num_heads if d_v is None else d_v
            total = d_model * d_k * 2 + d_model * d_v
            if output_projection:
                total += d_v * d_model
            return int(total)
        """),
    _wrong("h12_params_heads_full_width", A04, "attention_param_count", "heads_multiply_parameters",
           "gives every head the full width d_model by default, so the count grows with the number of heads", """
        def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
            d_k = d_model if d_k is None else d_k
            d_v = d_model if d_v is None else d_v
            n = num_heads * d_model * (2 * d_k + d_v)
            return int(n + (num_heads * d_v * d_model if output_projection else 0))
        """),
    _right("h12_params_shapes", A04, "attention_param_count",
           "the shapes of W_q, W_k, W_v (and W_o) listed and their products summed", """
        def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
            head = d_model // num_heads
            d_k = head if d_k is None else d_k
            d_v = head if d_v is None else d_v
            shapes = [(d_model, num_heads * d_k), (d_model, num_heads * d_k), (d_model, num_heads * d_v)]
            if output_projection:
                shapes.append((num_heads * d_v, d_model))
            return sum(int(r) * int(c) for r, c in shapes)
        """),
    _wrong("h12_split_bare_reshape", A04, "split_heads", "head_split_by_reshape_only",
           "reshapes straight to (..., h, n, d), cutting the flat rows in the wrong places", """
        def split_heads(X, num_heads):
            X = np.asarray(X)
            n, d_model = X.shape[-2], X.shape[-1]
            return X.reshape(X.shape[:-2] + (num_heads, n, d_model // num_heads))
        """),
    _right("h12_split_stack", A04, "split_heads",
           "np.split along the width and np.stack of the pieces on a new head axis", """
        def split_heads(X, num_heads):
            X = np.asarray(X)
            return np.stack(np.split(X, num_heads, axis=-1), axis=-3)
        """),
    _wrong("h12_merge_bare_reshape", A04, "merge_heads", "head_merge_by_reshape_only",
           "reshapes (..., h, n, d) to (..., n, h*d) without moving the head axis back", """
        def merge_heads(X):
            X = np.asarray(X)
            h, n, d = X.shape[-3:]
            return X.reshape(*X.shape[:-3], n, h * d)
        """),
    _wrong("h12_merge_concatenate_first_axis", A04, "merge_heads", "no_leading_batch_axes",
           "np.concatenate(list(X), axis=-1) splits along the first axis, which is the batch axis when there is one", """
        def merge_heads(X):
            return np.concatenate(list(np.asarray(X)), axis=-1)
        """),
    _right("h12_merge_concat_heads", A04, "merge_heads",
           "concatenates X[..., i, :, :] for each head along the last axis", """
        def merge_heads(X):
            X = np.asarray(X)
            return np.concatenate([X[..., i, :, :] for i in range(X.shape[-3])], axis=-1)
        """),
    _wrong("h12_mha_mask_without_head_axis", A04, "multi_head_attention", "mask_not_broadcast_over_heads",
           "passes the (batch, n_q, n_k) mask straight to the heads' scores (..., h, n_q, n_k) with no head axis", """
        def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
            Q = split_heads(project(X_q, W_q), num_heads)
            K = split_heads(project(X_kv, W_k), num_heads)
            V = split_heads(project(X_kv, W_v), num_heads)
            out, w = scaled_dot_product_attention(Q, K, V, mask=mask)
            return project(merge_heads(out), W_o), w
        """),
    _wrong("h12_mha_model_width_divisor", A04, "multi_head_attention", "divisor_uses_model_width",
           "computes each head's scores by hand and divides them by sqrt(d_model) instead of sqrt(head width)", """
        def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
            X_q = np.asarray(X_q)
            Q = split_heads(project(X_q, W_q), num_heads)
            K = split_heads(project(X_kv, W_k), num_heads)
            V = split_heads(project(X_kv, W_v), num_heads)
            s = Q @ np.swapaxes(K, -1, -2) / math.sqrt(X_q.shape[-1])
            if mask is not None:
                m = np.asarray(mask)
                s = np.where(np.expand_dims(m, -3) if m.ndim >= 2 else m, s, -np.inf)
            w = softmax(s)
            return project(merge_heads(w @ V), W_o), w
        """),
    _wrong("h12_mha_no_output_map", A04, "multi_head_attention", "output_projection_left_out",
           "returns the concatenated heads without multiplying by W_o", """
        def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
            heads = [split_heads(project(X, W), num_heads) for X, W in ((X_q, W_q), (X_kv, W_k), (X_kv, W_v))]
            if mask is not None and np.ndim(mask) >= 2:
                mask = np.expand_dims(np.asarray(mask), -3)
            out, weights = scaled_dot_product_attention(*heads, mask=mask)
            return merge_heads(out), weights
        """),
    _right("h12_mha_einsum", A04, "multi_head_attention",
           "heads kept as an extra axis of einsum products (no split_heads), per-head divisor, mask given a head axis", """
        def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
            X_q, X_kv = np.asarray(X_q), np.asarray(X_kv)
            W_q, W_k, W_v, W_o = (np.asarray(W) for W in (W_q, W_k, W_v, W_o))
            d_k = W_q.shape[-1] // num_heads
            d_v = W_v.shape[-1] // num_heads
            q = (X_q @ W_q).reshape(*X_q.shape[:-1], num_heads, d_k)
            k = (X_kv @ W_k).reshape(*X_kv.shape[:-1], num_heads, d_k)
            v = (X_kv @ W_v).reshape(*X_kv.shape[:-1], num_heads, d_v)
            s = np.einsum("...ihd,...jhd->...hij", q, k) / math.sqrt(d_k)
            if mask is not None:
                m = np.asarray(mask)
                if m.ndim >= 2:
                    m = m[..., None, :, :]
                s = np.where(m, s, -np.inf)
            w = softmax(s, axis=-1)
            out = np.einsum("...hij,...jhd->...ihd", w, v)
            return out.reshape(*out.shape[:-2], num_heads * d_v) @ W_o, w
        """),
    _right("h12_asymmetry_pairs", A04, "score_asymmetry",
           "compares the two directions by X W_q W_k^T X^T and its transpose, max via np.max of np.abs", """
        def score_asymmetry(X, W_q, W_k):
            X = np.asarray(X, dtype=float)
            M = np.asarray(W_q) @ np.asarray(W_k).T
            S = X @ M @ X.T
            return float(np.max(np.abs(S - S.T)))
        """),
    _wrong("h12_concepts04_heads_multiply", A04, "CONCEPTS_04", "heads_multiply_parameters",
           "answers question 3 with 'more heads multiply the parameters', 1 and 2 right, in the student's lettering", """
        CONCEPTS_04 = tuple("abcd"[list(order).index(pick)] for order, pick in zip(CONCEPT_ORDER, "dbc"))
        """),
    _wrong("h12_concepts04_input_alignment", A04, "CONCEPTS_04", "alignment_means_relevance",
           "answers question 1 with 'the input vectors point the same way', 2 and 3 right", """
        CONCEPTS_04 = tuple("abcd"[order.index(pick)] for order, pick in zip(CONCEPT_ORDER, "aba"))
        """),
    # ------------------------------------------------------------------ 05 cross-attention
    _wrong("h12_self_triu_mask", A05, "self_attention", "mask_marks_hidden_positions",
           "passes np.triu(ones, 1) as the causal mask: True on the future, which the given code reads as 'may attend'", """
        def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
            X = np.asarray(X)
            n = X.shape[-2]
            mask = np.triu(np.ones((n, n), dtype=bool), k=1) if causal else None
            return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
        """),
    _wrong("h12_self_len_of_batch", A05, "self_attention", "no_leading_batch_axes",
           "takes the sequence length as len(X), which is the batch size when X has a batch axis", """
        def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
            if causal:
                return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=causal_mask(len(X)))
            return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads)
        """),
    _right("h12_self_tril", A05, "self_attention",
           "np.tril of a boolean ones matrix, or no mask", """
        def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
            n = np.shape(X)[-2]
            return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads,
                                        mask=np.tril(np.ones((n, n), dtype=bool)) if causal else None)
        """),
    _wrong("h12_cross_roles_swapped", A05, "cross_attention", "query_and_memory_roles_swapped",
           "asks from the encoder: multi_head_attention(X_enc, X_dec, ...), one row per input word", """
        def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
            X_dec = np.asarray(X_dec)
            mask = None
            if enc_lengths is not None:
                mask = padding_mask(enc_lengths, X_dec.shape[-2])
            return multi_head_attention(X_enc, X_dec, W_q, W_k, W_v, W_o, num_heads, mask=mask)
        """),
    _wrong("h12_cross_causal", A05, "cross_attention", "causal_mask_in_cross_attention",
           "adds a causal mask (n_dec, n_enc) to cross-attention, hiding later input words from each output word", """
        def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
            n_dec, n_enc = np.shape(X_dec)[-2], np.shape(X_enc)[-2]
            mask = causal_mask(n_dec, n_enc)
            if enc_lengths is not None:
                mask = mask & padding_mask(enc_lengths, n_enc)
            return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
        """),
    _wrong("h12_cross_padding_no_query_axis", A05, "cross_attention", "padding_mask_missing_query_axis",
           "builds the padding mask as (batch, n_enc) with no query axis, so it lines up with the wrong axes", """
        def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
            mask = None
            if enc_lengths is not None:
                mask = np.arange(np.shape(X_enc)[-2])[None, :] < np.asarray(enc_lengths)[:, None]
            return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
        """),
    _right("h12_cross_hand_mask", A05, "cross_attention",
           "a hand-made (batch, 1, n_enc) comparison of key positions with the lengths", """
        def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
            mask = None
            if enc_lengths is not None:
                lengths = np.asarray(enc_lengths).reshape(-1, 1, 1)
                mask = np.arange(np.shape(X_enc)[-2]).reshape(1, 1, -1) < lengths
            return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
        """),
    _wrong("h12_concepts05_general_importance", A05, "CONCEPTS_05", "weight_means_general_importance",
           "answers that the input word matters more in general, in the student's lettering", """
        CONCEPTS_05 = ("abcd"[list(CONCEPT_ORDER[0]).index("a")],)
        """),
    # ------------------------------------------------------------------ 06 long sequences
    _wrong("h12_table_one_head", A06, "TABLE_BYTES", "counted_one_head_only",
           "counts the table of one head: n * n * itemsize, without the factor 8 for the heads", """
        TABLE_BYTES = int(TABLE_N) ** 2 * np.dtype(TABLE_DTYPE).itemsize
        """),
    _wrong("h12_table_numbers_not_bytes", A06, "TABLE_BYTES", "counted_numbers_not_bytes",
           "gives the number of weights 8 * n * n, never multiplying by the bytes per number of the dtype", """
        TABLE_BYTES = 8 * int(TABLE_N) * int(TABLE_N)
        """),
    _wrong("h12_table_bits", A06, "TABLE_BYTES", "bits_counted_as_bytes",
           "multiplies by the dtype's size in bits (np.finfo(...).bits) instead of bytes", """
        TABLE_BYTES = 8 * int(TABLE_N) ** 2 * np.finfo(TABLE_DTYPE).bits
        """),
    _right("h12_table_nbytes", A06, "TABLE_BYTES",
           "nbytes of 8 numbers of the dtype (one per head) times n * n", """
        TABLE_BYTES = int(np.ones(8, dtype=TABLE_DTYPE).nbytes) * int(TABLE_N) * int(TABLE_N)
        """),
    _wrong("h12_blockwise_no_rescale", A06, "blockwise_attention", "online_softmax_without_rescaling",
           "updates the running maximum but never multiplies the old total and sum by exp(m - m')", """
        def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
            Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
            c = 1.0 / math.sqrt(Q.shape[-1]) if scale is None else scale
            n_k = K.shape[-2]
            m = np.full(Q.shape[:-1] + (1,), -np.inf)
            l = np.zeros(Q.shape[:-1] + (1,))
            o = np.zeros(Q.shape[:-1] + (V.shape[-1],))
            for a in range(0, n_k, block_size):
                s = (Q @ np.swapaxes(K[..., a:a + block_size, :], -1, -2)) * c
                if mask is not None:
                    mk = np.asarray(mask)
                    s = np.where(mk[..., a:a + block_size] if mk.shape[-1] > 1 else mk, s, -np.inf)
                m = np.maximum(m, s.max(axis=-1, keepdims=True))
                ref = np.where(np.isinf(m), 0.0, m)
                p = np.exp(s - ref)
                l = l + p.sum(axis=-1, keepdims=True)
                o = o + p @ V[..., a:a + block_size, :]
            return (o / np.where(l == 0, 1.0, l)).astype(np.result_type(Q, K, V))
        """),
    _wrong("h12_blockwise_nan_masked_block", A06, "blockwise_attention", "fully_masked_row_unguarded",
           "shifts by the running maximum even while it is -inf, so a fully masked block gives -inf - -inf = NaN", """
        def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
            Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
            factor = scale if scale is not None else 1 / math.sqrt(Q.shape[-1])
            batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
            dt = np.result_type(Q, K, V)
            m = np.full(batch + (Q.shape[-2], 1), -np.inf, dtype=dt)
            tot = np.zeros(batch + (Q.shape[-2], 1), dtype=dt)
            acc = np.zeros(batch + (Q.shape[-2], V.shape[-1]), dtype=dt)
            for lo in range(0, K.shape[-2], block_size):
                hi = lo + block_size
                s = Q @ np.swapaxes(K[..., lo:hi, :], -1, -2) * factor
                if mask is not None:
                    s = np.where(np.asarray(mask)[..., lo:hi] if np.shape(mask)[-1] > 1 else mask, s, -np.inf)
                new = np.maximum(m, s.max(axis=-1, keepdims=True))
                r = np.exp(m - new)
                p = np.exp(s - new)
                tot = tot * r + p.sum(axis=-1, keepdims=True)
                acc = acc * r + p @ V[..., lo:hi, :]
                m = new
            return acc / tot
        """),
    _wrong("h12_blockwise_full_table", A06, "blockwise_attention", "full_score_table_built",
           "computes all the scores at once and takes a plain softmax, building the n_q x n_k table it was meant to avoid", """
        def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
            Q = np.asarray(Q)
            scale = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
            s = Q @ np.swapaxes(np.asarray(K), -1, -2) * scale
            if mask is not None:
                s = np.where(mask, s, -np.inf)
            return softmax(s) @ np.asarray(V)
        """),
    _right("h12_blockwise_running_lse", A06, "blockwise_attention",
           "keeps a running log-sum-exp and a normalised running output per query, merged block by block", """
        def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
            Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
            dt = np.result_type(Q, K, V)
            f = (1.0 / math.sqrt(Q.shape[-1])) if scale is None else float(scale)
            lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
            lse = np.full(lead + (Q.shape[-2], 1), -np.inf, dtype=dt)
            out = np.zeros(lead + (Q.shape[-2], V.shape[-1]), dtype=dt)
            mk = None if mask is None else np.asarray(mask)
            start = 0
            while start < K.shape[-2]:
                stop = min(start + block_size, K.shape[-2])
                s = np.matmul(Q, np.swapaxes(K[..., start:stop, :], -1, -2)) * dt.type(f)
                if mk is not None:
                    s = np.where(mk[..., start:stop] if mk.shape[-1] > 1 else mk, s, -np.inf)
                bm = s.max(axis=-1, keepdims=True)
                bm_safe = np.where(np.isneginf(bm), 0, bm).astype(dt)
                e = np.exp(s - bm_safe)
                bsum = e.sum(axis=-1, keepdims=True)
                with np.errstate(divide="ignore"):
                    block_lse = np.where(bsum > 0, bm_safe + np.log(np.where(bsum > 0, bsum, 1)), -np.inf).astype(dt)
                new = np.logaddexp(lse, block_lse)
                new_safe = np.where(np.isneginf(new), 0, new).astype(dt)
                out = out * np.exp(lse - new_safe) + np.matmul(e, V[..., start:stop, :]) * np.exp(bm_safe - new_safe)
                lse = new
                start = stop
            return out
        """),
    # ------------------------------------------------------------------ 07 scoring functions
    _wrong("h12_additive_tanh_each", A07, "additive_scores", "tanh_applied_before_adding",
           "applies tanh to q W_q and to k W_k separately and adds v-weighted results, so query and key never interact", """
        def additive_scores(Q, K, W_q, W_k, v):
            v = np.asarray(v)
            a = np.tanh(np.asarray(Q) @ np.asarray(W_q)) @ v
            c = np.tanh(np.asarray(K) @ np.asarray(W_k)) @ v
            return a[..., :, None] + c[..., None, :]
        """),
    _wrong("h12_additive_matching_pairs", A07, "additive_scores", "pairs_query_i_with_key_i_only",
           "adds q_i W_q and k_i W_k row by row (no pair axis), giving one score per position instead of a table", """
        def additive_scores(Q, K, W_q, W_k, v):
            hidden = np.asarray(Q) @ np.asarray(W_q) + np.asarray(K) @ np.asarray(W_k)
            return np.tanh(hidden) @ np.asarray(v)
        """),
    _right("h12_additive_loop_over_keys", A07, "additive_scores",
           "loops over the keys, one column of scores per key, stacked on the last axis", """
        def additive_scores(Q, K, W_q, W_k, v):
            a = np.asarray(Q) @ np.asarray(W_q)
            c = np.asarray(K) @ np.asarray(W_k)
            cols = [np.tanh(a + c[..., j:j + 1, :]) @ np.asarray(v) for j in range(c.shape[-2])]
            return np.stack(cols, axis=-1)
        """),
    _wrong("h12_scaled_dot_input_width", A07, "scaled_dot_scores", "divisor_uses_input_width",
           "divides by sqrt(d_q), the width of the raw queries, instead of the projected width h", """
        def scaled_dot_scores(Q, K, W_q, W_k):
            Q = np.asarray(Q)
            q = Q @ np.asarray(W_q)
            k = np.asarray(K) @ np.asarray(W_k)
            return q @ np.swapaxes(k, -1, -2) / math.sqrt(Q.shape[-1])
        """),
    _right("h12_scaled_dot_einsum", A07, "scaled_dot_scores",
           "einsum over the projected width, divided by h ** 0.5", """
        def scaled_dot_scores(Q, K, W_q, W_k):
            q = np.matmul(Q, W_q)
            k = np.matmul(K, W_k)
            return np.einsum("...ih,...jh->...ij", q, k) / np.shape(W_k)[-1] ** 0.5
        """),
    _wrong("h12_bilinear_transposed_matrix", A07, "bilinear_scores", "map_applied_transposed",
           "uses W.T between query and key (q^T W^T k), the reverse relation", """
        def bilinear_scores(Q, K, W):
            return np.asarray(Q) @ np.asarray(W).T @ np.swapaxes(np.asarray(K), -1, -2)
        """),
    _wrong("h12_bilinear_with_divisor", A07, "bilinear_scores", "divisor_carried_into_bilinear",
           "divides the bilinear scores by sqrt(d_k) as in the dot-product score", """
        def bilinear_scores(Q, K, W):
            K = np.asarray(K)
            return np.asarray(Q) @ np.asarray(W) @ np.swapaxes(K, -1, -2) / math.sqrt(K.shape[-1])
        """),
    _right("h12_bilinear_einsum", A07, "bilinear_scores",
           "one einsum over both inner indices", """
        def bilinear_scores(Q, K, W):
            return np.einsum("...ia,ab,...jb->...ij", np.asarray(Q), np.asarray(W), np.asarray(K), optimize=True)
        """),
    _wrong("h12_costs_v_not_counted", A07, "score_costs", "additive_vector_not_counted",
           "counts 2 d h parameters for additive as for dot, leaving out v", """
        def score_costs(kind, n, d, h):
            if kind == "bilinear":
                return d * d, n * d * d + n * n * d
            return 2 * d * h, 2 * n * d * h + n * n * h
        """),
    _wrong("h12_costs_pairs_only", A07, "score_costs", "projection_cost_left_out",
           "counts only the per-pair multiply-adds (n^2 h, n^2 d), not the projections", """
        def score_costs(kind, n, d, h):
            params = {"additive": 2 * d * h + h, "dot": 2 * d * h, "bilinear": d * d}[kind]
            width = d if kind == "bilinear" else h
            return params, n * n * width
        """),
    _right("h12_costs_table", A07, "score_costs",
           "a dictionary of (parameters, multiply-adds) per kind, looked up", """
        def score_costs(kind, n, d, h):
            proj = 2 * n * d * h
            table = {
                "additive": (2 * d * h + h, proj + n * n * h),
                "dot": (2 * d * h, proj + n * n * h),
                "bilinear": (d * d, n * d * d + n * n * d),
            }
            p, m = table[kind]
            return int(p), int(m)
        """),
    _wrong("h12_budget_without_v", A07, "width_for_budget", "additive_vector_not_counted",
           "divides the budget by 2 d for both kinds, forgetting the h entries of v in additive", """
        def width_for_budget(kind, d, budget):
            return int(budget // (2 * d))
        """),
    _wrong("h12_budget_rounded", A07, "width_for_budget", None,
           "rounds budget / (2 d + 1) to the nearest integer, which can exceed the budget", """
        def width_for_budget(kind, d, budget):
            per = 2 * d + 1 if kind == "additive" else 2 * d
            return int(round(budget / per))
        """),
    _right("h12_budget_fraction_floor", A07, "width_for_budget",
           "the floor of an exact Fraction budget / parameters per hidden unit", """
        def width_for_budget(kind, d, budget):
            from fractions import Fraction
            per_unit = 2 * d + (1 if kind == "additive" else 0)
            return int(math.floor(Fraction(int(budget), per_unit)))
        """),
]
