"""Answer variants of 04_heads: typical mistakes (with where they are documented) and correct rewrites."""
from . import Variant

A = "04_heads"

# ---------------------------------------------------------------- wrong answers
SPLIT_RESHAPE_ONLY = '''
def split_heads(X, num_heads):
    X = np.asarray(X)
    *batch, n, d_model = X.shape
    return X.reshape(*batch, num_heads, n, d_model // num_heads)  # no transpose
'''

MERGE_RESHAPE_ONLY = '''
def merge_heads(X):
    X = np.asarray(X)
    *batch, h, n, d = X.shape
    return X.reshape(*batch, n, h * d)  # no transpose back
'''

MHA_DIVISOR_FULL_WIDTH = '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None and np.ndim(mask) >= 2:
        mask = np.expand_dims(mask, -3)
    d_model = np.shape(X_q)[-1]
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask, scale=1 / math.sqrt(d_model))
    return project(merge_heads(heads), W_o), weights
'''

MHA_NO_OUTPUT_PROJECTION = '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None and np.ndim(mask) >= 2:
        mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return merge_heads(heads), weights  # concatenated heads, no W_o
'''

MHA_SHARED_QK = '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_q), num_heads)  # the query map reused for the keys
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None and np.ndim(mask) >= 2:
        mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
'''

MHA_MASK_NO_HEAD_AXIS = '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)  # (batch, n_q, n_k) mask meets (batch, h, n_q, n_k)
    return project(merge_heads(heads), W_o), weights
'''

COUNT_TIMES_HEADS = '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model // num_heads if d_k is None else d_k
    d_v = d_model // num_heads if d_v is None else d_v
    per_head = d_model * num_heads * (2 * d_k + d_v) + (num_heads * d_v * d_model if output_projection else 0)
    return per_head * num_heads  # "every head has its own maps", counted once too often
'''

COUNT_NO_WO = '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model // num_heads if d_k is None else d_k
    d_v = d_model // num_heads if d_v is None else d_v
    return d_model * num_heads * (2 * d_k + d_v)  # W_q, W_k, W_v only
'''

COUNT_THREE_EQUAL = '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model // num_heads if d_k is None else d_k
    d_v = d_model // num_heads if d_v is None else d_v
    count = 3 * d_model * num_heads * d_k  # three maps of the same width
    if output_projection:
        count += num_heads * d_v * d_model
    return count
'''

# ---------------------------------------------------------------- correct answers written differently
PROJECT_EINSUM = '''
def project(X, W):
    return np.einsum("...nd,de->...ne", X, W)
'''

SPLIT_SLICES_MERGE_CONCAT = {
    "split_heads": '''
def split_heads(X, num_heads):
    X = np.asarray(X)
    d = X.shape[-1] // num_heads
    return np.stack([X[..., i * d:(i + 1) * d] for i in range(num_heads)], axis=-3)
''',
    "merge_heads": '''
def merge_heads(X):
    X = np.asarray(X)
    return np.concatenate([X[..., i, :, :] for i in range(X.shape[-3])], axis=-1)
''',
}

MHA_PER_HEAD_LOOP = '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    X_q, X_kv = np.asarray(X_q), np.asarray(X_kv)
    d_k = W_q.shape[1] // num_heads
    d_v = W_v.shape[1] // num_heads
    inv_sqrt = 1.0 / math.sqrt(d_k)
    outputs, weights = [], []
    for i in range(num_heads):
        Q = X_q @ W_q[:, i * d_k:(i + 1) * d_k]
        K = X_kv @ W_k[:, i * d_k:(i + 1) * d_k]
        V = X_kv @ W_v[:, i * d_v:(i + 1) * d_v]
        scores = np.einsum("...qd,...kd->...qk", Q, K) * inv_sqrt
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        w = softmax(scores)  # the given softmax gives zeros for a row with every key masked
        weights.append(w)
        outputs.append(w @ V)
    return np.concatenate(outputs, axis=-1) @ W_o, np.stack(weights, axis=-3)
'''

COUNT_FROM_SHAPES = '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model // num_heads if d_k is None else d_k
    d_v = d_model // num_heads if d_v is None else d_v
    shapes = [(d_model, num_heads * d_k), (d_model, num_heads * d_k), (d_model, num_heads * d_v)]
    if output_projection:
        shapes.append((num_heads * d_v, d_model))
    return sum(rows * cols for rows, cols in shapes)
'''

VARIANTS = [
    Variant("split_heads_reshape_without_transpose", A, "split_heads", {"split_heads": SPLIT_RESHAPE_ONLY},
            misconception="split_heads.reshape_without_transpose", source="https://github.com/reczoo/FuxiCTR/issues/30 ; https://github.com/hyunwoongko/transformer/issues/15"),
    Variant("merge_heads_reshape_without_transpose", A, "merge_heads", {"merge_heads": MERGE_RESHAPE_ONLY},
            misconception="merge_heads.reshape_without_transpose", source="https://github.com/jsbaan/transformer-from-scratch/pull/6 ; "
                   "https://github.com/ajhalthor/Transformer-Neural-Network/issues/8"),
    Variant("multi_head_attention_divisor_d_model", A, "multi_head_attention", {"multi_head_attention": MHA_DIVISOR_FULL_WIDTH},
            misconception="multi_head_attention.divisor_d_model",
            source="https://github.com/omihub777/ViT-CIFAR/pull/11 ; https://github.com/karpathy/ng-video-lecture/pull/6 ; "
                   "https://github.com/chelsea0x3b/dfdx/issues/171"),
    Variant("multi_head_attention_no_output_projection", A, "multi_head_attention",
            {"multi_head_attention": MHA_NO_OUTPUT_PROJECTION}, misconception="multi_head_attention.no_output_projection",
            source="https://github.com/Kyubyong/transformer/issues/117 ; https://github.com/jwallbridge/translob/issues/4"),
    Variant("multi_head_attention_shared_qk_map", A, "multi_head_attention", {"multi_head_attention": MHA_SHARED_QK},
            misconception="multi_head_attention.shared_qk_map",
            source="seed 000 (L1: 'The three maps are separate on purpose'); seed 002 misconception "
                   "'Keys and values are the same thing'"),
    Variant("multi_head_attention_mask_no_head_axis", A, "multi_head_attention", {"multi_head_attention": MHA_MASK_NO_HEAD_AXIS},
            misconception="multi_head_attention.mask_no_head_axis",
            source="https://github.com/hyunwoongko/transformer/issues/32 ; annotated-transformer's mask.unsqueeze(1) "
                   "(https://github.com/harvardnlp/annotated-transformer/issues/118)"),
    Variant("attention_param_count_times_heads", A, "attention_param_count", {"attention_param_count": COUNT_TIMES_HEADS},
            misconception="attention_param_count.times_heads",
            source="https://hungsblog.de/en/technology/learnings/visual-explanation-of-multi-head-attention/ "
                   "(why the number of heads does not change the parameter count); seed 000 L1"),
    Variant("attention_param_count_no_output_projection", A, "attention_param_count", {"attention_param_count": COUNT_NO_WO},
            misconception="attention_param_count.no_output_projection",
            source="seed 000 L1 ('they add the output projection that recombines them'); "
                   "https://github.com/Kyubyong/transformer/issues/117"),
    Variant("attention_param_count_three_equal_maps", A, "attention_param_count", {"attention_param_count": COUNT_THREE_EQUAL},
            misconception="attention_param_count.three_equal_maps",
            source="seed 000 L1 ('three times only in the paper's setting where the two widths agree')"),
    # correct answers written differently
    # X @ W.T fails with numpy's shape error on a non-square map; the square map of the seed example
    # names the mistake, and multi_head_attention is graded with the reference's project (isolation).
    Variant("project_transposed_map", A, "project",
            {"project": "def project(X, W):\n    return np.asarray(X) @ np.asarray(W).T"},
            misconception="project.transposed_map", source="nn.Linear stores its weight as (out, in) and computes x @ W.T; with the course's (in, out) "
                   "maps the transpose is the mistake"),
    Variant("project_einsum", A, "project", {"project": PROJECT_EINSUM}, correct=True),
    Variant("split_slices_merge_concatenate", A, "split_heads", SPLIT_SLICES_MERGE_CONCAT, correct=True),
    Variant("multi_head_attention_per_head_loop", A, "multi_head_attention", {"multi_head_attention": MHA_PER_HEAD_LOOP},
            correct=True),
    Variant("attention_param_count_from_shapes", A, "attention_param_count", {"attention_param_count": COUNT_FROM_SHAPES},
            correct=True),
]

# ---------------------------------------------------------------- added for issue 14 (every misconception exercised)
MHA_TEMPLATE = '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), {h})
    K = split_heads(project(X_kv, W_k), {h})
    V = split_heads(project(X_kv, W_v), {h})
    if mask is not None and np.ndim(mask) >= 2:
        mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask={mask}{scale})
    return project(merge_heads(heads), W_o), {weights}
'''


def mha(h="num_heads", mask="mask", scale="", weights="weights"):
    return {"multi_head_attention": MHA_TEMPLATE.format(h=h, mask=mask, scale=scale, weights=weights)}


VARIANTS += [
    Variant("split_heads_no_head_axis_move", A, "split_heads", {"split_heads": '''
def split_heads(X, num_heads):
    X = np.asarray(X)
    return X.reshape(*X.shape[:-1], num_heads, X.shape[-1] // num_heads)  # (..., n, heads, d)
'''}, misconception="split_heads.no_transpose",
        source="the Annotated Transformer's view(nbatches, -1, h, d_k).transpose(1, 2): the transpose forgotten"),
    Variant("split_heads_strided_columns", A, "split_heads", {"split_heads": '''
def split_heads(X, num_heads):
    X = np.asarray(X)
    return np.stack([X[..., i::num_heads] for i in range(num_heads)], axis=-3)  # every h-th column
'''}, misconception="split_heads.interleaved",
        source="strided slicing X[..., i::h] instead of contiguous blocks (head i = columns i*d .. (i+1)*d)"),
    Variant("merge_heads_interleaved", A, "merge_heads", {"merge_heads": '''
def merge_heads(X):
    X = np.asarray(X)
    *batch, h, n, d = X.shape
    return np.moveaxis(X, -3, -1).reshape(*batch, n, d * h)  # column j*h + head: interleaved
'''}, misconception="merge_heads.wrong_order",
        source="moving the head axis last before the reshape interleaves the heads' columns (issue 14)"),
    Variant("count_always_with_output_map", A, "attention_param_count", {"attention_param_count": '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model // num_heads if d_k is None else d_k
    d_v = d_model // num_heads if d_v is None else d_v
    return d_model * num_heads * (2 * d_k + d_v) + num_heads * d_v * d_model  # W_o always counted
'''}, misconception="attention_param_count.ignores_flag",
        source="the output projection is optional in some layers (nn.MultiheadAttention always has out_proj)"),
    Variant("mha_no_scaling", A, "multi_head_attention", mha(scale=", scale=1.0"),
            misconception="multi_head_attention.no_scaling",
            source="scale=1.0 passed to attention (Vaswani et al. 2017 divide by sqrt(d_k))"),
    Variant("mha_one_head", A, "multi_head_attention", mha(h="1"), misconception="multi_head_attention.single_head",
            source="num_heads accepted and not used: one head over the full width"),
    Variant("mha_mask_dropped", A, "multi_head_attention", mha(mask="None"),
            misconception="multi_head_attention.mask_ignored",
            source="facebookresearch/xformers issue #103 (a mask silently not applied)"),
    Variant("mha_weights_mean", A, "multi_head_attention", mha(weights="weights.mean(axis=-3)"),
            misconception="multi_head_attention.weights_averaged",
            source="nn.MultiheadAttention returns head-averaged weights by default (average_attn_weights=True)"),
]

VARIANTS += [
    Variant("count_widths_swapped", A, "attention_param_count", {"attention_param_count": '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model // num_heads if d_k is None else d_k
    d_v = d_model // num_heads if d_v is None else d_v
    maps = d_model * num_heads * (2 * d_v + d_k)  # query/key maps counted with d_v, the value map with d_k
    return maps + (num_heads * d_v * d_model if output_projection else 0)
'''}, misconception="attention_param_count.widths_swapped",
        source="d_k and d_v are equal in most layers (Vaswani et al. 2017, d_k = d_v = 64), so swapping them "
               "goes unnoticed until they differ"),
    Variant("mha_inline_reshape_split", A, "multi_head_attention", {"multi_head_attention": '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    def cut(Y):  # its own split, without the transpose
        *batch, n, w = Y.shape
        return Y.reshape(*batch, num_heads, n, w // num_heads)
    Q, K, V = cut(project(X_q, W_q)), cut(project(X_kv, W_k)), cut(project(X_kv, W_v))
    if mask is not None and np.ndim(mask) >= 2:
        mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
'''}, misconception="multi_head_attention.split_without_transpose",
        source="the Annotated Transformer's view(...).transpose(1, 2) written inline without the transpose"),
    Variant("mha_inline_reshape_merge", A, "multi_head_attention", {"multi_head_attention": '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None and np.ndim(mask) >= 2:
        mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    *batch, h, n, d = heads.shape
    return project(heads.reshape(*batch, n, h * d), W_o), weights  # its own merge, no transpose back
'''}, misconception="multi_head_attention.merge_without_transpose",
        source="the Annotated Transformer's transpose(1, 2).contiguous().view(...) written without the transpose"),
]

VARIANTS += [
    Variant("tensordot_moveaxis_heads", A, "split_heads", {
        "project": '''
def project(X, W):
    return np.tensordot(np.asarray(X), np.asarray(W), axes=1)
''',
        "split_heads": '''
def split_heads(X, num_heads):
    X = np.asarray(X)
    *batch, n, w = X.shape
    return np.moveaxis(X.reshape(*batch, n, num_heads, w // num_heads), -2, -3)
''',
        "merge_heads": '''
def merge_heads(X):
    X = np.asarray(X)
    *batch, h, n, d = X.shape
    return np.moveaxis(X, -3, -2).reshape(*batch, n, h * d)
''',
        "attention_param_count": '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_k or d_model // num_heads
    d_v = d_v or d_model // num_heads
    w_q = w_k = d_model * num_heads * d_k
    w_v = d_model * num_heads * d_v
    w_o = num_heads * d_v * d_model if output_projection else 0
    return w_q + w_k + w_v + w_o
'''}, correct=True),
]

# ---------------------------------------------------------------- issue 24: probes that tell the causes apart
VARIANTS += [
    Variant("split_heads_moved_to_front", A, "split_heads", {"split_heads": '''
def split_heads(X, num_heads):
    X = np.asarray(X)
    *batch, n, d_model = X.shape
    Y = X.reshape(*batch, n, num_heads, d_model // num_heads)
    return np.moveaxis(Y, -2, 0)  # the head axis in front of everything, batch axes too
'''}, misconception="split_heads.heads_before_batch",
        source="np.moveaxis(Y, -2, 0) moves the head axis in front of the batch axes too (numpy docs, numpy.moveaxis); the head axis goes before the positions, as in PyTorch's MultiheadAttention (batch, heads, n, d)"),
    Variant("merge_heads_stacks_positions", A, "merge_heads", {"merge_heads": '''
def merge_heads(X):
    X = np.asarray(X)
    *batch, h, n, d = X.shape
    return X.reshape(*batch, h * n, d)  # the heads stacked under each other
'''}, misconception="merge_heads.stacked_positions",
        source='a reshape to (h * n, d) stacks the heads along the positions (numpy docs, numpy.reshape: C order), where concatenating along the last axis was meant'),
    Variant("merge_heads_moveaxis_first", A, "merge_heads", {"merge_heads": '''
def merge_heads(X):
    X = np.asarray(X)
    *batch, h, n, d = X.shape
    return np.moveaxis(X, 0, -2).reshape(*batch, n, h * d)  # axis 0 is the head axis only without batch axes
'''}, misconception="merge_heads.moves_batch_axis",
        source='axis 0 is the head axis only without batch axes; counting axes from the end (-3) works for both (numpy docs, numpy.moveaxis)'),
    Variant("mha_weights_transposed", A, "multi_head_attention", {"multi_head_attention": '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.ndim >= 2:
            mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), np.swapaxes(weights, -1, -2)  # one column per query
'''}, misconception="multi_head_attention.weights_transposed",
        source="attention weights are (..., n_q, n_k), one row per query (PyTorch's MultiheadAttention docs: attn_output_weights (N, L, S)); a swapaxes(-1, -2) gives one row per key"),
]

# ---------------------------------------------------------------- issue 24: held out on 2026-12-02, named wrongly then
VARIANTS += [
    Variant("mha_values_from_queries", A, "multi_head_attention", {"multi_head_attention": '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_q, W_v), num_heads)   # copied from the query line
    if mask is not None:
        mask = np.asarray(mask)
        if mask.ndim >= 2:
            mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
'''}, misconception="multi_head_attention.values_from_queries",
        source="benchmarks/heldout/heldout_2026_12_02.py (heldout_mha_values_from_queries), named 'mask has no "
               "head axis' then; keys and values both come from the memory X_kv (Vaswani et al. 2017, §3.2.3: "
               "'the memory keys and values come from the output of the encoder')"),
]

# ---------------------------------------------------------------- issue 24: properties the 2026-12-03 held-out set lacked
# Each misconception below was met in benchmarks/heldout/heldout_2026_12_03.py; the answers here are written
# anew, in another form than the held-out one, so that the check is proven on the property, not on that text.
VARIANTS += [
    Variant("merge_heads_hstack_axis0", A, "merge_heads", {"merge_heads": '''
def merge_heads(X):
    X = np.asarray(X)
    return np.dstack(tuple(X)) if X.ndim > 3 else np.hstack(tuple(X))  # one piece per entry of axis 0
'''}, misconception="merge_heads.moves_batch_axis",
        source="iterating over an array walks its axis 0 (numpy docs, 'Indexing on ndarrays'), which is the batch "
               "axis, not the head axis, once batch axes come first"),
    Variant("mha_keys_from_queries", A, "multi_head_attention", {"multi_head_attention": '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(X_q @ W_q, num_heads)
    K = split_heads(X_q @ W_k, num_heads)    # copied from the line above
    V = split_heads(X_kv @ W_v, num_heads)
    if mask is not None:
        mask = np.expand_dims(np.asarray(mask), -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return merge_heads(heads) @ W_o, weights
'''}, misconception="multi_head_attention.keys_from_queries",
        source="keys and values both come from the memory X_kv (Vaswani et al. 2017, §3.2.3: 'the memory keys and "
               "values come from the output of the encoder'); in self-attention X_q is X_kv and the slip is invisible"),
    Variant("param_count_single_head", A, "attention_param_count", {"attention_param_count": '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_k if d_k is not None else d_model // num_heads
    d_v = d_v if d_v is not None else d_model // num_heads
    per_head = d_model * d_k + d_model * d_k + d_model * d_v   # W_q, W_k, W_v of a head
    out = d_v * d_model if output_projection else 0
    return per_head + out                                      # ... and nothing multiplies by the heads
'''}, misconception="attention_param_count.one_head",
        source="the per-head maps of the paper's §3.2.2 (W_i^Q in R^{d_model x d_k}) counted once, as if the "
               "layer had one head (blind set 10)"),

    Variant("param_count_missing_parentheses", A, "attention_param_count", {"attention_param_count": '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model // num_heads if d_k is None else d_k
    d_v = d_model // num_heads if d_v is None else d_v
    n = d_model * num_heads * 2 * d_k + d_v     # meant: d_model * num_heads * (2 * d_k + d_v)
    return n + (num_heads * d_v * d_model if output_projection else 0)
'''}, misconception="attention_param_count.precedence",
        source="operator precedence (Python reference, 6.17 'Operator precedence': * binds tighter than +): the "
               "parentheses around the sum of widths left out (blind set 10)"),

    Variant("score_asymmetry_frobenius", A, "score_asymmetry", {"score_asymmetry": '''
def score_asymmetry(X, W_q, W_k):
    S = (X @ W_q) @ (X @ W_k).T
    gap = S - S.T
    return float(np.sqrt(np.sum(gap * gap)))  # "how big is the difference": the Frobenius norm of the whole table
'''}, misconception="score_asymmetry.norm_not_largest",
        source="'how far from symmetric' measured as ||S - S^T||_F, the usual matrix distance of linear algebra "
               "courses, where the question asks for the largest gap of one pair (blind set 10)"),

    Variant("score_asymmetry_key_map_twice", A, "score_asymmetry", {"score_asymmetry": '''
def score_asymmetry(X, W_q, W_k):
    K = np.asarray(X) @ np.asarray(W_k)
    S = K @ K.T                      # the key map on both sides: W_q never used
    return float(np.max(np.abs(S - S.T)))
'''}, misconception="score_asymmetry.one_map",
        source="seed 000: 'With one map, the score for item i reading item j would equal the score for item j "
               "reading item i' (here the key map; the query map is never read)"),

    Variant("score_asymmetry_mean_gap", A, "score_asymmetry", {"score_asymmetry": '''
def score_asymmetry(X, W_q, W_k):
    S = (np.asarray(X) @ W_q) @ (np.asarray(X) @ W_k).T
    return float(np.mean(np.abs(S - S.T)))   # the typical gap
'''}, misconception="score_asymmetry.total_not_largest",
        source="the task asks for the largest gap between the two directions (max |S - S^T|); a mean or a sum "
               "measures something else"),
]

# Written for one sequence: right on a 2-D (or, for the heads, 3-D) input, an error with batch axes in front
# (benchmarks/heldout/heldout_2026_12_03.py had it as einsum subscripts without '...'; here, unpacked shapes).
VARIANTS += [
    Variant("project_rows_unpacked", A, "project", {"project": '''
def project(X, W):
    n, d = np.shape(X)                      # one sequence of n rows
    return np.array([np.asarray(X)[i] @ np.asarray(W) for i in range(n)])
'''}, misconception="project.fixed_axes",
        source="the course's shape contract (..., n, d): numpy's matmul broadcasts leading axes ('stacks of "
               "matrices', numpy docs of np.matmul); code that unpacks two axes handles one sequence only"),
    Variant("split_heads_unpacked_shape", A, "split_heads", {"split_heads": '''
def split_heads(X, num_heads):
    n, d_model = np.shape(X)
    return np.asarray(X).reshape(n, num_heads, d_model // num_heads).transpose(1, 0, 2)
'''}, misconception="split_heads.fixed_axes",
        source="the tutorials' split for one sequence, x.reshape(n, h, d).transpose(1, 0, 2) (e.g. Jay Alammar, "
               "'The Illustrated Transformer'); with a batch axis in front the fixed axes no longer fit"),
    Variant("merge_heads_unpacked_shape", A, "merge_heads", {"merge_heads": '''
def merge_heads(X):
    h, n, d = np.shape(X)
    return np.asarray(X).transpose(1, 0, 2).reshape(n, h * d)
'''}, misconception="merge_heads.fixed_axes",
        source="the inverse of split_heads_unpacked_shape: fixed axes (1, 0, 2) fit one (heads, n, d) array only"),
]

# Which sequence each projection reads: the queries from X_kv, or the two sequences swapped.
VARIANTS += [
    Variant("mha_queries_from_kv", A, "multi_head_attention", {"multi_head_attention": '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q, K, V = (split_heads(X_kv @ W, num_heads) for W in (W_q, W_k, W_v))   # every projection of X_kv
    if mask is not None:
        mask = np.expand_dims(np.asarray(mask), -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return merge_heads(heads) @ W_o, weights
'''}, misconception="multi_head_attention.queries_from_kv",
        source="Vaswani et al. 2017, §3.2.3: in encoder-decoder attention the queries come from the previous decoder "
               "layer (X_q) and the keys and values from the encoder (X_kv); projecting all three from X_kv is "
               "self-attention of the memory"),
    Variant("mha_sequences_swapped", A, "multi_head_attention", {"multi_head_attention": '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    source, target = X_q, X_kv                       # read the arguments the other way round
    Q = split_heads(project(target, W_q), num_heads)
    K = split_heads(project(source, W_k), num_heads)
    V = split_heads(project(source, W_v), num_heads)
    if mask is not None:
        mask = np.expand_dims(np.asarray(mask), -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
'''}, misconception="multi_head_attention.sequences_swapped",
        source="the order of (query, key/value) arguments differs between libraries (PyTorch's "
               "MultiheadAttention(query, key, value) against memory-first conventions); swapped, the memory asks "
               "and the queries are read"),
]

# Met in the held-out sets of 2026-12-03 (a square W_o) and 2026-12-04 (4 d_model^2 whatever the widths); written anew.
VARIANTS += [
    Variant("count_square_output_map", A, "attention_param_count", {"attention_param_count": '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    head_k = d_model // num_heads if d_k is None else d_k
    head_v = d_model // num_heads if d_v is None else d_v
    per_head = d_model * head_k * 2 + d_model * head_v        # W_q, W_k, W_v of one head
    w_o = d_model * d_model if output_projection else 0      # "the output layer is d_model x d_model"
    return num_heads * per_head + w_o
'''}, misconception="attention_param_count.square_output_map",
        source="W_o is d_model x d_model in the paper's layer only because h * d_v = d_model there (Vaswani et al. "
               "2017, §3.2.2: W^O in R^{h d_v x d_model})"),
    Variant("count_four_square_maps", A, "attention_param_count", {"attention_param_count": '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    maps = 4 if output_projection else 3          # W_q, W_k, W_v (and W_o), each d_model x d_model
    return maps * d_model ** 2
'''}, misconception="attention_param_count.square_maps",
        source="the rule of thumb '4 d_model^2 parameters per attention layer' holds for the default widths "
               "d_k = d_v = d_model / h only (Vaswani et al. 2017, §3.2.2)"),
]

# Issue 24, my probes of uncatalogued mistakes: the heads joined last one first.
VARIANTS += [
    Variant("merge_heads_last_first", A, "merge_heads", {"merge_heads": '''
def merge_heads(X):
    X = np.asarray(X)
    parts = [X[..., i, :, :] for i in range(X.shape[-3])]
    return np.concatenate(parts[::-1], axis=-1)      # stacked from the top head down
'''}, misconception="merge_heads.wrong_order",
        source="the inverse of split_heads puts head 0 in columns 0 to d (Vaswani et al. 2017, §3.2.2: "
               "Concat(head_1, ..., head_h) W^O, in head order)"),
]

# Issue 24 (held-out classes): the mask's meaning inside a larger function, the layout of merged heads, and a square
# W_o taken out for output_projection=False.
VARIANTS += [
    Variant("multi_head_attention_mask_true_blocks", A, "multi_head_attention", {"multi_head_attention": '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None:
        mask = np.logical_not(np.expand_dims(mask, -3))   # "True marks the padding", as in key_padding_mask
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
'''}, misconception="multi_head_attention.mask_inverted",
        source="pytorch/pytorch PR #39321 (nn.MultiheadAttention's key_padding_mask: True = ignore, the opposite of "
               "a boolean attn_mask in scaled_dot_product_attention)"),
    Variant("multi_head_attention_merge_interleaved", A, "multi_head_attention", {"multi_head_attention": '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None and np.ndim(mask) >= 2:
        mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    merged = np.stack([heads[..., i, :, :] for i in range(heads.shape[-3])], axis=-1)   # (..., n, d, heads)
    return project(merged.reshape(*merged.shape[:-2], -1), W_o), weights
'''}, misconception="multi_head_attention.merge_interleaved",
        source="a merge that stacks the heads on a new last axis before flattening interleaves their columns; "
               "the heads are concatenated end to end (Vaswani et al. 2017, eq. 'Concat(head_1, ..., head_h) W^O')"),
    Variant("param_count_output_off_square", A, "attention_param_count", {"attention_param_count": '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model // num_heads if d_k is None else d_k
    d_v = d_model // num_heads if d_v is None else d_v
    total = d_model * num_heads * (2 * d_k + d_v) + num_heads * d_v * d_model
    if not output_projection:
        total -= d_model ** 2   # "W_o is d_model x d_model"
    return total
'''}, misconception="attention_param_count.square_output_map",
        source="W_o maps the concatenated heads, h d_v wide, to d_model (Vaswani et al. 2017, §3.2.2: W^O in "
               "R^{h d_v x d_model}); it is square only when h d_v = d_model"),
]

# Issue 24 (held-out class): which part of a count is off, named only where no other part gives the same number.
VARIANTS += [
    Variant("param_count_key_map_forgotten", A, "attention_param_count", {"attention_param_count": '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model // num_heads if d_k is None else d_k
    d_v = d_model // num_heads if d_v is None else d_v
    count = d_model * num_heads * d_k + d_model * num_heads * d_v   # queries and values ... the keys forgotten
    if output_projection:
        count += num_heads * d_v * d_model
    return count
'''}, misconception="attention_param_count.map_miscounted",
        source="Vaswani et al. 2017, §3.2.2: each head has its own W^Q, W^K (d_model x d_k) and W^V (d_model x d_v); "
               "a count that leaves one of them out is a whole map short"),
]

# Issue 24, blind set 7 (spent): classes named by what the answer's outcomes show, each written anew here.
VARIANTS += [
    Variant("project_einsum_output_first", A, "project", {"project": '''
def project(X, W):
    return np.einsum("...nd,de->...en", np.asarray(X), np.asarray(W))   # column vectors: W^T x for each x
'''}, misconception="project.output_transposed",
        source="column-vector texts write a linear layer as y = W^T x (e.g. Goodfellow et al., 'Deep Learning', 6.1); "
               "stacking those columns gives the transpose of the row form X W"),
    Variant("project_dense_relu", A, "project", {"project": '''
def project(X, W):
    return np.maximum(np.asarray(X) @ np.asarray(W), 0.0)   # a Dense layer with activation="relu"
'''}, misconception="project.activation",
        source="Keras docs, layers.Dense: output = activation(dot(input, kernel) + bias); the projections of "
               "attention are linear (Vaswani et al. 2017, section 3.2.2)"),
    Variant("count_values_reuse_key_map", A, "attention_param_count", {"attention_param_count": '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model // num_heads if d_k is None else d_k
    d_v = d_model // num_heads if d_v is None else d_v
    params = 2 * d_model * num_heads * d_k          # W_q and W_k; the values are read through W_k
    if output_projection:
        params += num_heads * d_v * d_model
    return params
'''}, misconception="attention_param_count.no_value_map",
        source="Vaswani et al. 2017, section 3.2.2: W_i^V is a map of its own (d_model x d_v per head); keys and "
               "values share one map only when K = V are the same projected rows"),
    Variant("count_width_of_the_paper", A, "attention_param_count", {"attention_param_count": '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = 512 // 8 if d_k is None else d_k      # as in the paper
    d_v = 512 // 8 if d_v is None else d_v
    params = num_heads * d_model * (2 * d_k + d_v)
    return params + (num_heads * d_v * d_model if output_projection else 0)
'''}, misconception="attention_param_count.paper_head_width",
        source="Vaswani et al. 2017, section 3.2.2: 'd_k = d_v = d_model / h = 64' for their layer; the default "
               "is d_model // num_heads of the layer at hand"),
    Variant("count_true_division", A, "attention_param_count", {"attention_param_count": '''
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k = d_model / num_heads if d_k is None else d_k      # '/' for '//'
    d_v = d_model / num_heads if d_v is None else d_v
    total = num_heads * d_model * (2 * d_k + d_v)
    if output_projection:
        total += num_heads * d_v * d_model
    return total
'''}, misconception="attention_param_count.not_an_int",
        source="Python docs, 'Binary arithmetic operations': / always gives a float, // the floor division; a float "
               "count cannot be an array size (numpy raises TypeError)"),
    Variant("split_rows_into_blocks", A, "split_heads", {"split_heads": '''
def split_heads(X, num_heads):
    X = np.asarray(X)
    *batch, n, d_model = X.shape
    return X.reshape(*batch, num_heads, n // num_heads, d_model)   # each head its own block of positions
'''}, misconception="split_heads.cut_positions",
        source="heads read as chunks of the sequence (as in blockwise or sliding-window attention); multi-head "
               "attention cuts the width (Vaswani et al. 2017, section 3.2.2)"),
    Variant("split_pieces_of_num_heads_columns", A, "split_heads", {"split_heads": '''
def split_heads(X, num_heads):
    X = np.asarray(X)
    pieces = np.split(X, X.shape[-1] // num_heads, axis=-1)   # pieces num_heads columns wide
    return np.stack(pieces, axis=-3)
'''}, misconception="split_heads.count_as_width",
        source="numpy docs, numpy.split: an integer says how many equal pieces, not how wide each is"),
    Variant("merge_moveaxis_only", A, "merge_heads", {"merge_heads": '''
def merge_heads(X):
    return np.moveaxis(np.asarray(X), -3, -2)   # heads back behind the positions
'''}, misconception="merge_heads.heads_not_joined",
        source="numpy docs, numpy.moveaxis: it reorders axes; joining two axes into one takes a reshape"),
    Variant("merge_positions_from_last_axis", A, "merge_heads", {"merge_heads": '''
def merge_heads(X):
    X = np.asarray(X)
    n = X.shape[-1]                         # the positions taken from the last axis
    return np.swapaxes(X, -3, -2).reshape(X.shape[:-3] + (n, -1))
'''}, misconception="merge_heads.n_and_d_swapped",
        source="shapes unpacked in the wrong order ((h, d, n) for (h, n, d)); examples with n == d never show it"),
    Variant("mha_keys_by_value_map", A, "multi_head_attention", {"multi_head_attention": '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_v), num_heads)     # the two maps of X_kv exchanged
    V = split_heads(project(X_kv, W_k), num_heads)
    if mask is not None:
        mask = np.expand_dims(np.asarray(mask), -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
'''}, misconception="multi_head_attention.key_value_maps_swapped",
        source="keys and values both come from X_kv (Vaswani et al. 2017, section 3.2.2: K W_i^K, V W_i^V); their "
               "maps are easily exchanged when d_k = d_v"),
    Variant("mha_mask_reshaped_with_leading_one", A, "multi_head_attention", {"multi_head_attention": '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None:
        mask = np.reshape(mask, (1,) + np.shape(mask))     # a leading axis for the heads
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
'''}, misconception="multi_head_attention.head_axis_in_front",
        source="numpy broadcasting aligns shapes from the right (numpy docs, 'Broadcasting'): a new leading axis "
               "goes in front of the batch axis, not between the batch and the queries"),
]
