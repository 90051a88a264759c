"""Answer variants of 07_scoring_functions: typical mistakes (with where they are documented) and correct rewrites."""
from . import Variant

A = "07_scoring_functions"

# ---------------------------------------------------------------- wrong answers
ADDITIVE_SEPARATE_TANH = '''
def additive_scores(Q, K, W_q, W_k, v):
    # tanh of each projection, then added: the query and the key never meet inside the nonlinearity
    q_part = np.tanh(Q @ W_q) @ v
    k_part = np.tanh(K @ W_k) @ v
    return q_part[..., :, None] + k_part[..., None, :]
'''

ADDITIVE_PAIRS_NOT_BROADCAST = '''
def additive_scores(Q, K, W_q, W_k, v):
    # query i + key i: works only when n_q == n_k, and then pairs each query with one key
    hidden = np.tanh(Q @ W_q + K @ W_k)
    return hidden @ v
'''

ADDITIVE_NO_V = '''
def additive_scores(Q, K, W_q, W_k, v):
    hidden = (Q @ W_q)[..., :, None, :] + (K @ W_k)[..., None, :, :]
    return np.tanh(hidden).sum(axis=-1)
'''

ADDITIVE_NO_TANH = '''
def additive_scores(Q, K, W_q, W_k, v):
    hidden = (Q @ W_q)[..., :, None, :] + (K @ W_k)[..., None, :, :]
    return hidden @ v                      # the nonlinearity left out
'''

DOT_NO_SCALING = '''
def scaled_dot_scores(Q, K, W_q, W_k):
    q, k = Q @ W_q, K @ W_k
    return q @ np.swapaxes(k, -1, -2)      # the plain dot product of the projections
'''

DOT_INPUT_WIDTH = '''
def scaled_dot_scores(Q, K, W_q, W_k):
    q, k = Q @ W_q, K @ W_k
    return q @ np.swapaxes(k, -1, -2) / math.sqrt(K.shape[-1])   # the width before the projection
'''

DOT_ONE_MAP = '''
def scaled_dot_scores(Q, K, W_q, W_k):
    q, k = Q @ W_q, K @ W_q          # one map for both sides
    return q @ np.swapaxes(k, -1, -2) / math.sqrt(W_q.shape[1])
'''

BILINEAR_TRANSPOSED = '''
def bilinear_scores(Q, K, W):
    return Q @ W.T @ np.swapaxes(K, -1, -2)    # W read from the key's side
'''

BILINEAR_SCALED = '''
def bilinear_scores(Q, K, W):
    # scaled "like the dot product"
    return Q @ W @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
'''

COSTS_WITHOUT_V = '''
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * d * d + n * n * d
    return 2 * d * h, 2 * n * d * h + n * n * h     # v forgotten
'''

COSTS_PAIRS_ONLY = '''
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * d * d + n * n * d
    return 2 * d * h + (h if kind == "additive" else 0), n * n * h   # only the pairs
'''

COSTS_PAIRS_AT_INPUT_WIDTH = '''
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * d * d + n * n * d
    params = 2 * d * h + (h if kind == "additive" else 0)
    return params, 2 * n * d * h + n * n * d    # each pair compared at the width of the items
'''

COSTS_BILINEAR_PER_PAIR = '''
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * n * (d * d + d)       # W k, then q . (W k), for every pair
    return 2 * d * h + (h if kind == "additive" else 0), 2 * n * d * h + n * n * h
'''

WIDTH_ROUNDS_UP = '''
def width_for_budget(kind, d, budget):
    return math.ceil(budget / (2 * d + (1 if kind == "additive" else 0)))
'''

WIDTH_WITHOUT_V = '''
def width_for_budget(kind, d, budget):
    return budget // (2 * d)
'''

# ---------------------------------------------------------------- correct answers written differently
ADDITIVE_EINSUM_LOOP = '''
def additive_scores(Q, K, W_q, W_k, v):
    Q, K = np.asarray(Q), np.asarray(K)
    a = np.einsum("...id,dh->...ih", Q, W_q)
    c = np.einsum("...jd,dh->...jh", K, W_k)
    batch = np.broadcast_shapes(a.shape[:-2], c.shape[:-2])
    a, c = np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(c, batch + c.shape[-2:])
    out = np.empty(batch + (a.shape[-2], c.shape[-2]), dtype=np.result_type(a, c, v))
    for j in range(c.shape[-2]):          # one key at a time: memory n_q x h, not n_q x n_k x h
        out[..., j] = np.tanh(a + c[..., j:j + 1, :]) @ v
    return out
'''

DOT_FOLDED_DIVISOR = '''
def scaled_dot_scores(Q, K, W_q, W_k):
    h = np.shape(W_q)[1]
    q = Q @ (np.asarray(W_q) / h ** 0.25)     # the divisor split between the two sides
    k = K @ (np.asarray(W_k) / h ** 0.25)
    return np.einsum("...ih,...jh->...ij", q, k)
'''

BILINEAR_KEYS_FIRST = '''
def bilinear_scores(Q, K, W):
    Wk = np.asarray(K) @ np.asarray(W).T    # (..., n_k, d_q): W k for every key, once
    return np.asarray(Q) @ np.swapaxes(Wk, -1, -2)
'''

COSTS_TABLE = '''
def score_costs(kind, n, d, h):
    projections = 2 * n * d * h
    table = {"additive": (2 * d * h + h, projections + n * n * h),
             "dot": (2 * d * h, projections + n * n * h),
             "bilinear": (d ** 2, n * d ** 2 + n ** 2 * d)}
    return table[kind]
'''

WIDTH_LOOP = '''
def width_for_budget(kind, d, budget):
    h = 1
    while score_costs(kind, 1, d, h + 1)[0] <= budget:
        h += 1
    return h
'''

_MISTAKES = [
    ("additive_scores_separate_tanh", "additive_scores", ADDITIVE_SEPARATE_TANH, "additive_scores.separate_tanh",
     "Bahdanau et al. 2015, appendix A.1.2 (the tanh acts on the sum W_a s + U_a h); a common slip in "
     "re-implementations that apply the activation per projection"),
    ("additive_scores_pairs_not_broadcast", "additive_scores", ADDITIVE_PAIRS_NOT_BROADCAST,
     "additive_scores.pairs_not_broadcast",
     "commonly seen: adding the projected queries and keys without an axis per side (works only for n_q == n_k)"),
    ("additive_scores_no_v", "additive_scores", ADDITIVE_NO_V, "additive_scores.no_v",
     "commonly seen: reducing the hidden units with a sum instead of the learned vector v"),
    ("additive_scores_no_tanh", "additive_scores", ADDITIVE_NO_TANH, "additive_scores.no_tanh",
     "Bahdanau et al. 2015, appendix A.1.2 (v_a^T tanh(W_a s + U_a h)); commonly seen when the score is read as "
     "'a linear layer on the two vectors'"),
    ("scaled_dot_scores_no_scaling", "scaled_dot_scores", DOT_NO_SCALING, "scaled_dot_scores.no_scaling",
     "Vaswani et al. 2017, §3.2.1 (the scaling 1/sqrt(d_k) is what distinguishes it from dot-product attention); "
     "notebook 02"),
    ("scaled_dot_scores_input_width", "scaled_dot_scores", DOT_INPUT_WIDTH, "scaled_dot_scores.divides_by_input_width",
     "Vaswani et al. 2017, §3.2.2: each head divides by the square root of its own width d_k = d_model / h"),
    ("scaled_dot_scores_one_map", "scaled_dot_scores", DOT_ONE_MAP, "scaled_dot_scores.one_map",
     "seed 000 (one map makes the score symmetric); notebook 04 §2"),
    ("bilinear_scores_transposed", "bilinear_scores", BILINEAR_TRANSPOSED, "bilinear_scores.transposed",
     "Luong et al. 2015, §3.1 ('general' score h_t^T W_a h_s): the order of the factors fixes the direction"),
    ("bilinear_scores_scaled", "bilinear_scores", BILINEAR_SCALED, "bilinear_scores.scaled",
     "Luong et al. 2015, §3.1 ('general' is h_t^T W_a h_s, unscaled); commonly seen: carrying over the 1/sqrt(d) of "
     "scaled dot-product attention"),
    ("score_costs_without_v", "score_costs", COSTS_WITHOUT_V, "score_costs.additive_without_v",
     "commonly seen in parameter counts of additive attention that list only the two projection matrices"),
    ("score_costs_pairs_only", "score_costs", COSTS_PAIRS_ONLY, "score_costs.pairs_without_projections",
     "commonly seen: counting the n x n comparisons and not the projections of the n items"),
    ("score_costs_pairs_at_input_width", "score_costs", COSTS_PAIRS_AT_INPUT_WIDTH,
     "score_costs.pairs_at_input_width",
     "commonly seen: counting d multiply-adds per pair as for unprojected dot products, although the pairs meet at "
     "width h"),
    ("score_costs_bilinear_per_pair", "score_costs", COSTS_BILINEAR_PER_PAIR, "score_costs.bilinear_per_pair",
     "commonly seen: costing q^T W k pair by pair (Luong et al. 2015, §3.1, written per pair) instead of Q W once"),
    ("width_for_budget_rounds_up", "width_for_budget", WIDTH_ROUNDS_UP, "width_for_budget.rounds_up",
     "commonly seen: rounding a matched width to the nearest integer, which can exceed the budget"),
    ("width_for_budget_without_v", "width_for_budget", WIDTH_WITHOUT_V, "width_for_budget.additive_without_v",
     "the same omission as score_costs_without_v, applied when matching budgets"),
]

_RIGHT = [
    ("additive_scores_per_key_loop", "additive_scores", ADDITIVE_EINSUM_LOOP),
    ("scaled_dot_scores_folded_divisor", "scaled_dot_scores", DOT_FOLDED_DIVISOR),
    ("bilinear_scores_keys_first", "bilinear_scores", BILINEAR_KEYS_FIRST),
    ("score_costs_table", "score_costs", COSTS_TABLE),
]

VARIANTS = [Variant(name, A, task, {task: src}, misconception=misconception, source=source)
            for name, task, src, misconception, source in _MISTAKES]
VARIANTS += [Variant(name, A, task, {task: src}, correct=True) for name, task, src in _RIGHT]
# width_for_budget written as a search over h calls the student's own score_costs.
VARIANTS.append(Variant("width_for_budget_search", A, "width_for_budget", {"width_for_budget": WIDTH_LOOP},
                        correct=True))

# ---------------------------------------------------------------- issue 24: properties the 2026-12-03 held-out set lacked
# Each misconception below was met in benchmarks/heldout/heldout_2026_12_03.py; the answers here are written
# anew, in another form than the held-out one, so that the check is proven on the property, not on that text.
VARIANTS += [
    Variant("additive_scores_keys_first", A, "additive_scores", {"additive_scores": '''
def additive_scores(Q, K, W_q, W_k, v):
    a = np.expand_dims(Q @ W_q, -3)      # (..., 1, n_q, h)
    c = np.expand_dims(K @ W_k, -2)      # (..., n_k, 1, h)
    return np.einsum("...h,h->...", np.tanh(a + c), v)
'''}, misconception="additive_scores.keys_by_queries",
        source="broadcasting the two projections against each other needs each its own new axis (numpy docs, "
               "'Broadcasting'); put the other way round, the table has one row per key (Bahdanau et al. 2015 score "
               "e_ij for decoder step i and source position j)"),
    Variant("scaled_dot_scores_by_width", A, "scaled_dot_scores", {"scaled_dot_scores": '''
def scaled_dot_scores(Q, K, W_q, W_k):
    q, k = Q @ W_q, K @ W_k
    return np.einsum("...id,...jd->...ij", q, k) * (1.0 / q.shape[-1])   # "normalised by the width"
'''}, misconception="scaled_dot_scores.divides_by_width",
        source="the divisor of scaled dot-product attention is sqrt(d_k), the standard deviation of a dot product "
               "of d_k unit-variance terms (Vaswani et al. 2017, §3.2.1 and footnote 4), not d_k"),
    Variant("width_for_budget_fractional", A, "width_for_budget", {"width_for_budget": '''
def width_for_budget(kind, d, budget):
    cost_of_one_unit = 2 * d + 1 if kind == "additive" else 2 * d
    return budget / cost_of_one_unit     # how many units the budget buys
'''}, misconception="width_for_budget.true_division",
        source="Python 3's `/` is true division (PEP 238): budget / cost gives 12.6 units where a width counts "
               "whole ones; a common slip of students coming from C or Python 2, where int / int floors (blind set 10)"),
    Variant("width_for_budget_round_half_up", A, "width_for_budget", {"width_for_budget": '''
def width_for_budget(kind, d, budget):
    per_unit = 2 * d + (1 if kind == "additive" else 0)
    return int(budget / per_unit + 0.5)      # to the nearest width
'''}, misconception="width_for_budget.rounds_up",
        source="rounding a matched width to the nearest integer exceeds the budget whenever the fraction is at "
               "least one half; the largest width within the budget is the floor"),
]

# ---------------------------------------------------------------- issue 24: diagnoses that are right when they speak
# A count is named only by a mistake that explains every call (at d = 2 h the tanh count equals d per pair), and
# an error on a batched call names a mistake only where that mistake's error on one sequence is the answer's too.
VARIANTS += [
    Variant("score_costs_counts_tanh", A, "score_costs", {"score_costs": '''
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * d * d + n * n * d
    projections, per_pair = 2 * n * d * h, n * n * h
    if kind == "additive":
        per_pair += n * n * h        # one tanh per hidden unit of every pair
        return 2 * d * h + h, projections + per_pair
    return 2 * d * h, projections + per_pair
'''}, misconception="score_costs.counts_tanh",
        source="the reference counts only multiply-adds (attention_ref.scoring.score_costs: 'Additions, the tanh "
               "... are not counted'); commonly seen: costing every elementary operation of v^T tanh(W q + U k)"),
    Variant("additive_scores_two_axes_only", A, "additive_scores", {"additive_scores": '''
def additive_scores(Q, K, W_q, W_k, v):
    a, c = Q @ W_q, K @ W_k                       # (n_q, h) and (n_k, h)
    hidden = np.tanh(a[:, None, :] + c[None, :, :])
    return hidden @ v
'''}, misconception="additive_scores.fixed_axes",
        source="broadcasting written for one sequence (numpy docs, 'Broadcasting': a[:, None] + b[None, :]); with a "
               "batch axis in front, `:` and None land on the wrong axes"),
]

# ---------------------------------------------------------------- issue 24: properties the 2026-12-04 held-out set lacked
# Written anew (another form than the held-out answer) so that the check is proven on the property.
VARIANTS += [
    Variant("scaled_dot_scores_one_sequence_einsum", A, "scaled_dot_scores", {"scaled_dot_scores": '''
def scaled_dot_scores(Q, K, W_q, W_k):
    q, k = Q @ W_q, K @ W_k
    return np.einsum("ih,jh->ij", q, k) / math.sqrt(W_q.shape[1])   # subscripts for one (n, h) matrix
'''}, misconception="scaled_dot_scores.fixed_axes",
        source="einsum subscripts without '...' accept exactly as many axes as they name (numpy docs, numpy.einsum, "
               "'broadcasting ... with ellipsis'); ndarray.T reverses every axis of a stack the same way"),
    Variant("additive_scores_one_sequence", A, "additive_scores", {"additive_scores": '''
def additive_scores(Q, K, W_q, W_k, v):
    a = np.expand_dims(Q @ W_q, 1)        # (n_q, 1, h): axis 1 is "the key axis" of one sequence
    c = np.expand_dims(K @ W_k, 0)        # (1, n_k, h)
    return np.tanh(a + c) @ v
'''}, misconception="additive_scores.fixed_axes",
        source="new axes placed by position (1 and 0) fit one (n, d) matrix only; with batch axes in front they "
               "land among the batch axes (numpy docs, numpy.expand_dims: negative axes count from the end)"),
    Variant("scaled_dot_scores_keys_first", A, "scaled_dot_scores", {"scaled_dot_scores": '''
def scaled_dot_scores(Q, K, W_q, W_k):
    q, k = Q @ W_q, K @ W_k
    return np.einsum("...jh,...ih->...ji", k, q) / math.sqrt(q.shape[-1])   # keys as rows
'''}, misconception="scaled_dot_scores.keys_by_queries",
        source="the table of scores is indexed (query, key) (Vaswani et al. 2017, §3.2.1: Q K^T); written key-first "
               "it holds the same numbers, transposed"),
    Variant("bilinear_scores_key_rows", A, "bilinear_scores", {"bilinear_scores": '''
def bilinear_scores(Q, K, W):
    return K @ (Q @ W).swapaxes(-1, -2)      # (n_k, n_q): one row per key
'''}, misconception="bilinear_scores.keys_by_queries",
        source="Luong et al. 2015, §3.1: score(h_t, h_s) for decoder step t (a row) and source position s (a column)"),
    Variant("score_costs_work_first", A, "score_costs", {"score_costs": '''
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return n * d * d + n * n * d, d * d           # (multiply-adds, parameters)
    params = 2 * d * h + (h if kind == "additive" else 0)
    return 2 * n * d * h + n * n * h, params
'''}, misconception="score_costs.swapped_pair",
        source="the task asks for (parameters, multiply_adds); cost tables often list compute before size"),
    Variant("bilinear_scores_dot_T", A, "bilinear_scores", {"bilinear_scores": '''
def bilinear_scores(Q, K, W):
    return np.dot(Q @ W, K.T)      # K.T: the keys as columns, for one sequence
'''}, misconception="bilinear_scores.fixed_axes",
        source="ndarray.T reverses every axis (numpy docs, numpy.ndarray.T), so on a stack of sequences the batch "
               "axes move too; flrngel/Self-Attentive-tensorflow issue #3"),
]

# Issue 24 (held-out class): a Python slip of operator precedence, named by the numbers it gives at every budget.
VARIANTS += [
    Variant("width_budget_precedence", A, "width_for_budget", {"width_for_budget": '''
def width_for_budget(kind, d, budget):
    if kind == "additive":
        return budget // 2*d + 1      # meant: budget // (2*d + 1)
    return budget // 2*d              # meant: budget // (2*d)
'''}, misconception="width_for_budget.precedence",
        source="Python's language reference, 'Operator precedence': *, /, // and % share one level and group from "
               "left to right, so a // 2*d is (a // 2) * d"),
]

# ---------------------------------------------------------------- issue 24, blind set 6: the nonlinearity, and a budget met exactly
VARIANTS += [
    Variant("additive_scores_tanh_of_the_score", A, "additive_scores", {"additive_scores": '''
def additive_scores(Q, K, W_q, W_k, v):
    hidden = (Q @ W_q)[..., :, None, :] + (K @ W_k)[..., None, :, :]
    return np.tanh(hidden @ v)   # the nonlinearity on the score
'''}, misconception="additive_scores.tanh_after_v",
        source="Bahdanau et al. 2015 (appendix A.1.2): e_ij = v_a^T tanh(W_a s_{i-1} + U_a h_j), the tanh inside, "
               "on every hidden unit; read as tanh(v^T (...)) it squeezes the score"),
    Variant("additive_scores_relu_units", A, "additive_scores", {"additive_scores": '''
def additive_scores(Q, K, W_q, W_k, v):
    hidden = (Q @ W_q)[..., :, None, :] + (K @ W_k)[..., None, :, :]
    return np.maximum(hidden, 0.0) @ v   # "an MLP": ReLU hidden units
'''}, misconception="additive_scores.wrong_nonlinearity",
        source="the additive score described as 'a one-hidden-layer MLP' (Luong et al. 2015, 'concat' score; "
               "d2l.ai 11.3 Additive Attention) and written with the ReLU of most MLPs instead of tanh"),
    Variant("width_for_budget_strictly_below", A, "width_for_budget", {"width_for_budget": '''
def width_for_budget(kind, d, budget):
    per_unit = 2 * d + (1 if kind == "additive" else 0)
    h = 1
    while (h + 1) * per_unit < budget:   # stay under the budget
        h += 1
    return h
'''}, misconception="width_for_budget.strict_budget",
        source="'within a budget' read as strictly below it; the task asks for the largest width whose parameters "
               "fit, a budget met exactly included"),
]

# Issue 24, blind set 7 (spent): classes named by what the answer's outcomes show, each written anew here.
VARIANTS += [
    Variant("score_costs_counts_the_sum_of_projections", A, "score_costs", {"score_costs": '''
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * d * d + n * n * d
    projections = 2 * n * d * h
    if kind == "dot":
        return 2 * d * h, projections + n * n * h
    adds = n * n * h                         # q W_q + k W_k: h additions for every pair
    return 2 * d * h + h, projections + adds + n * n * h
'''}, misconception="score_costs.counts_tanh",
        source="a multiply-add counts a product with its addition (as FLOP counters do: e.g. fvcore's counting "
               "of matmuls); a bare addition of two projections, like a tanh, is no multiply-add"),
    Variant("score_costs_counts_the_scaling", A, "score_costs", {"score_costs": '''
def score_costs(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * d * d + n * n * d
    if kind == "additive":
        return 2 * d * h + h, 2 * n * d * h + n * n * h
    return 2 * d * h, 2 * n * d * h + n * n * (h + 1)    # + the scaling of each of the n^2 scores
'''}, misconception="score_costs.counts_scaling",
        source="scaling a finished score is one operation, not a multiply-add of the dot product (the course's "
               "count follows the matrix products, as FLOP counters do)"),
    Variant("width_loop_until_over", A, "width_for_budget", {"width_for_budget": '''
def width_for_budget(kind, d, budget):
    cost = 2 * d + (1 if kind == "additive" else 0)
    width = 0
    while width * cost <= budget:     # stops at the first width that does not fit
        width += 1
    return width
'''}, misconception="width_for_budget.first_over_budget",
        source="an off-by-one loop exit: the while loop ends on the first width past the budget, one more than the "
               "answer (a classic, e.g. Python docs' tutorial on while loops and break)"),
    Variant("width_both_with_v", A, "width_for_budget", {"width_for_budget": '''
def width_for_budget(kind, d, budget):
    return budget // (2 * d + 1)      # W_q, W_k and v for each unit, whatever the kind
'''}, misconception="width_for_budget.dot_charged_for_v",
        source="Bahdanau et al. 2015's additive score has v_a; the scaled dot score (Vaswani et al. 2017) has none"),
    Variant("additive_query_map_twice", A, "additive_scores", {"additive_scores": '''
def additive_scores(Q, K, W_q, W_k, v):
    q = np.asarray(Q) @ np.asarray(W_q)
    k = np.asarray(K) @ np.asarray(W_q)          # one map for both sides
    return np.tanh(q[..., :, None, :] + k[..., None, :, :]) @ np.asarray(v)
'''}, misconception="additive_scores.one_map",
        source="Bahdanau et al. 2015, eq. in appendix A.1.2: W_a for the decoder state and U_a for the annotations, "
               "two maps"),
    Variant("additive_mean_of_units", A, "additive_scores", {"additive_scores": '''
def additive_scores(Q, K, W_q, W_k, v):
    q = np.asarray(Q) @ np.asarray(W_q)
    k = np.asarray(K) @ np.asarray(W_k)
    units = np.tanh(q[..., :, None, :] + k[..., None, :, :]) * np.asarray(v)
    return np.mean(units, axis=-1)               # "pool" the hidden units
'''}, misconception="additive_scores.mean_over_units",
        source="v^T tanh(...) is a sum over the hidden units (Bahdanau et al. 2015); a mean divides it by h"),
    Variant("additive_column_vector_maps", A, "additive_scores", {"additive_scores": '''
def additive_scores(Q, K, W_q, W_k, v):
    q = np.einsum("hd,...nd->...nh", np.asarray(W_q), np.asarray(Q))   # W q for each column vector q
    k = np.einsum("hd,...nd->...nh", np.asarray(W_k), np.asarray(K))
    return np.tanh(q[..., :, None, :] + k[..., None, :, :]) @ np.asarray(v)
'''}, misconception="additive_scores.maps_transposed",
        source="papers write W_a s_{i-1} + U_a h_j for column vectors (Bahdanau et al. 2015); the course's rows "
               "are mapped as q W"),
    Variant("scaled_dot_by_map_entries", A, "scaled_dot_scores", {"scaled_dot_scores": '''
def scaled_dot_scores(Q, K, W_q, W_k):
    q, k = np.asarray(Q) @ np.asarray(W_q), np.asarray(K) @ np.asarray(W_k)
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(np.size(W_q))     # the size of the map
'''}, misconception="scaled_dot_scores.divides_by_map_size",
        source="numpy docs, numpy.size: the number of elements (rows x columns), where the projected width is "
               "W_q.shape[1]"),
    Variant("bilinear_matching_rows", A, "bilinear_scores", {"bilinear_scores": '''
def bilinear_scores(Q, K, W):
    return np.einsum("...id,de,...ie->...i", np.asarray(Q), np.asarray(W), np.asarray(K))   # q_i W k_i
'''}, misconception="bilinear_scores.pairs_row_by_row",
        source="einsum with one index i for both operands pairs row i with row i only (numpy docs, numpy.einsum); "
               "every query meets every key in attention"),
    Variant("bilinear_both_directions_averaged", A, "bilinear_scores", {"bilinear_scores": '''
def bilinear_scores(Q, K, W):
    Q, K, W = np.asarray(Q), np.asarray(K), np.asarray(W)
    Kt = np.swapaxes(K, -1, -2)
    return 0.5 * (Q @ W @ Kt + Q @ W.T @ Kt)     # "the score should not depend on the direction"
'''}, misconception="bilinear_scores.symmetrised",
        source="x^T W y = x^T W_sym y holds only for x = y (a quadratic form); a bilinear score of two different "
               "vectors reads the antisymmetric part of W too"),
]
