"""A held-out set of answers (issue 24), written on 2026-12-02 by a helper that had not read the checks.

70 typical wrong answers and 30 correct rewrites across the seven notebooks, each checked against
``attention_ref`` by its author. A wrong answer's ``misconception`` is the id its author judged it
to be, or None where no id of the course described it then. Measure the grader on it alone:

    .venv/bin/python benchmarks/fairness.py --variants benchmarks/heldout/heldout_2026_12_02.py --seeds 3

Measured on 2026-12-02 (first seed; the lead's reading of what the checks named for the None-labelled ones).
The last column was measured on this set after it was spent (its four wrong diagnoses were fixed by
reading it): it shows that those fixes hold, not how the grader does on mistakes it has not seen.

============================  =========================  ===============================  ================================
                              before (main at 38c8a57)   after (issue 24's checks)        after this fix (signature rule;
                                                                                          measured on a spent set, 3 seeds)
============================  =========================  ===============================  ================================
named                         52 / 70                    56 / 70 (52 labelled + 4 None    60 / 70 (52 labelled + 8 None
                                                         now named rightly: cosine,       named rightly: the 4 before and
                                                         max over masked keys, keys from  softmax.max_wrong_axis,
                                                         the decoder, heads before batch) weighted_average.batched_transpose,
                                                                                          leading_weight.raw_not_grown,
                                                                                          multi_head_attention.
                                                                                          values_from_queries)
vague (honest: names none)    12                         9                                9
wrong (names another)         4                          4 (column max as "no max         0
                                                         subtraction", a batched .T as
                                                         "transposed weights", fixed raw
                                                         scores as "scaled by width",
                                                         values from X_q as "mask has no
                                                         head axis")
missed (no point lost)        2 (the max-before-mask     1 (np.sqrt promoting float32:    1 (the same: not a mistake, the
                              underflow; a float32 that  dtype only)                      task promises no dtype; catalogued
                              becomes float64)                                            as a correct rewrite)
correct rewrites losing pts   0 / 30                     0 / 30                           0 / 30
============================  =========================  ===============================  ================================

Measured again on 2026-12-03 after branch wt-diag (spent set, ``--seeds 3``, load average 6 to 7): named 68 / 70
(53 labelled + 15 None read as right; the one-sequence properties now also name d_k from Q.shape[1], the
dropped last block, the transposed additive table, the divisor h, np.tril(k=1), causal_mask(len(X)) and an
ignored ``scale``), vague 1 (scores clipped to +-500 before exp), wrong 0, missed 1 (np.sqrt's dtype), correct
rewrites losing points 0 / 30, strays 0, seed-dependent pairs 0.

A set measured once is spent: the next session writes a new one the same way and reports on it.
"""

from autograder.catalogue import Variant

A1 = "01_scores_softmax"
A2 = "02_scaling"
A3 = "03_masking"
A4 = "04_heads"
A5 = "05_cross_attention"
A6 = "06_long_sequences"
A7 = "07_scoring_functions"

VARIANTS = [
    # =========================================================== 01_scores_softmax: wrong answers
    Variant("heldout_dot_cosine", A1, "dot_product", {"dot_product": '''
def dot_product(q, k):
    q = np.asarray(q, dtype=float)
    k = np.asarray(k, dtype=float)
    # how similar the two directions are
    return float(q @ k / (np.linalg.norm(q) * np.linalg.norm(k)))
'''}, misconception=None,
        source="'the dot product measures similarity' read as cosine similarity: the lengths are divided out "
               "(the seed key (0.5, 0.5) then scores 0.707, not 0.5); the cosine id belongs to CONCEPTS_01"),

    Variant("heldout_scores_fixed_3d_transpose", A1, "attention_scores", {"attention_scores": '''
def attention_scores(Q, K):
    Q = np.asarray(Q)
    K = np.asarray(K)
    # (batch, n_k, d_k) -> (batch, d_k, n_k)
    return np.matmul(Q, K.transpose(0, 2, 1))
'''}, misconception="raises",
        source="code written for one 3-D batch hard-codes the axes of transpose; it raises on plain 2-D "
               "queries/keys ('axes don't match array') and on 4-D (batch, heads) stacks"),

    Variant("heldout_scores_tensordot", A1, "attention_scores", {"attention_scores": '''
def attention_scores(Q, K):
    # contract the feature axis of the queries with the feature axis of the keys
    return np.tensordot(np.asarray(Q), np.asarray(K), axes=([-1], [-1]))
'''}, misconception="attention_scores.np_dot_batched",
        source="np.tensordot is right for 2-D but, like np.dot, pairs every batch entry of Q with every batch "
               "entry of K on stacks: (2, 3, n_q, 2, 3, n_k)"),

    Variant("heldout_softmax_shift_in_place", A1, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    x -= np.max(x, axis=axis, keepdims=True)   # stable: largest score becomes 0
    np.exp(x, out=x)                           # save memory
    x /= np.sum(x, axis=axis, keepdims=True)
    return x
'''}, misconception="mutates_input",
        source="np.asarray does not copy a float array, so the in-place shift/exp/divide (a memory-saving "
               "habit) overwrites the caller's scores; the values are right"),

    Variant("heldout_softmax_sum_without_keepdims", A1, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    shifted = x - np.max(x, axis=axis, keepdims=True)
    exps = np.exp(shifted)
    return exps / np.sum(exps, axis=axis)   # the sum of each row
'''}, misconception="softmax.missing_keepdims",
        source="keepdims remembered for the max but not for the sum; right on 1-D, raises or divides along the "
               "wrong axis on 2-D/batched scores"),

    Variant("heldout_softmax_shift_by_min", A1, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x)
    z = x - x.min(axis=axis, keepdims=True)   # make every score non-negative first
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)
'''}, misconception="softmax.no_max_subtraction",
        source="the shift is remembered but with the row minimum: the largest exponent is then max - min, "
               "which overflows for scores spread over 1e3"),

    Variant("heldout_softmax_clip_scores", A1, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.clip(np.asarray(x), -500, 500)   # keep np.exp in range
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)
'''}, misconception=None,
        source="overflow avoided by clipping instead of subtracting the maximum: no NaN, but scores of 1e3 and "
               "1e4 are flattened to 500 and get equal weights"),

    Variant("heldout_softmax_column_max", A1, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    biggest = np.max(x, axis=0, keepdims=True)   # largest score
    e = np.exp(x - biggest)
    return e / np.sum(e, axis=axis, keepdims=True)
'''}, misconception=None,
        source="the max taken over axis 0 (written for 1-D, where it is the row max); on 2-D scores each column "
               "gets its own shift, which does not cancel within a row: wrong weights even for small scores"),

    Variant("heldout_average_double_transpose", A1, "weighted_average", {"weighted_average": '''
def weighted_average(weights, V):
    weights = np.asarray(weights)
    V = np.asarray(V)
    # column form: out^T = V^T W^T
    return (V.T @ weights.T).T
'''}, misconception=None,
        source="the column-vector formula (V^T W^T)^T from a linear-algebra course: right on 2-D, but .T reverses "
               "the batch axes too, so stacks of sequences/heads raise or mix"),

    Variant("heldout_concepts01_cosine", A1, "CONCEPTS_01", {"CONCEPTS_01": '''
CONCEPTS_01 = ("b", "c", "b")
'''}, misconception="CONCEPTS_01.cosine",
        source="seed 000 says the score 'measures alignment'; a student who learnt cosine similarity picks the "
               "normalised version in question 3"),

    # =========================================================== 01_scores_softmax: correct rewrites
    Variant("heldout_dot_einsum", A1, "dot_product", {"dot_product": '''
def dot_product(q, k):
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    return float(np.einsum("i,i->", q, k))
'''}, correct=True),

    Variant("heldout_scores_broadcast_sum", A1, "attention_scores", {"attention_scores": '''
def attention_scores(Q, K):
    Q = np.asarray(Q)
    K = np.asarray(K)
    # every query row against every key row: multiply entrywise, then add over the width
    pairs = Q[..., :, np.newaxis, :] * K[..., np.newaxis, :, :]   # (..., n_q, n_k, d_k)
    return pairs.sum(axis=-1)
'''}, correct=True),

    Variant("heldout_softmax_logaddexp", A1, "softmax", {"softmax": '''
def softmax(x, axis=-1):
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype(np.float64)
    z = x - np.max(x, axis=axis, keepdims=True)
    log_total = np.logaddexp.reduce(z, axis=axis, keepdims=True)
    return np.exp(z - log_total)
'''}, correct=True),

    Variant("heldout_softmax_apply_along_axis", A1, "softmax", {"softmax": '''
def _one_row(row):
    row = row - row.max()
    e = np.exp(row)
    return e / e.sum()

def softmax(x, axis=-1):
    x = np.asarray(x)
    if x.dtype.kind in "biu":
        x = x.astype(float)
    return np.apply_along_axis(_one_row, axis, x)
'''}, correct=True),

    Variant("heldout_average_broadcast_sum", A1, "weighted_average", {"weighted_average": '''
def weighted_average(weights, V):
    w = np.asarray(weights)
    values = np.asarray(V)
    # for each query: sum over keys j of w_ij * v_j
    return (w[..., :, :, None] * values[..., None, :, :]).sum(axis=-2)
'''}, correct=True),

    # =========================================================== 02_scaling: wrong answers
    Variant("heldout_variance_fresh_generator", A2, "score_variance", {"score_variance": '''
def score_variance(d_k, n_samples=100_000, rng=None):
    gen = np.random.default_rng()          # random numbers
    queries = gen.standard_normal((n_samples, d_k))
    keys = gen.standard_normal((n_samples, d_k))
    scores = (queries * keys).sum(axis=1)
    return float(np.var(scores))
'''}, misconception="score_variance.ignores_rng",
        source="default_rng() called without the argument: the estimate is right but a seed no longer "
               "reproduces it"),

    Variant("heldout_scale_divide_by_dk", A2, "scale_scores", {"scale_scores": '''
def scale_scores(scores, d_k):
    scores = np.asarray(scores)
    return np.divide(scores, d_k)   # normalise by the key width
'''}, misconception="scale.by_d_k",
        source="'normalise by the width' without the square root (the variance is d_k, the typical size sqrt(d_k))"),

    Variant("heldout_scale_by_last_axis", A2, "scale_scores", {"scale_scores": '''
def scale_scores(scores, d_k):
    s = np.asarray(scores)
    width = s.shape[-1]          # width of the scores
    return s / math.sqrt(width)
'''}, misconception="scale.by_n_k",
        source="the last axis taken as the width; for scores it counts keys (the notebook warns about it)"),

    Variant("heldout_scale_np_sqrt_promotes", A2, "scale_scores", {"scale_scores": '''
def scale_scores(scores, d_k):
    return np.asarray(scores) / np.sqrt(d_k)
'''}, misconception=None,
        source="np.sqrt(d_k) is a float64 scalar, which promotes float32 scores to float64 (the notebook's tip); "
               "values right, dtype changed"),

    Variant("heldout_leading_weight_flag_backwards", A2, "leading_weight", {"leading_weight": '''
def leading_weight(width, scaled=True):
    root = math.sqrt(width)
    scores = np.array([2.0, 1.0, 0.0]) * root
    if not scaled:
        scores = scores / root       # back to (2, 1, 0)
    return float(softmax(scores).max())
'''}, misconception="leading_weight.flag_inverted",
        source="the condition written the wrong way round"),

    Variant("heldout_leading_weight_raw_not_grown", A2, "leading_weight", {"leading_weight": '''
def leading_weight(width, scaled=True):
    scores = np.array([2.0, 1.0, 0.0])          # the worked example
    if scaled:
        scores = scores / math.sqrt(width)
    return float(np.max(softmax(scores)))
'''}, misconception=None,
        source="forgets that the raw scores are (2, 1, 0) * sqrt(width): unscaled stays at 0.665, scaled decays "
               "towards 1/3 (not a pure flag inversion: the scaled curve falls instead of saturating)"),

    Variant("heldout_jacobian_sign_loops", A2, "softmax_jacobian", {"softmax_jacobian": '''
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    n = p.shape[0]
    J = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            J[i, j] = p[i] * p[j] - (p[i] if i == j else 0.0)
    return J
'''}, misconception="softmax_jacobian.sign",
        source="the derivative of p_i = e^{x_i}/S worked out with the sign of the quotient rule flipped"),

    Variant("heldout_sdpa_normalise_queries", A2, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    d_k = Q.shape[-1]
    s = scale_scores(attention_scores(Q, K), d_k)
    w = softmax(s, axis=-2)      # each column is one key: normalise it
    return weighted_average(w, V), w
'''}, misconception="attention.softmax_wrong_axis",
        source="the key's column normalised instead of the query's row (axis=0 habit from 'softmax over the "
               "keys' read as 'down each key column')"),

    Variant("heldout_sdpa_divides_by_value_width", A2, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    V = np.asarray(V)
    scores = attention_scores(Q, K) / math.sqrt(V.shape[-1])   # sqrt of the width d
    weights = softmax(scores)
    return weighted_average(weights, V), weights
'''}, misconception="scale.by_d_v",
        source="'divide by sqrt(d)' with d read off the values; equal to d_k in most examples, so it passes "
               "until d_v differs"),

    Variant("heldout_sdpa_width_from_axis_1", A2, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    d_k = np.shape(Q)[1]           # Q is (n_q, d_k)
    scores = scale_scores(attention_scores(Q, K), d_k)
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
'''}, misconception=None,
        source="d_k read as Q.shape[1], right for 2-D queries only; on (batch, heads, n_q, d_k) stacks it divides "
               "by sqrt(heads) (a batched-only bug)"),

    Variant("heldout_sdpa_plain_exp", A2, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    S = attention_scores(Q, K) / math.sqrt(np.shape(Q)[-1])
    expS = np.exp(S)
    W = expS / expS.sum(axis=-1, keepdims=True)
    return W @ np.asarray(V), W
'''}, misconception="softmax.no_max_subtraction",
        source="the softmax re-typed inline from the formula instead of the given stable one; NaN at scores of 1e3"),

    Variant("heldout_sdpa_returns_weights_first", A2, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    weights = softmax(scale_scores(attention_scores(Q, K), Q.shape[-1]))
    output = weighted_average(weights, V)
    return weights, output
'''}, misconception="attention.swapped_return",
        source="the pair returned in the order it was computed (weights first)"),

    Variant("heldout_stop_weights_over_two", A2, "STOP_AND_TRY_WEIGHTS", {"STOP_AND_TRY_WEIGHTS": '''
STOP_AND_TRY_WEIGHTS = softmax(np.array([1.0, 0.0, -1.0]) / 2)   # d_k = 2
'''}, misconception="STOP_AND_TRY.scaled_by_d_k",
        source="divides by d_k = 2 instead of sqrt(2) in the hand computation"),

    Variant("heldout_stop_largest_index_zero", A2, "STOP_AND_TRY_LARGEST", {"STOP_AND_TRY_LARGEST": '''
STOP_AND_TRY_LARGEST = int(np.argmax([1.0, 0.0, -1.0]))
'''}, misconception="STOP_AND_TRY.zero_based",
        source="np.argmax gives the position 0 for the first key; the question numbers the keys from 1"),

    Variant("heldout_concepts02_always", A2, "CONCEPTS_02", {"CONCEPTS_02": '''
CONCEPTS_02 = ("b",)
'''}, misconception="CONCEPTS_02.divisor_always",
        source="L1 of seed 000 presents the divisor as keeping the weights responsive 'at every width'; the edge "
               "case (trained maps) is only in L2"),

    # =========================================================== 02_scaling: correct rewrites
    Variant("heldout_variance_normal_pairs", A2, "score_variance", {"score_variance": '''
def score_variance(d_k, n_samples=100_000, rng=None):
    generator = np.random.default_rng(rng)
    pairs = generator.normal(0.0, 1.0, size=(n_samples, 2, d_k))   # a query and a key per sample
    dots = np.einsum("nd,nd->n", pairs[:, 0], pairs[:, 1])
    return float(np.var(dots, ddof=1))
'''}, correct=True),

    Variant("heldout_scale_multiply_reciprocal", A2, "scale_scores", {"scale_scores": '''
def scale_scores(scores, d_k):
    scores = np.asarray(scores)
    return scores * (1.0 / d_k ** 0.5)   # a Python float keeps float32 in float32
'''}, correct=True),

    Variant("heldout_leading_weight_closed_form", A2, "leading_weight", {"leading_weight": '''
def leading_weight(width, scaled=True):
    # scores (2, 1, 0) * s, with s = 1 after the division and s = sqrt(width) without it
    s = 1.0 if scaled else math.sqrt(width)
    # e^{2s} / (e^{2s} + e^{s} + 1), divided through by e^{2s}: nothing can overflow
    return 1.0 / (1.0 + math.exp(-s) + math.exp(-2.0 * s))
'''}, correct=True),

    Variant("heldout_jacobian_kronecker_loops", A2, "softmax_jacobian", {"softmax_jacobian": '''
def softmax_jacobian(p):
    p = np.array(p, dtype=float)      # a private copy
    n = len(p)
    J = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            delta = 1.0 if i == j else 0.0
            J[i, j] = p[i] * (delta - p[j])
    return J
'''}, correct=True),

    Variant("heldout_sdpa_einsum_own_softmax", A2, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1.0 / math.sqrt(Q.shape[-1])
    logits = np.einsum("...id,...jd->...ij", Q, K) * factor
    logits = logits - logits.max(axis=-1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=-1, keepdims=True)
    out = np.einsum("...ij,...jv->...iv", p, V)
    return out, p
'''}, correct=True),

    Variant("heldout_stop_weights_rounded", A2, "STOP_AND_TRY_WEIGHTS", {"STOP_AND_TRY_WEIGHTS": '''
# e^{0.707} = 2.028, e^0 = 1, e^{-0.707} = 0.493; total 3.521
STOP_AND_TRY_WEIGHTS = [0.576, 0.284, 0.140]
'''}, correct=True),

    # =========================================================== 03_masking: wrong answers
    Variant("heldout_causal_strictly_below", A3, "causal_mask", {"causal_mask": '''
def causal_mask(n_q, n_k=None):
    n_k = n_q if n_k is None else n_k
    # only the earlier positions
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=-1)
'''}, misconception="causal_mask.no_diagonal",
        source="'may not see the future' read as 'only the past', k=-1 leaves out the position itself"),

    Variant("heldout_causal_tril_k1", A3, "causal_mask", {"causal_mask": '''
def causal_mask(n_q, n_k=None):
    if n_k is None:
        n_k = n_q
    # k=1 so that the current position is included
    return np.tril(np.ones((n_q, n_k)), k=1).astype(bool)
'''}, misconception=None,
        source="off by one the other way (k=1 vs k=0): every position also sees the next key; not the listed "
               "no_diagonal/bottom_right mistakes"),

    Variant("heldout_padding_le_loop", A3, "padding_mask", {"padding_mask": '''
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths)
    out = np.zeros((len(lengths), 1, n_k), dtype=bool)
    for b, L in enumerate(lengths):
        for j in range(n_k):
            out[b, 0, j] = j <= L        # keys up to the length
    return out
'''}, misconception="padding_mask.off_by_one",
        source="<= instead of < with 0-based positions: the first padding key stays visible"),

    Variant("heldout_apply_mask_zero_fill", A3, "apply_mask", {"apply_mask": '''
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        return np.where(mask, scores, 0.0)    # switch the hidden scores off
    return scores + mask
'''}, misconception="mask.fill_zero",
        source="'masking = zeroing' from image masks; e^0 = 1 still gives hidden keys weight"),

    Variant("heldout_apply_mask_where_for_all", A3, "apply_mask", {"apply_mask": '''
def apply_mask(scores, mask):
    # keep where the mask allows, -inf elsewhere
    return np.where(mask, np.asarray(scores), -np.inf)
'''}, misconception="mask.float_as_bool",
        source="one np.where for both kinds of mask: an additive mask's 0 (keep) is falsy and becomes -inf, "
               "its -inf is truthy and is kept"),

    Variant("heldout_apply_mask_copyto", A3, "apply_mask", {"apply_mask": '''
def apply_mask(scores, mask):
    out = np.asarray(scores)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        np.copyto(out, -np.inf, where=~mask)
    else:
        out += mask
    return out
'''}, misconception="mutates_input",
        source="np.asarray taken for a copy; the masked scores are written into the caller's array "
               "(the values returned are right)"),

    Variant("heldout_sdpa_zero_weights_after", A3, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None and np.asarray(mask).dtype != bool:
        scores = scores + np.asarray(mask)
    weights = softmax(scores, axis=-1)
    if mask is not None and np.asarray(mask).dtype == bool:
        weights = np.where(mask, weights, 0.0)     # hidden keys get weight 0
    return weighted_average(weights, V), weights
'''}, misconception="mask.after_softmax",
        source="the hidden weights zeroed after the softmax (the 'after' line of the notebook's demo); rows sum "
               "to less than 1"),

    Variant("heldout_sdpa_mask_raw_scores", A3, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    raw = attention_scores(Q, K)
    if mask is not None:
        raw = apply_mask(raw, mask)              # hide first ...
    scores = scale_scores(raw, Q.shape[-1])     # ... then scale
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
'''}, misconception="mask.before_scaling",
        source="order of the steps swapped; invisible with boolean masks (-inf/sqrt = -inf), a finite additive "
               "bias is divided by sqrt(d_k) too"),

    Variant("heldout_sdpa_mask_not_assigned", A3, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        apply_mask(scores, mask)          # put -inf where hidden
    weights = softmax(scores)
    return weighted_average(weights, V), weights
'''}, misconception="mask.ignored",
        source="apply_mask returns a new array (the task asks for it) but the result is dropped, as if it "
               "worked in place"),

    Variant("heldout_sdpa_own_softmax_no_guard", A3, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        scores = apply_mask(scores, mask)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return weighted_average(weights, V), weights
'''}, misconception="mask.fully_masked_nan",
        source="notebook-01 softmax re-typed instead of the given guarded one: a row that is all -inf gives "
               "-inf - -inf = NaN"),

    Variant("heldout_sdpa_fill_minus_1e9", A3, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype == bool:
            scores = np.where(mask, scores, -1e9)   # very negative, safer than inf
        else:
            scores = scores + mask
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
'''}, misconception="mask.large_negative_fill",
        source="the -1e9 idiom of many tutorials (masked_fill(mask == 0, -1e9)); a fully masked row becomes uniform"),

    Variant("heldout_sdpa_max_before_mask", A3, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    top = scores.max(axis=-1, keepdims=True)        # stabilise first
    if mask is not None:
        scores = apply_mask(scores, mask)
    e = np.exp(scores - top)
    total = e.sum(axis=-1, keepdims=True)
    weights = e / np.where(total == 0, 1, total)    # fully masked row -> zeros
    return weighted_average(weights, V), weights
'''}, misconception=None,
        source="own softmax whose row max includes the hidden keys: when a hidden key has the top score by "
               "hundreds, the allowed keys underflow to 0 and the row gets zeros; fine at ordinary scores"),

    # =========================================================== 03_masking: correct rewrites
    Variant("heldout_causal_np_tri", A3, "causal_mask", {"causal_mask": '''
def causal_mask(n_q, n_k=None):
    return np.tri(n_q, n_q if n_k is None else n_k, dtype=bool)
'''}, correct=True),

    Variant("heldout_padding_reshape_compare", A3, "padding_mask", {"padding_mask": '''
def padding_mask(lengths, n_k):
    lengths = np.asarray(lengths).reshape(-1, 1, 1)      # (batch, 1, 1)
    positions = np.arange(n_k).reshape(1, 1, -1)          # (1, 1, n_k)
    return positions < lengths
'''}, correct=True),

    Variant("heldout_apply_mask_copy_then_fill", A3, "apply_mask", {"apply_mask": '''
def apply_mask(scores, mask):
    scores = np.asarray(scores)
    out = scores.astype(np.result_type(scores.dtype, np.float32))   # a floating copy
    mask = np.asarray(mask)
    if mask.dtype == np.bool_:
        out[~np.broadcast_to(mask, out.shape)] = -np.inf
        return out
    return out + mask.astype(out.dtype)
'''}, correct=True),

    Variant("heldout_sdpa_inline_guarded", A3, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    s = np.matmul(Q, np.swapaxes(K, -2, -1)) / math.sqrt(Q.shape[-1])
    if mask is not None:
        m = np.asarray(mask)
        s = np.where(m, s, -np.inf) if m.dtype == bool else s + m
    row_max = np.max(s, axis=-1, keepdims=True)
    row_max = np.where(np.isneginf(row_max), 0.0, row_max)   # a row with nothing allowed
    e = np.exp(s - row_max)
    z = e.sum(axis=-1, keepdims=True)
    w = e / np.where(z > 0, z, 1.0)
    return w @ V, w
'''}, correct=True),

    # =========================================================== 04_heads: wrong answers
    Variant("heldout_project_w_transposed", A4, "project", {"project": '''
def project(X, W):
    # one output entry per row of W
    return np.asarray(X) @ np.asarray(W).T
'''}, misconception="project.transposed_map",
        source="column-vector convention (W x) carried over to rows; raises for non-square maps, wrong for square"),

    Variant("heldout_param_count_per_head_again", A4, "attention_param_count", {"attention_param_count": '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model // num_heads if d_k is None else d_k
    d_v = d_model // num_heads if d_v is None else d_v
    q_and_k = 2 * d_model * (num_heads * d_k)     # W_q and W_k, all heads
    values = d_model * (num_heads * d_v)
    total = q_and_k + values
    if output_projection:
        total += num_heads * d_v * d_model
    return int(total * num_heads)                 # one set per head
'''}, misconception="attention_param_count.times_heads",
        source="the wide maps already hold every head, then multiplied by the heads once more ('8 heads = 8 times "
               "the parameters')"),

    Variant("heldout_split_heads_straight_reshape", A4, "split_heads", {"split_heads": '''
def split_heads(X, num_heads):
    X = np.asarray(X)
    *lead, n, width = X.shape
    return X.reshape(*lead, num_heads, n, width // num_heads)
'''}, misconception="split_heads.reshape_without_transpose",
        source="the target shape reached in one reshape (the shape is right, the cut is not)"),

    Variant("heldout_split_heads_interleaved", A4, "split_heads", {"split_heads": '''
def split_heads(X, num_heads):
    X = np.asarray(X)
    *lead, n, width = X.shape
    d = width // num_heads
    pieces = X.reshape(*lead, n, d, num_heads)     # (..., n, d, h)
    return np.moveaxis(pieces, -1, -3)             # (..., h, n, d)
'''}, misconception="split_heads.interleaved",
        source="(d, h) instead of (h, d) in the reshape: head h gets columns h, h + H, h + 2H, ..."),

    Variant("heldout_split_heads_np_split_front", A4, "split_heads", {"split_heads": '''
def split_heads(X, num_heads):
    # cut the columns into num_heads equal slices and stack them
    return np.array(np.split(np.asarray(X), num_heads, axis=-1))
'''}, misconception=None,
        source="np.split + np.array puts the head axis in front of the batch axes: right for 2-D, (h, batch, n, d) "
               "instead of (batch, h, n, d) for stacks"),

    Variant("heldout_merge_heads_straight_reshape", A4, "merge_heads", {"merge_heads": '''
def merge_heads(X):
    X = np.asarray(X)
    h, n, d = X.shape[-3:]
    return X.reshape(X.shape[:-3] + (n, h * d))
'''}, misconception="merge_heads.reshape_without_transpose",
        source="the inverse of a reshape taken to be a reshape; the head axis is never moved back"),

    Variant("heldout_merge_heads_head_axis_last", A4, "merge_heads", {"merge_heads": '''
def merge_heads(X):
    X = np.asarray(X)
    h, n, d = X.shape[-3:]
    stacked = np.moveaxis(X, -3, -1)             # (..., n, d, h)
    return stacked.reshape(*X.shape[:-3], n, d * h)
'''}, misconception="merge_heads.wrong_order",
        source="the head axis moved to the very end: the columns of the heads are interleaved, not concatenated"),

    Variant("heldout_mha_divisor_layer_width", A4, "multi_head_attention", {"multi_head_attention": '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    scores = Q @ np.swapaxes(K, -1, -2) / math.sqrt(np.shape(W_q)[1])   # sqrt(d_k)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.ndim >= 2:
            mask = np.expand_dims(mask, -3)
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    heads = weights @ V
    return project(merge_heads(heads), W_o), weights
'''}, misconception="multi_head_attention.divisor_d_model",
        source="attention written out by hand with d_k read off the wide map W_q (h * d_k columns)"),

    Variant("heldout_mha_mask_passed_as_is", A4, "multi_head_attention", {"multi_head_attention": '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)   # same mask for every head
    return project(merge_heads(heads), W_o), weights
'''}, misconception="multi_head_attention.mask_no_head_axis",
        source="trusting broadcasting: an (n_q, n_k) mask works, a (batch, n_q, n_k) one lines its batch up with "
               "the head axis"),

    Variant("heldout_mha_weights_mean", A4, "multi_head_attention", {"multi_head_attention": '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None:
        mask = np.expand_dims(np.asarray(mask), -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights.mean(axis=-3)   # one table for the layer
'''}, misconception="multi_head_attention.weights_averaged",
        source="PyTorch's nn.MultiheadAttention averages the weights over heads by default "
               "(average_attn_weights=True); the task asks for one table per head"),

    Variant("heldout_mha_values_from_queries", A4, "multi_head_attention", {"multi_head_attention": '''
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
'''}, misconception=None,
        source="values projected from X_q (copy-paste of the query line); invisible in self-attention, raises "
               "or is wrong when X_q and X_kv differ"),

    Variant("heldout_concepts04_heads_parameters", A4, "CONCEPTS_04", {"CONCEPTS_04": '''
CONCEPTS_04 = ("d", "b", "c")
'''}, misconception="CONCEPTS_04.heads_add_parameters",
        source="'more heads = bigger model' (question 3), against the notebook's count at fixed width"),

    # =========================================================== 04_heads: correct rewrites
    Variant("heldout_project_einsum", A4, "project", {"project": '''
def project(X, W):
    return np.einsum("...nd,do->...no", np.asarray(X), np.asarray(W))
'''}, correct=True),

    Variant("heldout_param_count_matrix_list", A4, "attention_param_count", {"attention_param_count": '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    head_k = d_k if d_k is not None else d_model // num_heads
    head_v = d_v if d_v is not None else d_model // num_heads
    shapes = [(d_model, num_heads * head_k),      # W_q
              (d_model, num_heads * head_k),      # W_k
              (d_model, num_heads * head_v)]      # W_v
    if output_projection:
        shapes.append((num_heads * head_v, d_model))   # W_o
    return sum(rows * cols for rows, cols in shapes)
'''}, correct=True),

    Variant("heldout_split_heads_stack", A4, "split_heads", {"split_heads": '''
def split_heads(X, num_heads):
    X = np.asarray(X)
    slices = np.split(X, num_heads, axis=-1)      # h arrays (..., n, d), contiguous columns
    return np.stack(slices, axis=-3)              # (..., h, n, d)
'''}, correct=True),

    Variant("heldout_merge_heads_concat", A4, "merge_heads", {"merge_heads": '''
def merge_heads(X):
    X = np.asarray(X)
    return np.concatenate([X[..., i, :, :] for i in range(X.shape[-3])], axis=-1)
'''}, correct=True),

    Variant("heldout_mha_loop_over_heads", A4, "multi_head_attention", {"multi_head_attention": '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    W_q, W_k, W_v, W_o = (np.asarray(W) for W in (W_q, W_k, W_v, W_o))
    dk = W_q.shape[1] // num_heads
    dv = W_v.shape[1] // num_heads
    outputs, tables = [], []
    for h in range(num_heads):
        q = project(X_q, W_q[:, h * dk:(h + 1) * dk])
        k = project(X_kv, W_k[:, h * dk:(h + 1) * dk])
        v = project(X_kv, W_v[:, h * dv:(h + 1) * dv])
        out, w = scaled_dot_product_attention(q, k, v, mask=mask)   # one head: the mask fits as it is
        outputs.append(out)
        tables.append(w)
    return project(np.concatenate(outputs, axis=-1), W_o), np.stack(tables, axis=-3)
'''}, correct=True),

    Variant("heldout_asymmetry_max_without_abs", A4, "score_asymmetry", {"score_asymmetry": '''
def score_asymmetry(X, W_q, W_k):
    X = np.asarray(X)
    S = (X @ np.asarray(W_q)) @ (X @ np.asarray(W_k)).T
    # S - S^T is antisymmetric, so its largest entry is also its largest absolute entry
    return float((S - S.T).max())
'''}, correct=True),

    # =========================================================== 05_cross_attention: wrong answers
    Variant("heldout_self_causal_mask_unused", A5, "self_attention", {"self_attention": '''
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    n = X.shape[-2]
    mask = causal_mask(n) if causal else None
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads)
'''}, misconception="self_attention.causal_ignored",
        source="the mask is built but never passed to multi_head_attention"),

    Variant("heldout_self_causal_triu", A5, "self_attention", {"self_attention": '''
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    n = X.shape[-2]
    mask = None
    if causal:
        mask = np.triu(np.ones((n, n), dtype=bool))   # the triangle of the causal mask
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception="self_attention.causal_wrong_direction",
        source="PyTorch's generate_square_subsequent_mask/triu(diagonal=1) marks the hidden (future) part; "
               "used with True = may attend it lets every position read the future"),

    Variant("heldout_self_causal_len_of_x", A5, "self_attention", {"self_attention": '''
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    mask = causal_mask(len(X)) if causal else None      # one row per position
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception=None,
        source="len(X) is the sequence length only for a single (n, d_model) sequence; for a batch it is the "
               "batch size, so the mask has the wrong size (raises, or no causality for a batch of 1)"),

    Variant("heldout_cross_swapped_sides", A5, "cross_attention", {"cross_attention": '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_dec = np.asarray(X_dec)
    X_enc = np.asarray(X_enc)
    mask = None
    if enc_lengths is not None:
        mask = np.swapaxes(padding_mask(np.asarray(enc_lengths), X_enc.shape[-2]), -1, -2)
    # the encoder reads the decoder
    return multi_head_attention(X_enc, X_dec, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception="cross_attention.swapped",
        source="'the encoder is attended to' read as 'the encoder attends': queries from the input side"),

    Variant("heldout_cross_padding_true_is_pad", A5, "cross_attention", {"cross_attention": '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_enc = np.asarray(X_enc)
    mask = None
    if enc_lengths is not None:
        # mark the padding
        mask = ~padding_mask(np.asarray(enc_lengths), X_enc.shape[-2])
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception="cross_attention.padding_inverted",
        source="PyTorch's key_padding_mask uses True = padding (ignored), the opposite of this course's "
               "True = may attend"),

    Variant("heldout_cross_keys_from_decoder", A5, "cross_attention", {"cross_attention": '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_dec = np.asarray(X_dec)
    X_enc = np.asarray(X_enc)
    mask = None
    if enc_lengths is not None:
        mask = padding_mask(np.asarray(enc_lengths), X_enc.shape[-2])
    return multi_head_attention(X_dec, X_dec, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception=None,
        source="the self-attention call copied and only half edited: keys and values still come from the "
               "decoder, the encoder is never read (not the listed swap: the queries are right)"),

    Variant("heldout_cross_with_causal", A5, "cross_attention", {"cross_attention": '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_dec = np.asarray(X_dec)
    X_enc = np.asarray(X_enc)
    n_dec, n_enc = X_dec.shape[-2], X_enc.shape[-2]
    mask = causal_mask(n_dec, n_enc)              # the decoder must not look ahead
    if enc_lengths is not None:
        mask = mask & padding_mask(np.asarray(enc_lengths), n_enc)
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, misconception="cross_attention.causal_mask",
        source="'the decoder is causal' applied to its cross-attention too (the whole source sentence is known)"),

    # =========================================================== 05_cross_attention: correct rewrites
    Variant("heldout_self_batched_tril", A5, "self_attention", {"self_attention": '''
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    X = np.asarray(X)
    mask = None
    if causal:
        n = X.shape[-2]
        lower = np.tril(np.ones((n, n), dtype=bool))
        mask = np.broadcast_to(lower, X.shape[:-2] + (n, n))   # one mask per sequence
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
'''}, correct=True),

    Variant("heldout_cross_inline_padding", A5, "cross_attention", {"cross_attention": '''
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    X_enc = np.asarray(X_enc)
    keep = None
    if enc_lengths is not None:
        n_enc = X_enc.shape[-2]
        lengths = np.asarray(enc_lengths)
        keep = np.arange(n_enc)[None, None, :] < lengths[:, None, None]   # (batch, 1, n_enc)
    return multi_head_attention(X_q=X_dec, X_kv=X_enc, W_q=W_q, W_k=W_k, W_v=W_v, W_o=W_o,
                                num_heads=num_heads, mask=keep)
'''}, correct=True),

    # =========================================================== 06_long_sequences: wrong answers
    Variant("heldout_table_bytes_float64", A6, "TABLE_BYTES", {"TABLE_BYTES": '''
TABLE_BYTES = 8 * 4096 * 4096 * 8   # heads x n x n, 8 bytes per number
'''}, misconception="TABLE_BYTES.float64",
        source="numpy's default float64 (8 bytes) used instead of the float32 the question gives"),

    Variant("heldout_blockwise_no_rescale", A6, "blockwise_attention", {"blockwise_attention": '''
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    if scale is None:
        scale = 1 / math.sqrt(Q.shape[-1])
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    dt = np.result_type(Q, K, V)
    run_max = np.full(batch + (n_q, 1), -np.inf, dtype=dt)
    denom = np.zeros(batch + (n_q, 1), dtype=dt)
    numer = np.zeros(batch + (n_q, V.shape[-1]), dtype=dt)
    for lo in range(0, n_k, block_size):
        hi = min(lo + block_size, n_k)
        s = (Q @ np.swapaxes(K[..., lo:hi, :], -1, -2)) * scale
        if mask is not None:
            s = np.where(np.asarray(mask)[..., lo:hi], s, -np.inf)
        run_max = np.maximum(run_max, s.max(axis=-1, keepdims=True))
        safe = np.where(np.isneginf(run_max), 0, run_max)
        p = np.exp(s - safe)
        denom += p.sum(axis=-1, keepdims=True)      # add this block's share
        numer += p @ V[..., lo:hi, :]
    return numer / np.where(denom == 0, 1, denom)
'''}, misconception="blockwise_attention.no_rescale",
        source="the running maximum is kept and used for the new block, but what was summed earlier is never "
               "multiplied by e^{m - m'}"),

    Variant("heldout_blockwise_nan_masked", A6, "blockwise_attention", {"blockwise_attention": '''
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    c = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    dt = np.result_type(Q, K, V)
    m = np.full(lead + (n_q, 1), -np.inf, dtype=dt)
    l = np.zeros(lead + (n_q, 1), dtype=dt)
    o = np.zeros(lead + (n_q, V.shape[-1]), dtype=dt)
    for start in range(0, n_k, block_size):
        s = Q @ np.swapaxes(K[..., start:start + block_size, :], -1, -2) * c
        if mask is not None:
            s = np.where(np.asarray(mask)[..., start:start + block_size], s, -np.inf)
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        correction = np.exp(m - m_new)
        p = np.exp(s - m_new)
        l = l * correction + p.sum(axis=-1, keepdims=True)
        o = o * correction + p @ V[..., start:start + block_size, :]
        m = m_new
    return o / np.where(l == 0, 1, l)
'''}, misconception="blockwise_attention.masked_nan",
        source="the textbook online-softmax update without the guard: while every key seen is masked, "
               "m = m_new = -inf and exp(-inf - -inf) is NaN"),

    Variant("heldout_blockwise_scores_up_front", A6, "blockwise_attention", {"blockwise_attention": '''
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    all_scores = (Q @ np.swapaxes(K, -1, -2)) * factor        # compute once, then walk over blocks
    if mask is not None:
        all_scores = np.where(mask, all_scores, -np.inf)
    n_q, n_k = all_scores.shape[-2], all_scores.shape[-1]
    batch = all_scores.shape[:-2]
    dt = all_scores.dtype
    m = np.full(batch + (n_q, 1), -np.inf, dtype=dt)
    total = np.zeros(batch + (n_q, 1), dtype=dt)
    acc = np.zeros(batch + (n_q, V.shape[-1]), dtype=dt)
    for start in range(0, n_k, block_size):
        s = all_scores[..., start:start + block_size]
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(new_m == -np.inf, 0, new_m)
        r = np.exp(m - shift)
        p = np.exp(s - shift)
        total = total * r + p.sum(axis=-1, keepdims=True)
        acc = acc * r + p @ V[..., start:start + block_size, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)
'''}, misconception="blockwise_attention.full_matrix",
        source="the online softmax is right but runs over a precomputed n_q x n_k score table, which defeats the "
               "memory bound"),

    Variant("heldout_blockwise_scale_ignored", A6, "blockwise_attention", {"blockwise_attention": '''
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1.0 / math.sqrt(Q.shape[-1])        # the usual 1/sqrt(d_k)
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
            s = np.where(np.asarray(mask)[..., start:stop], s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(new_m == -np.inf, 0, new_m)
        rescale = np.exp(m - shift)
        p = np.exp(s - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:stop, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)
'''}, misconception=None,
        source="the `scale` argument is accepted and never used (always 1/sqrt(d_k)); right whenever scale=None"),

    Variant("heldout_blockwise_drops_last_block", A6, "blockwise_attention", {"blockwise_attention": '''
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1.0 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    dtype = np.result_type(Q, K, V)
    m = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)
    total = np.zeros((*batch, n_q, 1), dtype=dtype)
    acc = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
    for b in range(n_k // block_size):                 # number of blocks
        start, stop = b * block_size, (b + 1) * block_size
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
        if mask is not None:
            s = np.where(np.asarray(mask)[..., start:stop], s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(new_m == -np.inf, 0, new_m)
        rescale = np.exp(m - shift)
        p = np.exp(s - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:stop, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)
'''}, misconception=None,
        source="n_k // block_size blocks: the last, partial block is dropped (and a block larger than n_k gives "
               "no block at all, so zeros); right only when block_size divides n_k"),

    # =========================================================== 06_long_sequences: correct rewrites
    Variant("heldout_blockwise_two_passes", A6, "blockwise_attention", {"blockwise_attention": '''
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    c = (1.0 / math.sqrt(Q.shape[-1])) if scale is None else float(scale)
    n_q, n_k = Q.shape[-2], K.shape[-2]
    lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    dt = np.result_type(Q, K, V)

    def block_scores(a, b):
        s = (Q @ np.swapaxes(K[..., a:b, :], -1, -2)) * c
        if mask is not None:
            s = np.where(np.asarray(mask)[..., a:b], s, -np.inf)
        return s

    # pass 1: each query's largest allowed score, one block at a time
    top = np.full(lead + (n_q, 1), -np.inf, dtype=dt)
    for a in range(0, n_k, block_size):
        top = np.maximum(top, block_scores(a, a + block_size).max(axis=-1, keepdims=True))
    top = np.where(top == -np.inf, 0, top)
    # pass 2: exponentials relative to the final maximum, so nothing needs rescaling
    num = np.zeros(lead + (n_q, V.shape[-1]), dtype=dt)
    den = np.zeros(lead + (n_q, 1), dtype=dt)
    for a in range(0, n_k, block_size):
        p = np.exp(block_scores(a, a + block_size) - top)
        den += p.sum(axis=-1, keepdims=True)
        num += p @ V[..., a:a + block_size, :]
    den[den == 0] = 1
    return num / den
'''}, correct=True),

    Variant("heldout_blockwise_running_logsumexp", A6, "blockwise_attention", {"blockwise_attention": '''
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    c = 1.0 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    dt = np.result_type(Q, K, V)
    lse = np.full(lead + (n_q, 1), -np.inf, dtype=dt)        # log of the running total
    out = np.zeros(lead + (n_q, V.shape[-1]), dtype=dt)      # running, already normalised average
    for a in range(0, n_k, block_size):
        b = min(a + block_size, n_k)
        s = (Q @ np.swapaxes(K[..., a:b, :], -1, -2)) * c
        if mask is not None:
            s = np.where(np.asarray(mask)[..., a:b], s, -np.inf)
        bmax = s.max(axis=-1, keepdims=True)
        bshift = np.where(bmax == -np.inf, 0, bmax)
        p = np.exp(s - bshift)
        with np.errstate(divide="ignore"):
            block_lse = bshift + np.log(p.sum(axis=-1, keepdims=True))   # -inf for an all-masked block
        new_lse = np.logaddexp(lse, block_lse)
        ref = np.where(new_lse == -np.inf, 0, new_lse)
        out = out * np.exp(lse - ref) + (p @ V[..., a:b, :]) * np.exp(bshift - ref)
        lse = new_lse
    return out
'''}, correct=True),

    # =========================================================== 07_scoring_functions: wrong answers
    Variant("heldout_additive_tanh_each_side", A7, "additive_scores", {"additive_scores": '''
def additive_scores(Q, K, W_q, W_k, v):
    hq = np.tanh(np.asarray(Q) @ np.asarray(W_q))      # (..., n_q, h)
    hk = np.tanh(np.asarray(K) @ np.asarray(W_k))      # (..., n_k, h)
    return (hq[..., :, None, :] + hk[..., None, :, :]) @ np.asarray(v)
'''}, misconception="additive_scores.separate_tanh",
        source="each projection squashed on its own ('a layer = linear + tanh'), then added"),

    Variant("heldout_additive_rowwise_pairs", A7, "additive_scores", {"additive_scores": '''
def additive_scores(Q, K, W_q, W_k, v):
    Q, K = np.asarray(Q), np.asarray(K)
    hidden = np.tanh(Q @ np.asarray(W_q) + K @ np.asarray(W_k))    # (..., n, h)
    return hidden @ np.asarray(v)
'''}, misconception="additive_scores.pairs_not_broadcast",
        source="the formula v^T tanh(q W_q + k W_k) typed for stacked rows: query i meets only key i "
               "(raises when n_q != n_k)"),

    Variant("heldout_additive_keys_by_queries", A7, "additive_scores", {"additive_scores": '''
def additive_scores(Q, K, W_q, W_k, v):
    a = np.asarray(Q) @ np.asarray(W_q)        # (..., n_q, h)
    c = np.asarray(K) @ np.asarray(W_k)        # (..., n_k, h)
    hidden = a[..., None, :, :] + c[..., :, None, :]   # every pair
    return np.tanh(hidden) @ np.asarray(v)
'''}, misconception=None,
        source="the new axes inserted the other way round: every pair is there, but as (n_k, n_q), the table "
               "transposed"),

    Variant("heldout_scaled_dot_input_width", A7, "scaled_dot_scores", {"scaled_dot_scores": '''
def scaled_dot_scores(Q, K, W_q, W_k):
    Q = np.asarray(Q)
    q, k = Q @ np.asarray(W_q), np.asarray(K) @ np.asarray(W_k)
    return q @ np.swapaxes(k, -1, -2) / math.sqrt(Q.shape[-1])     # sqrt(d_k)
'''}, misconception="scaled_dot_scores.divides_by_input_width",
        source="notebook 02's sqrt(d_k) reused with d_k read off the unprojected queries"),

    Variant("heldout_scaled_dot_by_h", A7, "scaled_dot_scores", {"scaled_dot_scores": '''
def scaled_dot_scores(Q, K, W_q, W_k):
    W_q = np.asarray(W_q)
    h = W_q.shape[1]
    q = np.asarray(Q) @ W_q
    k = np.asarray(K) @ np.asarray(W_k)
    return q @ np.swapaxes(k, -1, -2) / h          # normalise by the projected width
'''}, misconception=None,
        source="divides by h instead of sqrt(h) (the projected width is right, the square root is missing); the "
               "listed scaled_dot_scores ids do not cover it"),

    Variant("heldout_bilinear_w_on_queries", A7, "bilinear_scores", {"bilinear_scores": '''
def bilinear_scores(Q, K, W):
    Wq = np.asarray(Q) @ np.asarray(W).T       # W applied to every query (W q)
    return Wq @ np.swapaxes(np.asarray(K), -1, -2)
'''}, misconception="bilinear_scores.transposed",
        source="q^T W k read as (W q) . k; the row form of W q is Q W^T"),

    Variant("heldout_costs_bilinear_every_pair", A7, "score_costs", {"score_costs": '''
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        # q^T W k for every pair: W k (d*d), then the dot product (d)
        return d * d, n * n * (d * d + d)
    params = 2 * d * h
    if kind == "additive":
        params += h
    return params, 2 * n * d * h + n * n * h
'''}, misconception="score_costs.bilinear_per_pair",
        source="counted straight from the formula q^T W k, without noticing that Q W can be computed once"),

    Variant("heldout_budget_ceil", A7, "width_for_budget", {"width_for_budget": '''
def width_for_budget(kind, d, budget):
    per_unit = 2 * d + 1 if kind == "additive" else 2 * d
    return math.ceil(budget / per_unit)
'''}, misconception="width_for_budget.rounds_up",
        source="round up 'so no budget is wasted' (or round() habit); additive at d=16, 256 gives 8, 264 parameters"),

    # =========================================================== 07_scoring_functions: correct rewrites
    Variant("heldout_additive_loop_over_keys", A7, "additive_scores", {"additive_scores": '''
def additive_scores(Q, K, W_q, W_k, v):
    Q, K, W_q, W_k, v = map(np.asarray, (Q, K, W_q, W_k, v))
    proj_q = Q @ W_q                   # (..., n_q, h)
    proj_k = K @ W_k                   # (..., n_k, h)
    n_k = proj_k.shape[-2]
    batch = np.broadcast_shapes(proj_q.shape[:-2], proj_k.shape[:-2])
    out = np.empty(batch + (proj_q.shape[-2], n_k), dtype=np.result_type(proj_q, proj_k, v))
    for j in range(n_k):               # one key at a time, against every query
        out[..., j] = np.tanh(proj_q + proj_k[..., j:j + 1, :]) @ v
    return out
'''}, correct=True),

    Variant("heldout_scaled_dot_einsum", A7, "scaled_dot_scores", {"scaled_dot_scores": '''
def scaled_dot_scores(Q, K, W_q, W_k):
    q = np.einsum("...nd,dh->...nh", np.asarray(Q), np.asarray(W_q))
    k = np.einsum("...nd,dh->...nh", np.asarray(K), np.asarray(W_k))
    h = q.shape[-1]
    return np.einsum("...ih,...jh->...ij", q, k) / h ** 0.5
'''}, correct=True),

    Variant("heldout_bilinear_einsum", A7, "bilinear_scores", {"bilinear_scores": '''
def bilinear_scores(Q, K, W):
    return np.einsum("...qi,ij,...kj->...qk", np.asarray(Q), np.asarray(W), np.asarray(K))
'''}, correct=True),

    Variant("heldout_costs_table", A7, "score_costs", {"score_costs": '''
def score_costs(kind, n, d, h):
    projections = 2 * n * d * h            # the n queries and the n keys, d*h each
    table = {
        "additive": (2 * d * h + h, projections + n * n * h),
        "dot": (2 * d * h, projections + n * n * h),
        "bilinear": (d * d, n * d * d + n * n * d),
    }
    params, macs = table[kind]
    return int(params), int(macs)
'''}, correct=True),

    Variant("heldout_budget_bisection", A7, "width_for_budget", {"width_for_budget": '''
def width_for_budget(kind, d, budget):
    def cost(h):
        return 2 * d * h + (h if kind == "additive" else 0)
    lo, hi = 1, max(1, budget)       # the largest h with cost(h) <= budget lies in [lo, hi]
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if cost(mid) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return lo
'''}, correct=True),
]
