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
# # 04 · Projections and heads
#
# In the library of the lesson, a question is compared with the labels of folders and the pages inside
# them are read. Attention does not get its questions, labels and pages for free: each position produces
# a **query**, a **key** and a **value** through three *learned linear maps*, and a layer runs several such
# sets of maps side by side, the **heads**.
#
# After this notebook you can
#
# * apply a learned map to every position at once (`project`);
# * count the parameters of an attention layer, and say why the heads do not multiply them (`attention_param_count`);
# * cut the width into heads and join them back (`split_heads`, `merge_heads`);
# * assemble multi-head attention, with the divisor that follows the width of a head (`multi_head_attention`).
#
# **How the checks work.** After each answer, run the cell `grader.check("...")`: it tries your function on
# public examples and says which properties hold and, when one fails, the mistake it suggests. It never shows
# the expected arrays. Hidden tests grade the same properties on other inputs when you submit.
# `scaled_dot_product_attention(Q, K, V, mask=None)` from notebooks 2 and 3 is given (with its guard for a
# fully masked row), as are `softmax` and `causal_mask`.

# %% nbgrader={"grade": false, "grade_id": "given", "locked": true, "schema_version": 3, "solution": false, "task": false} cell_id="given"
# %matplotlib inline
import math
import numpy as np
import matplotlib.pyplot as plt
from attention_ref import softmax, scaled_dot_product_attention, causal_mask
from autograder.hidden import check
from autograder.notebook import Grader
grader = Grader("04_heads", globals())


# %% [markdown] cell_id="md-02"
# ## 1. Three learned maps
#
# Each position is a row vector $x$ of width $d_{model}$. A learned linear map is a fixed matrix that turns
# one vector into another: with $d_{model}$ rows and one column per output entry,
#
# $$q = x\,W_Q,\qquad k = x\,W_K,\qquad v = x\,W_V,\qquad
# W_Q, W_K \in \mathbb{R}^{d_{model}\times d_k},\quad W_V \in \mathbb{R}^{d_{model}\times d_v}.$$
#
# A query says what a position is looking for, a key what it advertises, a value what it passes on.
# Stacking the $n$ positions as the rows of $X$ (shape $(n, d_{model})$), one matrix product maps them all:
# $Q = X W_Q$ has shape $(n, d_k)$. The maps have no bias here, and training determines their entries.
#
# **Task.** Write `project(X, W)`. `X` may have leading batch axes: shape `(..., n, d_model)`.

# %% nbgrader={"grade": false, "grade_id": "project", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="sol-project"
def project(X, W):
    """Apply a learned linear map: one output entry per column of ``W``.

    Parameters
    ----------
    X : ndarray, shape (..., n, d_model)
        One row per position (leading axes are batch axes).
    W : ndarray, shape (d_model, d_out)
        The map: ``d_model`` rows, one column per output entry (no bias).

    Returns
    -------
    ndarray, shape (..., n, d_out)
    """
    ### BEGIN SOLUTION
    return np.asarray(X) @ np.asarray(W)  # (..., n, d_model) @ (d_model, d_out) -> (..., n, d_out)
    ### END SOLUTION


# %% cell_id="code-03"
grader.check("project")

# %% nbgrader={"grade": true, "grade_id": "project_seed_example", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-project-seed-example"
# Hidden test: project, the docstring's example and a square map (1 point)
### BEGIN HIDDEN TESTS
check("project_seed_example", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "project_batched", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-project-batched"
# Hidden test: project, rows with leading batch axes and a non-square map (1 point)
### BEGIN HIDDEN TESTS
check("project_batched", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "project_float32_unmodified", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-project-float32-unmodified"
# Hidden test: project, float32 inputs, left unchanged (1 point)
### BEGIN HIDDEN TESTS
check("project_float32_unmodified", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="md-04"
# ## 2. Why the query map and the key map must differ
#
# The score of position $i$ reading position $j$ is $s_{ij} = q_i \cdot k_j = x_i W_Q W_K^\top x_j^\top$.
# Suppose one shared map $W$ served for both queries and keys. Then
#
# $$s_{ij} = x_i\,W W^\top x_j^\top = x_j\,W W^\top x_i^\top = s_{ji},$$
#
# because $W W^\top$ is a symmetric matrix: item $i$ reading item $j$ would score exactly as item $j$ reading
# item $i$. Two maps break that symmetry ($W_Q W_K^\top$ need not be symmetric), so a model can learn that a
# pronoun looks at its noun without the noun looking back. The cell below shows it with random maps: the score
# matrix of one shared map equals its transpose, that of two maps does not.

# %% cell_id="code-05"
rng = np.random.default_rng(4)
X_demo = rng.standard_normal((6, 8))                    # 6 positions of width 8
W_shared, W_q_demo, W_k_demo = rng.standard_normal((3, 8, 4))
try:
    S_shared = project(X_demo, W_shared) @ project(X_demo, W_shared).T
    S_two = project(X_demo, W_q_demo) @ project(X_demo, W_k_demo).T
    print("one shared map: scores symmetric?", np.allclose(S_shared, S_shared.T))
    print("two maps:       scores symmetric?", np.allclose(S_two, S_two.T))
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, S, title in ((axes[0], S_shared, "one shared map: $S = S^T$"),
                         (axes[1], S_two, "two maps $W_Q \\neq W_K$: $S \\neq S^T$")):
        limit = np.abs(S).max()
        image = ax.imshow(S, cmap="RdBu_r", vmin=-limit, vmax=limit)
        ax.set_title(title)
        ax.set_xlabel("key position j")
        ax.set_ylabel("query position i")
        fig.colorbar(image, ax=ax, label="score $q_i \\cdot k_j$")
    fig.suptitle("Raw scores of 6 positions")
    plt.show()
    plt.close(fig)
except NotImplementedError:
    print("(plot appears once project is done)")


# %% [markdown] cell_id="md-05b-alignment"
# ### Alignment is not relevance
#
# A dot product measures **alignment**: how far $q_i$ and $k_j$ point the same way. Nothing in the formula
# guarantees that alignment means **relevance**. In the raw inputs, a word is most aligned with itself, yet a
# pronoun needs its noun. The maps $W_Q$ and $W_K$ have to learn a space, a coordinate system, in which a large dot
# product means "worth reading" for the task the model is trained on.
#
# This is also where the library analogy breaks. A library label is written by a librarian and means something
# before the search begins. A key is a learned vector with no meaning outside the dot product, and the query is
# learned in the same space: the pair of maps has to learn a space where alignment is relevance.

# %% [markdown] cell_id="md-06"
# ## 3. Counting the parameters
#
# With input width $d_{model}$ the query and key maps have $d_k$ columns and the value map $d_v$, so one
# head's three maps hold $d_{model}(2d_k + d_v)$ parameters — which is $3\,d_{model}\,d_k$ only when the two
# widths agree. A layer with $h$ heads has $h$ such sets, and an **output projection**
# $W_O \in \mathbb{R}^{h d_v \times d_{model}}$ that recombines the concatenated heads:
#
# $$P = \underbrace{h\,d_{model}\,(2d_k + d_v)}_{W_Q,\ W_K,\ W_V} \;+\; \underbrace{h\,d_v\,d_{model}}_{W_O}.$$
#
# In the paper's setting $d_{model} = 512$ and $h = 8$ heads of $d_k = d_v = 512/8 = 64$. The three maps hold
# $8 \times 512 \times (2\cdot 64 + 64) = 786{,}432 = 3 \times 512^2$ parameters between them — the same as one head
# of full width 512 — and the output projection adds $512^2 = 262{,}144$: **1,048,576** in all.
# Splitting the model into heads does not multiply the cost at a fixed total width; the paper notes that the
# total computational cost is similar to that of one full-width head. Heads multiply the cost only against a
# single head of the same *narrow* width. The output projection $W_O$, $d_{model}^2$ more, recombines the heads;
# `attention_param_count` counts it for one head as for eight (`output_projection=False` leaves it out), so the
# comparison with one full-width head holds with it or without it.
#
# **Task.** Write `attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True)`.
# When `d_k` or `d_v` is not given, a head gets the width `d_model // num_heads`. Return an `int`.

# %% nbgrader={"grade": false, "grade_id": "attention_param_count", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="sol-attention-param-count"
def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    """Number of entries in the maps of one multi-head attention layer (no biases).

    Parameters
    ----------
    d_model : int
        Width of the input rows.
    num_heads : int
        Number of heads.
    d_k, d_v : int, optional
        Per-head widths of the queries/keys and of the values; ``d_model // num_heads`` by default.
    output_projection : bool, optional
        Count the output map ``W_o`` of shape ``(num_heads * d_v, d_model)`` that recombines the heads.

    Returns
    -------
    int
    """
    ### BEGIN SOLUTION
    if d_k is None:
        d_k = d_model // num_heads
    if d_v is None:
        d_v = d_model // num_heads
    count = num_heads * d_model * (2 * d_k + d_v)  # W_q, W_k: d_model x (h d_k); W_v: d_model x (h d_v)
    if output_projection:
        count += num_heads * d_v * d_model  # W_o: (h d_v) x d_model
    return int(count)
    ### END SOLUTION


# %% cell_id="code-07"
grader.check("attention_param_count")

# %% nbgrader={"grade": true, "grade_id": "attention_param_count_seed_example", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-attention-param-count-seed-example"
# Hidden test: attention_param_count, the seeds' layer: width 512, 8 heads of 64, and one head of 512 (1 point)
### BEGIN HIDDEN TESTS
check("attention_param_count_seed_example", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "attention_param_count_heads_fixed_width", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-attention-param-count-heads-fixed-width"
# Hidden test: attention_param_count, the count does not change with the heads at a fixed total width (1 point)
### BEGIN HIDDEN TESTS
check("attention_param_count_heads_fixed_width", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "attention_param_count_explicit_widths", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-attention-param-count-explicit-widths"
# Hidden test: attention_param_count, per-head widths d_k != d_v given explicitly (1 point)
### BEGIN HIDDEN TESTS
check("attention_param_count_explicit_widths", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "attention_param_count_output_projection", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-attention-param-count-output-projection"
# Hidden test: attention_param_count, output_projection=False leaves out W_o (d_model**2 fewer) (1 point)
### BEGIN HIDDEN TESTS
check("attention_param_count_output_projection", globals())
### END HIDDEN TESTS

# %% cell_id="code-08"
try:
    print("heads  width of a head  maps W_q, W_k, W_v  with W_o")
    for h in (1, 2, 4, 8, 16):
        print(f"{h:5d}  {512 // h:15d}  {attention_param_count(512, h, output_projection=False):18,d}"
              f"  {attention_param_count(512, h):9,d}")
except NotImplementedError:
    print("(table appears once attention_param_count is done)")


# %% [markdown] cell_id="md-09"
# ## 4. Heads: cutting the width
#
# One set of maps is one head. A layer with $h$ heads computes all of them with one wide map per role
# ($W_Q$ has $h\,d_k$ columns) and then **cuts the width**: head $0$ takes columns $0 \dots d-1$, head $1$ the next
# $d$ columns, and so on, so that each head is an $(n, d)$ matrix of its own:
#
# $$(\dots, n, h\,d) \xrightarrow{\ \text{reshape}\ } (\dots, n, h, d) \xrightarrow{\ \text{swap the axes } n, h\ } (\dots, h, n, d).$$
#
# The reshape keeps every row's entries together and only regroups them; the swap moves the head axis in front
# so that the heads behave like a batch axis in `Q @ K^T`. Reshaping straight to $(h, n, d)$ looks the same
# shape-wise but cuts the flat array in the wrong places: rows of different positions end up in one head.
#
# **Task.** Write `split_heads(X, num_heads)`: `(..., n, d_model)` to `(..., num_heads, n, d_model // num_heads)`.

# %% nbgrader={"grade": false, "grade_id": "split_heads", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="sol-split-heads"
def split_heads(X, num_heads):
    """Cut the width into ``num_heads`` slices and move the head axis in front.

    Parameters
    ----------
    X : ndarray, shape (..., n, d_model)
    num_heads : int
        Divides ``d_model``.

    Returns
    -------
    ndarray, shape (..., num_heads, n, d_model // num_heads)
        Head ``h`` holds columns ``h*d : (h+1)*d`` of every row.
    """
    ### BEGIN SOLUTION
    X = np.asarray(X)
    *batch, n, d_model = X.shape
    X = X.reshape(*batch, n, num_heads, d_model // num_heads)  # (..., n, h, d)
    return np.swapaxes(X, -3, -2)  # (..., h, n, d)
    ### END SOLUTION


# %% cell_id="code-10"
grader.check("split_heads")

# %% nbgrader={"grade": true, "grade_id": "split_heads_seed_example", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-split-heads-seed-example"
# Hidden test: split_heads, a 2 x 6 array cut into 3 heads of width 2 (1 point)
### BEGIN HIDDEN TESTS
check("split_heads_seed_example", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "split_heads_batched", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-split-heads-batched"
# Hidden test: split_heads, leading batch axes, 4 heads (1 point)
### BEGIN HIDDEN TESTS
check("split_heads_batched", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "split_heads_float32_unmodified", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-split-heads-float32-unmodified"
# Hidden test: split_heads, float32 input, left unchanged (1 point)
### BEGIN HIDDEN TESTS
check("split_heads_float32_unmodified", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="md-11"
# ## 5. Joining the heads back
#
# After attention each head returns an $(n, d_v)$ matrix. The layer **concatenates** the heads, joining them
# end to end along the width: row $i$ of the result is head 0's row $i$, then head 1's row $i$, and so on.
# This is the inverse of the split: swap the head axis back next to the width, then reshape.
#
# **Task.** Write `merge_heads(X)`: `(..., h, n, d)` to `(..., n, h * d)`, so that
# `merge_heads(split_heads(X, h))` gives back `X`.

# %% nbgrader={"grade": false, "grade_id": "merge_heads", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="sol-merge-heads"
def merge_heads(X):
    """Inverse of ``split_heads``: concatenate the heads along the width.

    Parameters
    ----------
    X : ndarray, shape (..., h, n, d)

    Returns
    -------
    ndarray, shape (..., n, h * d)
    """
    ### BEGIN SOLUTION
    X = np.asarray(X)
    *batch, h, n, d = X.shape
    return np.swapaxes(X, -3, -2).reshape(*batch, n, h * d)  # (..., n, h, d) -> (..., n, h*d)
    ### END SOLUTION


# %% cell_id="code-12"
grader.check("merge_heads")

# %% nbgrader={"grade": true, "grade_id": "merge_heads_seed_example", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-merge-heads-seed-example"
# Hidden test: merge_heads, 3 heads of a 2 x 6 array joined back (1 point)
### BEGIN HIDDEN TESTS
check("merge_heads_seed_example", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "merge_heads_batched", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-merge-heads-batched"
# Hidden test: merge_heads, leading batch axes, 4 heads, n != d (1 point)
### BEGIN HIDDEN TESTS
check("merge_heads_batched", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "merge_heads_float32_unmodified", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-merge-heads-float32-unmodified"
# Hidden test: merge_heads, float32 input, left unchanged (1 point)
### BEGIN HIDDEN TESTS
check("merge_heads_float32_unmodified", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="md-13"
# ## 6. Multi-head attention
#
# Put the pieces together. Queries come from the rows $X_q$ that ask, keys and values from the rows $X_{kv}$
# that are read (the same array for self-attention, notebook 5):
#
# $$\text{head}_i = \operatorname{softmax}\!\left(\frac{Q_i K_i^\top}{\sqrt{d_k}}\right) V_i,\qquad
# \operatorname{MultiHead}(X_q, X_{kv}) = \operatorname{Concat}(\text{head}_1, \dots, \text{head}_h)\, W_O,$$
#
# with $Q_i, K_i, V_i$ the $i$-th slices of $X_q W_Q$, $X_{kv} W_K$, $X_{kv} W_V$.
#
# **The divisor follows the head width.** Each head works in its own $d_k$ dimensions, so it divides by the
# square root of *its* width: with 8 heads at width 512 a head has $d_k = 64$ and the divisor is
# $\sqrt{64} = 8$, not $\sqrt{512} \approx 22.6$. (The given `scaled_dot_product_attention` reads $d_k$ from the
# last axis of the queries it receives: give it the split heads.)
#
# **A mask applies to every head.** The heads' scores have shape `(..., h, n_q, n_k)`; a mask of shape
# `(..., n_q, n_k)` needs a head axis (`np.expand_dims(mask, -3)`) so that it lines up with the batch axes and
# broadcasts over the heads.
#
# **Task.** Write `multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None)`. It returns
# `(output, weights)`: the output `(..., n_q, d_out)` and the weights of every head `(..., num_heads, n_q, n_k)`.
# Use your `project`, `split_heads`, `merge_heads` and the given `scaled_dot_product_attention`.
#
# *How it is graded:* your `multi_head_attention` is graded with correct `project`, `split_heads` and
# `merge_heads` put in place of yours, so a mistake in one of those costs points on that task only.

# %% nbgrader={"grade": false, "grade_id": "multi_head_attention", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="sol-multi-head-attention"
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    """Multi-head attention: project, split into heads, attend per head, merge, project back.

    Parameters
    ----------
    X_q : ndarray, shape (..., n_q, d_model)
        Rows that ask (the queries come from here).
    X_kv : ndarray, shape (..., n_k, d_model)
        Rows that are read (keys and values come from here).
    W_q, W_k : ndarray, shape (d_model, num_heads * d_k)
    W_v : ndarray, shape (d_model, num_heads * d_v)
    W_o : ndarray, shape (num_heads * d_v, d_out)
    num_heads : int
    mask : ndarray of bool, broadcastable to (..., n_q, n_k), optional
        True = may attend; the same mask for every head.

    Returns
    -------
    output : ndarray, shape (..., n_q, d_out)
    weights : ndarray, shape (..., num_heads, n_q, n_k)
    """
    ### BEGIN SOLUTION
    Q = split_heads(project(X_q, W_q), num_heads)   # (..., h, n_q, d_k)
    K = split_heads(project(X_kv, W_k), num_heads)  # (..., h, n_k, d_k)
    V = split_heads(project(X_kv, W_v), num_heads)  # (..., h, n_k, d_v)
    if mask is not None:
        mask = np.asarray(mask)
        if mask.ndim >= 2:
            mask = np.expand_dims(mask, -3)  # (..., 1, n_q, n_k): the same mask for every head
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)  # each head divides by sqrt(its d_k)
    return project(merge_heads(heads), W_o), weights
    ### END SOLUTION


# %% cell_id="code-14"
grader.check("multi_head_attention")

# %% nbgrader={"grade": true, "grade_id": "multi_head_attention_shapes", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-multi-head-attention-shapes"
# Hidden test: multi_head_attention, shapes: 2 heads over 5 positions of width 8, W_o to width 6 (1 point)
### BEGIN HIDDEN TESTS
check("multi_head_attention_shapes", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "multi_head_attention_matches_reference", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-multi-head-attention-matches-reference"
# Hidden test: multi_head_attention, non-square: batch axes, n_q != n_k, d_k != d_v, 4 heads, W_o to another width (1 point)
### BEGIN HIDDEN TESTS
check("multi_head_attention_matches_reference", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "multi_head_attention_head_divisor", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-multi-head-attention-head-divisor"
# Hidden test: multi_head_attention, the seeds' layer: width 512, 8 heads of 64 (divisor sqrt(64) = 8) (1 point)
### BEGIN HIDDEN TESTS
check("multi_head_attention_head_divisor", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "multi_head_attention_mask", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-multi-head-attention-mask"
# Hidden test: multi_head_attention, a boolean (n_q, n_k) mask with a fully masked row, applied to every head (1 point)
### BEGIN HIDDEN TESTS
check("multi_head_attention_mask", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "multi_head_attention_batch_mask", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-multi-head-attention-batch-mask"
# Hidden test: multi_head_attention, a (batch, n_q, n_k) mask: the same mask for every head (1 point)
### BEGIN HIDDEN TESTS
check("multi_head_attention_batch_mask", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "multi_head_attention_float32_unmodified", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-multi-head-attention-float32-unmodified"
# Hidden test: multi_head_attention, float32 inputs, left unchanged (1 point)
### BEGIN HIDDEN TESTS
check("multi_head_attention_float32_unmodified", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="md-15"
# Each head has its own table of weights. Below, 4 heads of width 4 read the same 8 positions under a
# causal mask (notebook 3): the maps differ, so the heads spread their attention differently.

# %% cell_id="code-16"
rng = np.random.default_rng(7)
X_heads = rng.standard_normal((8, 16))
W_q_heads, W_k_heads, W_v_heads, W_o_heads = rng.standard_normal((4, 16, 16)) / 2
try:
    _, w_heads = multi_head_attention(X_heads, X_heads, W_q_heads, W_k_heads, W_v_heads, W_o_heads,
                                      num_heads=4, mask=causal_mask(8))
    fig, axes = plt.subplots(1, 4, figsize=(15, 4), layout="constrained")
    for head, ax in enumerate(axes):
        image = ax.imshow(w_heads[head], cmap="viridis", vmin=0, vmax=1)
        ax.set_title(f"head {head}")
        ax.set_xlabel("key position")
        ax.set_ylabel("query position")
    fig.colorbar(image, ax=axes, label="weight")
    fig.suptitle("Causal self-attention weights of 4 heads (each row sums to 1)")
    plt.show()
    plt.close(fig)
except NotImplementedError:
    print("(plot appears once multi_head_attention is done)")

# %% [markdown] cell_id="md-15b-why"
# ### Stop and write: why several heads
#
# In two to four sentences, with the numbers of this notebook: why does the paper's layer run 8 heads of width 64
# rather than one head of width 512? Say what several heads can do that one head cannot, and what they cost.

# %% [markdown] nbgrader={"grade": true, "grade_id": "SEVERAL_HEADS_WHY", "locked": false, "points": 1, "schema_version": 3, "solution": true, "task": false} cell_id="md-15c-SEVERAL-HEADS-WHY"
# One head gives each query one row of weights, so it can read the sequence by one notion of relevance only; but
# relevance is not one relation (a word may need its noun and its verb at once). Each of 8 heads has its own maps,
# so its own table of weights (the plot above: 4 heads spread their attention differently over the same 8
# positions), and $W_O$ recombines what they read. At a fixed width this costs no extra parameters: 8 heads of 64
# hold $3 \times 512^2 = 786{,}432$ parameters in their maps, exactly as one head of 512, and 1,048,576 with $W_O$
# either way; the computation is similar too. Each head divides its scores by $\sqrt{64} = 8$, its own width.

# %% [markdown] autograder={"rubric_for": "SEVERAL_HEADS_WHY"} cell_id="rubric-SEVERAL-HEADS-WHY"
# **Rubric (instructor only)** — `SEVERAL_HEADS_WHY`, 1 point.
#
# * **1 point: several relations at no extra cost.** Each head has its own maps and its own table of weights, so
#   the heads can attend by different relations (one head: one row of weights per query, one notion of
#   relevance); at a fixed width of 512 the parameters are the same, 786,432 for the three maps (1,048,576 with
#   $W_O$), for 8 heads of 64 as for one head of 512. Half a point for either half alone. An answer that says the
#   heads multiply the parameters by 8 at the same total width earns nothing for the cost half.

# %% [markdown] cell_id="md-16b-understanding"
# ## 7. Check your understanding
#
# **Task.** Section 2 showed on one example that a shared map gives a symmetric score matrix. Measure it: write
# `score_asymmetry(X, W_q, W_k)`, the largest gap $\max_{i,j} |s_{ij} - s_{ji}|$ between "$i$ reads $j$" and
# "$j$ reads $i$" for the scores $s_{ij} = (x_i W_q) \cdot (x_j W_k)$. The cell after it prints the gap for one map
# and for two.

# %% nbgrader={"grade": false, "grade_id": "score_asymmetry", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="sol-score-asymmetry"
def score_asymmetry(X, W_q, W_k):
    """The largest gap between "i reads j" and "j reads i" in the scores (X W_q)(X W_k)^T.

    Parameters
    ----------
    X : ndarray, shape (n, d_model)
    W_q, W_k : ndarray, shape (d_model, d_k)

    Returns
    -------
    float
        max over i, j of |s_ij - s_ji|.
    """
    ### BEGIN SOLUTION
    S = (np.asarray(X) @ np.asarray(W_q)) @ (np.asarray(X) @ np.asarray(W_k)).T
    return float(np.abs(S - S.T).max())
    ### END SOLUTION


# %% cell_id="check-score-asymmetry"
grader.check("score_asymmetry")

# %% nbgrader={"grade": true, "grade_id": "score_asymmetry_values", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-score-asymmetry-values"
# Hidden test: score_asymmetry, two maps: the largest gap between the two directions; one map: 0 (1 point)
### BEGIN HIDDEN TESTS
check("score_asymmetry_values", globals())
### END HIDDEN TESTS

# %% cell_id="code-16c"
try:
    print("one map (W, W):      largest gap", score_asymmetry(X_demo, W_shared, W_shared))
    print("two maps (W_q, W_k): largest gap", round(score_asymmetry(X_demo, W_q_demo, W_k_demo), 3))
except NotImplementedError:
    print("(the gaps appear once score_asymmetry is done)")

# %% [markdown] cell_id="md-16d-questions"
# Answer with one letter per question, in order, as a tuple of strings: `CONCEPTS_04 = ("a", "b", "c")`. The letters are
# checked when your notebook is graded.
#
# The cell after the questions prints their options, lettered in an order of your own (each student's differs):
# answer with the letters it prints.
#
# **Question 1.** After training, query $i$'s largest score is with key $j$. What does that tell you?
#
# **Question 2.** How do the key and the value of one position differ?
#
# **Question 3.** Why does a layer run several heads rather than one head of full width?

# %% nbgrader={"grade": false, "grade_id": "concepts_numbers", "locked": true, "schema_version": 3, "solution": false, "task": false} cell_id="concepts-numbers-04"
# The options of each question above, lettered in your own order: answer with these letters
CONCEPT_ORDER = grader.numbers("04_heads/concepts")

# %% nbgrader={"grade": false, "grade_id": "CONCEPTS_04", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["raises-exception"] cell_id="sol-CONCEPTS-04"
# CONCEPTS_04 = ("?", "?", "?")  (one letter per question, in order)
### BEGIN SOLUTION
# the letter you see each right option under (CONCEPT_ORDER[i]: the lesson's letters in the order you see them)
CONCEPTS_04 = tuple("abcd"[shown.index(right)] for shown, right in zip(CONCEPT_ORDER, "dba"))
### END SOLUTION

# %% cell_id="check-CONCEPTS-04"
grader.check("CONCEPTS_04")

# %% nbgrader={"grade": true, "grade_id": "CONCEPTS_04_format", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-CONCEPTS-04-format"
# Hidden test: CONCEPTS_04, 3 letters, each one of a to d (1 point)
### BEGIN HIDDEN TESTS
check("CONCEPTS_04_format", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "CONCEPTS_04_value", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-CONCEPTS-04-value"
# Hidden test: CONCEPTS_04, what a large dot product of learned queries and keys means; how the key and the value of a position differ; why a layer runs several heads (1 point)
### BEGIN HIDDEN TESTS
check("CONCEPTS_04_value", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="md-17"
# ## Summary
#
# Attention is three learned projections per head; the query and key maps must differ, or every score matrix
# is symmetric. At a fixed total width the heads do not multiply the parameters — $3\,d_{model}^2$ for the maps
# plus $d_{model}^2$ for the output projection, 1,048,576 at width 512 — and each head divides its scores by the
# square root of its own width. The table below shows which tasks pass their visible checks.

# %% [markdown] cell_id="md-17b-reading"
# ## Further reading
#
# * Vaswani et al., *Attention Is All You Need* (2017), §3.2.1: scaled dot-product attention, additive attention as
#   the older alternative, and the footnote that computes the variance $d_k$ of a dot product of independent
#   unit-variance entries (why the divisor has the form it has); §3.2.2: multi-head attention and its cost.
# * Prince, *Understanding Deep Learning*, §12.3: self-attention, with the scaling argument in §12.3.2 and
#   multiple heads in §12.3.3; it also explains the names query, key and value, inherited from information
#   retrieval.

# %% cell_id="code-18"
grader.summary()
