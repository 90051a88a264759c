"""Answer variants of 01_scores_softmax: typical mistakes (with where they are documented) and correct rewrites."""
from . import Variant

A = "01_scores_softmax"

SO_SOFTMAX = "https://stackoverflow.com/questions/34968722 (How to implement the Softmax function in Python)"

VARIANTS = [
    # ---------------------------------------------------------------- wrong answers
    Variant("dot_product_elementwise", A, "dot_product", {"dot_product": '''
def dot_product(q, k):
    return np.asarray(q) * np.asarray(k)  # products of matching entries, never added up
'''}, misconception="dot_product.elementwise",
        source="the classic confusion of `*` (elementwise) with `@`/np.dot in numpy; numpy docs, "
               "'numpy for MATLAB users' (https://numpy.org/doc/stable/user/numpy-for-matlab-users.html)"),

    Variant("scores_k_not_transposed", A, "attention_scores", {"attention_scores": '''
def attention_scores(Q, K):
    return np.asarray(Q) @ np.asarray(K)  # K not transposed
'''}, misconception="attention_scores.k_not_transposed",
        source="huggingface/pytorch-openai-transformer-lm issue #2 (dimensioning of q k^T); shape errors "
               "'matmul: Input operand 1 has a mismatch in its core dimension' are a common Q&A topic"),

    Variant("scores_keys_reshaped", A, "attention_scores", {"attention_scores": '''
def attention_scores(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    n_k, d_k = K.shape[-2], K.shape[-1]
    K_cols = np.reshape(K, K.shape[:-2] + (d_k, n_k))  # meant as the transpose: (n_k, d_k) -> (d_k, n_k)
    return np.matmul(Q, K_cols)
'''}, misconception="attention_scores.reshaped_keys",
        source="reshape is not transpose: numpy docs, numpy.reshape ('read the elements ... using this index order, "
               "and place the elements into the reshaped array using this index order'); a frequent Q&A confusion"),

    Variant("softmax_row_shift_total_sum", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))   # each row shifted by its own maximum...
    return e / np.sum(e)                                   # ...but one total for the whole array
'''}, misconception="softmax.global_normalisation",
        source="np.sum without axis adds every entry (numpy docs, numpy.sum: 'axis=None will sum all of the "
               "elements'); the stable shift is per row, the normalisation must be too"),

    Variant("softmax_saturated_scores", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.clip(np.asarray(x, dtype=float), -600.0, 600.0)   # exp(710) overflows: keep the scores in range
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)
'''}, misconception="softmax.flattens_scores",
        source="clipping the exponent to dodge overflow (np.exp overflows above about 709.78 in float64, numpy docs "
               "'Floating point error handling'); the spent held-out set of 2026-12-02 clipped to +-500"),

    Variant("scores_einsum_one_batch_axis", A, "attention_scores", {"attention_scores": '''
def attention_scores(Q, K):
    return np.einsum("bqd,bkd->bqk", Q, K)  # one batch axis named: no more, no fewer
'''}, misconception="attention_scores.fixed_axes",
        source="issue 24, held-out set of 2026-12-04 (a transpose order (0, 2, 1) spelled out); einsum subscripts "
               "without '...' accept exactly the axes they name (numpy docs, numpy.einsum)"),

    Variant("average_sums_value_entries", A, "weighted_average", {"weighted_average": '''
def weighted_average(weights, V):
    weights, V = np.asarray(weights), np.asarray(V)
    return np.einsum("...qk,...kd->...qk", weights, V)  # keeps the key axis, adds up d
'''}, misconception="weighted_average.sums_over_width",
        source="issue 24, held-out set of 2026-12-04 (products summed over d_v); einsum sums every index missing "
               "from the output (numpy docs, numpy.einsum), so the output's subscripts decide which axis is added"),

    Variant("scores_dot_T_batched", A, "attention_scores", {"attention_scores": '''
def attention_scores(Q, K):
    return np.asarray(Q) @ np.asarray(K).T  # .T reverses every axis of a batched array
'''}, misconception="attention_scores.batched_transpose",
        source="flrngel/Self-Attentive-tensorflow issue #3 (a full transpose of [batch, n, d] gives [d, n, batch]); "
               "rasbt/LLMs-from-scratch PR #521 (transpose(-2, -1) instead of fixed axes)"),

    Variant("scores_keys_by_queries", A, "attention_scores", {"attention_scores": '''
def attention_scores(Q, K):
    return np.asarray(K) @ np.swapaxes(np.asarray(Q), -1, -2)  # (n_k, n_q): rows are keys
'''}, misconception="attention_scores.keys_by_queries",
        source="huggingface/pytorch-openai-transformer-lm issue #2 (proposes matmul(k.t(), q), keys by queries)"),

    Variant("scores_np_dot_batched", A, "attention_scores", {"attention_scores": '''
def attention_scores(Q, K):
    return np.dot(np.asarray(Q), np.swapaxes(np.asarray(K), -1, -2))  # np.dot pairs every batch with every batch
'''}, misconception="attention_scores.np_dot_batched",
        source="numpy docs of np.dot for N-D arrays ('a sum product over the last axis of a and the second-to-last "
               "of b') vs np.matmul ('stacks of matrices'); https://numpy.org/doc/stable/reference/generated/numpy.dot.html"),

    Variant("softmax_wrong_axis", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)  # columns, not rows
'''}, misconception="softmax.wrong_axis",
        source=SO_SOFTMAX + ": the top answers normalise with sum(axis=0), which is per column on 2-D scores"),

    Variant("softmax_no_max_subtraction", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    e = np.exp(np.asarray(x, dtype=float))  # overflows for scores around 710 and above
    return e / e.sum(axis=axis, keepdims=True)
'''}, misconception="softmax.no_max_subtraction",
        source="shusei-e.github.io 'Softmax without Overflow'; CS231n notes, 'Practical issues: Numeric stability' "
               "(https://cs231n.github.io/linear-classify/#softmax)"),

    Variant("softmax_global_max", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x))  # the largest score of the whole array
    return e / e.sum(axis=axis, keepdims=True)
'''}, misconception="softmax.global_max",
        source=SO_SOFTMAX + " and shusei-e.github.io 'Softmax without Overflow' (both subtract np.max(x) of the "
               "whole array: a row far below the global maximum underflows to 0/0)"),

    Variant("softmax_shift_by_size", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    peak = np.max(np.abs(x), axis=axis, keepdims=True)  # "the largest score" read as the largest |score|
    w = np.exp(x - peak)
    return w / np.sum(w, axis=axis, keepdims=True)
'''}, misconception="softmax.max_magnitude",
        source="the stability trick read as 'subtract the largest value in absolute terms' (a norm's habit): right "
               "on every row whose largest size is its largest score, 0/0 on a row far below 0 (blind set 9)"),

    Variant("softmax_missing_keepdims", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max(axis=axis))  # no keepdims: broadcasts along the wrong axis
    return e / e.sum(axis=axis)
'''}, misconception="softmax.missing_keepdims",
        source=SO_SOFTMAX + " (comments on answers without keepdims, which break on 2-D scores); "
               "shusei-e.github.io 'Softmax without Overflow' ('you may need np.max(x, axis=1)[:, np.newaxis]')"),

    Variant("softmax_global_normalisation", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max())
    return e / e.sum()  # one total for the whole array
'''}, misconception="softmax.global_normalisation",
        source=SO_SOFTMAX + " (the question's own version: e_x / e_x.sum() over a 2-D array)"),

    Variant("average_divides_by_n_k", A, "weighted_average", {"weighted_average": '''
def weighted_average(weights, V):
    V = np.asarray(V)
    return np.asarray(weights) @ V / V.shape[-2]  # "average" divides by the count again
'''}, misconception="weighted_average.divides_by_n_k",
        source="the seed 000 worked example: the weights already sum to one, so 0.665*1 + 0.245*2 + 0.090*3 = 1.425 "
               "is the average; dividing again by the count is a common slip in hand computations"),

    Variant("average_unweighted_mean", A, "weighted_average", {"weighted_average": '''
def weighted_average(weights, V):
    V = np.asarray(V)
    n_q = np.shape(weights)[-2]
    return np.repeat(V.mean(axis=-2, keepdims=True), n_q, axis=-2)  # ignores the weights
'''}, misconception="weighted_average.unweighted_mean",
        source="seed 002's misconception list (attention output is 'neither exactly v1 nor a simple average of "
               "all three values')"),

    # ---------------------------------------------------------------- correct answers written differently
    Variant("dot_product_loop", A, "dot_product", {"dot_product": '''
def dot_product(q, k):
    total = 0.0
    for a, b in zip(q, k):
        total += float(a) * float(b)
    return total
'''}, correct=True),

    Variant("einsum_and_loops", A, "attention_scores", {
        "attention_scores": '''
def attention_scores(Q, K):
    return np.einsum("...qd,...kd->...qk", np.asarray(Q), np.asarray(K))
''',
        "weighted_average": '''
def weighted_average(weights, V):
    weights, V = np.asarray(weights), np.asarray(V)
    batch = np.broadcast_shapes(weights.shape[:-2], V.shape[:-2])
    out = np.zeros(batch + (weights.shape[-2], V.shape[-1]), dtype=np.result_type(weights, V))
    for j in range(V.shape[-2]):  # add each key's value, scaled by its weight
        out = out + weights[..., :, j, None] * V[..., j, None, :]
    return out
'''}, correct=True),

    Variant("softmax_log_sum_exp", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    m = np.max(x, axis=axis, keepdims=True)
    log_total = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    return np.exp(x - log_total)
'''}, correct=True),

    Variant("softmax_noisy_but_right", A, "softmax", {"softmax": '''
import sys
import warnings

def softmax(x, axis=-1):
    print("computing softmax...", file=sys.stderr)          # harmless noise on stderr
    warnings.warn("my softmax is still a draft", UserWarning)
    x = np.asarray(x, dtype=float)
    with np.errstate(over="warn"):
        e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
'''}, correct=True),
]

# ---------------------------------------------------------------- added for issue 14 (every misconception exercised)
VARIANTS += [
    Variant("softmax_always_last_axis", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x)
    e = np.exp(x - x.max(axis=-1, keepdims=True))  # the axis argument is accepted, never used
    return e / e.sum(axis=-1, keepdims=True)
'''}, misconception="softmax.ignores_axis",
        source="numpy/scipy softmax take an axis; code written for 2-D rows hard-codes axis=-1 "
               "(scipy.special.softmax docs: https://docs.scipy.org/doc/scipy/reference/generated/scipy.special.softmax.html)"),
    Variant("softmax_without_exp", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x)
    return x / x.sum(axis=axis, keepdims=True)  # normalised, never exponentiated
'''}, misconception="softmax.no_exp",
        source="'normalise the scores' read as dividing by their sum (d2l.ai 'Softmax Regression' explains why exp)"),
    Variant("weighted_average_columns", A, "weighted_average", {"weighted_average": '''
def weighted_average(weights, V):
    return np.swapaxes(np.asarray(weights), -1, -2) @ np.asarray(V)
'''}, misconception="weighted_average.transposed_weights",
        source="the weights matrix read key-by-query (a transposed attention map); cf. the issue's weights.T @ V"),
    Variant("weighted_average_np_dot", A, "weighted_average", {"weighted_average": '''
def weighted_average(weights, V):
    return np.dot(weights, V)  # np.dot pairs every batch with every other
'''}, misconception="weighted_average.np_dot_batched",
        source="numpy.dot docs: for N-D arrays it is a sum product over the last axis of a and the second-to-last "
               "of b (not batched), unlike numpy.matmul"),
]

# correct answers written differently (issue 14: the grader must not punish another route)
VARIANTS += [
    Variant("python_sum_einsum_logsumexp", A, "softmax", {
        "dot_product": '''
def dot_product(q, k):
    return sum(float(a) * float(b) for a, b in zip(np.ravel(q), np.ravel(k)))
''',
        "attention_scores": '''
def attention_scores(Q, K):
    return np.einsum("...qd,...kd->...qk", np.asarray(Q), np.asarray(K))
''',
        "softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x)
    top = np.max(x, axis=axis, keepdims=True)
    log_total = top + np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True))
    return np.exp(x - log_total)  # exp(x - logsumexp(x))
''',
        "weighted_average": '''
def weighted_average(weights, V):
    return np.einsum("...qk,...kd->...qd", np.asarray(weights), np.asarray(V))
'''}, correct=True),
    Variant("matmul_and_moveaxis_softmax", A, "softmax", {
        "attention_scores": '''
def attention_scores(Q, K):
    return np.matmul(Q, np.moveaxis(np.asarray(K), -1, -2))
''',
        "softmax": '''
def softmax(x, axis=-1):
    z = np.moveaxis(np.array(x, copy=True), axis, -1)
    z -= z.max(axis=-1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=-1, keepdims=True)
    return np.moveaxis(z, -1, axis)
'''}, correct=True),
]

# ---------------------------------------------------------------- issue 24: probes that tell the causes apart
VARIANTS += [
    Variant("dot_product_of_sums", A, "dot_product", {"dot_product": '''
def dot_product(q, k):
    return float(np.sum(q) * np.sum(k))  # sums first, then one product
'''}, misconception="dot_product.product_of_sums",
        source="the definition of the dot product as a sum of products of matching entries (Wikipedia, 'Dot product'); (sum q)(sum k) is the sum of every q_i k_j"),
    Variant("dot_product_cosine", A, "dot_product", {"dot_product": '''
def dot_product(q, k):
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    return float(q @ k / (np.linalg.norm(q) * np.linalg.norm(k)))  # the cosine similarity
'''}, misconception="dot_product.cosine",
        source="cosine similarity (q . k / |q||k|) is a different score from the dot product of Vaswani et al. 2017 eq. 1 (Wikipedia, 'Cosine similarity')"),
    Variant("dot_product_mean", A, "dot_product", {"dot_product": '''
def dot_product(q, k):
    return float(np.mean(np.asarray(q) * np.asarray(k)))  # average of the products
'''}, misconception="dot_product.mean",
        source='np.mean versus np.sum of the products (numpy docs, numpy.mean); the dot product sums them'),
    Variant("dot_product_adds", A, "dot_product", {"dot_product": '''
def dot_product(q, k):
    return float(np.sum(np.asarray(q) + np.asarray(k)))  # matching entries added, not multiplied
'''}, misconception="dot_product.adds_entries",
        source="the dot product multiplies matching entries (Wikipedia, 'Dot product'); adding them is a first-week slip"),
    Variant("dot_product_lengths", A, "dot_product", {"dot_product": '''
def dot_product(q, k):
    return float(np.linalg.norm(q) * np.linalg.norm(k))  # |q| |k|, the angle left out
'''}, misconception="dot_product.norms",
        source="the geometric form q . k = |q| |k| cos(theta) (Wikipedia, 'Dot product') with the cosine dropped"),
    Variant("dot_product_skips_last", A, "dot_product", {"dot_product": '''
def dot_product(q, k):
    total = 0.0
    for i in range(len(q) - 1):  # off by one: the last pair is never added
        total += q[i] * k[i]
    return float(total)
'''}, misconception="dot_product.skips_entry",
        source="an off-by-one range(len(q) - 1) loop (Python tutorial, 'The range() Function': the stop value is excluded)"),
    Variant("dot_product_total_replaced", A, "dot_product", {"dot_product": '''
def dot_product(q, k):
    acc = 0
    for a, b in zip(q, k):
        acc = a * b  # '=' where '+=' was meant: each product replaces the total
    return float(acc)
'''}, misconception="dot_product.last_product_only",
        source="an accumulator assigned instead of incremented (issue 24, blind set 11: told 'a range that starts one "
               "late' on the seeds' two entries, where the two mistakes give one value)"),
]

# ---------------------------------------------------------------- issue 24: held out on 2026-12-02, named wrongly then
VARIANTS += [
    Variant("softmax_max_over_columns", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    biggest = np.max(x, axis=0, keepdims=True)   # written for 1-D, where axis 0 is the row
    e = np.exp(x - biggest)
    return e / np.sum(e, axis=axis, keepdims=True)
'''}, misconception="softmax.max_wrong_axis",
        source="benchmarks/heldout/heldout_2026_12_02.py (heldout_softmax_column_max), named 'no max subtraction' "
               "then; the max must be taken along the normalised axis (CS231n notes, 'Practical issues: Numeric "
               "stability', https://cs231n.github.io/linear-classify/#softmax)"),
    Variant("weighted_average_column_form_T", A, "weighted_average", {"weighted_average": '''
def weighted_average(weights, V):
    weights = np.asarray(weights)
    V = np.asarray(V)
    return (V.T @ weights.T).T   # the column form out^T = V^T W^T
'''}, misconception="weighted_average.batched_transpose",
        source="benchmarks/heldout/heldout_2026_12_02.py (heldout_average_double_transpose), named 'transposed "
               "weights' then; ndarray.T reverses every axis (numpy docs, numpy.ndarray.T), so on stacks the "
               "batch axes are reversed too"),
]

# ---------------------------------------------------------------- issue 24: properties the 2026-12-03 held-out set lacked
# Each misconception below was met in benchmarks/heldout/heldout_2026_12_03.py; the answers here are written
# anew, in another form than the held-out one, so that the check is proven on the property, not on that text.
VARIANTS += [
    Variant("dot_product_absolute_value", A, "dot_product", {"dot_product": '''
def dot_product(q, k):
    q = np.asarray(q, dtype=float)
    k = np.asarray(k, dtype=float)
    return float(abs(np.dot(q, k)))  # a similarity "should" be a size, so never below 0
'''}, misconception="dot_product.never_negative",
        source="the dot product is negative for vectors more than 90 degrees apart (seed 002's key (-1, 0) scores "
               "-1); reading a score as a distance-like magnitude drops the sign"),
    Variant("dot_product_absolute_products", A, "dot_product", {"dot_product": '''
def dot_product(q, k):
    total = 0.0
    for a, b in zip(q, k):
        total += abs(a * b)   # each product counted as a size
    return float(total)
'''}, misconception="dot_product.never_negative",
        source="as dot_product_absolute_value, with the absolute value taken product by product"),
]

# ---------------------------------------------------------------- issue 24: a step of the next notebook taken too early
VARIANTS += [
    Variant("scores_scaled_early", A, "attention_scores", {"attention_scores": '''
def attention_scores(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    return Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])   # "scaled dot-product" scores
'''}, misconception="attention_scores.scaled",
        source="the formula softmax(Q K^T / sqrt(d_k)) read as one step: the course's attention_scores is Q K^T "
               "(seed 002's raw scores 1, 0, 0.5), and the division is notebook 02's scale_scores"),
]
VARIANTS += [
    Variant("softmax_fixed_axis_one", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max(axis=1, keepdims=True))   # axis 1: the columns of a 2-D table of scores
    return e / e.sum(axis=1, keepdims=True)
'''}, misconception="softmax.wrong_axis",
        source=SO_SOFTMAX + ": answers written for 2-D scores normalise with a fixed axis=1, which is not the key "
               "axis of batched (3-D) scores"),
]
VARIANTS += [
    Variant("dot_product_euclidean_distance", A, "dot_product", {"dot_product": '''
def dot_product(q, k):
    q = np.asarray(q, dtype=float)
    k = np.asarray(k, dtype=float)
    return float(np.sqrt(np.sum((q - k) ** 2)))   # how far apart the query and the key are
'''}, misconception="dot_product.distance",
        source="seed 002's third misconception (CONCEPT_SIMILARITY option c): a score read as a distance between "
               "query and key; the dot product is larger for a better match, a distance smaller"),
    # issue 24, blind set 6: minus a squared distance is largest for a match, so "small when they match" was false
    Variant("dot_product_negative_squared_distance", A, "dot_product", {"dot_product": '''
def dot_product(q, k):
    diff = np.asarray(q, dtype=float) - np.asarray(k, dtype=float)
    return float(-(diff @ diff))   # closer vectors score higher
'''}, misconception="dot_product.negative_distance",
        source="the RBF/negative-distance similarity (e.g. prototypical networks score -||q - k||^2, Snell et al. "
               "2017): a similarity that is largest for equal vectors, which the dot product is not"),
]

# ---------------------------------------------------------------- issue 24: written for two axes, named as such
# An error on a batched call names `.T` only where the error is the one `.T` gives (its family: a product whose
# shapes do not line up), never for an unpacking of `.shape` or an einsum without `...`; an answer right on one
# sequence that raises with batch axes in front is named for that.
VARIANTS += [
    Variant("average_unpacked_table", A, "weighted_average", {"weighted_average": '''
def weighted_average(weights, V):
    weights, V = np.asarray(weights), np.asarray(V)
    n_q, n_k = weights.shape                      # one table of weights
    return np.stack([sum(weights[i, j] * V[j] for j in range(n_k)) for i in range(n_q)])
'''}, misconception="weighted_average.fixed_axes",
        source="the textbook double loop out[i] = sum_j w_ij v_j (seed 002's worked example), written for one "
               "(n_q, n_k) table: numpy's `@` broadcasts leading axes ('stacks of matrices', np.matmul docs), an "
               "unpacking of two axes does not"),
    Variant("scores_einsum_two_axes", A, "attention_scores", {"attention_scores": '''
def attention_scores(Q, K):
    return np.einsum("id,jd->ij", np.asarray(Q), np.asarray(K))   # query i against key j
'''}, misconception="attention_scores.fixed_axes",
        source="einsum subscripts without `...` fit one number of axes only (numpy docs of np.einsum: 'To enable "
               "and control broadcasting, use an ellipsis')"),
]

# Issue 24 (held-out class): a shift before the exp that keeps the softmax but not the exponents at or below 0.
VARIANTS += [
    Variant("softmax_shift_by_mean", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.mean(axis=axis, keepdims=True))   # "centre the scores" before the exp
    return e / e.sum(axis=axis, keepdims=True)
'''}, misconception="softmax.no_max_subtraction",
        source="CS231n notes, 'Practical issues: Numeric stability': any constant may be subtracted, and the row "
               "maximum is the one that keeps every exponent at or below 0; a row's mean leaves half of them above"),
]

VARIANTS += [
    Variant("wavg_sum_over_queries", A, "weighted_average", {"weighted_average": '''
def weighted_average(weights, V):
    weights, V = np.asarray(weights), np.asarray(V)
    return np.einsum("...qk,...kd->...kd", weights, V)   # the sum runs over q: one row per key
'''}, misconception="weighted_average.sums_over_queries",
        source="einsum drops the indices missing from the output and sums over them (numpy docs, numpy.einsum); "
               "'...qk,...kd->...kd' keeps k and sums over q, where attention's output keeps q (Vaswani et al. 2017, eq. 1)"),
    Variant("softmax_total_on_last_axis", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)   # the total of each row of keys
'''}, misconception="softmax.ignores_axis",
        source="a softmax along `axis` divides by the total along that same axis (numpy docs, scipy.special.softmax); "
               "a total fixed to the last axis is right only for axis=-1"),
]

# Issue 24, blind set 7 (spent): classes named by what the answer's outcomes show, each written anew here.
VARIANTS += [
    Variant("dot_component_along_key", A, "dot_product", {"dot_product": '''
def dot_product(q, k):
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    return float(np.dot(q, k) / np.sqrt(np.dot(k, k)))   # how much of q points along k
'''}, misconception="dot_product.projection",
        source="the scalar projection comp_k q = q . k / |k| of a physics or linear-algebra course (e.g. Strang, "
               "'Introduction to Linear Algebra', 4.2): equal to the cosine where |q| = 1, to the dot product where |k| = 1"),
    Variant("dot_row_times_column", A, "dot_product", {"dot_product": '''
def dot_product(q, k):
    row = np.atleast_2d(np.asarray(q, dtype=float))       # 1 x d
    column = np.atleast_2d(np.asarray(k, dtype=float)).T  # d x 1
    return row @ column                                   # a 1 x 1 matrix
'''}, misconception="dot_product.not_a_number",
        source="'numpy for MATLAB users' (numpy docs): in MATLAB q' * k of column vectors is a 1 x 1 matrix used "
               "as a number; in numpy a (1, 1) array stays an array (np.array of a list of them has shape (n, 1, 1))"),
    Variant("scores_columns_from_queries", A, "attention_scores", {"attention_scores": '''
def attention_scores(Q, K):
    Q, K = np.asarray(Q), np.asarray(K)
    n = Q.shape[-2]                                   # tried on square examples only
    return Q @ np.swapaxes(K[..., :n, :], -1, -2)
'''}, misconception="attention_scores.square_table",
        source="self-attention examples have n_q = n_k (Vaswani et al. 2017, section 3.2.3); code tried only there "
               "takes the table's width from the queries"),
    Variant("scores_turned_into_weights", A, "attention_scores", {"attention_scores": '''
def attention_scores(Q, K):
    S = np.asarray(Q) @ np.swapaxes(np.asarray(K), -1, -2)
    S = np.exp(S - S.max(axis=-1, keepdims=True))
    return S / S.sum(axis=-1, keepdims=True)      # "scores" read as the attention distribution
'''}, misconception="attention_scores.softmaxed",
        source="tutorials call both the logits and the normalised attention 'scores' (e.g. the 'attention scores' "
               "plotted by BertViz are softmax weights); the task's scores are the raw dot products"),
    Variant("softmax_half_tanh", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    return 0.5 * (1.0 + np.tanh(0.5 * x))   # the logistic function, each score on its own
'''}, misconception="softmax.sigmoid",
        source="multi-label classifiers squash each logit with the logistic sigmoid (scikit-learn docs, 'Multiclass "
               "and multilabel'); sigma(x) = (1 + tanh(x / 2)) / 2, nothing normalised across the keys"),
    Variant("softmax_log_of_weights", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    shift = x.max(axis=axis, keepdims=True)
    return (x - shift) - np.log(np.sum(np.exp(x - shift), axis=axis, keepdims=True))
'''}, misconception="softmax.log_weights",
        source="torch.nn.functional.log_softmax (PyTorch docs) is what a classifier's loss takes; the weights "
               "of attention are its exponential"),
    Variant("softmax_peak_at_one", A, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    return np.exp(x - x.max(axis=axis, keepdims=True))   # stable, but the division by the total is gone
'''}, misconception="softmax.largest_is_one",
        source="the max-subtraction trick (CS231n notes, 'Numeric stability') copied without the normalisation "
               "that follows it: the largest weight of each row is exp(0) = 1"),
    Variant("wavg_einsum_value_first", A, "weighted_average", {"weighted_average": '''
def weighted_average(weights, V):
    return np.einsum("...qk,...kd->...dq", np.asarray(weights), np.asarray(V))   # output indices in the wrong order
'''}, misconception="weighted_average.output_transposed",
        source="numpy.einsum docs: the output subscripts set the order of the result's axes (without them, the "
               "alphabetical order of the free indices); column-vector texts write the output as V^T w^T"),
    Variant("wavg_multiply", A, "weighted_average", {"weighted_average": '''
def weighted_average(weights, V):
    return np.multiply(np.asarray(weights), np.asarray(V))   # "multiply the weights by the values"
'''}, misconception="weighted_average.elementwise",
        source="'numpy for MATLAB users' (numpy docs): MATLAB's * is the matrix product, numpy's * and np.multiply "
               "are entrywise with broadcasting"),
    Variant("wavg_winner_takes_all", A, "weighted_average", {"weighted_average": '''
def weighted_average(weights, V):
    weights = np.asarray(weights)
    winner = (weights == weights.max(axis=-1, keepdims=True)).astype(float)   # 1 on each query's best key
    return winner @ np.asarray(V)
'''}, misconception="weighted_average.hard_choice",
        source="hard attention picks one position (Xu et al. 2015, 'Show, Attend and Tell', section 4.1); the "
               "task's soft attention averages every value by its weight"),
]
