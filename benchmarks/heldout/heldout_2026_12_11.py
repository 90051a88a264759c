"""Held-out answers of 2026-12-11: a tenth blind set, aimed at the mistakes students make most often.

Written by a helper session **without reading the grader**: nothing under ``autograder/checks/``, ``tests/``,
``benchmarks/heldout/judgements/`` or ``/work/wt-diag7`` was opened, nor anything under ``autograder/catalogue/``
beyond ``catalogue/__init__.py`` (its docstring, the ``Variant`` class and ``all_variants``) and the function
``load_variants`` (which ``benchmarks/fairness.py`` imports from ``autograder/catalogue/fairness.py``; that function
alone was read, with the module docstring and imports of ``benchmarks/fairness.py``); no feedback or misconception
texts of the grader were read, and neither the grader, ``benchmarks/fairness.py`` nor any test was run on these
answers. Read: the notebooks' task texts (``sources/NN_*/NN_*.py``: prose, stubs, the one-line descriptions of the
hidden tests, the instructor's solution cells), the whole reference ``attention_ref/``, the two lesson seeds
(``/work/shared/seeds/*.txt``), ``Grader.numbers`` in ``autograder/notebook/__init__.py``, and of the earlier
held-out sets only the docstring and first 60 lines of ``heldout_2026_12_10.py`` and its import lines, for the
layout. ``Grader.numbers`` was called once for each per-student item of a bare course (no answer in the namespace)
to see the form of the numbers (``STOP_Q`` a float array (2,), ``STOP_K`` (3, 2), ``CONCEPT_ORDER`` an array of
lettering strings, ``(TABLE_N, TABLE_DTYPE)`` an int and a dtype name) and the option texts a student is shown for
the concept questions; nothing else of the grader was called. Earlier sets' names and labels were not looked at;
as this set aims at the typical mistakes, some will coincide with theirs.

Students imagined: a class of 300 meeting attention for the first time, most writing the first thing the formula
suggests and testing it on the worked example only. The common mistakes (57 of the 74): the products of the dot
product never added, or divided by the two lengths (a cosine); ``K.T`` on batched keys (scores and
``scaled_dot_scores``), ``K Q^T``; the softmax without its maximum, with one maximum for the whole array, divided by
the sum of every entry, or by row sums that lost their axis (no ``keepdims``); the weighted sum divided again by
``n_k``; the variance from numpy's global random state or given as a standard deviation; ``/ d_k`` for
``/ sqrt(d_k)``, ``sqrt(n_k)`` read off the scores, the caller's scores divided in place; the leading weight from
bare exponentials (overflow); the Jacobian's diagonal only, and ``p @ p.T`` on a 1-D vector taken for the outer
product; attention without the division or with the softmax along axis 0; the Stop-and-try answers on the student's
own numbers: scaled scores given as the raw ones, weights without the scaling or divided by 2, the key number
0-based, reason c; the concept questions answered with the tempting wrong option (cosine, "at every step of
training", "more heads multiply the parameters", "important in general"); a causal mask from ``np.triu``, without its
diagonal, or always square; a padding mask with ``<=`` or without its query axis; a boolean mask multiplied in, read
backwards, or written into the caller's scores; the weights zeroed after the softmax and ``-1e9`` for ``-inf``;
``X W^T``; every head given the full width; heads split or merged by a bare reshape; ``sqrt(d_model)`` as the head
divisor and a shared mask without a head axis; the causal mask of self-attention from ``np.triu`` or from
``len(X)``; cross-attention with the roles swapped or with a causal mask; the table of one head; the online softmax
without the rescaling or with NaN once a whole block is masked; the tanh of each projection separately, query i met
with key i only (no table of pairs), ``sqrt(d_q)`` for ``sqrt(h)``, ``W^T`` in the bilinear score, ``v`` not counted
in the parameters nor in the budget. The rarer but plausible ones (17): the loop that assigns instead of adding,
``np.dot`` on batched stacks of weights, the leading weight divided by the width, the mask added before the scaling
(a finite bias then divided by ``sqrt(d_k)``), ``3 d_k`` for ``2 d_k + d_v``, heads split for one sequence only,
``np.concatenate(X, axis=-1)`` joining the batch instead of the heads, keys and values projected from ``X_q``, the
mean gap for the largest, question 1 of notebook 04 answered "the inputs point the same way", the padding mask sized
by the decoder, bits for bytes, ``TABLE_N ^ 2``, the last partial key block dropped, ``K W^T Q^T`` (one row per
key), the projections left out of the multiply-adds, ``budget // 2 * d``. Not made a mistake anywhere: float32 in,
float64 out, as the instructor's ``dot_product``/``softmax_jacobian`` solutions do (two wrong Jacobians keep
``dtype=float`` from that solution). The Stop-and-try answers use the per-student ``STOP_Q`` and ``STOP_K``, the
concept answers ``CONCEPT_ORDER``, ``TABLE_BYTES`` the student's ``TABLE_N`` and ``TABLE_DTYPE``; none copies the
lesson's worked example.

Counts per notebook (wrong / right / of the wrong, labelled None): 01_scores_softmax 12 / 5 / 1;
02_scaling 17 / 8 / 0; 03_masking 11 / 4 / 0; 04_heads 12 / 6 / 0; 05_cross_attention 6 / 3 / 0;
06_long_sequences 6 / 2 / 1; 07_scoring_functions 10 / 5 / 1. In all 74 wrong (3 labelled None: the loop that
overwrites its total, ``TABLE_N ^ 2``, ``budget // 2 * d``) and 33 right.

Each answer replaces one solution cell only (the other cells keep the instructor's answers) and defines no name other
than its own task's (helpers and imports live inside the function; the value cells are single expressions). A wrong
answer is labelled with the misconception in the author's own words (not ids of the course), or ``None`` for a
Python or arithmetic muddle; ``source`` says the mistake in one line. Correct rewrites are written differently from
the solutions: ``math.fsum`` over ``zip``, ``einsum`` with ellipses, a log-sum-exp softmax, a loop over the keys, a
single ``(2, n, d_k)`` draw with the variance written out, ``np.true_divide``, the closed form
``1 / (1 + e^-s + e^-2s)``, ``np.eye`` with ``np.multiply.outer``, ``np.tri``, ``np.greater.outer``,
``np.putmask`` on a copy, a 0/-inf bias, ``np.tensordot``, the matrices' shapes multiplied out, ``np.split`` and
``np.stack``, the heads concatenated one by one, a multi-head attention in einsum, ``str.find``/dictionaries for the
letters, a padding comparison written by hand, an empty array's ``itemsize``, a two-pass blockwise attention
(maxima first, then sums), a dictionary of cost formulas and ``divmod``.

How it was checked (a throw-away script in /tmp, not kept): each cell is executed, with warnings raised as errors, in
a namespace holding ``math``, ``np``, what the notebook's first cell imports from ``attention_ref`` and
``attention_ref``'s versions of the notebook's other task functions (for ``scaled_dot_product_attention`` of
notebooks 02 and 03, the reference called without and with a mask), plus invented per-student numbers (a query and
keys other than the lesson's, non-identity letter orders, a float16 table of 3000); the names it defines are
compared with its task's; its function is called on 3 to 17 inputs per task of the kinds the notebooks name -- the
seeds' worked examples (lists, integer lists, arrays), square and non-square shapes with n_q > n_k and n_q < n_k, one
and two leading batch axes, float32, scores of 1e3 and 1e4, rows far apart, softmax along axes 0, 1 and -2 of a 3-D
array, widths 0.5 to 1e8 with and without ``scaled``, one-hot and saturated probability vectors, causal masks with
n_q != n_k, padding masks with an empty sequence, floating 0/-inf masks and finite biases, a fully masked row,
(n_q, n_k) and (batch, n_q, n_k) masks for the heads, d_k != d_v, width 512 with 8 heads, block sizes 1, n_k and
larger, scale given -- and compared with ``attention_ref`` (float64 within rtol 1e-6, float32 kept and within 1e-4,
booleans exactly, ints exactly and as ints), inputs checked unchanged; ``score_variance`` is checked statistically
(close to d_k at 1, 16 and 64, the same seed giving the same estimate, a Generator accepted). Every wrong answer
differs from the reference, raises or modifies its input on at least one of these inputs; every rewrite agrees on
all of them, with no warning. ``fairness.load_variants`` loads the file (107 variants).
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
    _wrong("h11_dot_products_kept_as_vector", A01, "dot_product", "multiplied_entries_but_never_added_them",
           "returns the array of products q_i k_i instead of their sum", """
        def dot_product(q, k):
            q = np.array(q, dtype=float)
            k = np.array(k, dtype=float)
            return q * k
        """),
    _wrong("h11_dot_cosine", A01, "dot_product", "cosine_similarity_instead_of_dot_product",
           "divides the dot product by the two lengths, as if the score were the cosine of the angle", """
        def dot_product(q, k):
            q, k = np.asarray(q, float), np.asarray(k, float)
            return float(q @ k / (np.linalg.norm(q) * np.linalg.norm(k)))
        """),
    _wrong("h11_dot_total_overwritten", A01, "dot_product", None,
           "the loop assigns total = q[i] * k[i] instead of adding to it, so only the last product is returned", """
        def dot_product(q, k):
            total = 0.0
            for i in range(len(q)):
                total = q[i] * k[i]
            return float(total)
        """),
    _wrong("h11_scores_dotT_all_axes", A01, "attention_scores", "transposed_every_axis_of_batched_keys",
           "K.T reverses all the axes of a batched K instead of swapping its last two", """
        def attention_scores(Q, K):
            Q = np.array(Q)
            K = np.array(K)
            return np.matmul(Q, K.T)
        """),
    _wrong("h11_scores_keys_as_rows", A01, "attention_scores", "keys_times_queries_gives_transposed_scores",
           "computes K Q^T, so the rows are keys and the columns queries (n_k, n_q)", """
        def attention_scores(Q, K):
            return np.asarray(K) @ np.swapaxes(np.asarray(Q), -1, -2)
        """),
    _wrong("h11_softmax_raw_exp", A01, "softmax", "no_maximum_subtracted_so_exp_overflows",
           "exponentiates the raw scores; exp(1000) overflows to inf and the weights become nan", """
        def softmax(x, axis=-1):
            ex = np.exp(np.asarray(x))
            return ex / np.sum(ex, axis=axis, keepdims=True)
        """),
    _wrong("h11_softmax_one_global_max", A01, "softmax", "one_maximum_for_the_whole_array",
           "subtracts the maximum of the whole array instead of each row's own, so a row far below it underflows to 0/0", """
        def softmax(x, axis=-1):
            x = np.asarray(x)
            z = np.exp(x - np.max(x))
            return z / z.sum(axis=axis, keepdims=True)
        """),
    _wrong("h11_softmax_sum_everything", A01, "softmax", "normalised_over_all_entries_not_per_row",
           "divides by the sum of every exponential of the array, so the rows of a matrix no longer sum to 1", """
        def softmax(x, axis=-1):
            x = np.asarray(x)
            e = np.exp(x - x.max(axis=axis, keepdims=True))
            return e / e.sum()
        """),
    _wrong("h11_softmax_sum_no_keepdims", A01, "softmax", "reduced_axis_dropped_so_sums_broadcast_wrongly",
           "the row sums lose their axis (no keepdims), so they broadcast along the wrong axis or fail to broadcast", """
        def softmax(x, axis=-1):
            x = np.asarray(x)
            e = np.exp(x - np.max(x, axis=axis, keepdims=True))
            return e / np.sum(e, axis=axis)
        """),
    _wrong("h11_wavg_divided_by_nk", A01, "weighted_average", "weighted_sum_divided_again_by_number_of_keys",
           "reads 'average' literally and divides the weighted sum by n_k although the weights already sum to 1", """
        def weighted_average(weights, V):
            w = np.asarray(weights)
            V = np.asarray(V)
            return (w @ V) / w.shape[-1]
        """),
    _wrong("h11_wavg_np_dot_stacks", A01, "weighted_average", "np_dot_used_on_batched_stacks",
           "np.dot of two stacks pairs every batch entry with every other instead of matching them as @ does", """
        def weighted_average(weights, V):
            return np.dot(np.asarray(weights), np.asarray(V))
        """),
    _wrong("h11_concepts01_cosine", A01, "CONCEPTS_01", "attention_compares_by_cosine",
           "question 3 answered with the cosine of the angle (lengths divided out); the other two right", """
        CONCEPTS_01 = ("abcd"[CONCEPT_ORDER[0].index("b")], "abcd"[CONCEPT_ORDER[1].index("c")],
                       "abcd"[CONCEPT_ORDER[2].index("b")])
        """),
    _right("h11_ok_dot_fsum", A01, "dot_product", "exact sum of the products with math.fsum over zip", """
        def dot_product(q, k):
            import math
            return math.fsum(float(a) * float(b) for a, b in zip(q, k))
        """),
    _right("h11_ok_scores_einsum", A01, "attention_scores", "np.einsum with ellipsis batch axes", """
        def attention_scores(Q, K):
            Q, K = np.asarray(Q), np.asarray(K)
            if Q.dtype.kind != "f":
                Q = Q.astype(np.float64)
            if K.dtype.kind != "f":
                K = K.astype(np.float64)
            return np.einsum("...id,...jd->...ij", Q, K)
        """),
    _right("h11_ok_softmax_logsumexp", A01, "softmax", "log-sum-exp form: exp(x - max - log(sum exp(x - max)))", """
        def softmax(x, axis=-1):
            z = np.asarray(x)
            if not np.issubdtype(z.dtype, np.floating):
                z = z.astype(np.float64)
            centred = z - np.max(z, axis=axis, keepdims=True)
            log_total = np.log(np.sum(np.exp(centred), axis=axis, keepdims=True))
            return np.exp(centred - log_total)
        """),
    _right("h11_ok_wavg_key_loop", A01, "weighted_average", "a loop over the keys adding weight times value row", """
        def weighted_average(weights, V):
            w = np.asarray(weights)
            vals = np.asarray(V)
            if w.dtype.kind != "f":
                w = w.astype(float)
            if vals.dtype.kind != "f":
                vals = vals.astype(float)
            out = w[..., :, :1] * vals[..., :1, :]
            for j in range(1, w.shape[-1]):
                out = out + w[..., :, j:j + 1] * vals[..., j:j + 1, :]
            return out
        """),
    _right("h11_ok_concepts01_dict", A01, "CONCEPTS_01", "a dictionary from the lesson's letter to the shown one", """
        CONCEPTS_01 = tuple({lesson: shown for shown, lesson in zip("abcd", order)}[right]
                            for order, right in zip(CONCEPT_ORDER, ("b", "c", "d")))
        """),

    # ------------------------------------------------------------------ 02 scaling
    _wrong("h11_variance_global_random", A02, "score_variance", "seed_ignored_global_random_state",
           "draws from np.random's global state, so the rng argument (a seed or a generator) changes nothing", """
        def score_variance(d_k, n_samples=100_000, rng=None):
            q = np.random.randn(n_samples, d_k)
            k = np.random.randn(n_samples, d_k)
            return float(np.var((q * k).sum(axis=1)))
        """),
    _wrong("h11_variance_is_std", A02, "score_variance", "standard_deviation_instead_of_variance",
           "returns the spread of the dot products (np.std, about sqrt(d_k)) instead of their variance", """
        def score_variance(d_k, n_samples=100_000, rng=None):
            gen = np.random.default_rng(rng)
            dots = [gen.standard_normal(d_k) @ gen.standard_normal(d_k) for _ in range(n_samples)]
            return float(np.std(dots))
        """),
    _wrong("h11_scale_by_dk", A02, "scale_scores", "divided_by_width_not_its_square_root",
           "divides the scores by d_k itself instead of sqrt(d_k)", """
        def scale_scores(scores, d_k):
            return np.asarray(scores) / d_k
        """),
    _wrong("h11_scale_by_nk", A02, "scale_scores", "divisor_read_off_the_number_of_keys",
           "ignores d_k and divides by the square root of the scores' last axis, which counts keys", """
        def scale_scores(scores, d_k):
            s = np.asarray(scores)
            return s / math.sqrt(s.shape[-1])
        """),
    _wrong("h11_scale_in_place", A02, "scale_scores", "caller_scores_divided_in_place",
           "scores /= sqrt(d_k) on np.asarray of the caller's array changes the caller's scores (and fails on integers)", """
        def scale_scores(scores, d_k):
            scores = np.asarray(scores)
            scores /= math.sqrt(d_k)
            return scores
        """),
    _wrong("h11_leading_naive_exp", A02, "leading_weight", "no_maximum_subtracted_so_exp_overflows",
           "computes e^s / sum e^s on the raw scores; at large widths exp overflows and the weight is nan", """
        def leading_weight(width, scaled=True):
            s = np.array([2.0, 1.0, 0.0]) * np.sqrt(width)
            if scaled:
                s = s / np.sqrt(width)
            e = np.exp(s)
            return float(e[0] / e.sum())
        """),
    _wrong("h11_leading_divided_by_width", A02, "leading_weight", "divided_by_width_not_its_square_root",
           "the scaled branch divides by the width instead of its square root, so the curve is not flat", """
        def leading_weight(width, scaled=True):
            raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
            if scaled:
                raw = raw / width
            return float(softmax(raw).max())
        """),
    _wrong("h11_jacobian_diagonal_only", A02, "softmax_jacobian", "only_the_diagonal_terms",
           "keeps p_i (1 - p_i) on the diagonal and forgets the -p_i p_j off the diagonal", """
        def softmax_jacobian(p):
            p = np.asarray(p, dtype=float)
            return np.diag(p * (1 - p))
        """),
    _wrong("h11_jacobian_1d_transpose", A02, "softmax_jacobian", "transpose_of_1d_vector_is_not_a_column",
           "p @ p.T on a 1-D vector is the scalar sum of squares, not the outer product p p^T", """
        def softmax_jacobian(p):
            p = np.asarray(p, dtype=float)
            return np.diag(p) - p @ p.T
        """),
    _wrong("h11_sdpa02_unscaled", A02, "scaled_dot_product_attention", "scaling_left_out",
           "softmax of the raw scores Q K^T: the division by sqrt(d_k) is missing", """
        def scaled_dot_product_attention(Q, K, V):
            w = softmax(attention_scores(Q, K))
            return weighted_average(w, V), w
        """),
    _wrong("h11_sdpa02_softmax_axis0", A02, "scaled_dot_product_attention", "softmax_over_queries_not_keys",
           "normalises along axis 0 (the queries of a 2-D score matrix) instead of along the keys", """
        def scaled_dot_product_attention(Q, K, V):
            Q = np.asarray(Q)
            s = scale_scores(attention_scores(Q, K), Q.shape[-1])
            w = softmax(s, axis=0)
            return weighted_average(w, V), w
        """),
    _wrong("h11_stop_scores_scaled", A02, "STOP_AND_TRY_SCORES", "scaled_scores_given_where_raw_asked",
           "gives the scores already divided by sqrt(2) instead of the raw dot products", """
        STOP_AND_TRY_SCORES = np.array([np.dot(STOP_Q, key) for key in STOP_K]) / np.sqrt(2)
        """),
    _wrong("h11_stop_weights_unscaled", A02, "STOP_AND_TRY_WEIGHTS", "weights_without_scaling",
           "softmax of the raw dot products, without dividing by sqrt(d_k) = sqrt(2)", """
        STOP_AND_TRY_WEIGHTS = softmax(np.array([STOP_Q @ key for key in STOP_K]))
        """),
    _wrong("h11_stop_weights_over_two", A02, "STOP_AND_TRY_WEIGHTS", "divided_by_width_not_its_square_root",
           "divides the scores by d_k = 2 instead of sqrt(2) before the softmax", """
        STOP_AND_TRY_WEIGHTS = softmax(STOP_K @ STOP_Q / 2)
        """),
    _wrong("h11_stop_largest_zero_based", A02, "STOP_AND_TRY_LARGEST", "zero_based_key_number",
           "gives np.argmax's 0-based index where keys are numbered 1, 2, 3", """
        STOP_AND_TRY_LARGEST = int(np.argmax(STOP_K @ STOP_Q))
        """),
    _wrong("h11_stop_reason_c", A02, "STOP_AND_TRY_REASON", "nonpositive_scores_get_zero_weight",
           "picks reason c: believes the softmax gives scores of 0 or below no weight at all", """
        STOP_AND_TRY_REASON = "c"
        """),
    _wrong("h11_concepts02_every_step", A02, "CONCEPTS_02", "divisor_keeps_unit_variance_throughout_training",
           "answers that the division guarantees unit-variance scores at every step of training", """
        CONCEPTS_02 = ("abcd"[list(CONCEPT_ORDER[0]).index("b")],)
        """),
    _right("h11_ok_variance_one_draw", A02, "score_variance", "one draw of shape (2, n, d_k) and the variance written out", """
        def score_variance(d_k, n_samples=100_000, rng=None):
            gen = np.random.default_rng(rng)
            pairs = gen.normal(0.0, 1.0, size=(2, n_samples, d_k))
            dots = np.sum(pairs[0] * pairs[1], axis=-1)
            centred = dots - dots.mean()
            return float(np.sum(centred * centred) / (n_samples - 1))
        """),
    _right("h11_ok_scale_true_divide", A02, "scale_scores", "np.true_divide by a Python float", """
        def scale_scores(scores, d_k):
            root = d_k ** 0.5
            return np.true_divide(np.asarray(scores), float(root))
        """),
    _right("h11_ok_leading_closed_form", A02, "leading_weight", "the closed form 1 / (1 + e^-s + e^-2s)", """
        def leading_weight(width, scaled=True):
            import math
            step = 1.0 if scaled else math.sqrt(width)
            return 1.0 / (1.0 + math.exp(-step) + math.exp(-2.0 * step))
        """),
    _right("h11_ok_jacobian_eye", A02, "softmax_jacobian", "identity times p minus np.multiply.outer", """
        def softmax_jacobian(p):
            probs = np.array(p)
            if probs.dtype.kind != "f":
                probs = probs.astype(float)
            return np.eye(probs.size, dtype=probs.dtype) * probs[:, None] - np.multiply.outer(probs, probs)
        """),
    _right("h11_ok_sdpa02_einsum", A02, "scaled_dot_product_attention", "einsum scores scaled by 1/sqrt(d_k), the given softmax, einsum average", """
        def scaled_dot_product_attention(Q, K, V):
            Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
            if Q.dtype.kind != "f":
                Q = Q.astype(float)
            raw = np.einsum("...qd,...kd->...qk", Q, K)
            probs = softmax(scale_scores(raw, Q.shape[-1]), axis=-1)
            return np.matmul(probs, V), probs
        """),
    _right("h11_ok_stop_scores_listcomp", A02, "STOP_AND_TRY_SCORES", "a list of q1 k1 + q2 k2 per key", """
        STOP_AND_TRY_SCORES = [float(STOP_Q[0] * key[0] + STOP_Q[1] * key[1]) for key in STOP_K]
        """),
    _right("h11_ok_stop_weights_by_hand", A02, "STOP_AND_TRY_WEIGHTS", "exponentials of the scaled scores divided by their total", """
        STOP_AND_TRY_WEIGHTS = (lambda e: e / e.sum())(np.exp((STOP_K @ STOP_Q) / math.sqrt(2)))
        """),
    _right("h11_ok_stop_largest_max_key", A02, "STOP_AND_TRY_LARGEST", "max over key numbers 1..3 by their score", """
        STOP_AND_TRY_LARGEST = max((1, 2, 3), key=lambda j: float(STOP_Q @ STOP_K[j - 1]))
        """),

    # ------------------------------------------------------------------ 03 masking
    _wrong("h11_causal_upper", A03, "causal_mask", "upper_triangle_lets_queries_see_the_future",
           "np.triu keeps j >= i: each query reads the later positions and not the earlier ones", """
        def causal_mask(n_q, n_k=None):
            if n_k is None:
                n_k = n_q
            return np.triu(np.ones((n_q, n_k), dtype=bool))
        """),
    _wrong("h11_causal_no_diagonal", A03, "causal_mask", "diagonal_left_out_position_cannot_read_itself",
           "np.tril with k=-1 hides the diagonal, so a position may not read itself (and row 0 reads nothing)", """
        def causal_mask(n_q, n_k=None):
            n_k = n_q if n_k is None else n_k
            return np.tril(np.ones((n_q, n_k)), k=-1).astype(bool)
        """),
    _wrong("h11_causal_always_square", A03, "causal_mask", "number_of_keys_ignored_mask_always_square",
           "builds an n_q x n_q triangle whatever n_k is", """
        def causal_mask(n_q, n_k=None):
            return np.tril(np.ones((n_q, n_q), dtype=bool))
        """),
    _wrong("h11_padding_inclusive", A03, "padding_mask", "length_counted_inclusively_one_pad_visible",
           "j <= length keeps the first padded key as if it were real", """
        def padding_mask(lengths, n_k):
            keep = np.arange(n_k)[None, :] <= np.asarray(lengths)[:, None]
            return keep[:, None, :]
        """),
    _wrong("h11_padding_no_query_axis", A03, "padding_mask", "query_axis_missing_from_padding_mask",
           "returns (batch, n_k) without the axis of length one that broadcasts over the queries", """
        def padding_mask(lengths, n_k):
            return np.arange(n_k) < np.asarray(lengths)[:, None]
        """),
    _wrong("h11_apply_multiply", A03, "apply_mask", "mask_multiplied_so_hidden_scores_become_zero",
           "multiplies the scores by the boolean mask: a hidden score becomes 0, which still gets weight", """
        def apply_mask(scores, mask):
            scores = np.asarray(scores)
            mask = np.asarray(mask)
            if mask.dtype == bool:
                return scores * mask
            return scores + mask
        """),
    _wrong("h11_apply_true_hides", A03, "apply_mask", "true_read_as_hidden",
           "puts -inf where the mask is True, the opposite of the course's True = may attend", """
        def apply_mask(scores, mask):
            m = np.asarray(mask)
            if m.dtype == np.bool_:
                return np.where(m, -np.inf, scores)
            return np.asarray(scores) + m
        """),
    _wrong("h11_apply_in_place", A03, "apply_mask", "caller_scores_overwritten_with_minus_inf",
           "writes -inf into np.asarray(scores), i.e. into the caller's own array, and returns it", """
        def apply_mask(scores, mask):
            scores = np.asarray(scores)
            mask = np.asarray(mask)
            if mask.dtype == np.bool_:
                scores[~np.broadcast_to(mask, scores.shape)] = -np.inf
            else:
                scores += mask
            return scores
        """),
    _wrong("h11_sdpa03_mask_after_softmax", A03, "scaled_dot_product_attention", "weights_zeroed_after_the_softmax",
           "takes the softmax of all scores and then multiplies the weights by the mask, so rows no longer sum to 1", """
        def scaled_dot_product_attention(Q, K, V, mask=None):
            Q = np.asarray(Q)
            weights = softmax(scale_scores(attention_scores(Q, K), Q.shape[-1]))
            if mask is not None:
                weights = weights * np.asarray(mask)
            return weighted_average(weights, V), weights
        """),
    _wrong("h11_sdpa03_minus_1e9", A03, "scaled_dot_product_attention", "large_negative_fill_instead_of_minus_infinity",
           "fills hidden scores with -1e9: a query with no allowed key then gets equal weights instead of zeros", """
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
        """),
    _wrong("h11_sdpa03_mask_before_scaling", A03, "scaled_dot_product_attention", "mask_applied_before_the_division",
           "adds the mask to the raw scores and scales afterwards, so a finite additive bias is divided by sqrt(d_k)", """
        def scaled_dot_product_attention(Q, K, V, mask=None):
            Q = np.asarray(Q)
            s = attention_scores(Q, K)
            if mask is not None:
                s = apply_mask(s, mask)
            w = softmax(scale_scores(s, Q.shape[-1]), axis=-1)
            return weighted_average(w, V), w
        """),
    _right("h11_ok_causal_tri", A03, "causal_mask", "np.tri with a boolean dtype", """
        def causal_mask(n_q, n_k=None):
            return np.tri(n_q, n_q if n_k is None else n_k, dtype=bool)
        """),
    _right("h11_ok_padding_greater_outer", A03, "padding_mask", "np.greater.outer of the lengths and the positions", """
        def padding_mask(lengths, n_k):
            real = np.greater.outer(np.asarray(lengths), np.arange(n_k))
            return np.expand_dims(real, 1)
        """),
    _right("h11_ok_apply_copy_putmask", A03, "apply_mask", "a copy, then np.putmask for booleans or an add for biases", """
        def apply_mask(scores, mask):
            mask = np.asarray(mask)
            out = np.array(scores, copy=True)
            if out.dtype.kind != "f":
                out = out.astype(np.float64)
            if mask.dtype != np.bool_:
                return out + mask.astype(out.dtype)
            np.putmask(out, ~np.broadcast_to(mask, out.shape), -np.inf)
            return out
        """),
    _right("h11_ok_sdpa03_bias", A03, "scaled_dot_product_attention", "a boolean mask turned into a 0/-inf bias and added", """
        def scaled_dot_product_attention(Q, K, V, mask=None):
            Q = np.asarray(Q)
            if Q.dtype.kind != "f":
                Q = Q.astype(float)
            s = np.matmul(Q, np.swapaxes(np.asarray(K), -1, -2)) / math.sqrt(Q.shape[-1])
            if mask is not None:
                m = np.asarray(mask)
                bias = np.where(m, 0.0, -np.inf) if m.dtype == bool else m
                s = s + bias.astype(s.dtype)
            p = softmax(s, axis=-1)
            return p @ np.asarray(V), p
        """),

    # ------------------------------------------------------------------ 04 heads
    _wrong("h11_project_transposed_map", A04, "project", "map_applied_as_its_transpose",
           "computes X W^T, the column-vector habit W x carried over to rows", """
        def project(X, W):
            return np.asarray(X) @ np.asarray(W).T
        """),
    _wrong("h11_params_full_width_heads", A04, "attention_param_count", "every_head_given_the_full_width",
           "gives each head d_k = d_v = d_model by default, so the heads multiply the count", """
        def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
            d_k = d_model if d_k is None else d_k
            d_v = d_model if d_v is None else d_v
            total = num_heads * d_model * (2 * d_k + d_v)
            if output_projection:
                total += num_heads * d_v * d_model
            return total
        """),
    _wrong("h11_params_three_dk", A04, "attention_param_count", "value_width_assumed_equal_to_key_width",
           "counts the three maps as 3 d_model d_k per head, wrong when d_v differs from d_k", """
        def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
            dk = d_k or d_model // num_heads
            dv = d_v or d_model // num_heads
            n = 3 * num_heads * d_model * dk
            if output_projection:
                n += num_heads * dv * d_model
            return int(n)
        """),
    _wrong("h11_split_bare_reshape", A04, "split_heads", "reshaped_straight_to_heads_without_swapping_axes",
           "reshapes (..., n, d_model) directly to (..., h, n, d): rows of different positions land in one head", """
        def split_heads(X, num_heads):
            X = np.asarray(X)
            *lead, n, d = X.shape
            return X.reshape(*lead, num_heads, n, d // num_heads)
        """),
    _wrong("h11_split_2d_only", A04, "split_heads", "leading_batch_axes_not_handled",
           "unpacks n, d = X.shape and transposes (1, 0, 2): right for one sequence, fails with batch axes", """
        def split_heads(X, num_heads):
            n, d = np.shape(X)
            return np.asarray(X).reshape(n, num_heads, d // num_heads).transpose(1, 0, 2)
        """),
    _wrong("h11_merge_bare_reshape", A04, "merge_heads", "reshaped_back_without_swapping_axes",
           "reshapes (..., h, n, d) straight to (..., n, h d) without bringing the head axis next to the width", """
        def merge_heads(X):
            X = np.asarray(X)
            *lead, h, n, d = X.shape
            return X.reshape(*lead, n, h * d)
        """),
    _wrong("h11_merge_concat_first_axis", A04, "merge_heads", "first_axis_taken_as_the_head_axis",
           "np.concatenate(X, axis=-1) joins the slices of the first axis, which is the batch when there is one", """
        def merge_heads(X):
            return np.concatenate(np.asarray(X), axis=-1)
        """),
    _wrong("h11_mha_divisor_model_width", A04, "multi_head_attention", "divisor_from_model_width_not_head_width",
           "scales every head's scores by sqrt(d_model) instead of the square root of the head width", """
        def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
            X_q = np.asarray(X_q)
            Q = split_heads(project(X_q, W_q), num_heads)
            K = split_heads(project(X_kv, W_k), num_heads)
            V = split_heads(project(X_kv, W_v), num_heads)
            scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(X_q.shape[-1])
            if mask is not None:
                m = np.asarray(mask)
                if m.ndim >= 2:
                    m = np.expand_dims(m, -3)
                scores = np.where(m, scores, -np.inf)
            weights = softmax(scores, axis=-1)
            return project(merge_heads(weights @ V), W_o), weights
        """),
    _wrong("h11_mha_mask_no_head_axis", A04, "multi_head_attention", "mask_not_given_a_head_axis",
           "passes a (batch, n_q, n_k) mask straight to heads of shape (batch, h, n_q, n_k), so batch lines up with heads", """
        def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
            q = split_heads(project(X_q, W_q), num_heads)
            k = split_heads(project(X_kv, W_k), num_heads)
            v = split_heads(project(X_kv, W_v), num_heads)
            out, w = scaled_dot_product_attention(q, k, v, mask=mask)
            return project(merge_heads(out), W_o), w
        """),
    _wrong("h11_mha_keys_from_queries", A04, "multi_head_attention", "keys_and_values_taken_from_the_query_rows",
           "projects X_q for the keys and values too, so X_kv is never read", """
        def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
            Q = split_heads(project(X_q, W_q), num_heads)
            K = split_heads(project(X_q, W_k), num_heads)
            V = split_heads(project(X_q, W_v), num_heads)
            if mask is not None:
                mask = np.asarray(mask)
                if mask.ndim >= 2:
                    mask = mask[..., None, :, :]
            heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
            return project(merge_heads(heads), W_o), weights
        """),
    _wrong("h11_asymmetry_mean_gap", A04, "score_asymmetry", "average_gap_instead_of_largest",
           "returns the mean of |s_ij - s_ji| over all pairs instead of the maximum", """
        def score_asymmetry(X, W_q, W_k):
            X = np.asarray(X)
            S = (X @ W_q) @ (X @ W_k).T
            return float(np.mean(np.abs(S - S.T)))
        """),
    _wrong("h11_concepts04_raw_alignment", A04, "CONCEPTS_04", "large_score_means_raw_inputs_aligned",
           "question 1 answered with 'the two input vectors point the same way'; the other two right", """
        CONCEPTS_04 = tuple("abcd"[order.index(pick)] for order, pick in zip(CONCEPT_ORDER, "aba"))
        """),
    _right("h11_ok_project_tensordot", A04, "project", "np.tensordot over the last axis of X and the first of W", """
        def project(X, W):
            X, W = np.asarray(X), np.asarray(W)
            return np.tensordot(X, W, axes=([X.ndim - 1], [0]))
        """),
    _right("h11_ok_params_per_matrix", A04, "attention_param_count", "the four matrices' shapes multiplied out one by one", """
        def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
            head = d_model // num_heads
            dk = head if d_k is None else d_k
            dv = head if d_v is None else d_v
            shapes = [(d_model, num_heads * dk), (d_model, num_heads * dk), (d_model, num_heads * dv)]
            if output_projection:
                shapes.append((num_heads * dv, d_model))
            return sum(rows * cols for rows, cols in shapes)
        """),
    _right("h11_ok_split_np_split", A04, "split_heads", "np.split along the width and np.stack on a new head axis", """
        def split_heads(X, num_heads):
            X = np.asarray(X)
            return np.stack(np.split(X, num_heads, axis=-1), axis=-3)
        """),
    _right("h11_ok_merge_concat_heads", A04, "merge_heads", "np.concatenate of the heads taken one by one along the width", """
        def merge_heads(X):
            X = np.asarray(X)
            return np.concatenate([X[..., i, :, :] for i in range(X.shape[-3])], axis=-1)
        """),
    _right("h11_ok_mha_einsum", A04, "multi_head_attention", "einsum projections and per-head scores, the given softmax", """
        def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
            Xq, Xkv = np.asarray(X_q), np.asarray(X_kv)
            Wq, Wk, Wv, Wo = (np.asarray(W) for W in (W_q, W_k, W_v, W_o))
            dk = Wq.shape[1] // num_heads
            dv = Wv.shape[1] // num_heads
            q = (Xq @ Wq).reshape(*Xq.shape[:-1], num_heads, dk)
            k = (Xkv @ Wk).reshape(*Xkv.shape[:-1], num_heads, dk)
            v = (Xkv @ Wv).reshape(*Xkv.shape[:-1], num_heads, dv)
            s = np.einsum("...qhd,...khd->...hqk", q, k) / math.sqrt(dk)
            if mask is not None:
                m = np.asarray(mask)
                if m.ndim >= 2:
                    m = m[..., None, :, :]
                s = np.where(m, s, -np.inf) if m.dtype == bool else s + m
            w = softmax(s, axis=-1)
            heads = np.einsum("...hqk,...khd->...qhd", w, v)
            return heads.reshape(*heads.shape[:-2], num_heads * dv) @ Wo, w
        """),
    _right("h11_ok_concepts04_find", A04, "CONCEPTS_04", "str.find of each right option in the shown order", """
        CONCEPTS_04 = tuple("abcd"[CONCEPT_ORDER[i].find(right)] for i, right in enumerate("dba"))
        """),

    # ------------------------------------------------------------------ 05 cross-attention
    _wrong("h11_self_causal_upper", A05, "self_attention", "upper_triangle_lets_queries_see_the_future",
           "builds the causal mask with np.triu, so each position reads the later positions", """
        def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
            X = np.asarray(X)
            n = X.shape[-2]
            mask = np.triu(np.ones((n, n), dtype=bool)) if causal else None
            return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
        """),
    _wrong("h11_self_len_of_batch", A05, "self_attention", "sequence_length_taken_from_first_axis",
           "causal_mask(len(X)) counts the batch, not the positions, when X has a batch axis", """
        def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
            mask = causal_mask(len(X)) if causal else None
            return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
        """),
    _wrong("h11_cross_roles_swapped", A05, "cross_attention", "encoder_asks_decoder_answers",
           "passes X_enc as the queries and X_dec as keys and values", """
        def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
            X_enc = np.asarray(X_enc)
            mask = None if enc_lengths is None else padding_mask(np.asarray(enc_lengths), X_enc.shape[-2])
            return multi_head_attention(X_enc, X_dec, W_q, W_k, W_v, W_o, num_heads, mask=mask)
        """),
    _wrong("h11_cross_with_causal", A05, "cross_attention", "causal_mask_added_to_cross_attention",
           "hides the later input positions from each output position, as in the decoder's self-attention", """
        def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
            n_dec, n_enc = np.shape(X_dec)[-2], np.shape(X_enc)[-2]
            mask = causal_mask(n_dec, n_enc)
            if enc_lengths is not None:
                mask = mask & padding_mask(np.asarray(enc_lengths), n_enc)
            return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
        """),
    _wrong("h11_cross_padding_decoder_length", A05, "cross_attention", "padding_mask_sized_by_the_decoder",
           "builds the padding mask with n_dec positions instead of n_enc, as if the padding were on the output side", """
        def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
            X_dec = np.asarray(X_dec)
            mask = None
            if enc_lengths is not None:
                mask = padding_mask(np.asarray(enc_lengths), X_dec.shape[-2])
            return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
        """),
    _wrong("h11_concepts05_importance", A05, "CONCEPTS_05", "high_weight_means_important_in_general",
           "answers that the word matters more for the translation in general", """
        CONCEPTS_05 = ("abcd"[CONCEPT_ORDER[0].index("a")],)
        """),
    _right("h11_ok_self_tril", A05, "self_attention", "np.tril of a boolean square", """
        def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
            n = np.shape(X)[-2]
            keep = np.tril(np.ones((n, n), dtype=bool)) if causal else None
            return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=keep)
        """),
    _right("h11_ok_cross_manual_padding", A05, "cross_attention", "the padding mask written as a comparison of positions and lengths", """
        def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
            keep = None
            if enc_lengths is not None:
                n_enc = np.shape(X_enc)[-2]
                keep = np.arange(n_enc)[None, None, :] < np.asarray(enc_lengths).reshape(-1, 1, 1)
            return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=keep)
        """),
    _right("h11_ok_concepts05_dict", A05, "CONCEPTS_05", "dictionary of the shown letters", """
        CONCEPTS_05 = (dict(zip(CONCEPT_ORDER[0], "abcd"))["b"],)
        """),

    # ------------------------------------------------------------------ 06 long sequences
    _wrong("h11_table_one_head", A06, "TABLE_BYTES", "table_of_one_head_only",
           "counts n^2 weights of one head and forgets the 8 heads", """
        TABLE_BYTES = TABLE_N * TABLE_N * np.dtype(TABLE_DTYPE).itemsize
        """),
    _wrong("h11_table_bits", A06, "TABLE_BYTES", "bits_per_number_taken_as_bytes",
           "multiplies by the number of bits of the dtype (32 for float32) instead of its bytes", """
        TABLE_BYTES = 8 * TABLE_N ** 2 * (np.dtype(TABLE_DTYPE).itemsize * 8)
        """),
    _wrong("h11_table_caret", A06, "TABLE_BYTES", None,
           "writes TABLE_N ^ 2 for the square, which is Python's bitwise xor", """
        TABLE_BYTES = 8 * TABLE_N ^ 2 * np.dtype(TABLE_DTYPE).itemsize
        """),
    _wrong("h11_blockwise_no_rescale", A06, "blockwise_attention", "running_sums_not_rescaled_when_maximum_grows",
           "updates the running maximum but adds each block's exponentials to totals kept on the old maximum's scale", """
        def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
            Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
            if scale is None:
                scale = 1.0 / math.sqrt(Q.shape[-1])
            n_k = K.shape[-2]
            m = None
            l = 0.0
            o = 0.0
            for b0 in range(0, n_k, block_size):
                s = (Q @ np.swapaxes(K[..., b0:b0 + block_size, :], -1, -2)) * scale
                if mask is not None:
                    mk = np.asarray(mask)
                    mk = mk[..., b0:b0 + block_size] if mk.shape[-1] > 1 else mk
                    s = np.where(mk, s, -np.inf)
                blk = s.max(axis=-1, keepdims=True)
                m = blk if m is None else np.maximum(m, blk)
                p = np.exp(s - np.where(m == -np.inf, 0, m))
                l = l + p.sum(axis=-1, keepdims=True)
                o = o + p @ V[..., b0:b0 + block_size, :]
            return o / np.where(l == 0, 1, l)
        """),
    _wrong("h11_blockwise_last_block_dropped", A06, "blockwise_attention", "last_partial_block_dropped",
           "loops over n_k // block_size full blocks, so the keys of a last shorter block are never read", """
        def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
            Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
            c = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
            lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
            dt = np.result_type(Q, K, V)
            run_max = np.full((*lead, Q.shape[-2], 1), -np.inf, dtype=dt)
            run_sum = np.zeros((*lead, Q.shape[-2], 1), dtype=dt)
            acc = np.zeros((*lead, Q.shape[-2], V.shape[-1]), dtype=dt)
            for b in range(K.shape[-2] // block_size):
                lo, hi = b * block_size, (b + 1) * block_size
                s = Q @ np.swapaxes(K[..., lo:hi, :], -1, -2) * c
                if mask is not None:
                    mk = np.asarray(mask)
                    s = np.where(mk[..., lo:hi] if mk.shape[-1] > 1 else mk, s, -np.inf)
                new = np.maximum(run_max, s.max(axis=-1, keepdims=True))
                shift = np.where(new == -np.inf, 0, new)
                fix = np.exp(run_max - shift)
                p = np.exp(s - shift)
                run_sum = run_sum * fix + p.sum(axis=-1, keepdims=True)
                acc = acc * fix + p @ V[..., lo:hi, :]
                run_max = new
            return acc / np.where(run_sum == 0, 1, run_sum)
        """),
    _wrong("h11_blockwise_nan_when_masked", A06, "blockwise_attention", "fully_masked_block_gives_nan",
           "no guard while every key seen so far is masked: exp(-inf - (-inf)) is nan, and an empty sequence divides 0 by 0", """
        def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
            Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
            f = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
            batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
            m = np.full((*batch, Q.shape[-2], 1), -np.inf)
            l = np.zeros((*batch, Q.shape[-2], 1))
            o = np.zeros((*batch, Q.shape[-2], V.shape[-1]))
            for start in range(0, K.shape[-2], block_size):
                stop = start + block_size
                s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * f
                if mask is not None:
                    mk = np.asarray(mask)
                    s = np.where(mk[..., start:stop] if mk.shape[-1] > 1 else mk, s, -np.inf)
                m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
                alpha = np.exp(m - m_new)
                p = np.exp(s - m_new)
                l = alpha * l + p.sum(axis=-1, keepdims=True)
                o = alpha * o + p @ V[..., start:stop, :]
                m = m_new
            return (o / l).astype(np.result_type(Q, K, V))
        """),
    _right("h11_ok_table_itemsize", A06, "TABLE_BYTES", "heads times n squared times the itemsize of an empty array", """
        TABLE_BYTES = int(8 * TABLE_N ** 2 * np.empty(0, dtype=TABLE_DTYPE).itemsize)
        """),
    _right("h11_ok_blockwise_two_pass", A06, "blockwise_attention", "two passes over the key blocks: the row maxima, then the sums", """
        def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
            Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
            kind = np.result_type(Q, K, V)
            if kind.kind != "f":
                kind = np.dtype(np.float64)
            factor = (1.0 / math.sqrt(Q.shape[-1])) if scale is None else float(scale)
            lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
            n_q, n_k = Q.shape[-2], K.shape[-2]
            Qs = (Q * factor).astype(kind, copy=False)
            m = None if mask is None else np.asarray(mask)

            def block_scores(lo, hi):
                s = Qs @ np.swapaxes(K[..., lo:hi, :], -1, -2).astype(kind, copy=False)
                if m is not None:
                    part = m[..., lo:hi] if m.ndim and m.shape[-1] > 1 else m
                    s = np.where(part, s, -np.inf) if part.dtype == bool else s + part.astype(kind)
                return s

            edges = [(lo, min(lo + block_size, n_k)) for lo in range(0, n_k, block_size)]
            top = np.full((*lead, n_q, 1), -np.inf, dtype=kind)
            for lo, hi in edges:
                top = np.maximum(top, block_scores(lo, hi).max(axis=-1, keepdims=True))
            top = np.where(np.isneginf(top), 0, top).astype(kind)
            total = np.zeros((*lead, n_q, 1), dtype=kind)
            acc = np.zeros((*lead, n_q, V.shape[-1]), dtype=kind)
            for lo, hi in edges:
                e = np.exp(block_scores(lo, hi) - top)
                total += e.sum(axis=-1, keepdims=True)
                acc += e @ V[..., lo:hi, :].astype(kind, copy=False)
            return acc / np.where(total == 0, 1, total)
        """),

    # ------------------------------------------------------------------ 07 scoring functions
    _wrong("h11_additive_tanh_each_side", A07, "additive_scores", "tanh_of_each_projection_then_added",
           "squashes q W_q and k W_k separately and adds two scores, so the query and key never interact", """
        def additive_scores(Q, K, W_q, W_k, v):
            qa = np.tanh(np.asarray(Q) @ np.asarray(W_q)) @ np.asarray(v)
            kb = np.tanh(np.asarray(K) @ np.asarray(W_k)) @ np.asarray(v)
            return qa[..., :, None] + kb[..., None, :]
        """),
    _wrong("h11_additive_diagonal_pairs", A07, "additive_scores", "query_i_paired_with_key_i_only",
           "adds Q W_q and K W_k row by row, so query i meets only key i and there is no n_q x n_k table", """
        def additive_scores(Q, K, W_q, W_k, v):
            return np.tanh(np.asarray(Q) @ W_q + np.asarray(K) @ W_k) @ v
        """),
    _wrong("h11_scaled_dot_input_width", A07, "scaled_dot_scores", "divisor_from_input_width_not_projected_width",
           "divides by sqrt(d_q), the width of the unprojected queries, instead of sqrt(h)", """
        def scaled_dot_scores(Q, K, W_q, W_k):
            Q = np.asarray(Q)
            q = Q @ W_q
            k = np.asarray(K) @ W_k
            return q @ np.swapaxes(k, -1, -2) / math.sqrt(Q.shape[-1])
        """),
    _wrong("h11_scaled_dot_T_batched", A07, "scaled_dot_scores", "transposed_every_axis_of_batched_keys",
           "(K W_k).T reverses all the axes when K has a batch axis", """
        def scaled_dot_scores(Q, K, W_q, W_k):
            W_q = np.asarray(W_q)
            return (np.asarray(Q) @ W_q) @ (np.asarray(K) @ np.asarray(W_k)).T / math.sqrt(W_q.shape[1])
        """),
    _wrong("h11_bilinear_W_transposed", A07, "bilinear_scores", "bilinear_matrix_used_transposed",
           "computes q^T W^T k: the rows of W meet the key's entries, the relation read backwards", """
        def bilinear_scores(Q, K, W):
            return np.asarray(Q) @ np.asarray(W).T @ np.swapaxes(np.asarray(K), -1, -2)
        """),
    _wrong("h11_bilinear_keys_as_rows", A07, "bilinear_scores", "keys_times_queries_gives_transposed_scores",
           "computes K W^T Q^T, the transpose of the table: one row per key", """
        def bilinear_scores(Q, K, W):
            return np.asarray(K) @ np.asarray(W).T @ np.swapaxes(np.asarray(Q), -1, -2)
        """),
    _wrong("h11_costs_v_not_counted", A07, "score_costs", "hidden_vector_v_not_counted",
           "gives the additive score the same 2 d h parameters as the dot product, forgetting v", """
        def score_costs(kind, n, d, h):
            if kind == "bilinear":
                return d * d, n * d * d + n * n * d
            return 2 * d * h, 2 * n * d * h + n * n * h
        """),
    _wrong("h11_costs_projections_free", A07, "score_costs", "projection_multiply_adds_left_out",
           "counts only the per-pair work (h per pair, d per pair) and not the projections Q W_q, K W_k or Q W", """
        def score_costs(kind, n, d, h):
            if kind == "bilinear":
                return d * d, n * n * d
            extra = h if kind == "additive" else 0
            return 2 * d * h + extra, n * n * h
        """),
    _wrong("h11_width_v_ignored", A07, "width_for_budget", "hidden_vector_v_not_counted",
           "divides the budget by 2 d for both kinds, forgetting that each additive unit also costs one entry of v", """
        def width_for_budget(kind, d, budget):
            return budget // (2 * d)
        """),
    _wrong("h11_width_precedence", A07, "width_for_budget", None,
           "budget // 2 * d + 1 is read as (budget // 2) * d + 1: the parentheses around 2 * d are missing", """
        def width_for_budget(kind, d, budget):
            if kind == "additive":
                return budget // 2 * d + 1
            return budget // 2 * d
        """),
    _right("h11_ok_additive_einsum", A07, "additive_scores", "expand_dims for every pair and einsum with v", """
        def additive_scores(Q, K, W_q, W_k, v):
            left = np.expand_dims(np.asarray(Q) @ np.asarray(W_q), -2)
            right = np.expand_dims(np.asarray(K) @ np.asarray(W_k), -3)
            return np.einsum("...h,h->...", np.tanh(left + right), np.asarray(v))
        """),
    _right("h11_ok_scaled_dot_einsum", A07, "scaled_dot_scores", "einsum over the projected width, divided by sqrt(h)", """
        def scaled_dot_scores(Q, K, W_q, W_k):
            a = np.asarray(Q) @ np.asarray(W_q)
            b = np.asarray(K) @ np.asarray(W_k)
            return np.einsum("...ih,...jh->...ij", a, b) / math.sqrt(a.shape[-1])
        """),
    _right("h11_ok_bilinear_einsum", A07, "bilinear_scores", "one einsum q_a W_ab k_b", """
        def bilinear_scores(Q, K, W):
            return np.einsum("...ia,ab,...jb->...ij", np.asarray(Q), np.asarray(W), np.asarray(K))
        """),
    _right("h11_ok_costs_table", A07, "score_costs", "a dictionary of the three formulas", """
        def score_costs(kind, n, d, h):
            table = {
                "additive": (2 * d * h + h, 2 * n * d * h + n * n * h),
                "dot": (2 * d * h, 2 * n * d * h + n * n * h),
                "bilinear": (d * d, n * d * d + n * n * d),
            }
            params, macs = table[kind]
            return int(params), int(macs)
        """),
    _right("h11_ok_width_divmod", A07, "width_for_budget", "divmod by the cost of one hidden unit", """
        def width_for_budget(kind, d, budget):
            per_unit = 2 * d + (kind == "additive")
            units, _ = divmod(budget, per_unit)
            return int(units)
        """),
]
