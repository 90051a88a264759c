"""Answer variants of 02_scaling: typical mistakes (with where they are documented) and correct rewrites."""
from . import Variant

A = "02_scaling"

SDPA_TEMPLATE = '''
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    scores = {scores}
    weights = softmax(scores, axis={axis})
    return weighted_average(weights, V), weights
'''


def sdpa(scores="scale_scores(attention_scores(Q, K), Q.shape[-1])", axis="-1"):
    return SDPA_TEMPLATE.format(scores=scores, axis=axis)


VARIANTS = [
    # ---------------------------------------------------------------- wrong answers
    Variant("variance_returns_std", A, "score_variance", {"score_variance": '''
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    return float(np.sum(q * k, axis=1).std())  # the spread, not its square
'''}, misconception="score_variance.std_not_variance",
        source="seed 000, L2 derivation: the variance is d_k and 'a typical score grows like the square root of the "
               "width' (the standard deviation); the two are routinely confused"),

    Variant("variance_of_one_product", A, "score_variance", {"score_variance": '''
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    return float((q * k).var())  # variance of the products, never summed
'''}, misconception="score_variance.no_sum",
        source="the footnote of 'Attention Is All You Need' (§3.2.1): q·k = sum of d_k products, 'has mean 0 and "
               "variance d_k'; forgetting the sum gives the per-term variance 1"),

    Variant("scale_by_d_k", A, "scale_scores", {"scale_scores": '''
def scale_scores(scores, d_k):
    return np.asarray(scores) / d_k  # no square root
'''}, misconception="scale.by_d_k",
        source="lucidrains/vit-pytorch issue #65 and omihub777/ViT-CIFAR PR #11 (wrong divisor); the paper's "
               "1/sqrt(d_k)"),

    Variant("scale_multiplies", A, "scale_scores", {"scale_scores": '''
def scale_scores(scores, d_k):
    return np.asarray(scores) * math.sqrt(d_k)
'''}, misconception="scale.multiplies",
        source="esceptico/perceiver-io issue #9 (divides by a scale defined as d**-0.5, i.e. multiplies by sqrt(d))"),

    Variant("scale_by_n_k", A, "scale_scores", {"scale_scores": '''
def scale_scores(scores, d_k):
    scores = np.asarray(scores)
    return scores / math.sqrt(scores.shape[-1])  # the last axis counts keys, not the key width
'''}, misconception="scale.by_n_k",
        source="Graylab/DL4Proteins-notebooks issue #12 and FareedKhan-dev/train-llm-from-scratch PR #3 (divisor "
               "taken from the wrong dimension)"),

    Variant("scale_in_place", A, "scale_scores", {"scale_scores": '''
def scale_scores(scores, d_k):
    scores = np.asarray(scores)
    scores /= math.sqrt(d_k)  # modifies the caller's array
    return scores
'''}, misconception="mutates_input",
        source="numpy docs: np.asarray does not copy an ndarray, so an in-place `/=` changes the caller's data "
               "(https://numpy.org/doc/stable/reference/generated/numpy.asarray.html)"),

    Variant("leading_weight_flag_inverted", A, "leading_weight", {"leading_weight": '''
def leading_weight(width, scaled=True):
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    scores = raw if scaled else raw / math.sqrt(width)
    return float(softmax(scores).max())
'''}, misconception="leading_weight.flag_inverted",
        source="seed 000 (the flat 0.665 line is the *scaled* curve); an inverted boolean flag is a common slip"),

    Variant("leading_weight_own_unstable_softmax", A, "leading_weight", {"leading_weight": '''
def leading_weight(width, scaled=True):
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    scores = raw / math.sqrt(width) if scaled else raw
    e = np.exp(scores)  # overflows once the raw scores pass ~710
    return float(e[0] / e.sum())
'''}, misconception="softmax.no_max_subtraction",
        source="shusei-e.github.io 'Softmax without Overflow'; CS231n notes on numeric stability"),

    Variant("jacobian_sign_flipped", A, "softmax_jacobian", {"softmax_jacobian": '''
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    return np.outer(p, p) - np.diag(p)
'''}, misconception="softmax_jacobian.sign",
        source="the derivative of the softmax, e.g. Eli Bendersky, 'The Softmax function and its derivative' "
               "(https://eli.thegreenplace.net/2016/the-softmax-function-and-its-derivative/), where the sign of "
               "the two cases is the usual stumbling point"),

    Variant("jacobian_diagonal_only", A, "softmax_jacobian", {"softmax_jacobian": '''
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    return np.diag(p * (1 - p))  # the elementwise derivative, as for a sigmoid
'''}, misconception="softmax_jacobian.diagonal_only",
        source="treating softmax like an elementwise sigmoid (derivative p(1-p)); discussed in Bendersky's post "
               "and in many 'softmax derivative' Q&A threads"),

    Variant("sdpa_no_scaling", A, "scaled_dot_product_attention",
            {"scaled_dot_product_attention": sdpa(scores="attention_scores(Q, K)")},
            misconception="scale.none",
            source="seed 000 ('without the division the leading weight approaches one'); cneuralnetwork/"
                   "solving-ml-papers issue #1"),

    Variant("sdpa_scaled_by_n_k", A, "scaled_dot_product_attention",
            {"scaled_dot_product_attention": sdpa(scores="scale_scores(attention_scores(Q, K), np.shape(K)[-2])")},
            misconception="scale.by_n_k",
            source="Graylab/DL4Proteins-notebooks issue #12 (scaled by the wrong dimension)"),

    Variant("sdpa_scaled_by_d_v", A, "scaled_dot_product_attention",
            {"scaled_dot_product_attention": sdpa(scores="scale_scores(attention_scores(Q, K), np.shape(V)[-1])")},
            misconception="scale.by_d_v",
            source="juho-lee/set_transformer issue #18 (scaled by sqrt(dim_V) instead of the key width)"),

    Variant("sdpa_softmax_over_queries", A, "scaled_dot_product_attention",
            {"scaled_dot_product_attention": sdpa(axis="-2")},
            misconception="attention.softmax_wrong_axis",
            source="tensorflow/tensorflow issue #43941 and the TensorFlow NMT tutorial's softmax(score, axis=1) "
                   "discussion; seed 000 L2: 'the softmax runs along the key index'"),

    Variant("sdpa_batched_dot_T", A, "scaled_dot_product_attention",
            {"scaled_dot_product_attention": sdpa(scores="scale_scores(Q @ np.asarray(K).T, Q.shape[-1])")},
            misconception="attention.batched_transpose",
            source="flrngel/Self-Attentive-tensorflow issue #3 (full transpose of a batched tensor)"),

    Variant("sdpa_swapped_return", A, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    weights = softmax(scale_scores(attention_scores(Q, K), Q.shape[-1]))
    return weights, weighted_average(weights, V)
'''}, misconception="attention.swapped_return",
        source="APIs disagree on the order (PyTorch's MultiheadAttention returns (output, weights); some tutorials "
               "return (weights, output)); the course contract is (output, weights)"),

    Variant("stop_and_try_unscaled", A, "STOP_AND_TRY_WEIGHTS",
            {"STOP_AND_TRY_WEIGHTS": "STOP_AND_TRY_WEIGHTS = [round(float(w), 3) for w in softmax(STOP_K @ STOP_Q)]\n"},
            misconception="STOP_AND_TRY.unscaled_weights",
            source="seed 002 lists 'the only additions are the sqrt(d) scaling and the softmax'; forgetting the "
                   "scale reproduces notebook 01's table (0.665, 0.245, 0.090 on the lesson's numbers)"),

    Variant("stop_and_try_scaled_by_d_k", A, "STOP_AND_TRY_WEIGHTS",
            {"STOP_AND_TRY_WEIGHTS": "STOP_AND_TRY_WEIGHTS = softmax(STOP_K @ STOP_Q / 2)\n"},
            misconception="STOP_AND_TRY.scaled_by_d_k",
            source="lucidrains/vit-pytorch issue #65 (wrong divisor)"),

    Variant("stop_and_try_scores_already_scaled", A, "STOP_AND_TRY_SCORES",
            {"STOP_AND_TRY_SCORES": "STOP_AND_TRY_SCORES = (STOP_K @ STOP_Q) / np.sqrt(2)\n"},
            misconception="STOP_AND_TRY.scaled_scores",
            source="seed 002 separates the raw score q . k from the scaled score q . k / sqrt(d_k); "
                   "answering the second where the first is asked is the slip the question tests"),

    Variant("stop_and_try_scores_keys_from_one", A, "STOP_AND_TRY_SCORES",
            {"STOP_AND_TRY_SCORES": "STOP_AND_TRY_SCORES = [float(np.dot(STOP_Q, STOP_K[j])) for j in (1, 2, 3)]  "
                                    "# k_1, k_2, k_3\n"},
            misconception="raises",
            source="the keys numbered k_1..k_3 as the question writes them (and as MATLAB indexes): the cell raises "
                   "IndexError and never assigns the answer, which must be said as that error, not as a stub left "
                   "in place (blind set 9)"),

    Variant("stop_and_try_zero_based", A, "STOP_AND_TRY_LARGEST",
            {"STOP_AND_TRY_LARGEST": "STOP_AND_TRY_LARGEST = int(np.argmax(STOP_K @ STOP_Q))\n"},
            misconception="STOP_AND_TRY.zero_based",
            source="np.argmax returns a 0-based index while the question numbers the keys from 1"),

    Variant("stop_and_try_perpendicular_reason", A, "STOP_AND_TRY_REASON",
            {"STOP_AND_TRY_REASON": 'STOP_AND_TRY_REASON = "c"\n'},
            misconception="STOP_AND_TRY.wrong_reason",
            source="seed 000: softmax 'keeps every item with a positive weight' (a score of 0 is not a weight of 0), "
                   "a frequent misreading"),

    # ---------------------------------------------------------------- correct answers written differently
    Variant("inverse_sqrt_and_einsum", A, "scaled_dot_product_attention", {
        "scale_scores": '''
def scale_scores(scores, d_k):
    return np.asarray(scores) * (1.0 / math.sqrt(d_k))  # multiply by the inverse square root
''',
        "scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    s = np.einsum("...qd,...kd->...qk", Q, K) * Q.shape[-1] ** -0.5
    m = s.max(axis=-1, keepdims=True)
    w = np.exp(s - m - np.log(np.exp(s - m).sum(axis=-1, keepdims=True)))  # log-sum-exp softmax
    return np.einsum("...qk,...kd->...qd", w, V), w
'''}, correct=True),

    Variant("loops_and_population_variance", A, "softmax_jacobian", {
        "softmax_jacobian": '''
def softmax_jacobian(p):
    n = len(p)
    J = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            J[i, j] = p[i] * ((1.0 if i == j else 0.0) - p[j])
    return J
''',
        "score_variance": '''
def score_variance(d_k, n_samples=100_000, rng=None):
    gen = np.random.default_rng(rng)
    dots = (gen.standard_normal((n_samples, d_k)) * gen.standard_normal((n_samples, d_k))).sum(axis=1)
    return float(np.mean((dots - dots.mean()) ** 2))  # ddof=0
''',
        "leading_weight": '''
def leading_weight(width, scaled=True):
    scores = np.array([2.0, 1.0, 0.0])
    if not scaled:
        scores = scores * math.sqrt(width)
    return float(np.max(softmax(scores)))
'''}, correct=True),

    Variant("stop_and_try_by_hand", A, "STOP_AND_TRY_WEIGHTS", {
        "STOP_AND_TRY_SCORES": "STOP_AND_TRY_SCORES = tuple(float(s) for s in STOP_K @ STOP_Q)\n",
        "STOP_AND_TRY_WEIGHTS": "STOP_AND_TRY_WEIGHTS = [round(float(w), 3) for w in softmax(STOP_K @ STOP_Q / math.sqrt(2))]"
                                "  # by hand, 3 decimals\n",
        "STOP_AND_TRY_LARGEST": "STOP_AND_TRY_LARGEST = float(np.argmax(STOP_K @ STOP_Q) + 1)\n",
        "STOP_AND_TRY_REASON": 'STOP_AND_TRY_REASON = " A "\n',
    }, correct=True),
]

# ---------------------------------------------------------------- added for issue 14 (every misconception exercised)
VARIANTS += [
    Variant("score_variance_fresh_generator", A, "score_variance", {"score_variance": '''
def score_variance(d_k, n_samples=100_000, rng=None):
    gen = np.random.default_rng()  # a fresh, unseeded generator: the rng argument is ignored
    q = gen.standard_normal((n_samples, d_k))
    k = gen.standard_normal((n_samples, d_k))
    return float(np.var(np.sum(q * k, axis=-1)))
'''}, misconception="score_variance.ignores_rng",
        source="numpy's Generator docs (default_rng(seed) for reproducible streams); an unseeded default_rng()"),
    Variant("score_variance_global_generator", A, "score_variance", {"score_variance": '''
def score_variance(d_k, n_samples=100_000, rng=None):
    q = np.random.normal(0.0, 1.0, size=(n_samples, d_k))   # numpy's global generator: rng is never used
    k = np.random.standard_normal((n_samples, d_k))
    return float((q * k).sum(axis=1).var())
'''}, misconception="score_variance.global_state",
        source="numpy docs, Random sampling: the legacy np.random.* functions draw from one global RandomState; "
               "new code should use a Generator (default_rng(seed))"),
    Variant("score_variance_scaled_first", A, "score_variance", {"score_variance": '''
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    return float(np.var(np.sum(q * k, axis=-1) / np.sqrt(d_k)))  # the scaled scores: variance 1
'''}, misconception="score_variance.scaled_scores",
        source="the variance of the scaled scores (1) reported for the raw ones (d_k), Vaswani et al. 2017 footnote 4"),
    Variant("leading_weight_divides_by_width", A, "leading_weight", {"leading_weight": '''
def leading_weight(width, scaled=True):
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    if scaled:
        raw = raw / width  # the width, not its square root
    return float(softmax(raw)[0])
'''}, misconception="leading_weight.scaled_by_width",
        source="lucidrains/vit-pytorch issue #65 (divisor d instead of sqrt(d))"),
    Variant("jacobian_diag_only_p", A, "softmax_jacobian", {"softmax_jacobian": '''
def softmax_jacobian(p):
    return np.diag(np.asarray(p))  # the outer product p p^T is missing
'''}, misconception="softmax_jacobian.no_outer",
        source="the softmax Jacobian diag(p) - p p^T (e.g. https://eli.thegreenplace.net/2016/the-softmax-function-and-its-derivative/)"),
    Variant("sdpa_k_untransposed", A, "scaled_dot_product_attention",
            {"scaled_dot_product_attention": sdpa(scores="scale_scores(np.asarray(Q) @ np.asarray(K), Q.shape[-1])")},
            misconception="attention.k_not_transposed",
            source="Q @ K instead of Q @ K^T; the scores are Q K^T in Vaswani et al. 2017, eq. 1"),
    Variant("sdpa_queries_keys_swapped", A, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    d_k = Q.shape[-1]
    scores = scale_scores(attention_scores(K, Q), d_k)  # keys first: the table the other way round
    weights = softmax(scores)
    return weighted_average(weights, V), weights
'''}, misconception="attention.queries_keys_swapped",
        source="the argument order of a score function (compare(a, b) read as b against a); the scores are Q K^T, "
               "one row per query, in Vaswani et al. 2017, eq. 1"),
    Variant("sdpa_keys_reshaped", A, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    Q, K = np.asarray(Q), np.asarray(K)
    K_t = K.reshape(*K.shape[:-2], K.shape[-1], K.shape[-2])  # meant as K^T
    weights = softmax(scale_scores(Q @ K_t, Q.shape[-1]))
    return weights @ V, weights
'''}, misconception="attention.reshaped_keys",
        source="reshape is not transpose: numpy docs, numpy.reshape (the elements are read and placed in index order)"),
]

VARIANTS += [
    Variant("stop_and_try_perpendicular_key", A, "STOP_AND_TRY_LARGEST",
            {"STOP_AND_TRY_LARGEST": "winner = int(np.argmax(STOP_K @ STOP_Q)) + 1\n"
                                     "# a key that loses (and is not the winner counted from 0: that one is zero_based)\n"
                                     "STOP_AND_TRY_LARGEST = next(k for k in (3, 1, 2) if k not in (winner, winner - 1))\n"},
            misconception="STOP_AND_TRY.wrong_key",
            source="seed 000: the aligned key (1, 0) has the largest dot product with q = (1, 0); the perpendicular "
                   "key (the runner-up there) is a common pick"),
]

VARIANTS += [
    Variant("leading_weight_flag_unused", A, "leading_weight", {"leading_weight": '''
def leading_weight(width, scaled=True):
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    return float(softmax(raw / math.sqrt(width))[0])  # always scaled: the flag is never read
'''}, misconception="leading_weight.ignores_flag",
        source="issue 14: an ignored `scaled` flag was reported as 'results are swapped'"),
]

VARIANTS += [
    Variant("ddof_divide_einsum_jacobian", A, "softmax_jacobian", {
        "score_variance": '''
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    q, k = rng.normal(size=(2, n_samples, d_k))
    return float((q * k).sum(axis=1).var(ddof=1))
''',
        "scale_scores": '''
def scale_scores(scores, d_k):
    return np.divide(scores, d_k ** 0.5)
''',
        "softmax_jacobian": '''
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    return np.diag(p) - np.einsum("i,j->ij", p, p)
''',
        "leading_weight": '''
def leading_weight(width, scaled=True):
    scores = np.array([2.0, 1.0, 0.0]) * (1.0 if scaled else math.sqrt(width))
    e = np.exp(scores - scores.max())
    return float(e[0] / e.sum())
'''}, correct=True),
]

# ---------------------------------------------------------------- issue 24: one maximum for the whole array
VARIANTS += [
    Variant("sdpa_own_softmax_global_max", A, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    e = np.exp(scores - scores.max())  # the largest score of every query at once
    weights = e / e.sum(axis=-1, keepdims=True)
    return weighted_average(weights, V), weights
'''}, misconception="softmax.global_max",
        source="the Stack Overflow softmax thread's np.max(x) over the whole array (notebook 01's softmax.global_max), "
               "written again inside attention: full marks in 02 before the probe (issue 24)"),
]

# ---------------------------------------------------------------- issue 24: diagnoses the signature identifies
VARIANTS += [
    Variant("variance_one_product_per_sample", A, "score_variance", {"score_variance": '''
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    q = rng.standard_normal(n_samples)  # one entry per vector: d_k never used
    k = rng.standard_normal(n_samples)
    return float(np.var(q * k))
'''}, misconception="score_variance.no_sum",
        source="the footnote of 'Attention Is All You Need' (§3.2.1): q·k is a sum of d_k products; drawing one "
               "product per sample gives the per-term variance 1 at every width"),
    Variant("variance_divided_by_d_k", A, "score_variance", {"score_variance": '''
def score_variance(d_k, n_samples=100_000, rng=None):
    rng = np.random.default_rng(rng)
    dots = np.einsum("nd,nd->n", rng.standard_normal((n_samples, d_k)), rng.standard_normal((n_samples, d_k)))
    return float(dots.var() / d_k)  # "per dimension": the variance of the scaled scores
'''}, misconception="score_variance.scaled_scores",
        source="Vaswani et al. 2017, footnote 4 (the raw score has variance d_k; after the division by sqrt(d_k) it "
               "is 1): the normalised variance reported for the raw one"),
    Variant("leading_weight_always_unscaled", A, "leading_weight", {"leading_weight": '''
def leading_weight(width, scaled=True):
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    if scaled == "True":  # a string never equals the bool True: the scores are never divided
        raw = raw / math.sqrt(width)
    return float(softmax(raw).max())
'''}, misconception="leading_weight.ignores_flag",
        source="issue 24: a flag ignored the other way (never scaled) than the catalogued one (always scaled); "
               "comparing a bool with a string is a classic slip (Python docs, 'Comparisons')"),
    Variant("leading_weight_divides_by_width_always", A, "leading_weight", {"leading_weight": '''
def leading_weight(width, scaled=True):
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    return float(softmax(raw / width).max())  # the flag never read, and the width for its square root
'''}, misconception="leading_weight.ignores_flag",
        source="issue 24: an ignored flag together with a wrong divisor (lucidrains/vit-pytorch issue #65)"),
]

# ---------------------------------------------------------------- issue 24: probes that tell the causes apart
VARIANTS += [
    Variant("jacobian_inner_product", A, "softmax_jacobian", {"softmax_jacobian": '''
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    return np.diag(p) - p @ p  # p . p (a number) where the outer product p p^T belongs
'''}, misconception="softmax_jacobian.inner_not_outer",
        source='p @ p of two 1-D arrays is their inner product, a number, not the outer product (numpy docs, numpy.matmul and numpy.outer)'),
    Variant("jacobian_off_diagonal_positive", A, "softmax_jacobian", {"softmax_jacobian": '''
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    J = np.outer(p, p)  # off-diagonal p_i p_j: the minus sign is lost
    np.fill_diagonal(J, p * (1 - p))
    return J
'''}, misconception="softmax_jacobian.off_diagonal_sign",
        source="the sign of the off-diagonal terms, -p_i p_j (Eli Bendersky, 'The Softmax function and its derivative')"),
    Variant("leading_weight_exp_of_raw_scores", A, "leading_weight", {"leading_weight": '''
def leading_weight(width, scaled=True):
    s = [2.0 * math.sqrt(width), 1.0 * math.sqrt(width), 0.0]
    if scaled:
        s = [x / math.sqrt(width) for x in s]
    ex = [math.exp(x) if x < 709 else float("inf") for x in s]   # its own softmax: exp of the raw scores
    return ex[0] / sum(ex)
'''}, misconception="softmax.no_max_subtraction",
        source="a softmax written out by hand from its definition, without the shift of notebook 01: right at "
               "every width whose raw scores stay in exp's range, inf / inf beyond (blind set 10)"),
    Variant("leading_weight_math_exp_raises", A, "leading_weight", {"leading_weight": '''
def leading_weight(width, scaled=True):
    root = math.sqrt(width)
    raw = [2 * root, root, 0.0]
    scores = [r / root for r in raw] if scaled else raw
    top = math.exp(scores[0])   # math.exp raises OverflowError past about 709
    return top / sum(math.exp(x) for x in scores)
'''}, misconception="softmax.no_max_subtraction",
        source="the softmax by hand with Python's math.exp, no shift: right while the raw scores stay below about 709, "
               "OverflowError beyond (blind set 12: said only as the raw error)"),

    Variant("jacobian_own_term_and_outer", A, "softmax_jacobian", {"softmax_jacobian": '''
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    own = np.diag(p - p ** 2)          # d p_i / d x_i = p_i (1 - p_i) ...
    return own - p[:, None] * p[None, :]  # ... and the cross terms subtracted over the diagonal too
'''}, misconception="softmax_jacobian.diagonal_twice",
        source="the two textbook forms of the Jacobian (by cases, and diag(p) - p p^T) mixed: the case form's "
               "diagonal with the matrix form's outer product (blind set 9); at a saturated p it equals -p p^T"),

    Variant("jacobian_diag_of_column", A, "softmax_jacobian", {"softmax_jacobian": '''
def softmax_jacobian(p):
    col = np.asarray(p, dtype=float)[:, np.newaxis]   # p as a column vector
    return np.diag(col) - col @ col.T                  # np.diag of a 2-D array extracts, it does not build
'''}, misconception="softmax_jacobian.diag_of_column",
        source="MATLAB's diag(v) builds a matrix from a column; numpy's np.diag of a 2-D array returns its diagonal "
               "(numpy docs, numpy.diag: 'If v is a 2-D array, return a copy of its k-th diagonal') (blind set 9)"),

    Variant("jacobian_no_diag", A, "softmax_jacobian", {"softmax_jacobian": '''
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    return -np.outer(p, p)  # diag(p) forgotten
'''}, misconception="softmax_jacobian.no_diag",
        source='the softmax Jacobian diag(p) - p p^T with its first term forgotten (Bendersky, as above)'),
]

# ---------------------------------------------------------------- issue 24: held out on 2026-12-02
VARIANTS += [
    Variant("leading_weight_fixed_raw_scores", A, "leading_weight", {"leading_weight": '''
def leading_weight(width, scaled=True):
    scores = np.array([2.0, 1.0, 0.0])          # the worked example's scores at every width
    if scaled:
        scores = scores / math.sqrt(width)
    return float(np.max(softmax(scores)))
'''}, misconception="leading_weight.raw_not_grown",
        source="benchmarks/heldout/heldout_2026_12_02.py (heldout_leading_weight_raw_not_grown), named 'scaled by "
               "width' then (its scaled curve is the same): the raw scores are dot products, whose size grows as "
               "sqrt(width) (Vaswani et al. 2017, footnote 4)"),
    # The task asks for scores / sqrt(d_k) as a new array of the scores' shape; the tip that math.sqrt keeps
    # float32 is advice, and every check accepts an answer computed in float64 (DEFAULT_TOLERANCES): no point lost.
    Variant("scale_scores_np_sqrt_float64", A, "scale_scores", {"scale_scores": '''
def scale_scores(scores, d_k):
    return np.asarray(scores) / np.sqrt(d_k)   # a float64 divisor: float32 scores come back as float64
'''}, correct=True),
]

# ---------------------------------------------------------------- issue 24: properties the 2026-12-03 held-out set lacked
# Each misconception below was met in benchmarks/heldout/heldout_2026_12_03.py; the answers here are written
# anew, in another form than the held-out one, so that the check is proven on the property, not on that text.
VARIANTS += [
    Variant("variance_uniform_symmetric_entries", A, "score_variance", {"score_variance": '''
def score_variance(d_k, n_samples=100_000, rng=None):
    gen = np.random.default_rng(rng)
    q = gen.uniform(-1.0, 1.0, size=(n_samples, d_k))   # "random numbers" of mean 0, but variance 1/3
    k = gen.uniform(-1.0, 1.0, size=(n_samples, d_k))
    return float(np.var(np.einsum("ij,ij->i", q, k)))
'''}, misconception="score_variance.not_standard_normal",
        source="the variance argument of Vaswani et al. 2017 (footnote 4) assumes entries of mean 0 and variance 1; "
               "uniform entries on [-1, 1] give products of variance 1/9, so the estimate is d_k / 9"),
    Variant("variance_scaled_normal_entries", A, "score_variance", {"score_variance": '''
def score_variance(d_k, n_samples=100_000, rng=None):
    gen = np.random.default_rng(rng)
    q = gen.normal(0.0, 2.0, size=(n_samples, d_k))   # the scale argument is the standard deviation
    k = gen.normal(0.0, 2.0, size=(n_samples, d_k))
    return float((q * k).sum(axis=1).var())
'''}, misconception="score_variance.not_standard_normal",
        source="numpy's normal(loc, scale) takes the standard deviation: entries of variance 4 give products of "
               "variance 16, an estimate of 16 d_k"),
    Variant("jacobian_delta_read_as_one", A, "softmax_jacobian", {"softmax_jacobian": '''
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    return np.outer(1.0 - p, p).T   # p_i (1 - p_j): the delta of p_i (delta_ij - p_j) taken as 1
'''}, misconception="softmax_jacobian.delta_as_one",
        source="d p_i / d x_j = p_i (delta_ij - p_j) (e.g. Bishop, Pattern Recognition and Machine Learning, eq. "
               "4.106); reading delta_ij as 1 gives p_i (1 - p_j) off the diagonal too"),
    Variant("sdpa_d_k_from_axis_one", A, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    Q, K = np.asarray(Q), np.asarray(K)
    n_q, d_k = Q.shape[0], Q.shape[1]          # written for one (n_q, d_k) matrix
    weights = softmax(attention_scores(Q, K) / math.sqrt(d_k), axis=-1)
    return weighted_average(weights, V), weights
'''}, misconception="attention.width_from_wrong_axis",
        source="shapes read by position (Q.shape[1]) are right for a 2-D Q only; with batch or head axes in front "
               "that axis is a batch, head or sequence length (PyTorch's scaled_dot_product_attention reads "
               "query.size(-1))"),
    Variant("sdpa_own_unstable_softmax", A, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    e = np.exp(attention_scores(Q, K) / math.sqrt(Q.shape[-1]))   # its own softmax, no shift
    weights = e / np.sum(e, axis=-1, keepdims=True)
    return weighted_average(weights, V), weights
'''}, misconception="softmax.no_max_subtraction",
        source="CS231n notes, 'Practical issues: Numeric stability' (https://cs231n.github.io/linear-classify/#softmax): "
               "a softmax written inline without the max subtraction overflows at large scores"),
]

# ---------------------------------------------------------------- issue 24: the division after the softmax
VARIANTS += [
    Variant("sdpa_scaled_after_softmax", A, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    weights = softmax(attention_scores(Q, K), axis=-1) / math.sqrt(Q.shape[-1])   # scaled weights
    return weighted_average(weights, V), weights
'''}, misconception="attention.scaled_after_softmax",
        source="Vaswani et al. 2017, eq. 1: the division by sqrt(d_k) acts on Q K^T inside the softmax; applied to "
               "the weights it leaves rows that sum to 1 / sqrt(d_k)"),
]
VARIANTS += [
    Variant("sdpa_no_softmax", A, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    weights = scale_scores(attention_scores(Q, K), Q.shape[-1])   # the scaled scores weigh the values
    return weighted_average(weights, V), weights
'''}, misconception="attention.no_softmax",
        source="Vaswani et al. 2017, eq. 1: softmax(Q K^T / sqrt(d_k)) V; without the softmax the weights are "
               "neither positive nor normalised"),
]
VARIANTS += [
    Variant("sdpa_softmax_axis_zero", A, "scaled_dot_product_attention", {"scaled_dot_product_attention": sdpa(axis="0")},
            misconception="attention.softmax_wrong_axis",
            source="a softmax along axis 0, the query axis of one (n_q, n_k) table, is a batch axis of batched "
                   "scores; the weights of each query must sum to 1 over the keys (Vaswani et al. 2017, eq. 1)"),
]

# ---------------------------------------------------------------- issue 24: written for two axes, named as such
VARIANTS += [
    Variant("sdpa_einsum_two_axes", A, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    n_q, d_k = Q.shape                                   # one sequence of queries
    weights = softmax(np.einsum("qd,kd->qk", Q, K) / math.sqrt(d_k))
    return weights @ V, weights
'''}, misconception="attention.fixed_axes",
        source="the 2-D formula softmax(Q K^T / sqrt(d_k)) V of Vaswani et al. 2017, eq. 1, written with fixed "
               "axes; numpy docs of np.einsum ('To enable and control broadcasting, use an ellipsis')"),
]

# Met in my own probes of uncatalogued mistakes (issue 24): the weights handed back key-major.
VARIANTS += [
    Variant("sdpa_weights_key_major", A, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    weights = softmax(scale_scores(attention_scores(Q, K), Q.shape[-1]))
    return weighted_average(weights, V), np.swapaxes(weights, -1, -2)   # "the attention map": keys down the side
'''}, misconception="attention.weights_transposed",
        source="attention maps are often plotted with keys on the vertical axis (e.g. Bahdanau et al. 2015, figure 3 "
               "shows source words against target words); the course's weights are (..., n_q, n_k), one row per query"),
]
# Issue 24: a divisor none of the usual mistakes gives, named by the property (one number at every input).
VARIANTS += [
    Variant("scale_by_sqrt_two_d_k", A, "scale_scores", {"scale_scores": '''
def scale_scores(scores, d_k):
    # "q . k adds 2 d_k random numbers" (the entries of q and of k)
    return np.asarray(scores) / math.sqrt(2 * d_k)
'''}, misconception="scale.wrong_divisor",
        source="the variance of q . k is d_k, one unit per product q_i k_i (Vaswani et al. 2017, footnote 4), "
               "not one per entry"),
    Variant("sdpa_divisor_doubled", A, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    scores = attention_scores(Q, K) / (2 * math.sqrt(Q.shape[-1]))   # a "temperature" of 2 sqrt(d_k)
    weights = softmax(scores)
    return weighted_average(weights, V), weights
'''}, misconception="scale.wrong_divisor",
        source="a softmax temperature folded into the divisor; scaled dot-product attention divides by sqrt(d_k) "
               "alone (Vaswani et al. 2017, eq. 1)"),
]
# Issue 24 (held-out class): a divisor written as a literal number, right at one key width only. Named as a fixed
# number from inputs whose sizes all differ (attention.scale_probe), never as the size it equals on one input.
VARIANTS += [
    Variant("scale_by_literal_two", A, "scale_scores", {"scale_scores": '''
def scale_scores(scores, d_k):
    return np.asarray(scores) / 2   # sqrt(4) worked out by hand for d_k = 4
'''}, misconception="scale.fixed_divisor",
        source="the divisor is sqrt(d_k) of the inputs at hand (Vaswani et al. 2017, eq. 1); a number worked out "
               "for one width is right at that width only"),
    Variant("sdpa_divisor_literal_two", A, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    weights = softmax(attention_scores(Q, K) / 2)   # sqrt(d_k) for d_k = 4, worked out once
    return weighted_average(weights, V), weights
'''}, misconception="scale.fixed_divisor",
        source="the divisor is sqrt(d_k) of the inputs at hand (Vaswani et al. 2017, eq. 1); a literal 2 is "
               "sqrt(4) and, on an input with 4 queries, keys or values, equals the square root of that size too"),
]

VARIANTS += [
    Variant("jacobian_of_log_softmax", A, "softmax_jacobian", {"softmax_jacobian": '''
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    n = p.shape[0]
    return np.identity(n) - np.tile(p, (n, 1))   # d log p_i / d x_j
'''}, misconception="softmax_jacobian.log_softmax",
        source="the gradient of the log-softmax, delta_ij - p_j (used with the cross-entropy loss), is not the "
               "Jacobian of the softmax itself, which carries a factor p_i (Bishop, PRML, eq. 4.106)"),
]
VARIANTS += [
    Variant("leading_weight_argmax", A, "leading_weight", {"leading_weight": '''
def leading_weight(width, scaled=True):
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    weights = softmax(raw / math.sqrt(width) if scaled else raw)
    return float(weights.argmax())   # "the leading weight"
'''}, misconception="leading_weight.returns_index",
        source="numpy's argmax returns the index of the largest entry (numpy docs, numpy.argmax), max its value"),
]

# Issue 24, blind set 7 (spent): classes named by what the answer's outcomes show, each written anew here.
VARIANTS += [
    Variant("variance_entries_of_width_scale", A, "score_variance", {"score_variance": '''
def score_variance(d_k, n_samples=100_000, rng=None):
    gen = np.random.default_rng(rng)
    q = gen.standard_normal((n_samples, d_k)) / np.sqrt(d_k)   # entries as a layer initialises them
    k = gen.standard_normal((n_samples, d_k)) / np.sqrt(d_k)
    return float(np.var(np.einsum("nd,nd->n", q, k)))
'''}, misconception="score_variance.shrunk_by_d_k",
        source="Glorot and Bengio 2010 / LeCun initialisation draw weights of variance 1/fan_in; the argument of "
               "Vaswani et al. 2017 (footnote 4) assumes entries of variance 1"),
    Variant("scale_rounded_root", A, "scale_scores", {"scale_scores": '''
def scale_scores(scores, d_k):
    return np.asarray(scores) / round(math.sqrt(d_k))   # widths are powers of 4 in practice
'''}, misconception="scale.whole_number_root",
        source="Python docs, math.isqrt and round: both return integers; right for d_k = 16 or 64 only"),
    Variant("scale_minus_root", A, "scale_scores", {"scale_scores": '''
def scale_scores(scores, d_k):
    return np.subtract(scores, d_k ** 0.5)   # "take off" the typical size of a score
'''}, misconception="scale.subtracts",
        source="'normalise by the standard deviation' half remembered as centring; the scaling divides (Vaswani et "
               "al. 2017, eq. 1)"),
    Variant("leading_weight_minimum", A, "leading_weight", {"leading_weight": '''
def leading_weight(width, scaled=True):
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    weights = softmax(raw / math.sqrt(width) if scaled else raw)
    return float(min(weights))
'''}, misconception="leading_weight.smallest_weight",
        source="np.sort is ascending (numpy docs, numpy.sort): the first entry of a sort is the smallest, not the "
               "leading weight"),
    Variant("leading_weight_paper_divisor", A, "leading_weight", {"leading_weight": '''
def leading_weight(width, scaled=True):
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    if scaled:
        raw = raw / 8.0          # sqrt(64), the head width of the paper
    return float(softmax(raw).max())
'''}, misconception="leading_weight.fixed_divisor",
        source="Vaswani et al. 2017, section 3.2.2: d_k = 64 in the paper; a divisor copied from it does not follow "
               "the width"),
    Variant("jacobian_squares_broadcast", A, "softmax_jacobian", {"softmax_jacobian": '''
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    return np.diag(p) - np.square(p)    # meant as the outer product
'''}, misconception="softmax_jacobian.squares_not_products",
        source="numpy docs, numpy.ndarray.T: 'for a 1-D array this has no effect'; p * p.T of a 1-D p is entrywise "
               "(a recurring numpy Q&A: np.outer is the outer product)"),
    Variant("jacobian_upper_half", A, "softmax_jacobian", {"softmax_jacobian": '''
def softmax_jacobian(p):
    p = np.asarray(p, dtype=float)
    n = len(p)
    J = np.zeros((n, n))
    for i in range(n):
        for j in range(i, n):                         # symmetric: the upper half is enough
            J[i, j] = p[i] * (float(i == j) - p[j])
    return J
'''}, misconception="softmax_jacobian.half_filled",
        source="a symmetric matrix stored by one triangle (LAPACK's packed storage, numpy.linalg.eigh's UPLO): "
               "the other triangle must still be written when the whole matrix is returned"),
    Variant("sdpa_averages_keys", A, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    Q, K = np.asarray(Q), np.asarray(K)
    weights = softmax(scale_scores(attention_scores(Q, K), Q.shape[-1]), axis=-1)
    return weighted_average(weights, K), weights     # the keys, where the values belong
'''}, misconception="attention.keys_averaged",
        source="keys and values are one array in many examples (K = V, e.g. Bahdanau et al. 2015's annotations); "
               "Vaswani et al. 2017, eq. 1 averages V"),
    Variant("sdpa_output_divided", A, "scaled_dot_product_attention", {"scaled_dot_product_attention": '''
def scaled_dot_product_attention(Q, K, V):
    Q = np.asarray(Q)
    weights = softmax(attention_scores(Q, K), axis=-1)
    return weighted_average(weights, V) / np.sqrt(Q.shape[-1]), weights   # scaled at the end instead
'''}, misconception="attention.divisor_after_softmax",
        source="the softmax is not linear (softmax(x / c) != softmax(x) / c); Vaswani et al. 2017, eq. 1 divides the "
               "scores before it"),
    Variant("stop_and_try_scores_ascending", A, "STOP_AND_TRY_SCORES",
            {"STOP_AND_TRY_SCORES": "STOP_AND_TRY_SCORES = np.sort(STOP_K @ STOP_Q).tolist()\n"},
            misconception="STOP_AND_TRY.sorted_scores",
            source="np.sort returns the values in ascending order (numpy docs), not in the order of the keys"),
    Variant("stop_and_try_root_of_key_count", A, "STOP_AND_TRY_WEIGHTS",
            {"STOP_AND_TRY_WEIGHTS": "STOP_AND_TRY_WEIGHTS = softmax(STOP_K @ STOP_Q / np.sqrt(STOP_K.shape[0]))\n"},
            misconception="STOP_AND_TRY.scaled_by_n_k",
            source="'divide by the square root of the dimension' read as the number of keys (Graylab/DL4Proteins-"
                   "notebooks issue #12, the wrong dimension)"),
]
