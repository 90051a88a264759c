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

# %% [markdown] cell_id="c00"
# # 03 · Masks: which keys a query may read
#
# **After this notebook you can** build the two masks every transformer uses — the causal mask of a model that
# predicts the next word and the padding mask of a batch of sequences of different lengths — apply them to the
# scores, and handle the edge case of a query that may read nothing at all.
#
# **How the checks work.** As before: replace each stub, run its cell, run the `grader.check(...)` cell after it.
# Hidden tests run the same properties on fresh random inputs (batches, non-square shapes, float32, large scores,
# masks of every kind) when you submit.
#
# Given from notebooks 01 and 02: `attention_scores`, `softmax` (stable, and safe on a row that is all `-inf`),
# `weighted_average` and `scale_scores`.

# %% nbgrader={"grade": false, "grade_id": "given", "locked": true, "schema_version": 3, "solution": false, "task": false} cell_id="c01-given"
# %matplotlib inline
import math
import numpy as np
import matplotlib.pyplot as plt
from attention_ref import attention_scores, softmax, weighted_average, scale_scores
from autograder.hidden import check
from autograder.notebook import Grader
grader = Grader("03_masking", globals())


# %% [markdown] cell_id="c02"
# ## 1. Hiding a key: a score of $-\infty$
#
# When a model predicts the next word, position $i$ must not consult the words after it: they have not been produced
# yet. A **mask** sets those scores to $-\infty$ before the softmax. Since $e^{-\infty} = 0$, a hidden key gets
# weight exactly $0$ and the other weights of the row still sum to one:
#
# $$ w_{ij} = \frac{e^{s_{ij}}\,[\,j \text{ allowed}\,]}{\sum_{l \text{ allowed}} e^{s_{il}}} . $$
#
# Two conventions meet in practice, and this course follows PyTorch's and JAX's:
#
# * a **boolean** mask of shape `(..., n_q, n_k)` (or anything that broadcasts to it): `True` = *may attend*,
#   `False` = hidden;
# * a **floating** mask is an *additive bias* on the scaled scores: `0` keeps a score, `-inf` hides it, and other
#   values shift it.
#
# ### The causal mask
#
# Query $i$ may attend key $j$ exactly when $j \le i$: a lower-triangular matrix, diagonal included (a position may
# read itself). When there are more or fewer keys than queries the triangle starts at the **top-left** corner, like
# `np.tril` of an `(n_q, n_k)` array of ones (some libraries align it to the bottom-right instead; not this course).
#
# **Task.** Write `causal_mask(n_q, n_k=None)` returning a boolean array of shape `(n_q, n_k)` (`n_k = n_q` when it
# is not given).

# %% nbgrader={"grade": false, "grade_id": "causal_mask", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="c03-causal-mask"
def causal_mask(n_q, n_k=None):
    """Query i may attend key j iff j <= i (top-left aligned, diagonal included).

    Parameters
    ----------
    n_q : int
        Number of queries.
    n_k : int, optional
        Number of keys; n_q by default.

    Returns
    -------
    ndarray of bool, shape (n_q, n_k)
    """
    ### BEGIN SOLUTION
    if n_k is None:
        n_k = n_q
    return np.arange(n_k)[None, :] <= np.arange(n_q)[:, None]
    ### END SOLUTION


# %% cell_id="c04"
grader.check("causal_mask")

# %% nbgrader={"grade": true, "grade_id": "causal_mask_square", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c05-causal-mask-square"
# Hidden test: causal_mask, square masks (n = 3, 6 and 1): j <= i, diagonal included (1 point)
### BEGIN HIDDEN TESTS
check("causal_mask_square", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "causal_mask_non_square", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c06-causal-mask-non-square"
# Hidden test: causal_mask, more keys than queries and fewer (top-left aligned) (1 point)
### BEGIN HIDDEN TESTS
check("causal_mask_non_square", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "causal_mask_bool", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c07-causal-mask-bool"
# Hidden test: causal_mask, returns booleans (True = may attend) (1 point)
### BEGIN HIDDEN TESTS
check("causal_mask_bool", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="c08"
# ### The padding mask
#
# A batch stacks sequences of different lengths, so the shorter ones are padded at the end to a common length
# $n_k$. The padding is not real input: no query may read it. For sequence $b$ of true length $L_b$, key $j$ is real
# exactly when $j < L_b$. The mask hides *keys*, for every query alike, so give it a query axis of length one:
# shape `(batch, 1, n_k)`, which broadcasts against scores of shape `(batch, n_q, n_k)`.
#
# **Task.** Write `padding_mask(lengths, n_k)`: `lengths` is an integer array of shape `(batch,)` with
# `0 <= lengths[b] <= n_k`; return a boolean array of shape `(batch, 1, n_k)`.

# %% nbgrader={"grade": false, "grade_id": "padding_mask", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="c09-padding-mask"
def padding_mask(lengths, n_k):
    """Hide the padding at the end of each sequence of a batch.

    Parameters
    ----------
    lengths : array_like of int, shape (batch,)
        True length of each sequence.
    n_k : int
        Padded length (number of keys).

    Returns
    -------
    ndarray of bool, shape (batch, 1, n_k)
        True where key j < lengths[b].
    """
    ### BEGIN SOLUTION
    lengths = np.asarray(lengths)
    return (np.arange(n_k)[None, :] < lengths[:, None])[:, None, :]
    ### END SOLUTION


# %% cell_id="c10"
grader.check("padding_mask")

# %% nbgrader={"grade": true, "grade_id": "padding_mask_values", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c11-padding-mask-values"
# Hidden test: padding_mask, a batch of three sequences padded to n_k = 6 (one unpadded) (1 point)
### BEGIN HIDDEN TESTS
check("padding_mask_values", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "padding_mask_random_lengths", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c12-padding-mask-random-lengths"
# Hidden test: padding_mask, random lengths and widths, including an empty sequence (1 point)
### BEGIN HIDDEN TESTS
check("padding_mask_random_lengths", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "padding_mask_broadcasts", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c13-padding-mask-broadcasts"
# Hidden test: padding_mask, the mask broadcasts against scores of shape (batch, n_q, n_k) (1 point)
### BEGIN HIDDEN TESTS
check("padding_mask_broadcasts", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="c14"
# ## 2. Applying a mask
#
# **Task.** Write `apply_mask(scores, mask)`: return a **new** array (the caller still needs the original scores)
# in which the hidden scores are `-np.inf` and the others unchanged. A boolean mask says which scores are kept
# (`True`); a floating mask is added to the scores. The mask broadcasts against the scores.

# %% nbgrader={"grade": false, "grade_id": "apply_mask", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="c15-apply-mask"
def apply_mask(scores, mask):
    """Set the scores of hidden positions to -inf (boolean mask) or add the mask (floating mask).

    Parameters
    ----------
    scores : array_like, shape (..., n_q, n_k)
        Scores before the softmax; never modified.
    mask : array_like of bool or float, broadcastable to (..., n_q, n_k)
        Boolean: True = may attend. Floating: an additive bias.

    Returns
    -------
    ndarray, same shape as scores
        A new array.
    """
    ### BEGIN SOLUTION
    scores = np.asarray(scores)
    mask = np.asarray(mask)
    if mask.dtype == bool:
        return np.where(mask, scores, -np.inf)
    return scores + mask
    ### END SOLUTION


# %% cell_id="c16"
grader.check("apply_mask")

# %% nbgrader={"grade": true, "grade_id": "apply_mask_bool", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c17-apply-mask-bool"
# Hidden test: apply_mask, a boolean mask: hidden scores become -inf, the others are unchanged (1 point)
### BEGIN HIDDEN TESTS
check("apply_mask_bool", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "apply_mask_float_additive", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c18-apply-mask-float-additive"
# Hidden test: apply_mask, a floating mask is added (0 keeps, -inf hides, other values shift) (1 point)
### BEGIN HIDDEN TESTS
check("apply_mask_float_additive", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "apply_mask_broadcast", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c19-apply-mask-broadcast"
# Hidden test: apply_mask, a padding mask (batch, 1, n_k) on batched scores; float32 scores (1 point)
### BEGIN HIDDEN TESTS
check("apply_mask_broadcast", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "apply_mask_inputs_unmodified", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c20-apply-mask-inputs-unmodified"
# Hidden test: apply_mask, leaves the scores and the mask unchanged (1 point)
### BEGIN HIDDEN TESTS
check("apply_mask_inputs_unmodified", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="c21"
# ## 3. Attention with a mask
#
# The mask enters between the scaling and the softmax:
#
# $$ \operatorname{Attention}(Q, K, V, M) = \operatorname{softmax}\!\left(\operatorname{mask}\!\left(\frac{QK^\top}{\sqrt{d_k}}, M\right)\right) V . $$
#
# Masking *after* the softmax would be wrong: the remaining weights would no longer sum to one. And filling with $0$
# instead of $-\infty$ would not hide anything, since $e^0 = 1$.
#
# ### The fully masked row
#
# One edge case needs care. A query with **no** allowed key — a padded query position, or a mask that hides a whole
# row — gives every score $-\infty$, and the softmax then divides zero by zero:

# %% cell_id="c22"
row = np.array([-np.inf, -np.inf, -np.inf])
with np.errstate(invalid="ignore"):  # silence numpy's "invalid value" warning for the demonstration
    naive = np.exp(row - row.max()) / np.exp(row - row.max()).sum()
print("naive softmax of a fully masked row:", naive)
print("the given softmax:                  ", softmax(row))


# %% [markdown] cell_id="c23"
# Implementations guard that row or accept a useless output: PyTorch's attention returned NaN there for a
# long time (pytorch/pytorch issue 103749), FlashAttention and recent versions return zeros. This course guards it: a query with no allowed key gets **weights of zero and an output of zero**, with no NaN and no warning.
# The given `softmax` already does it (it subtracts $0$ instead of $-\infty$ from such a row and divides by $1$
# instead of $0$), so if you mask with `-np.inf` and use it, your attention inherits the guard. Beware of the common
# shortcut of filling with a large negative number such as `-1e9`: a fully masked row then gets *equal* weights on
# every hidden key, a confident-looking but meaningless average.
#
# **Task.** Write `scaled_dot_product_attention(Q, K, V, mask=None)` returning `(output, weights)`: as in
# notebook 02 when `mask` is `None`; otherwise apply the mask (boolean or floating, broadcasting against
# `(..., n_q, n_k)`) to the **scaled** scores before the softmax. Do not modify the inputs.
#
# *How it is graded:* your `scaled_dot_product_attention` is graded with a correct `apply_mask` put in place of
# yours, so a mistake in `apply_mask` costs points on that task only.

# %% nbgrader={"grade": false, "grade_id": "scaled_dot_product_attention", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="c24-scaled-dot-product-attention"
def scaled_dot_product_attention(Q, K, V, mask=None):
    """softmax(mask(Q K^T / sqrt(d_k))) V.

    Parameters
    ----------
    Q : array_like, shape (..., n_q, d_k)
    K : array_like, shape (..., n_k, d_k)
    V : array_like, shape (..., n_k, d_v)
    mask : array_like of bool or float, broadcastable to (..., n_q, n_k), optional
        Boolean: True = may attend. Floating: added to the scaled scores.

    Returns
    -------
    output : ndarray, shape (..., n_q, d_v)
    weights : ndarray, shape (..., n_q, n_k)
        Rows sum to 1; a query with no allowed key gets zero weights and a zero output.
    """
    ### BEGIN SOLUTION
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    if mask is not None:
        scores = apply_mask(scores, mask)
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
    ### END SOLUTION


# %% cell_id="c25"
grader.check("scaled_dot_product_attention")

# %% nbgrader={"grade": true, "grade_id": "scaled_dot_product_attention_no_mask", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c26-scaled-dot-product-attention-no-mask"
# Hidden test: scaled_dot_product_attention, without a mask: non-square, batched (as in notebook 02) (1 point)
### BEGIN HIDDEN TESTS
check("scaled_dot_product_attention_no_mask", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "scaled_dot_product_attention_causal", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c27-scaled-dot-product-attention-causal"
# Hidden test: scaled_dot_product_attention, a causal mask: no weight on later keys, rows sum to 1 (1 point)
### BEGIN HIDDEN TESTS
check("scaled_dot_product_attention_causal", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "scaled_dot_product_attention_padding", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c28-scaled-dot-product-attention-padding"
# Hidden test: scaled_dot_product_attention, a padding mask (batch, 1, n_k) on a batch of sequences (1 point)
### BEGIN HIDDEN TESTS
check("scaled_dot_product_attention_padding", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "scaled_dot_product_attention_float_mask", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c29-scaled-dot-product-attention-float-mask"
# Hidden test: scaled_dot_product_attention, floating masks: 0/-inf and a finite additive bias (1 point)
### BEGIN HIDDEN TESTS
check("scaled_dot_product_attention_float_mask", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "scaled_dot_product_attention_fully_masked_row", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c30-scaled-dot-product-attention-fully-masked-row"
# Hidden test: scaled_dot_product_attention, a query with no allowed key gets zero weights and a zero output (no NaN) (1 point)
### BEGIN HIDDEN TESTS
check("scaled_dot_product_attention_fully_masked_row", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "scaled_dot_product_attention_masked_large_scores", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c31-scaled-dot-product-attention-masked-large-scores"
# Hidden test: scaled_dot_product_attention, large scores (1e3 and beyond) under a mask (1 point)
### BEGIN HIDDEN TESTS
check("scaled_dot_product_attention_masked_large_scores", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "scaled_dot_product_attention_mask_broadcast", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c33-scaled-dot-product-attention-mask-broadcast"
# Hidden test: scaled_dot_product_attention, one (n_q, n_k) mask shared by every sequence and head (1 point)
### BEGIN HIDDEN TESTS
check("scaled_dot_product_attention_mask_broadcast", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "scaled_dot_product_attention_float32_unmodified", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c34-scaled-dot-product-attention-float32-unmodified"
# Hidden test: scaled_dot_product_attention, float32 inputs under a mask; Q, K, V and the mask left unchanged (1 point)
### BEGIN HIDDEN TESTS
check("scaled_dot_product_attention_float32_unmodified", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="c35"
# ## 4. What a causal pattern looks like
#
# Eight positions attend to each other under a causal mask. Each row of the heat map is one query's weights: the
# upper triangle is exactly zero (the future is hidden), and the first position can only read itself, so its single
# weight is one.

# %% cell_id="c36"
try:
    demo_rng = np.random.default_rng(3)
    n, d_k = 8, 4
    X = demo_rng.standard_normal((n, d_k))
    _, causal_weights = scaled_dot_product_attention(X, X, X, mask=causal_mask(n))
    fig, ax = plt.subplots(figsize=(4.8, 4))
    image = ax.imshow(causal_weights, cmap="viridis", vmin=0, vmax=1)
    ax.set_xlabel("key position j")
    ax.set_ylabel("query position i")
    ax.set_title("Causal self-attention weights (upper triangle = 0)")
    fig.colorbar(image, ax=ax, label="weight")
    plt.show()
except NotImplementedError:
    print("(plot appears once causal_mask and scaled_dot_product_attention are done)")

# %% [markdown] cell_id="c36a-why"
# ### Stop and write: why the mask comes before the softmax
#
# Take the worked example of notebook 01 (scores 2, 1, 0, values 1, 2, 3) and hide the third key. The cell below
# does it twice: once as this notebook does (score $-\infty$ before the softmax), once by computing the softmax of
# all three scores and then setting the hidden key's weight to 0.

# %% cell_id="c36b-why-numbers"
scores_demo = np.array([2.0, 1.0, 0.0])
values_demo = np.array([1.0, 2.0, 3.0])
before = softmax(np.where([True, True, False], scores_demo, -np.inf))
after = softmax(scores_demo) * np.array([1.0, 1.0, 0.0])
for name, w in (("-inf before the softmax", before), ("weight set to 0 after  ", after)):
    print(f"{name}: weights {np.round(w, 3)}, sum {w.sum():.3f}, output {w @ values_demo:.3f}")

# %% [markdown] cell_id="c36c-why-prompt"
# In two to four sentences, using these numbers: why does a mask set a hidden score to $-\infty$ *before* the
# softmax instead of setting the hidden key's weight to 0 *after* it? And why would a score of 0 not hide the key?

# %% [markdown] nbgrader={"grade": true, "grade_id": "MASK_BEFORE_SOFTMAX_WHY", "locked": false, "points": 1, "schema_version": 3, "solution": true, "task": false} cell_id="c36d-MASK-BEFORE-SOFTMAX-WHY"
# Because $e^{-\infty} = 0$, a score of $-\infty$ gives the hidden key a weight of exactly 0 and the softmax then
# normalises over the allowed keys only: the weights become 0.731, 0.269 and 0, they still sum to 1, and the output
# 1.269 is an average of the values the query may read. Zeroing the weight after the softmax keeps 0.665, 0.245 and
# 0, which sum to only 0.910: the hidden key's share is thrown away, the output 1.155 is no longer an average (it is
# pulled towards 0), and the hidden score still sits in the denominator, so the future key still changes the other
# weights (and their gradients). A score of 0 hides nothing: $e^0 = 1$, an ordinary score.

# %% [markdown] autograder={"rubric_for": "MASK_BEFORE_SOFTMAX_WHY"} cell_id="rubric-MASK-BEFORE-SOFTMAX-WHY"
# **Rubric (instructor only)** — `MASK_BEFORE_SOFTMAX_WHY`, 1 point.
#
# * **1 point: the weights still form an average of the allowed keys.** $e^{-\infty} = 0$, so before the softmax the
#   hidden key gets weight 0 and the rest is renormalised to sum to 1 (0.731, 0.269, 0; output 1.269); zeroing
#   after leaves weights that sum to less than 1 (0.910; output 1.155), or equivalently lets the hidden score still
#   shape the other weights through the denominator. Half a point for "the weights no longer sum to one" without
#   the numbers or the reason, or for the right numbers without saying why they matter. Saying that a score of 0
#   would hide the key costs the half point it would otherwise earn ($e^0 = 1$).

# %% [markdown] cell_id="c37"
# ## Summary
#
# A mask decides which keys a query may read: a causal mask hides the future ($j > i$), a padding mask hides the
# padding ($j \ge L_b$). Hidden scores become $-\infty$ *before* the softmax, so they get weight exactly zero and
# the rest still sums to one; a query with nothing to read gets zeros, not NaN. Notebook 04 adds the learned maps
# and several heads.

# %% [markdown] cell_id="c37b-reading"
# ## Further reading
#
# * Vaswani et al., *Attention Is All You Need* (2017), §3.2.1: scaled dot-product attention, additive attention as
#   the older alternative, and the footnote that computes the variance $d_k$ of a dot product of independent
#   unit-variance entries (why the divisor has the form it has); §3.2.2: multi-head attention and its cost.
# * Prince, *Understanding Deep Learning*, §12.3: self-attention, with the scaling argument in §12.3.2 and
#   multiple heads in §12.3.3; it also explains the names query, key and value, inherited from information
#   retrieval.
#
# The mask of a decoder is in §3.2.3 of the transformer paper ("Applications of Attention in our Model").

# %% cell_id="c38"
grader.summary()
