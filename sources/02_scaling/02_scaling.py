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
# # 02 · Scaling: why attention divides by $\sqrt{d_k}$
#
# **After this notebook you can** explain, with a variance calculation and two plots, why scaled dot-product
# attention divides the scores by the square root of the key width, compute
# $\operatorname{softmax}(QK^\top/\sqrt{d_k})\,V$ in numpy, and say what a saturated softmax does to the gradient.
#
# **How the checks work.** As in notebook 01: replace each stub, run its cell, then run the `grader.check(...)` cell
# after it. The visible checks use public examples and never show expected arrays; hidden tests run the same
# properties on fresh random inputs when you submit. The *Stop and try* question at the end is graded on its
# values when you submit; its visible checks only tell you whether your answer has the right form. Its written part
# is read by a person.
#
# The building blocks of notebook 01 (`dot_product`, `attention_scores`, `softmax`, `weighted_average`) are given:
# they are imported in the next cell.

# %% nbgrader={"grade": false, "grade_id": "given", "locked": true, "schema_version": 3, "solution": false, "task": false} cell_id="c01-given"
# %matplotlib inline
import math
import numpy as np
import matplotlib.pyplot as plt
from attention_ref import dot_product, attention_scores, softmax, weighted_average
from autograder.hidden import check
from autograder.notebook import Grader
grader = Grader("02_scaling", globals())


# %% [markdown] cell_id="c02"
# ## 1. Raw scores grow with the width
#
# The dot product of a query and a key grows with the length of the vectors, so raw scores drift upward as the model
# widens. How fast? Suppose the entries of a query and a key are independent, with mean $0$ and variance $1$. Each
# product $q_i k_i$ then has mean $0$ and variance $\mathbb{E}[q_i^2]\,\mathbb{E}[k_i^2] = 1$, and the score is
# a sum of $d_k$ independent such products, so variances add:
#
# $$ \mathbb{E}[q\cdot k] = 0, \qquad \operatorname{Var}(q \cdot k) = \sum_{i=1}^{d_k} \operatorname{Var}(q_i k_i) = d_k . $$
#
# A typical score is therefore of size $\sqrt{d_k}$: at $d_k = 64$ a score of $\pm 8$ is ordinary.
#
# **Task.** Check the argument by simulation. `score_variance(d_k, n_samples=100_000, rng=None)` draws `n_samples`
# pairs of standard-normal vectors of length `d_k` (use `np.random.default_rng(rng)`, so a seed reproduces the
# experiment), computes their dot products and returns the sample variance of those dot products as a `float`.

# %% nbgrader={"grade": false, "grade_id": "score_variance", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="c03-score-variance"
def score_variance(d_k, n_samples=100_000, rng=None):
    """Empirical variance of q . k for independent standard-normal entries.

    Parameters
    ----------
    d_k : int
        Width of the query and key vectors.
    n_samples : int, optional
        Number of random (query, key) pairs.
    rng : None, int or numpy.random.Generator, optional
        Seed or generator for np.random.default_rng.

    Returns
    -------
    float
        The sample variance of the n_samples dot products (close to d_k).
    """
    ### BEGIN SOLUTION
    rng = np.random.default_rng(rng)
    q = rng.standard_normal((n_samples, d_k))
    k = rng.standard_normal((n_samples, d_k))
    dots = np.einsum("ij,ij->i", q, k)
    return float(dots.var(ddof=1))
    ### END SOLUTION


# %% cell_id="c04"
grader.check("score_variance")

# %% nbgrader={"grade": true, "grade_id": "score_variance_matches_d_k", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c05-score-variance-matches-d-k"
# Hidden test: score_variance, the variance of q . k is close to d_k (d_k = 1, 16 and 64) (1 point)
### BEGIN HIDDEN TESTS
check("score_variance_matches_d_k", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "score_variance_uses_rng", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c06-score-variance-uses-rng"
# Hidden test: score_variance, the same rng seed gives the same estimate (1 point)
### BEGIN HIDDEN TESTS
check("score_variance_uses_rng", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="c07"
# The plot compares your estimates with the line $\operatorname{Var} = d_k$.

# %% cell_id="c08"
try:
    widths = [1, 2, 4, 8, 16, 32, 64, 128, 256]
    estimates = [score_variance(d, n_samples=4_000, rng=d) for d in widths]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(widths, widths, "k--", label="theory: Var(q·k) = d_k")
    ax.plot(widths, estimates, "o", label="your score_variance (4 000 pairs)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("key width d_k")
    ax.set_ylabel("variance of the raw score q·k")
    ax.set_title("Raw scores spread out as the vectors get longer")
    ax.legend()
    plt.show()
except NotImplementedError:
    print("(plot appears once score_variance is done)")


# %% [markdown] cell_id="c09"
# ## 2. The remedy: one division
#
# Divide every score by the square root of the key width before the softmax:
#
# $$ \tilde s = \frac{q \cdot k}{\sqrt{d_k}}, \qquad \operatorname{Var}(\tilde s) = \frac{d_k}{d_k} = 1 \text{ at every width.} $$
#
# The divisor is a variance normalisation, not a tuned constant. With keys of length two the divisor is about
# $1.414$, so a raw score of $2$ becomes $1.414$.
#
# **Task.** Write `scale_scores(scores, d_k)`: return `scores / sqrt(d_k)` as a new array (leave `scores`
# unchanged). The scores do not show the key width (their last axis counts *keys*), which is why `d_k` is an
# argument. Tip: `math.sqrt(d_k)` keeps float32 scores in float32, `np.sqrt(d_k)` would promote them to float64.

# %% nbgrader={"grade": false, "grade_id": "scale_scores", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="c10-scale-scores"
def scale_scores(scores, d_k):
    """Divide the scores by sqrt(d_k), the typical size of a raw score.

    Parameters
    ----------
    scores : array_like, shape (..., n_q, n_k)
        Raw dot products.
    d_k : int
        Width of the queries and keys.

    Returns
    -------
    ndarray, same shape as scores
        scores / sqrt(d_k), a new array.
    """
    ### BEGIN SOLUTION
    return np.asarray(scores) / math.sqrt(d_k)
    ### END SOLUTION


# %% cell_id="c11"
grader.check("scale_scores")

# %% nbgrader={"grade": true, "grade_id": "scale_scores_seed_example", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c12-scale-scores-seed-example"
# Hidden test: scale_scores, raw scores (2, 1, 0) with d_k = 2 become (1.414, 0.707, 0) (1 point)
### BEGIN HIDDEN TESTS
check("scale_scores_seed_example", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "scale_scores_matches_reference", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c13-scale-scores-matches-reference"
# Hidden test: scale_scores, batched, non-square scores with d_k different from n_k; float32 (1 point)
### BEGIN HIDDEN TESTS
check("scale_scores_matches_reference", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "scale_scores_input_unmodified", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c14-scale-scores-input-unmodified"
# Hidden test: scale_scores, leaves the scores unchanged (1 point)
### BEGIN HIDDEN TESTS
check("scale_scores_input_unmodified", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="c15"
# ## 3. Saturation: the leading weight against the width
#
# A synthetic experiment makes the effect visible. Take the scores $2, 1, 0$ of notebook 01 and let them grow with
# the width as dot products do: the raw scores are $(2, 1, 0)\cdot\sqrt{d_k}$. Without the division the leading
# weight approaches one — the softmax *saturates*, one weight takes almost all the mass. Dividing by $\sqrt{d_k}$
# brings the scores back to $(2, 1, 0)$, so the three weights stay at $0.665$, $0.245$ and $0.090$ at every width.
# The flat line is the reason the scale is in the formula.
#
# **Task.** Write `leading_weight(width, scaled=True)`: the largest of the three softmax weights of the raw scores
# $(2, 1, 0)\cdot\sqrt{\text{width}}$, divided by $\sqrt{\text{width}}$ first when `scaled` is true. Return a
# `float`. (`width` may be any positive number; at large widths the raw scores are large, so use the stable
# softmax.)

# %% nbgrader={"grade": false, "grade_id": "leading_weight", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="c16-leading-weight"
def leading_weight(width, scaled=True):
    """The leading softmax weight of the raw scores (2, 1, 0) * sqrt(width).

    Parameters
    ----------
    width : int or float
        Key width d_k (positive).
    scaled : bool, optional
        Divide the raw scores by sqrt(width) before the softmax.

    Returns
    -------
    float
        The largest of the three weights.
    """
    ### BEGIN SOLUTION
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    scores = raw / math.sqrt(width) if scaled else raw
    return float(softmax(scores).max())
    ### END SOLUTION


# %% cell_id="c17"
grader.check("leading_weight")

# %% nbgrader={"grade": true, "grade_id": "leading_weight_scaled_flat", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c18-leading-weight-scaled-flat"
# Hidden test: leading_weight, scaled: the leading weight stays at 0.665 at every width (1 point)
### BEGIN HIDDEN TESTS
check("leading_weight_scaled_flat", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "leading_weight_unscaled_saturates", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c19-leading-weight-unscaled-saturates"
# Hidden test: leading_weight, unscaled: the leading weight grows towards 1 with the width (1 point)
### BEGIN HIDDEN TESTS
check("leading_weight_unscaled_saturates", globals())
### END HIDDEN TESTS

# %% cell_id="c20"
try:
    widths = np.logspace(0, 12, 49, base=2)
    unscaled = [leading_weight(w, scaled=False) for w in widths]
    scaled = [leading_weight(w, scaled=True) for w in widths]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(widths, unscaled, label="unscaled: softmax((2, 1, 0)·√d_k)")
    ax.plot(widths, scaled, label="scaled: divided by √d_k (flat at 0.665)")
    ax.set_xscale("log", base=2)
    ax.set_ylim(0.5, 1.02)
    ax.set_xlabel("key width d_k")
    ax.set_ylabel("largest attention weight")
    ax.set_title("Without the division the softmax saturates (status: synthetic)")
    ax.legend()
    plt.show()
except NotImplementedError:
    print("(plot appears once leading_weight is done)")


# %% [markdown] cell_id="c21"
# ## 4. What saturation does to the gradient
#
# Training adjusts the scores through the slope of the softmax. With $p = \operatorname{softmax}(x)$,
#
# $$ \frac{\partial p_i}{\partial x_j} = p_i\,(\delta_{ij} - p_j), \qquad J = \operatorname{diag}(p) - p\,p^\top . $$
#
# Raising score $j$ raises weight $j$ (the diagonal, $p_j(1-p_j) > 0$) and lowers every other weight
# ($-p_i p_j$). When one weight is near $1$ and the rest near $0$, every entry is near $0$: $p_j(1-p_j) \approx 0$
# and $p_i p_j \approx 0$. A saturated softmax passes almost no gradient back to the scores, so the maps that
# produce the queries and keys stop learning — the reason unscaled attention trains slowly at large widths.
#
# **Task.** Write `softmax_jacobian(p)` for one probability vector `p` of shape `(n,)`; return the `(n, n)` matrix
# $J$ (do not modify `p`).

# %% nbgrader={"grade": false, "grade_id": "softmax_jacobian", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="c22-softmax-jacobian"
def softmax_jacobian(p):
    """Jacobian of the softmax at the output p: diag(p) - p p^T.

    Parameters
    ----------
    p : array_like, shape (n,)
        One probability vector.

    Returns
    -------
    ndarray, shape (n, n)
        Entry (i, j) is d p_i / d x_j.
    """
    ### BEGIN SOLUTION
    p = np.asarray(p, dtype=float)
    return np.diag(p) - np.outer(p, p)
    ### END SOLUTION


# %% cell_id="c23"
grader.check("softmax_jacobian")

# %% nbgrader={"grade": true, "grade_id": "softmax_jacobian_matches_reference", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c24-softmax-jacobian-matches-reference"
# Hidden test: softmax_jacobian, the worked example's weights and random probability vectors; p left unchanged (1 point)
### BEGIN HIDDEN TESTS
check("softmax_jacobian_matches_reference", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "softmax_jacobian_saturated", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c25-softmax-jacobian-saturated"
# Hidden test: softmax_jacobian, a saturated softmax (one weight near 1) has a Jacobian near 0 (1 point)
### BEGIN HIDDEN TESTS
check("softmax_jacobian_saturated", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="c26"
# The plot tracks the largest entry of $|J|$ for the experiment of section 3: scaled, it stays at the value of the
# worked example; unscaled, it collapses towards zero as the width grows.

# %% cell_id="c27"
try:
    widths = np.logspace(0, 12, 49, base=2)
    raw = [np.array([2.0, 1.0, 0.0]) * math.sqrt(w) for w in widths]
    unscaled = [np.abs(softmax_jacobian(softmax(s))).max() for s in raw]
    scaled = [np.abs(softmax_jacobian(softmax(s / math.sqrt(w)))).max() for s, w in zip(raw, widths)]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(widths, unscaled, label="unscaled")
    ax.plot(widths, scaled, label="scaled by 1/√d_k")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("key width d_k")
    ax.set_ylabel("largest |∂p_i/∂x_j|")
    ax.set_title("A saturated softmax passes almost no gradient")
    ax.legend()
    plt.show()
except NotImplementedError:
    print("(plot appears once softmax_jacobian is done)")


# %% [markdown] cell_id="c28"
# ## 5. Scaled dot-product attention
#
# Put the pieces together. With queries $Q$ of shape $(n_q, d_k)$, keys $K$ of shape $(n_k, d_k)$ and values $V$
# of shape $(n_k, d_v)$,
#
# $$ \operatorname{Attention}(Q, K, V) = \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V , $$
#
# where the softmax runs along the key index: each query scores every key, the scaled scores become one row of
# weights, and the row averages the values. Queries and keys share the width $d_k$; the values may have another
# width $d_v$. Leading axes (sequences of a batch, heads) are carried along.
#
# **Task.** Write `scaled_dot_product_attention(Q, K, V)` returning the pair `(output, weights)`, with `output` of
# shape `(..., n_q, d_v)` and `weights` of shape `(..., n_q, n_k)`. Use the given `attention_scores`, `softmax`
# and `weighted_average` and your `scale_scores`. (Notebook 03 adds a mask.)
#
# *How it is graded:* your `scaled_dot_product_attention` is graded with a correct `scale_scores` put in place of
# yours, so a mistake in `scale_scores` costs points on that task only.

# %% nbgrader={"grade": false, "grade_id": "scaled_dot_product_attention", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="c29-scaled-dot-product-attention"
def scaled_dot_product_attention(Q, K, V):
    """softmax(Q K^T / sqrt(d_k)) V.

    Parameters
    ----------
    Q : array_like, shape (..., n_q, d_k)
    K : array_like, shape (..., n_k, d_k)
    V : array_like, shape (..., n_k, d_v)

    Returns
    -------
    output : ndarray, shape (..., n_q, d_v)
    weights : ndarray, shape (..., n_q, n_k)
        Each row sums to 1.
    """
    ### BEGIN SOLUTION
    Q = np.asarray(Q)
    scores = scale_scores(attention_scores(Q, K), Q.shape[-1])
    weights = softmax(scores, axis=-1)
    return weighted_average(weights, V), weights
    ### END SOLUTION


# %% cell_id="c30"
grader.check("scaled_dot_product_attention")

# %% nbgrader={"grade": true, "grade_id": "scaled_dot_product_attention_seed_example", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c31-scaled-dot-product-attention-seed-example"
# Hidden test: scaled_dot_product_attention, the seed's example: weights ≈ (0.455, 0.225, 0.320), output ≈ (6.15, 3.85) (1 point)
### BEGIN HIDDEN TESTS
check("scaled_dot_product_attention_seed_example", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "scaled_dot_product_attention_non_square", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c32-scaled-dot-product-attention-non-square"
# Hidden test: scaled_dot_product_attention, n_q, n_k, d_k and d_v all different (1 point)
### BEGIN HIDDEN TESTS
check("scaled_dot_product_attention_non_square", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "scaled_dot_product_attention_batched", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c33-scaled-dot-product-attention-batched"
# Hidden test: scaled_dot_product_attention, leading axes (2 sequences, 3 heads) and float32 inputs (1 point)
### BEGIN HIDDEN TESTS
check("scaled_dot_product_attention_batched", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "scaled_dot_product_attention_large_scores", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c34-scaled-dot-product-attention-large-scores"
# Hidden test: scaled_dot_product_attention, large scores (1e3 and beyond) without overflow (1 point)
### BEGIN HIDDEN TESTS
check("scaled_dot_product_attention_large_scores", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "scaled_dot_product_attention_inputs_unmodified", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c35-scaled-dot-product-attention-inputs-unmodified"
# Hidden test: scaled_dot_product_attention, leaves Q, K and V unchanged (1 point)
### BEGIN HIDDEN TESTS
check("scaled_dot_product_attention_inputs_unmodified", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="c36"
# ### The second lesson's example
#
# Let the query be $q = (1, 0)$ and the keys $k_1 = (1, 0)$, $k_2 = (0, 1)$, $k_3 = (0.5, 0.5)$, with $d_k = 2$
# so $\sqrt{d_k} \approx 1.414$. The raw scores are $1$, $0$ and $0.5$; scaled, $0.707$, $0$ and $0.354$.
# Exponentiated: $2.028$, $1$ and $1.425$, total $4.453$, so the weights are $\approx (0.455, 0.225, 0.320)$
# (unrounded $0.4555$, $0.2246$, $0.3199$). With values $v_1 = (10, 0)$, $v_2 = (0, 10)$, $v_3 = (5, 5)$ the
# output is $0.455\,(10, 0) + 0.225\,(0, 10) + 0.320\,(5, 5) \approx (6.15, 3.85)$ (unrounded $(6.155, 3.845)$):
# pulled towards $v_1$, the value of the best-matching key, with some of the other two.

# %% cell_id="c37"
try:
    example_output, example_weights = scaled_dot_product_attention(
        np.array([[1.0, 0.0]]),
        np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]),
        np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]]))
    print("weights:", np.round(example_weights, 4), " (the lesson: ≈ 0.455, 0.225, 0.320)")
    print("output: ", np.round(example_output, 3), " (the lesson: ≈ (6.15, 3.85))")
except NotImplementedError:
    print("(the example runs once scale_scores and scaled_dot_product_attention are done)")

# %% [markdown] cell_id="c38"
# ## 6. Stop and try
#
# **The lesson's example, worked.** A query is $q = (1, 0)$, and the three keys are $k_1 = (1, 0)$, $k_2 = (0, 1)$
# and $k_3 = (-1, 0)$, with $d_k = 2$. The raw scores are $q\cdot k_1 = 1$, $q\cdot k_2 = 0$ and $q\cdot k_3 = -1$;
# scaled by $\sqrt{2} \approx 1.414$, $0.707$, $0$ and $-0.707$; exponentiated, $2.028$, $1$ and $0.493$, total
# $3.521$, so the weights are $\approx (0.576, 0.284, 0.140)$. Key 1 receives the largest weight: it points in the
# query's direction, so its dot product is the largest, and the softmax gives the largest score the largest
# weight. Without the division the weights would be sharper, $\approx (0.665, 0.245, 0.090)$, with the same winner.
#
# **Your turn, on your own numbers.** The next cell prints your own query and three keys (every student has
# different ones; $d_k = 2$ again). Which key receives the largest weight, and why? Work it out by hand first; you
# may check with your functions. Your answers are graded on your own numbers.
#
# 1. `STOP_AND_TRY_SCORES`: the three **raw** dot products $q\cdot k_1$, $q\cdot k_2$, $q\cdot k_3$
#    (a list or array of three numbers, in the order of the keys).
# 2. `STOP_AND_TRY_WEIGHTS`: the three attention weights with the scaling, $d_k = 2$
#    (three numbers; rounded to three decimals is fine).
# 3. `STOP_AND_TRY_LARGEST`: which key receives the largest weight: `1`, `2` or `3`.
# 4. `STOP_AND_TRY_REASON`: the letter of the reason that explains it, as a string such as `"x"`:
#
#    - **a** — That key points most nearly in the query's direction, so its dot product (the score) is the
#      largest, and the softmax gives the largest score the largest weight.
#    - **b** — That key is the longest, and a longer key always gets more weight.
#    - **c** — The other keys have scores of 0 or below, and the softmax gives such scores weight 0, so all the
#      weight goes to that key.
#    - **d** — Dividing by $\sqrt{d_k}$ reverses the order of small scores, so the key with the lowest raw score wins.
#    - **e** — The softmax gives every key the same weight, and that key wins only by its place in the list.

# %% nbgrader={"grade": false, "grade_id": "stop_and_try_numbers", "locked": true, "schema_version": 3, "solution": false, "task": false} cell_id="c38b-stop-and-try-numbers"
# Your own query STOP_Q (d_k = 2) and keys STOP_K (one key per row): the numbers your answers are graded on
STOP_Q, STOP_K = grader.numbers("02_scaling/stop_and_try")

# %% nbgrader={"grade": false, "grade_id": "STOP_AND_TRY_SCORES", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["raises-exception"] cell_id="c39-STOP-AND-TRY-SCORES"
# STOP_AND_TRY_SCORES = the raw dot products of the query with keys 1, 2 and 3
### BEGIN SOLUTION
STOP_AND_TRY_SCORES = STOP_K @ STOP_Q
### END SOLUTION

# %% cell_id="c40"
grader.check("STOP_AND_TRY_SCORES")

# %% nbgrader={"grade": true, "grade_id": "STOP_AND_TRY_SCORES_format", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c41-STOP-AND-TRY-SCORES-format"
# Hidden test: STOP_AND_TRY_SCORES, three numbers, one per key (1 point)
### BEGIN HIDDEN TESTS
check("STOP_AND_TRY_SCORES_format", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "STOP_AND_TRY_SCORES_values", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c42-STOP-AND-TRY-SCORES-values"
# Hidden test: STOP_AND_TRY_SCORES, the raw dot products of the query with each key (1 point)
### BEGIN HIDDEN TESTS
check("STOP_AND_TRY_SCORES_values", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": false, "grade_id": "STOP_AND_TRY_WEIGHTS", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["raises-exception"] cell_id="c43-STOP-AND-TRY-WEIGHTS"
# STOP_AND_TRY_WEIGHTS = the scaled attention weights (d_k = 2) of keys 1, 2 and 3
### BEGIN SOLUTION
STOP_AND_TRY_WEIGHTS = softmax(STOP_K @ STOP_Q / math.sqrt(2))
### END SOLUTION

# %% cell_id="c44"
grader.check("STOP_AND_TRY_WEIGHTS")

# %% nbgrader={"grade": true, "grade_id": "STOP_AND_TRY_WEIGHTS_format", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c45-STOP-AND-TRY-WEIGHTS-format"
# Hidden test: STOP_AND_TRY_WEIGHTS, three non-negative weights that sum to 1 (1 point)
### BEGIN HIDDEN TESTS
check("STOP_AND_TRY_WEIGHTS_format", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "STOP_AND_TRY_WEIGHTS_values", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c46-STOP-AND-TRY-WEIGHTS-values"
# Hidden test: STOP_AND_TRY_WEIGHTS, the weights of the scaled scores (d_k = 2) (1 point)
### BEGIN HIDDEN TESTS
check("STOP_AND_TRY_WEIGHTS_values", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": false, "grade_id": "STOP_AND_TRY_LARGEST", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["raises-exception"] cell_id="c47-STOP-AND-TRY-LARGEST"
# STOP_AND_TRY_LARGEST = 1, 2 or 3
### BEGIN SOLUTION
STOP_AND_TRY_LARGEST = int(np.argmax(STOP_K @ STOP_Q)) + 1
### END SOLUTION

# %% cell_id="c48"
grader.check("STOP_AND_TRY_LARGEST")

# %% nbgrader={"grade": true, "grade_id": "STOP_AND_TRY_LARGEST_format", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c49-STOP-AND-TRY-LARGEST-format"
# Hidden test: STOP_AND_TRY_LARGEST, one of 1, 2 or 3 (1 point)
### BEGIN HIDDEN TESTS
check("STOP_AND_TRY_LARGEST_format", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "STOP_AND_TRY_LARGEST_value", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c50-STOP-AND-TRY-LARGEST-value"
# Hidden test: STOP_AND_TRY_LARGEST, the key that gets the largest weight (1 point)
### BEGIN HIDDEN TESTS
check("STOP_AND_TRY_LARGEST_value", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": false, "grade_id": "STOP_AND_TRY_REASON", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["raises-exception"] cell_id="c51-STOP-AND-TRY-REASON"
# STOP_AND_TRY_REASON = one letter from the list above, as a string
### BEGIN SOLUTION
STOP_AND_TRY_REASON = "a"
### END SOLUTION

# %% cell_id="c52"
grader.check("STOP_AND_TRY_REASON")

# %% nbgrader={"grade": true, "grade_id": "STOP_AND_TRY_REASON_format", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c53-STOP-AND-TRY-REASON-format"
# Hidden test: STOP_AND_TRY_REASON, one of the letters of the list (1 point)
### BEGIN HIDDEN TESTS
check("STOP_AND_TRY_REASON_format", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "STOP_AND_TRY_REASON_value", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c54-STOP-AND-TRY-REASON-value"
# Hidden test: STOP_AND_TRY_REASON, the reason that explains the largest weight (1 point)
### BEGIN HIDDEN TESTS
check("STOP_AND_TRY_REASON_value", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="c55"
# **In your own words** (two or three sentences, graded by a person): why does that key receive the largest weight,
# why does every key still receive some weight, and what would change — and what would not — without the division
# by $\sqrt{d_k}$?

# %% [markdown] nbgrader={"grade": true, "grade_id": "STOP_AND_TRY_WHY", "locked": false, "points": 2, "schema_version": 3, "solution": true, "task": false} cell_id="c56-STOP-AND-TRY-WHY"
# The winning key points most nearly in the query's direction, so its dot product with the query is the largest of
# the three; the softmax is increasing, so the largest score gets the largest weight. Every key keeps a positive
# weight because the exponential is positive, which is what lets gradients reach every key. Without the division
# by √2 the order would stay the same (dividing by a positive number never reorders scores), but the weights would
# be sharper: the scale changes how peaked the softmax is, not which key wins.

# %% [markdown] autograder={"rubric_for": "STOP_AND_TRY_WHY"} cell_id="rubric-STOP-AND-TRY-WHY"
# **Rubric (instructor only)** — `STOP_AND_TRY_WHY`, 2 points. Each student has their own numbers (printed in
# their notebook, above `STOP_AND_TRY_SCORES`); judge the answer on those.
#
# * **1 point: the largest weight, and every key keeps some.** The winning key is the one most nearly aligned with
#   the query, so its dot product is the largest, and the softmax keeps the order of the scores; the exponential
#   is positive, so no weight is zero. Half a point for either half alone.
# * **1 point: without the division.** The order stays the same (dividing by a positive number never reorders),
#   the weights get sharper (the largest weight grows, the others shrink). Half a point for "sharper" without
#   saying that the winner does not change.
#
# Typical answers that lose points: "because of the scaling" as the reason for the largest weight (0 for the first
# point); "the division makes the weights sum to one" (0 for the second); an answer about the lesson's example
# (key 1 against $(1, 0)$) that does not fit the student's own numbers (0 for the first point unless the student's
# winner is also key 1 for the same reason).

# %% [markdown] cell_id="c56b-understanding"
# ## Check your understanding
#
# Answer with one letter, as a tuple of one string: `CONCEPTS_02 = ("a",)`. The letter is checked when your
# notebook is graded.
#
# The cell after the questions prints their options, lettered in an order of your own (each student's differs):
# answer with the letters it prints.
#
# **Question 1.** Dividing the scores by $\sqrt{d_k}$ gives them unit variance …

# %% nbgrader={"grade": false, "grade_id": "concepts_numbers", "locked": true, "schema_version": 3, "solution": false, "task": false} cell_id="concepts-numbers-02"
# The options of each question above, lettered in your own order: answer with these letters
CONCEPT_ORDER = grader.numbers("02_scaling/concepts")

# %% nbgrader={"grade": false, "grade_id": "CONCEPTS_02", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["raises-exception"] cell_id="sol-CONCEPTS-02"
# CONCEPTS_02 = ("?",)  (one letter)
### BEGIN SOLUTION
# the letter you see each right option under (CONCEPT_ORDER[i]: the lesson's letters in the order you see them)
CONCEPTS_02 = tuple("abcd"[shown.index(right)] for shown, right in zip(CONCEPT_ORDER, "a"))
### END SOLUTION

# %% cell_id="check-CONCEPTS-02"
grader.check("CONCEPTS_02")

# %% nbgrader={"grade": true, "grade_id": "CONCEPTS_02_format", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-CONCEPTS-02-format"
# Hidden test: CONCEPTS_02, 1 letters, each one of a to d (1 point)
### BEGIN HIDDEN TESTS
check("CONCEPTS_02_format", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "CONCEPTS_02_value", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-CONCEPTS-02-value"
# Hidden test: CONCEPTS_02, when the divisor guarantees unit-variance scores (1 point)
### BEGIN HIDDEN TESTS
check("CONCEPTS_02_value", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="c57"
# ## Summary
#
# Raw scores have variance $d_k$, so at large widths the softmax saturates: one weight near one, a Jacobian near
# zero, and the gradient stalls. Dividing by $\sqrt{d_k}$ restores unit variance and keeps the weights responsive;
# it never changes which key wins. The divisor fixes the scale at initialisation only: trained maps can still
# produce large scores. Notebook 03 adds masks.

# %% [markdown] cell_id="c57b-reading"
# ## Further reading
#
# * Vaswani et al., *Attention Is All You Need* (2017), §3.2.1: scaled dot-product attention, additive attention as
#   the older alternative, and the footnote that computes the variance $d_k$ of a dot product of independent
#   unit-variance entries (why the divisor has the form it has); §3.2.2: multi-head attention and its cost.
# * Prince, *Understanding Deep Learning*, §12.3: self-attention, with the scaling argument in §12.3.2 and
#   multiple heads in §12.3.3; it also explains the names query, key and value, inherited from information
#   retrieval.

# %% cell_id="c58"
grader.summary()
