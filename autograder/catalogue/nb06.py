"""Answer variants of 06_long_sequences: typical mistakes (with where they are documented) and correct rewrites."""
from . import Variant

A = "06_long_sequences"

# ---------------------------------------------------------------- wrong answers
BLOCKWISE_NO_RESCALE = '''
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full((*batch, n_q, 1), -np.inf)
    total = np.zeros((*batch, n_q, 1))
    acc = np.zeros((*batch, n_q, V.shape[-1]))
    for start in range(0, n_k, block_size):
        s = Q @ np.swapaxes(K[..., start:start + block_size, :], -1, -2) * factor
        if mask is not None:
            s = np.where(mask[..., start:start + block_size], s, -np.inf)
        m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(m == -np.inf, 0, m)
        p = np.exp(s - shift)
        total = total + p.sum(axis=-1, keepdims=True)   # the old total is never rescaled
        acc = acc + p @ V[..., start:start + block_size, :]
    return acc / np.where(total == 0, 1, total)
'''

BLOCKWISE_FULL_MATRIX = '''
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    # "blockwise" only in name: the full n_q x n_k table is built first
    out, _ = scaled_dot_product_attention(Q, K, V, mask=mask, scale=scale)
    return out
'''

BLOCKWISE_MASKED_NAN = '''
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full((*batch, n_q, 1), -np.inf)
    total = np.zeros((*batch, n_q, 1))
    acc = np.zeros((*batch, n_q, V.shape[-1]))
    for start in range(0, n_k, block_size):
        s = Q @ np.swapaxes(K[..., start:start + block_size, :], -1, -2) * factor
        if mask is not None:
            s = np.where(mask[..., start:start + block_size], s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        rescale = np.exp(m - new_m)      # -inf - (-inf) = nan while nothing is allowed yet
        p = np.exp(s - new_m)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:start + block_size, :]
        m = new_m
    return acc / total
'''

BLOCKWISE_PER_BLOCK_SOFTMAX = '''
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    outputs = []
    for start in range(0, K.shape[-2], block_size):
        s = Q @ np.swapaxes(K[..., start:start + block_size, :], -1, -2) * factor
        if mask is not None:
            s = np.where(mask[..., start:start + block_size], s, -np.inf)
        outputs.append(softmax(s) @ V[..., start:start + block_size, :])  # each block normalised on its own
    return sum(outputs) / len(outputs)
'''

TABLE_BYTES_ONE_HEAD = '''
TABLE_BYTES = TABLE_N * TABLE_N * np.dtype(TABLE_DTYPE).itemsize
'''

# ---------------------------------------------------------------- correct answers written differently
BLOCKWISE_LOG_SUM_EXP = {
    "TABLE_BYTES": "TABLE_BYTES = 8 * TABLE_N ** 2 * np.zeros(1, dtype=TABLE_DTYPE).nbytes  # one number's bytes",
    "blockwise_attention": '''
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    """Running log-sum-exp and a normalised running output instead of (max, total, sum)."""
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    dtype = np.result_type(Q, K, V)
    lse = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)        # log of the total so far
    out = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)     # normalised output so far
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = np.einsum("...qd,...kd->...qk", Q, K[..., start:stop, :]) * factor
        if mask is not None:
            block = mask[..., start:stop] if np.shape(mask)[-1] > 1 else mask
            s = np.where(block, s, -np.inf)
        block_max = s.max(axis=-1, keepdims=True)
        safe = np.where(np.isfinite(block_max), block_max, 0)
        e = np.exp(s - safe)
        block_sum = e.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore"):
            block_lse = np.log(block_sum) + safe                      # -inf when the block is all masked
        new_lse = np.logaddexp(lse, block_lse)
        finite = np.isfinite(new_lse)
        old_share = np.where(finite, np.exp(np.where(finite, lse - new_lse, 0)), 0)
        new_share = np.where(finite, np.exp(np.where(finite, safe - new_lse, 0)), 0)
        out = out * old_share + (e @ V[..., start:stop, :]) * new_share
        lse = new_lse
    return out
''',
}

BLOCKWISE_QUERY_AND_KEY_TILES = '''
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    """Tiles over queries too (as FlashAttention does), with the running max/total/sum per tile."""
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    inv_sqrt = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    dtype = np.result_type(Q, K, V)
    result = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)
    full_mask = None if mask is None else np.asarray(mask)
    for q0 in range(0, n_q, 256):
        q1 = min(q0 + 256, n_q)
        Qt = Q[..., q0:q1, :]
        m = np.full((*batch, q1 - q0, 1), -np.inf, dtype=dtype)
        l = np.zeros((*batch, q1 - q0, 1), dtype=dtype)
        o = np.zeros((*batch, q1 - q0, V.shape[-1]), dtype=dtype)
        for k0 in range(0, n_k, block_size):
            k1 = min(k0 + block_size, n_k)
            s = (Qt @ np.swapaxes(K[..., k0:k1, :], -1, -2)) * inv_sqrt
            if full_mask is not None:
                tile = full_mask[..., q0:q1, k0:k1] if full_mask.shape[-2] > 1 else full_mask[..., k0:k1]
                s = np.where(tile, s, -np.inf)
            m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
            m_safe = np.where(np.isneginf(m_new), 0, m_new)
            alpha = np.exp(m - m_safe)
            p = np.exp(s - m_safe)
            l = alpha * l + p.sum(axis=-1, keepdims=True)
            o = alpha * o + p @ V[..., k0:k1, :]
            m = m_new
        result[..., q0:q1, :] = o / np.where(l > 0, l, 1)
    return result
'''

VARIANTS = [
    Variant("blockwise_attention_no_rescale", A, "blockwise_attention", {"blockwise_attention": BLOCKWISE_NO_RESCALE},
            misconception="blockwise_attention.no_rescale",
            source="https://github.com/Dao-AILab/flash-attention/issues/991 (a wrong rescaling factor in the "
                   "FlashAttention-2 paper's Algorithm 1); https://github.com/PaddleJitLab/CUDATutorial/issues/69"),
    Variant("blockwise_attention_full_matrix", A, "blockwise_attention", {"blockwise_attention": BLOCKWISE_FULL_MATRIX},
            misconception="blockwise_attention.full_matrix",
            source="the standard implementation that FlashAttention (Dao et al. 2022, section 2.2) replaces: it "
                   "materialises the n x n scores and weights; field notes: 2.2 GB peak at n = 4096, 8 heads"),
    Variant("blockwise_attention_masked_nan", A, "blockwise_attention", {"blockwise_attention": BLOCKWISE_MASKED_NAN},
            misconception="blockwise_attention.masked_nan",
            source="https://github.com/FluxML/NNkernels.jl/pull/16 (NaNs from the online softmax); "
                   "https://github.com/flashinfer-ai/flashinfer/issues/4267 (the -inf sentinel of the running max)"),
    Variant("blockwise_attention_per_block_softmax", A, "blockwise_attention",
            {"blockwise_attention": BLOCKWISE_PER_BLOCK_SOFTMAX}, misconception="blockwise_attention.per_block_softmax",
            source="commonly seen in first attempts at chunked attention: a softmax per chunk, then the chunks "
                   "averaged; the online-softmax derivation (Milakov & Gimelshein 2018) is the fix"),
    Variant("TABLE_BYTES_one_head", A, "TABLE_BYTES", {"TABLE_BYTES": TABLE_BYTES_ONE_HEAD},
            misconception="TABLE_BYTES.one_head",
            source="commonly seen: memory estimates of the attention matrix that leave out the heads "
                   "(batch x heads x n x n); field notes: 537 MB for 8 heads at n = 4096"),
    # correct answers written differently
    Variant("blockwise_attention_log_sum_exp", A, "blockwise_attention", BLOCKWISE_LOG_SUM_EXP, correct=True),
    Variant("blockwise_attention_query_and_key_tiles", A, "blockwise_attention",
            {"blockwise_attention": BLOCKWISE_QUERY_AND_KEY_TILES}, correct=True),
]

# ---------------------------------------------------------------- added for issue 14 (every misconception exercised)
BLOCKWISE_TEMPLATE = '''
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = {factor}
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full((*batch, n_q, 1), {start})
    total = np.zeros((*batch, n_q, 1))
    acc = np.zeros((*batch, n_q, V.shape[-1]))
    for start in range(0, n_k, block_size):
        s = Q @ np.swapaxes(K[..., start:start + block_size, :], -1, -2) * factor
        if mask is not None and {use_mask}:
            block = np.asarray(mask)[..., start:start + block_size] if np.shape(mask)[-1] > 1 else mask
            s = np.where(block, s, -np.inf)
        new_m = {new_m}
        safe = np.where(np.isfinite(new_m), new_m, 0)
        rescale = np.where(np.isfinite(m), np.exp(m - safe), 0)
        p = np.exp(s - safe)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:start + block_size, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)
'''


def blockwise(factor="1 / math.sqrt(Q.shape[-1]) if scale is None else scale", use_mask="True",
              new_m="np.maximum(m, s.max(axis=-1, keepdims=True))", start="-np.inf"):
    return {"blockwise_attention": BLOCKWISE_TEMPLATE.format(factor=factor, use_mask=use_mask, new_m=new_m,
                                                             start=start)}


VARIANTS += [
    Variant("blockwise_unscaled", A, "blockwise_attention", blockwise(factor="1.0 if scale is None else scale"),
            misconception="blockwise_attention.no_scaling",
            source="the 1/sqrt(d_k) of Vaswani et al. 2017 forgotten in a hand-written kernel (Dao et al. 2022, "
                   "FlashAttention, Algorithm 1 scales S = tau Q K^T)"),
    Variant("blockwise_mask_unused", A, "blockwise_attention", blockwise(use_mask="False"),
            misconception="blockwise_attention.mask_ignored",
            source="facebookresearch/xformers issue #103 (a mask silently not applied)"),
    Variant("blockwise_no_running_max", A, "blockwise_attention", blockwise(new_m="np.zeros_like(m)", start="0.0"),
            misconception="blockwise_attention.no_max_subtraction",
            source="online softmax without the running maximum (Milakov & Gimelshein 2018, 'Online normalizer "
                   "calculation for softmax'): exp overflows at large scores"),
    # 8 bytes a weight (numpy's default float64) is, at the lesson's float32 table, also two tables (issue 24, set
    # 7): the catalogue, judged there, writes the half-precision size instead; tests/checks/test_variants.py names
    # the float64 size on every student's float16 table and says both causes on a float32 one
    Variant("TABLE_BYTES_half_precision", A, "TABLE_BYTES", {"TABLE_BYTES": "TABLE_BYTES = 8 * TABLE_N * TABLE_N * 2\n"},
            misconception="TABLE_BYTES.wrong_itemsize",
            source="2 bytes a weight, as in a float16 (mixed-precision) model, for a float32 table (numpy docs, "
                   "'Data types': float16 is half precision, float32 single)"),
    Variant("TABLE_BYTES_linear", A, "TABLE_BYTES", {"TABLE_BYTES": "TABLE_BYTES = 8 * TABLE_N * np.dtype(TABLE_DTYPE).itemsize\n"},
            misconception="TABLE_BYTES.linear_in_n", source="one weight per position instead of per (query, key) pair"),
    Variant("TABLE_BYTES_in_bits", A, "TABLE_BYTES", {"TABLE_BYTES": "TABLE_BYTES = 8 * TABLE_N * TABLE_N * np.finfo(TABLE_DTYPE).bits\n"},
            misconception="TABLE_BYTES.bits", source="32 bits per float32 counted as its size in bytes"),
    Variant("TABLE_BYTES_in_mib", A, "TABLE_BYTES", {"TABLE_BYTES": "TABLE_BYTES = 8 * TABLE_N**2 * np.dtype(TABLE_DTYPE).itemsize / 2**20  # MiB\n"},
            misconception="TABLE_BYTES.megabytes",
            source="the notebook's plot is labelled in MB; the answer asks for bytes (issue 24, my probes)"),
]

VARIANTS += [
    Variant("blockwise_own_block_max", A, "blockwise_attention", {"blockwise_attention": '''
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    total = np.zeros((*batch, Q.shape[-2], 1))
    acc = np.zeros((*batch, Q.shape[-2], V.shape[-1]))
    for start in range(0, K.shape[-2], block_size):
        s = Q @ np.swapaxes(K[..., start:start + block_size, :], -1, -2) * factor
        if mask is not None:
            block = np.asarray(mask)[..., start:start + block_size] if np.shape(mask)[-1] > 1 else mask
            s = np.where(block, s, -np.inf)
        top = s.max(axis=-1, keepdims=True)  # this block's own maximum, never rescaled to a common one
        e = np.exp(s - np.where(np.isfinite(top), top, 0))
        total = total + e.sum(axis=-1, keepdims=True)
        acc = acc + e @ V[..., start:start + block_size, :]
    return acc / np.where(total == 0, 1, total)
'''}, misconception="blockwise_attention.no_rescale",
        source="issue 14 ('each block's own max, never rescaled' got a generic message); Milakov & Gimelshein "
               "2018 rescale the running sum when the maximum changes"),
]

VARIANTS += [
    Variant("blockwise_running_max_template", A, "blockwise_attention", blockwise(), correct=True),
]

# ---------------------------------------------------------------- issue 24: the running maximum over hidden keys too
BLOCKWISE_MAX_BEFORE_MASKING = BLOCKWISE_QUERY_AND_KEY_TILES.replace('''            if full_mask is not None:
                tile = full_mask[..., q0:q1, k0:k1] if full_mask.shape[-2] > 1 else full_mask[..., k0:k1]
                s = np.where(tile, s, -np.inf)
            m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
            m_safe = np.where(np.isneginf(m_new), 0, m_new)
''', '''            m_new = np.maximum(m, s.max(axis=-1, keepdims=True))  # taken before masking: hidden keys too
            m_safe = m_new  # never -inf: every raw score is finite
            if full_mask is not None:
                tile = full_mask[..., q0:q1, k0:k1] if full_mask.shape[-2] > 1 else full_mask[..., k0:k1]
                s = np.where(tile, s, -np.inf)
''')

VARIANTS += [
    Variant("blockwise_attention_max_before_masking", A, "blockwise_attention",
            {"blockwise_attention": BLOCKWISE_MAX_BEFORE_MASKING}, misconception="mask.max_over_masked_keys",
            source="issue 24 (the masked softmax of 02/03 that subtracts the maximum over every key); in the online "
                   "softmax the running maximum of the raw block scores includes the hidden keys, and exp "
                   "underflows below about -745 in float64 (flashinfer-ai/flashinfer issue #4267 discusses the "
                   "running max's sentinel under masks)"),
]

# ---------------------------------------------------------------- issue 24: properties the 2026-12-03 held-out set lacked
# The misconception below was met in benchmarks/heldout/heldout_2026_12_03.py (a loop to n_k - block_size); the
# answer here is written anew, dropping the last partial block, so that the check is proven on the property
# (the output follows a subset of the keys), not on that loop bound.
BLOCKWISE_WHOLE_BLOCKS_ONLY = '''
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full((*batch, n_q, 1), -np.inf)
    total = np.zeros((*batch, n_q, 1))
    acc = np.zeros((*batch, n_q, V.shape[-1]))
    n_blocks = max(1, n_k // block_size)          # whole blocks: a shorter last block is dropped
    for b in range(n_blocks):
        start, stop = b * block_size, min((b + 1) * block_size, n_k)
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor
        if mask is not None:
            s = np.where(mask[..., start:stop], s, -np.inf)
        new = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(new == -np.inf, 0, new)
        rescale = np.exp(np.where(m == -np.inf, -np.inf, m - shift))
        p = np.exp(s - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:stop, :]
        m = new
    return acc / np.where(total == 0, 1, total)
'''

VARIANTS += [
    Variant("blockwise_attention_drops_partial_block", A, "blockwise_attention",
            {"blockwise_attention": BLOCKWISE_WHOLE_BLOCKS_ONLY}, misconception="blockwise_attention.skips_keys",
            source="a loop over whole blocks only (n_k // block_size of them) leaves out the keys of a last, shorter "
                   "block; FlashAttention (Dao et al. 2022, Algorithm 1) walks T_c = ceil(N / B_c) blocks"),
]

# ---------------------------------------------------------------- issue 24: the final division forgotten
BLOCKWISE_NO_FINAL_DIVISION = BLOCKWISE_WHOLE_BLOCKS_ONLY.replace(
    "    n_blocks = max(1, n_k // block_size)          # whole blocks: a shorter last block is dropped\n",
    "    n_blocks = -(-n_k // block_size)\n").replace(
    "    return acc / np.where(total == 0, 1, total)\n", "    return acc   # the running weighted sum\n")

VARIANTS += [
    Variant("blockwise_attention_no_final_division", A, "blockwise_attention",
            {"blockwise_attention": BLOCKWISE_NO_FINAL_DIVISION}, misconception="blockwise_attention.no_normalisation",
            source="the online softmax keeps a running total l and divides the running sum by it once at the end "
                   "(Milakov and Gimelshein 2018, 'Online normalizer calculation for softmax'; Dao et al. 2022, "
                   "Algorithm 1, line 12)"),
]

# Met in benchmarks/heldout/heldout_2026_12_02.py (a factor fixed to 1/sqrt(d_k)); written anew.
BLOCKWISE_SCALE_IGNORED = BLOCKWISE_NO_FINAL_DIVISION.replace(
    "    return acc   # the running weighted sum\n", "    return acc / np.where(total == 0, 1, total)\n").replace(
    "    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale\n",
    "    factor = Q.shape[-1] ** -0.5   # the attention's divisor\n")

VARIANTS += [
    Variant("blockwise_attention_scale_ignored", A, "blockwise_attention",
            {"blockwise_attention": BLOCKWISE_SCALE_IGNORED}, misconception="blockwise_attention.ignores_scale",
            source="the notebook's signature takes scale=None (PyTorch's scaled_dot_product_attention: 'scale: "
                   "scaling factor applied prior to softmax; if None, 1/sqrt(E)'): a given scale replaces the default"),
]

VARIANTS += [
    Variant("table_bytes_counts_weights", A, "TABLE_BYTES", {"TABLE_BYTES": "TABLE_BYTES = 8 * TABLE_N ** 2   # every weight of every head\n"},
            misconception="TABLE_BYTES.numbers_not_bytes",
            source="numpy's ndarray.nbytes = size x itemsize (numpy docs): every dtype of the course takes 2 bytes or more"),
]

# ---------------------------------------------------------------- issue 24, blind set 6: the running maximum's mistakes
# told apart by inputs whose maximum grows or stays, whose scores are large or all far below 0.
VARIANTS += [
    Variant("blockwise_rescale_upside_down", A, "blockwise_attention", {"blockwise_attention": blockwise()[
        "blockwise_attention"].replace("np.exp(m - safe), 0)", "np.exp(safe - m), 0)  # new over old")},
        misconception="blockwise_attention.rescale_inverted",
        source="the correction factor of the online softmax is exp(m_old - m_new) <= 1 (Milakov & Gimelshein "
               "2018, Algorithm 3; Dao et al. 2022, Algorithm 1): written as new minus old it grows instead"),
    Variant("blockwise_running_max_from_zero", A, "blockwise_attention", blockwise(start="0.0"),
            misconception="blockwise_attention.max_starts_at_zero",
            source="a running maximum initialised to 0 (as a running sum is): right while some score of a query "
                   "exceeds 0, empty when all of them lie far below it (exp(-1000) underflows to 0)"),
    Variant("blockwise_scale_divides", A, "blockwise_attention",
            blockwise(factor="1 / math.sqrt(Q.shape[-1]) if scale is None else 1 / scale"),
            misconception="blockwise_attention.scale_as_divisor",
            source="`scale` read as the divisor sqrt(d_k) stands for, where torch's scaled_dot_product_attention "
                   "documents it as the factor the scores are multiplied by (default 1 / sqrt(E))"),
]
VARIANTS += [
    Variant("blockwise_blocks_from_first_axis", A, "blockwise_attention", {"blockwise_attention": blockwise()[
        "blockwise_attention"].replace("K[..., start:start + block_size, :]", "K[start:start + block_size]")
        .replace("V[..., start:start + block_size, :]", "V[start:start + block_size]")},
        misconception="blockwise_attention.blocks_on_first_axis",
        source="issue 24, blind set 6 (blocks cut along the wrong axis); numpy indexes the first axis with a single "
               "slice (numpy docs, 'Indexing on ndarrays'), the keys of a batched K are axis -2"),
]

# Issue 24, blind set 7 (spent): classes named by what the answer's outcomes show, each written anew here.
BLOCKWISE_TEMPLATE = '''
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = {factor}
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    m = np.full((*batch, n_q, 1), -np.inf)
    total = np.zeros((*batch, n_q, 1))
    acc = np.zeros((*batch, n_q, V.shape[-1]))
    for start in range(0, n_k, block_size):
        keys = {keys}
        s = Q @ np.swapaxes(K[..., keys, :], -1, -2) * factor
        if mask is not None:
            s = np.where(np.broadcast_to(mask, (*batch, n_q, n_k))[..., keys], s, {fill})
        new = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(new == -np.inf, 0, new)
        rescale = np.exp(np.where(m == -np.inf, -np.inf, m - shift))
        p = np.exp(s - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., keys, :]
        m = new
    return acc / np.where(total == 0, 1, total)
'''
RIGHT_FACTOR, RIGHT_KEYS = "1 / math.sqrt(Q.shape[-1]) if scale is None else scale", "slice(start, start + block_size)"

VARIANTS += [
    Variant("blockwise_last_key_as_stop", A, "blockwise_attention", {"blockwise_attention": BLOCKWISE_TEMPLATE.format(
        factor=RIGHT_FACTOR, fill="-np.inf",
        keys="slice(start, min(start + block_size - 1, n_k))   # the block's last key index as the slice's end")},
        misconception="blockwise_attention.skips_keys",
        source="MATLAB's a:b includes b, Python's a:b does not (numpy docs, 'numpy for MATLAB users'): a block "
               "written start:start+block_size-1 drops its last key"),
    Variant("blockwise_scale_by_value_width", A, "blockwise_attention", {"blockwise_attention": BLOCKWISE_TEMPLATE.format(
        factor="scale if scale is not None else V.shape[-1] ** -0.5",
        fill="-np.inf", keys=RIGHT_KEYS)},
        misconception="blockwise_attention.scale_from_value_width",
        source="Vaswani et al. 2017, eq. 1 divides by sqrt(d_k), the key width; with d_k = d_v in most examples "
               "the value width is easily taken for it"),
    Variant("blockwise_fill_minus_1e9", A, "blockwise_attention", {"blockwise_attention": BLOCKWISE_TEMPLATE.format(
        factor=RIGHT_FACTOR, fill="-1e9", keys=RIGHT_KEYS)},
        misconception="blockwise_attention.large_negative_fill",
        source="masked_fill(mask, -1e9) of the Annotated Transformer (harvardnlp): a fully masked row becomes "
               "uniform instead of empty"),
    Variant("TABLE_BYTES_lower_triangle", A, "TABLE_BYTES", {
        "TABLE_BYTES": "TABLE_BYTES = 8 * (TABLE_N * (TABLE_N + 1) // 2) * np.dtype(TABLE_DTYPE).itemsize   # causal\n"},
        misconception="TABLE_BYTES.causal_half",
        source="a causal mask zeroes the upper triangle, but the n x n table is stored whole (numpy arrays are "
               "dense; FlashAttention's point is not to store it at all, Dao et al. 2022)"),
]
