# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: all
#     notebook_metadata_filter: kernelspec
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown] cell_id="md-01"
# # 06 · Long sequences (bonus)
#
# The parameters of an attention layer are fixed once the widths are chosen (notebook 4). The table of
# attention weights it produces is not: every query has a weight for every key, so the table grows with the
# **square** of the sequence length. This bonus notebook measures that table and then computes exactly the same
# attention without ever building it, reading the keys a block at a time with an *online* softmax — the idea
# behind memory-efficient attention kernels.
#
# After this notebook you can say how much memory the $n^2$ table takes, and write `blockwise_attention`.
#
# **How the checks work.** As before, `grader.check("...")` runs public checks and never shows expected arrays;
# hidden tests grade the same properties on other inputs, and one of them, worth 4 points, bounds the memory of
# your function: the grader runs it with 256 queries and 32,768 keys under a limit far below the $n_q \times n_k$
# table, from outside your notebook's process. Given: `softmax`, `scaled_dot_product_attention`, `causal_mask` and
# `padding_mask`. The points of this notebook are a bonus, counted apart from the 100 course points.

# %% nbgrader={"grade": false, "grade_id": "given", "locked": true, "schema_version": 3, "solution": false, "task": false} cell_id="given"
# %matplotlib inline
import math
import numpy as np
import matplotlib.pyplot as plt
from attention_ref import softmax, scaled_dot_product_attention, causal_mask, padding_mask
from autograder.hidden import check
from autograder.notebook import Grader
grader = Grader("06_long_sequences", globals())

# %% [markdown] cell_id="md-02"
# ## 1. The $n^2$ table of weights
#
# `scaled_dot_product_attention` returns weights of shape `(..., n_q, n_k)`. For self-attention over a
# sequence of length $n$ that is $n^2$ numbers per head: doubling the sequence quadruples the table, while the
# $4\,d_{model}^2$ parameters of the layer stay where they are.
#
# **An example.** A layer with 8 heads reading a sequence of $n = 4096$ positions in float32 (4 bytes per number)
# holds $8 \times 4096 \times 4096$ weights, 4 bytes each: 536,870,912 bytes, about 537 MB, for one sequence.
#
# **Task.** Your own layer, printed by the cell below, has 8 heads too, but its own sequence length `TABLE_N` and
# dtype `TABLE_DTYPE` (each student's differ). How many **bytes** does its table of weights take, for one
# sequence? Store the number (an `int`) in `TABLE_BYTES`.

# %% nbgrader={"grade": false, "grade_id": "table_numbers", "locked": true, "schema_version": 3, "solution": false, "task": false} cell_id="md-02b-table-numbers"
# Your own sequence length TABLE_N and dtype TABLE_DTYPE (8 heads): the numbers your answer is graded on
TABLE_N, TABLE_DTYPE = grader.numbers("06_long_sequences/table")

# %% nbgrader={"grade": false, "grade_id": "TABLE_BYTES", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["raises-exception"] cell_id="sol-TABLE-BYTES"
# TABLE_BYTES = ...  (bytes of the weights of 8 heads, n_q = n_k = TABLE_N, in TABLE_DTYPE)
### BEGIN SOLUTION
TABLE_BYTES = 8 * TABLE_N * TABLE_N * np.dtype(TABLE_DTYPE).itemsize  # heads x n_q x n_k weights
### END SOLUTION

# %% cell_id="code-03"
grader.check("TABLE_BYTES")

# %% nbgrader={"grade": true, "grade_id": "TABLE_BYTES_format", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-TABLE-BYTES-format"
# Hidden test: TABLE_BYTES, a positive whole number of bytes (1 point)
### BEGIN HIDDEN TESTS
check("TABLE_BYTES_format", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "TABLE_BYTES_value", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-TABLE-BYTES-value"
# Hidden test: TABLE_BYTES, bytes of the weights of 8 heads at n = 4096 in float32 (1 point)
### BEGIN HIDDEN TESTS
check("TABLE_BYTES_value", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="md-04"
# That is the table of one layer for one sequence, before the scores, the exponentials and the
# temporaries a plain numpy implementation makes along the way. On the course machines the peak extra memory of
# a plain numpy attention over 8 heads at $n = 4096$ in float32 was measured at 2.2 GB (0.56 GB for an in-place
# version), against 26 MB for a blockwise version with $512 \times 512$ tiles. The plot shows how the table of your
# dtype grows with $n$ next to the (linear) memory of one block of 512 keys per query.

# %% cell_id="code-05"
n = 2 ** np.arange(8, 16)
itemsize = np.dtype(TABLE_DTYPE).itemsize
table = 8 * n.astype(float) ** 2 * itemsize          # bytes: heads x n x n x itemsize
block = 8 * n.astype(float) * 512 * itemsize         # bytes: heads x n x 512 x itemsize (one block of keys at a time)
fig, ax = plt.subplots(figsize=(6.5, 4))
ax.loglog(n, table / 1e6, "o-", label="full table of weights ($n^2$)")
ax.loglog(n, block / 1e6, "s--", label="one block of 512 keys ($n \\times 512$)")
try:
    ax.loglog([TABLE_N], [TABLE_BYTES / 1e6], "r*", markersize=14, label="your TABLE_BYTES")
except (NameError, TypeError, ValueError):  # no answer yet, or not a number
    pass
ax.set_xticks(n[::2], [str(v) for v in n[::2]])
ax.minorticks_off()
ax.set_xlabel("sequence length n")
ax.set_ylabel(f"memory (MB), 8 heads, {TABLE_DTYPE}")
ax.set_title("The table of weights grows with the square of n")
ax.legend()
plt.show()
plt.close(fig)


# %% [markdown] cell_id="md-06"
# ## 2. The online softmax
#
# The softmax of one query's scores $s_1, \dots, s_{n_k}$ needs the total $\sum_j e^{s_j}$ of *all* keys
# before any weight is known, which seems to force the full row. It does not. Read the keys in blocks and keep,
# for every query, three running quantities: the largest score so far $m$, the total $\ell = \sum_j e^{s_j - m}$
# and the weighted sum $o = \sum_j e^{s_j - m}\, v_j$. For a new block $B$ with scores $s_j$, $j \in B$:
#
# $$m' = \max\!\left(m,\ \max_{j\in B} s_j\right),\qquad
# \ell' = \ell\, e^{m - m'} + \sum_{j\in B} e^{s_j - m'},\qquad
# o' = o\, e^{m - m'} + \sum_{j\in B} e^{s_j - m'}\, v_j .$$
#
# The factor $e^{m - m'}$ **rescales** what was accumulated with the old maximum; without it the blocks are
# added on different scales. After the last block the output is $o / \ell$, exactly
# $\operatorname{softmax}(s)\,V$ up to rounding, and no more than one block of scores existed at any time:
# memory $n_q \times$ `block_size` instead of $n_q \times n_k$. Subtracting the running maximum keeps every
# exponential at most 1 (no overflow at scores of 1000).
#
# **Masks and empty rows.** A boolean mask (True = may attend) is sliced per block, `mask[..., start:stop]`,
# never expanded to the full table. While every key seen so far is masked, $m = -\infty$ and $-\infty - (-\infty)$
# is NaN: shift by 0 instead. A query with no allowed key at all ends with $\ell = 0$ and gets zeros, as in
# `scaled_dot_product_attention`.
#
# **Task.** Write `blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None)`: equal to
# `scaled_dot_product_attention(Q, K, V, mask, scale)[0]`, for any block size, with batch axes, without building
# an `n_q x n_k` array (of scores, weights or mask). `scale` is the factor applied to the scores,
# `1 / sqrt(d_k)` when `None`.

# %% nbgrader={"grade": false, "grade_id": "blockwise_attention", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="sol-blockwise-attention"
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    """Exact scaled dot-product attention over key blocks with an online softmax.

    Parameters
    ----------
    Q : ndarray, shape (..., n_q, d_k)
    K : ndarray, shape (..., n_k, d_k)
    V : ndarray, shape (..., n_k, d_v)
    block_size : int, optional
        Number of keys per block.
    mask : ndarray of bool, broadcastable to (..., n_q, n_k), optional
        True = may attend. Sliced per block, never expanded.
    scale : float, optional
        Factor applied to the scores; ``1 / sqrt(d_k)`` by default.

    Returns
    -------
    ndarray, shape (..., n_q, d_v)
        Zeros for a query with no allowed key.
    """
    ### BEGIN SOLUTION
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    dtype = np.result_type(Q, K, V)
    m = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)      # running maximum
    total = np.zeros((*batch, n_q, 1), dtype=dtype)         # running sum of exp(s - m)
    acc = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)  # running sum of exp(s - m) v
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = Q @ np.swapaxes(K[..., start:stop, :], -1, -2) * factor  # (..., n_q, b): one block of scores
        if mask is not None:
            block_mask = mask[..., start:stop] if np.shape(mask)[-1] > 1 else mask
            s = np.where(block_mask, s, -np.inf)
        new_m = np.maximum(m, s.max(axis=-1, keepdims=True))
        shift = np.where(new_m == -np.inf, 0, new_m)  # nothing allowed yet: avoid -inf - -inf
        rescale = np.exp(m - shift)
        p = np.exp(s - shift)
        total = total * rescale + p.sum(axis=-1, keepdims=True)
        acc = acc * rescale + p @ V[..., start:stop, :]
        m = new_m
    return acc / np.where(total == 0, 1, total)  # a query with no allowed key keeps its zeros
    ### END SOLUTION


# %% cell_id="code-07"
grader.check("blockwise_attention")

# %% nbgrader={"grade": true, "grade_id": "blockwise_attention_matches_reference", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-blockwise-attention-matches-reference"
# Hidden test: blockwise_attention, equals attention over all keys: n_q != n_k, blocks that do not divide n_k, batch axes (1 point)
### BEGIN HIDDEN TESTS
check("blockwise_attention_matches_reference", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "blockwise_attention_block_sizes", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-blockwise-attention-block-sizes"
# Hidden test: blockwise_attention, any block size (1, n_k, larger than n_k) gives the same answer; inputs unchanged (1 point)
### BEGIN HIDDEN TESTS
check("blockwise_attention_block_sizes", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "blockwise_attention_masks", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-blockwise-attention-masks"
# Hidden test: blockwise_attention, a causal mask and a padding mask with an empty sequence (zeros, no NaN) (1 point)
### BEGIN HIDDEN TESTS
check("blockwise_attention_masks", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "blockwise_attention_large_scores_float32", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-blockwise-attention-large-scores-float32"
# Hidden test: blockwise_attention, no overflow at scores near 1e3; float32 inputs (1 point)
### BEGIN HIDDEN TESTS
check("blockwise_attention_large_scores_float32", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "blockwise_attention_memory", "locked": true, "points": 4, "schema_version": 3, "solution": false, "task": false} cell_id="test-blockwise-attention-memory"
# Hidden test: blockwise_attention, never builds the n_q x n_k table (memory bounded far below it) (4 points)
### BEGIN HIDDEN TESTS
check("blockwise_attention_memory", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="md-08"
# Same answer, different memory. The cell below measures the peak memory of `scaled_dot_product_attention`
# and of your `blockwise_attention` (blocks of 64 keys) with `tracemalloc` as the sequence grows.

# %% cell_id="code-09"
import tracemalloc

def peak_mib(function, *args, **kwargs):
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        function(*args, **kwargs)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak / 2 ** 20

rng = np.random.default_rng(6)
lengths = [256, 512, 1024]
try:
    full_mib, block_mib = [], []
    for n_seq in lengths:
        Q_long, K_long, V_long = rng.standard_normal((3, n_seq, 16))
        full_mib.append(peak_mib(lambda *a: scaled_dot_product_attention(*a)[0], Q_long, K_long, V_long))
        block_mib.append(peak_mib(blockwise_attention, Q_long, K_long, V_long, block_size=64))
    same = np.allclose(blockwise_attention(Q_long, K_long, V_long, 64), scaled_dot_product_attention(Q_long, K_long, V_long)[0])
    print("blockwise equals full attention at n = 1024:", same)
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.loglog(lengths, full_mib, "o-", label="scaled_dot_product_attention (full table)")
    ax.loglog(lengths, block_mib, "s-", label="your blockwise_attention (blocks of 64)")
    ax.set_xticks(lengths, [str(n_seq) for n_seq in lengths])
    ax.set_yticks([0.25, 0.5, 1, 2, 4, 8, 16], ["0.25", "0.5", "1", "2", "4", "8", "16"])
    ax.minorticks_off()
    ax.set_xlabel("sequence length n (one head, float64)")
    ax.set_ylabel("peak memory during the call (MiB)")
    ax.set_title("Peak memory: n squared against n")
    ax.legend()
    plt.show()
    plt.close(fig)
except NotImplementedError:
    print("(plot appears once blockwise_attention is done)")

# %% [markdown] cell_id="md-09b-why"
# ## 3. Why it is exact
#
# **Written answer (graded by hand).** In three or four sentences: why must the running total and the running
# weighted sum be multiplied by $e^{m - m'}$ when the running maximum grows, and why is the blockwise result
# *exactly* the softmax-weighted average (up to rounding), not an approximation of it?

# %% [markdown] nbgrader={"grade": true, "grade_id": "ONLINE_SOFTMAX_WHY", "locked": false, "points": 2, "schema_version": 3, "solution": true, "task": false} cell_id="written-ONLINE-SOFTMAX-WHY"
# Every exponential is stored relative to the running maximum: the total is $\sum_j e^{s_j - m}$ and the weighted sum
# $\sum_j e^{s_j - m} v_j$. When a new block raises the maximum to $m'$, the terms accumulated so far are relative to
# the old $m$; multiplying them by $e^{m - m'}$ turns each $e^{s_j - m}$ into $e^{s_j - m'}$, so old and new terms are
# added on the same scale. After the last block $o / \ell = \sum_j e^{s_j - m} v_j / \sum_j e^{s_j - m}$, and the
# common factor $e^{-m}$ cancels between numerator and denominator: this is $\operatorname{softmax}(s)\,V$ exactly,
# only rearranged, so the result differs from the full computation by rounding alone.

# %% [markdown] autograder={"rubric_for": "ONLINE_SOFTMAX_WHY"} cell_id="rubric-ONLINE-SOFTMAX-WHY"
# **Rubric (instructor only)** — `ONLINE_SOFTMAX_WHY`, 2 points.
#
# * **1 point: the rescaling.** Terms accumulated with the old maximum are on another scale; $e^{m - m'}$ puts them on
#   the scale of the new maximum before the new block is added. "To avoid overflow" alone earns nothing (that is the
#   subtraction of the maximum, not the rescaling).
# * **1 point: exactness.** The final division cancels the common factor $e^{-m}$, so the result is the
#   softmax-weighted average rearranged, equal up to rounding; no term is dropped or approximated.

# %% [markdown] cell_id="md-10"
# ## Summary
#
# The table of weights is $n^2$ numbers per head: about 537 MB for 8 heads at $n = 4096$ in float32, and
# `TABLE_BYTES` at your own $n$ and dtype.
# The online softmax keeps a running maximum, total and weighted sum per query, rescales them by
# $e^{m - m'}$ when the maximum grows, and so computes exact attention one block of keys at a time.

# %% [markdown] cell_id="md-10b-reading"
# ## Further reading
#
# * Vaswani et al., *Attention Is All You Need* (2017), §3.2.1: scaled dot-product attention, additive attention as
#   the older alternative, and the footnote that computes the variance $d_k$ of a dot product of independent
#   unit-variance entries (why the divisor has the form it has); §3.2.2: multi-head attention and its cost.
# * Prince, *Understanding Deep Learning*, §12.3: self-attention, with the scaling argument in §12.3.2 and
#   multiple heads in §12.3.3; it also explains the names query, key and value, inherited from information
#   retrieval.

# %% cell_id="code-11"
grader.summary()
