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
# # 07 · Scoring functions: additive, scaled dot-product, bilinear (bonus)
#
# Every notebook so far compared a query with a key by their dot product. The transformer paper names an older
# alternative, **additive attention**, which scores a pair with a small feed-forward network; it says the two
# have similar theoretical complexity, that the dot product is faster on matrix hardware, and that additive
# attention outperforms the *unscaled* dot product at large $d_k$ (Vaswani et al. 2017, §3.2.1). It suspects
# large dot products push the softmax into a region of tiny gradients and applies the $1/\sqrt{d_k}$ scaling as
# the remedy, but it reports no measurement of the two after the scaling: the gap closing is its **rationale**,
# not its **result**. A third candidate, a learned **bilinear** score $q^\top W k$, is not compared at all.
#
# After this notebook you can
#
# * write the three score functions for every query-key pair (`additive_scores`, `scaled_dot_scores`,
#   `bilinear_scores`);
# * count what each costs in parameters and multiply-adds (`score_costs`), and give two of them the same
#   parameter budget (`width_for_budget`);
# * run a small, seeded comparison on a task where relevance is **not** raw alignment, and say what it shows
#   and what it does not.
#
# **How the checks work.** As before, `grader.check("...")` runs public checks and never shows expected arrays;
# hidden tests grade the same properties on other inputs, and the written answer at the end is graded by hand.
# Given: `compare_scorers`, the training code of the experiment (numpy, gradients derived by hand). The points
# of this notebook are a bonus, counted apart from the 100 course points.

# %% nbgrader={"grade": false, "grade_id": "given", "locked": true, "schema_version": 3, "solution": false, "task": false} cell_id="given"
# %matplotlib inline
import math
import numpy as np
import matplotlib.pyplot as plt
from attention_ref import compare_scorers
from autograder.hidden import check
from autograder.notebook import Grader
grader = Grader("07_scoring_functions", globals())

# %% [markdown] cell_id="md-02"
# ## 1. Additive scores
#
# Here the three functions take the items **before** any projection: queries $Q$ of shape $(n_q, d_q)$ and
# keys $K$ of shape $(n_k, d_k)$, with the row-vector convention of notebook 04 (a map $W$ sends a row $x$ to
# $x W$). The additive score of query $q$ and key $k$ projects both into a hidden width $h$, adds them,
# squashes the sum with $\tanh$ and weights the hidden units with a learned vector $v$:
#
# $$\operatorname{score}(q, k) = v^\top \tanh\!\left(q\,W_q + k\,W_k\right),\qquad
# W_q \in \mathbb{R}^{d_q\times h},\ W_k \in \mathbb{R}^{d_k\times h},\ v \in \mathbb{R}^{h}.$$
#
# The $\tanh$ acts on the **sum**: that is where the query and the key interact. Every query meets every key, so
# before the $\tanh$ there is one hidden vector per pair, an array of shape $(n_q, n_k, h)$; this is the part that
# is not a matrix product.
#
# **Task.** Write `additive_scores(Q, K, W_q, W_k, v)`, returning the scores of shape `(..., n_q, n_k)`.
# `Q` and `K` may have leading batch axes.

# %% nbgrader={"grade": false, "grade_id": "additive_scores", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="sol-additive-scores"
def additive_scores(Q, K, W_q, W_k, v):
    """Additive scores ``v^T tanh(q W_q + k W_k)`` for every query-key pair.

    Parameters
    ----------
    Q : ndarray, shape (..., n_q, d_q)
    K : ndarray, shape (..., n_k, d_k)
    W_q : ndarray, shape (d_q, h)
    W_k : ndarray, shape (d_k, h)
    v : ndarray, shape (h,)

    Returns
    -------
    ndarray, shape (..., n_q, n_k)
    """
    ### BEGIN SOLUTION
    a = np.asarray(Q) @ np.asarray(W_q)  # (..., n_q, h)
    c = np.asarray(K) @ np.asarray(W_k)  # (..., n_k, h)
    hidden = a[..., :, None, :] + c[..., None, :, :]  # (..., n_q, n_k, h): one hidden vector per pair
    return np.tanh(hidden) @ np.asarray(v)
    ### END SOLUTION


# %% cell_id="code-03"
grader.check("additive_scores")

# %% nbgrader={"grade": true, "grade_id": "additive_scores_matches_reference", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false} cell_id="test-additive-scores-matches-reference"
# Hidden test: additive_scores, every query against every key: n_q != n_k, d_q != d_k, h of its own (2 points)
### BEGIN HIDDEN TESTS
check("additive_scores_matches_reference", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "additive_scores_batched", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-additive-scores-batched"
# Hidden test: additive_scores, leading batch axes; float32 inputs (1 point)
### BEGIN HIDDEN TESTS
check("additive_scores_batched", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "additive_scores_inputs_unmodified", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-additive-scores-inputs-unmodified"
# Hidden test: additive_scores, leaves Q, K, W_q, W_k and v unchanged (1 point)
### BEGIN HIDDEN TESTS
check("additive_scores_inputs_unmodified", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="md-04"
# ## 2. Scaled dot-product scores
#
# The dot-product score projects the query and the key with **two** maps into the same width $h$ and takes
# their dot product, divided by $\sqrt{h}$:
#
# $$\operatorname{score}(q, k) = \frac{(q\,W_q)\cdot(k\,W_k)}{\sqrt{h}},\qquad
# W_q \in \mathbb{R}^{d_q\times h},\ W_k \in \mathbb{R}^{d_k\times h}.$$
#
# The divisor is the square root of the length of the vectors whose dot product is taken, the **projected** width
# $h$ (in notebook 02 those vectors were the queries and keys themselves, of width $d_k$). With two maps the
# score of $i$ reading $j$ need not equal the score of $j$ reading $i$ (notebook 04).
#
# **Task.** Write `scaled_dot_scores(Q, K, W_q, W_k)`, returning the scores of shape `(..., n_q, n_k)`.

# %% nbgrader={"grade": false, "grade_id": "scaled_dot_scores", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="sol-scaled-dot-scores"
def scaled_dot_scores(Q, K, W_q, W_k):
    """Scaled dot-product scores ``(q W_q) . (k W_k) / sqrt(h)`` for every query-key pair.

    Parameters
    ----------
    Q : ndarray, shape (..., n_q, d_q)
    K : ndarray, shape (..., n_k, d_k)
    W_q : ndarray, shape (d_q, h)
    W_k : ndarray, shape (d_k, h)

    Returns
    -------
    ndarray, shape (..., n_q, n_k)
    """
    ### BEGIN SOLUTION
    W_q = np.asarray(W_q)
    q, k = np.asarray(Q) @ W_q, np.asarray(K) @ np.asarray(W_k)
    return q @ np.swapaxes(k, -1, -2) / math.sqrt(W_q.shape[1])
    ### END SOLUTION


# %% cell_id="code-05"
grader.check("scaled_dot_scores")

# %% nbgrader={"grade": true, "grade_id": "scaled_dot_scores_matches_reference", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false} cell_id="test-scaled-dot-scores-matches-reference"
# Hidden test: scaled_dot_scores, projected width different from the input width; n_q != n_k (2 points)
### BEGIN HIDDEN TESTS
check("scaled_dot_scores_matches_reference", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "scaled_dot_scores_batched", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-scaled-dot-scores-batched"
# Hidden test: scaled_dot_scores, leading batch axes; float32 inputs (1 point)
### BEGIN HIDDEN TESTS
check("scaled_dot_scores_batched", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="md-06"
# ## 3. Bilinear scores
#
# The bilinear score puts one learned matrix between the query and the key, with no projection and no divisor:
#
# $$\operatorname{score}(q, k) = q^\top W\, k,\qquad W \in \mathbb{R}^{d_q\times d_k}.$$
#
# It contains the dot-product score: $(q W_q)\cdot(k W_k)/\sqrt{h} = q^\top \big(W_q W_k^\top/\sqrt{h}\big)\, k$,
# a bilinear score whose matrix has rank at most $h$. So at $h < d$ the dot product is a **low-rank** bilinear
# score, and the open question is whether the full matrix buys anything at the same number of parameters.
# The row of $W$ belongs to the query's entries and the column to the key's; for a relation that is not
# symmetric, $W$ and $W^\top$ are different relations.
#
# **Task.** Write `bilinear_scores(Q, K, W)`, returning the scores of shape `(..., n_q, n_k)`.

# %% nbgrader={"grade": false, "grade_id": "bilinear_scores", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="sol-bilinear-scores"
def bilinear_scores(Q, K, W):
    """Bilinear scores ``q^T W k`` for every query-key pair.

    Parameters
    ----------
    Q : ndarray, shape (..., n_q, d_q)
    K : ndarray, shape (..., n_k, d_k)
    W : ndarray, shape (d_q, d_k)

    Returns
    -------
    ndarray, shape (..., n_q, n_k)
    """
    ### BEGIN SOLUTION
    return np.asarray(Q) @ np.asarray(W) @ np.swapaxes(np.asarray(K), -1, -2)
    ### END SOLUTION


# %% cell_id="code-07"
grader.check("bilinear_scores")

# %% nbgrader={"grade": true, "grade_id": "bilinear_scores_matches_reference", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-bilinear-scores-matches-reference"
# Hidden test: bilinear_scores, a non-symmetric square W, and d_q != d_k (1 point)
### BEGIN HIDDEN TESTS
check("bilinear_scores_matches_reference", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "bilinear_scores_batched", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-bilinear-scores-batched"
# Hidden test: bilinear_scores, leading batch axes; float32 inputs (1 point)
### BEGIN HIDDEN TESTS
check("bilinear_scores_batched", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="md-08"
# ## 4. What each costs
#
# Take self-attention over $n$ items of width $d$ ($d_q = d_k = d$, $n_q = n_k = n$) and count, for the whole
# $n \times n$ table of scores, the learned **parameters** and the **multiply-adds** (one multiplication
# accumulated into a sum; the additions, the $\tanh$ and the divisor are not counted):
#
# * additive: $W_q$, $W_k$ and $v$; the projections of the $n$ queries and the $n$ keys, then $v^\top$ of one
#   hidden vector of width $h$ per pair (and $n^2 h$ evaluations of $\tanh$, not counted);
# * dot: $W_q$ and $W_k$; the same projections, then one dot product of length $h$ per pair;
# * bilinear: the $d \times d$ matrix; $Q W$ once for the $n$ queries, then one dot product of length $d$ per
#   pair ($h$ plays no part).
#
# **Task.** Write `score_costs(kind, n, d, h)` returning the pair `(parameters, multiply_adds)` (two `int`s)
# for `kind` in `"additive"`, `"dot"`, `"bilinear"`. Then write `width_for_budget(kind, d, budget)`: the largest
# hidden width $h \ge 1$ whose parameters (additive or dot) do not exceed `budget`.

# %% nbgrader={"grade": false, "grade_id": "score_costs", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="sol-score-costs"
def score_costs(kind, n, d, h):
    """Parameters and multiply-adds of one n x n table of scores.

    Parameters
    ----------
    kind : {"additive", "dot", "bilinear"}
    n, d, h : int
        Number of items, their width, the hidden (projected) width.

    Returns
    -------
    (int, int)
        ``(parameters, multiply_adds)``.
    """
    ### BEGIN SOLUTION
    if kind == "bilinear":
        return d * d, n * d * d + n * n * d
    parameters = 2 * d * h + (h if kind == "additive" else 0)
    return parameters, 2 * n * d * h + n * n * h
    ### END SOLUTION


# %% cell_id="code-09"
grader.check("score_costs")

# %% nbgrader={"grade": true, "grade_id": "score_costs_values", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false} cell_id="test-score-costs-values"
# Hidden test: score_costs, parameters and multiply-adds of each kind, for several n, d and h (2 points)
### BEGIN HIDDEN TESTS
check("score_costs_values", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": false, "grade_id": "width_for_budget", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="sol-width-for-budget"
def width_for_budget(kind, d, budget):
    """The largest hidden width h >= 1 whose score parameters fit in ``budget``.

    Parameters
    ----------
    kind : {"additive", "dot"}
    d : int
        Width of the items.
    budget : int
        Largest number of parameters allowed.

    Returns
    -------
    int
    """
    ### BEGIN SOLUTION
    return budget // (2 * d + (1 if kind == "additive" else 0))
    ### END SOLUTION


# %% cell_id="code-10"
grader.check("width_for_budget")

# %% nbgrader={"grade": true, "grade_id": "width_for_budget_values", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-width-for-budget-values"
# Hidden test: width_for_budget, the largest hidden width within the budget, additive and dot (1 point)
### BEGIN HIDDEN TESTS
check("width_for_budget_values", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="md-11"
# With items of width $d = 16$ the bilinear matrix holds $16 \times 16 = 256$ parameters. The cell below gives
# the other two the same budget with your `width_for_budget` and prints what each costs for a table of 8 keys.

# %% cell_id="code-12"
try:
    d_items, n_table, budget = 16, 8, 16 * 16
    widths = {"additive": width_for_budget("additive", d_items, budget),
              "dot": width_for_budget("dot", d_items, budget), "bilinear": d_items}
    for kind, h in widths.items():
        parameters, macs = score_costs(kind, n_table, d_items, h)
        print(f"{kind:>9}: h = {h:2d}, {parameters} parameters, {macs} multiply-adds")
except NotImplementedError:
    print("(the table appears once score_costs and width_for_budget are done)")

# %% [markdown] cell_id="md-13"
# ## 5. An experiment where relevance is not alignment
#
# The seeds' warning: a dot product measures **alignment** in whatever space the learned maps produce, and nothing
# guarantees that alignment means relevance. The task below makes the two differ on purpose. Each query $q$
# (a unit vector of width 16) meets 8 unit keys: the **relevant** key is $R q$ plus a little noise, for one fixed
# random rotation $R$; one **distractor** key is $q$ itself, perfectly aligned and never relevant; the rest are
# random. A score function is trained (full-batch gradient descent with Adam, cross-entropy of the softmax over
# the 8 keys against the relevant one, 512 training queries, 300 steps) and tested on 2,048 new queries. The three
# kinds get the budget of the previous cell, and the whole run is repeated for 3 seeds.
#
# The given `compare_scorers()` does it with gradients derived by hand (a few seconds on one core). It has its own
# copy of the three score functions (with the arrays its backward pass needs), so the result does not depend on
# your answers above; the parameter counts in its table are counted from the trained arrays. "spread" is the
# largest minus the smallest test accuracy over the seeds.

# %% cell_id="code-14"
result = compare_scorers(d=16, n_keys=8, seeds=(0, 1, 2), steps=300)
print(f"untrained raw alignment q . k picks the relevant key for {result['raw_alignment']:.3f} of test queries "
      f"(chance: {1 / 8:.3f})\n")
print(f"{'kind':>9} {'h':>3} {'params':>7} {'train acc':>10} {'test acc':>9} {'spread':>7}")
for row in result["rows"]:
    print(f"{row['kind']:>9} {row['h']:>3} {row['parameters']:>7} "
          f"{row['train_accuracy']:>10.3f} {row['accuracy']:>9.3f} {row['spread']:>7.3f}")

fig, ax = plt.subplots(figsize=(6.5, 4))
steps = np.arange(1, result["steps"] // 10 + 1) * 10
for kind, curves in result["curves"].items():
    ax.plot(steps, curves.mean(axis=0), label=f"{kind} (mean of {len(curves)} seeds)")
    ax.fill_between(steps, curves.min(axis=0), curves.max(axis=0), alpha=0.2)
ax.axhline(1 / 8, color="gray", linestyle=":", label="chance (1 of 8 keys)")
ax.axhline(result["raw_alignment"], color="black", linestyle="--", label="raw alignment q . k, untrained")
ax.set_xlabel("training step")
ax.set_ylabel("test accuracy (relevant key ranked first)")
ax.set_title("Three score functions at one parameter budget (d = 16)")
ax.set_ylim(-0.02, 1.02)
ax.legend(fontsize=8)
plt.show()
plt.close(fig)

# %% [markdown] cell_id="md-15"
# ## 6. Rationale against result
#
# **Written answer (graded by hand).** In 5 to 8 sentences: what does the table above show about the three score
# functions, and what does it *not* show? Separate the paper's rationale for the scaling from what was measured,
# here and in the paper; say why raw alignment scores as it does; and name the evidence that would settle the open
# question (which compatibility function should a head use at a fixed parameter and compute budget?).

# %% [markdown] nbgrader={"grade": true, "grade_id": "RATIONALE_VS_RESULT", "locked": false, "points": 3, "schema_version": 3, "solution": true, "task": false} cell_id="written-RATIONALE-VS-RESULT"
# On this task the bilinear score ranks the relevant key first for every test query (1.000), the scaled dot
# product for ≈ 0.935 and the additive score for ≈ 0.135, barely above chance (0.125), although it fits half of its
# training queries (≈ 0.47): it memorises instead of learning the relation. Raw alignment scores 0.000 because the
# distractor is the query itself, so the unlearned dot product always picks it: alignment is not relevance until
# the maps learn a space where it is. This is a result for one task, one width (d = 16), 8 keys and one budget, and
# the task was built so that relevance is a bilinear relation (a rotation), which a full matrix represents exactly
# and a rank-8 product only approximately; it says nothing about language data or large d_k. The paper's claim
# that scaling closes the gap with additive attention is a rationale: it measured additive against the unscaled dot
# product only. Settling the question needs one matched comparison of the three, swept over key width and sequence
# length, on the same (real) data, with parameters and compute held equal and several seeds, and the cost side
# counted too: equal multiply-adds, but additive needs an n × n × h array and n²h tanh that matrix hardware does not
# speed up.

# %% [markdown] autograder={"rubric_for": "RATIONALE_VS_RESULT"} cell_id="rubric-RATIONALE-VS-RESULT"
# **Rubric (instructor only)** — `RATIONALE_VS_RESULT`, 3 points.
#
# * **1 point: the result, read correctly.** Reports the order measured in the notebook (bilinear ≥ dot product,
#   both far above additive, additive near chance) with numbers from the table, and explains raw alignment's score
#   (the distractor is the query itself, so alignment picks the wrong key). Half a point for the order without
#   the explanation of raw alignment.
# * **1 point: rationale separated from result.** Says that the paper measured additive against the *unscaled*
#   dot product and that the scaling closing the gap is its rationale, not a measurement; and that this notebook's
#   run is one task (built with a bilinear relevance), one width and one budget, so it does not settle the question.
# * **1 point: the evidence that would settle it.** A matched comparison of the three swept over key width and
#   sequence length on the same data, parameters (and compute) held equal, several seeds; or an equally precise
#   design. Half a point for "more experiments" without saying what is held fixed and what is swept.

# %% [markdown] cell_id="md-16"
# ## Summary
#
# Additive, scaled dot-product and bilinear scores all compare every query with every key. The additive score
# needs a hidden vector and a $\tanh$ per pair; the dot product is a low-rank bilinear score made of two matrix
# products; the bilinear score learns the full matrix. At one parameter budget their multiply-adds are of the
# same order, and which one learns a relation best depends on the relation: a measurement on one task is a result
# for that task, and the paper's argument for the scaling is a rationale until the matched comparison is run.
#
# ## Further reading
#
# * Vaswani et al., *Attention Is All You Need* (2017), §3.2.1 (scaled dot-product attention, additive attention
#   as the older alternative, and the footnote that computes the variance $d_k$ of a dot product of independent
#   unit-variance entries) and §3.2.2 (multi-head attention and its cost).
# * Prince, *Understanding Deep Learning*, §12.3 (self-attention: §12.3.2 on the scaling, §12.3.3 on multiple heads).

# %% cell_id="code-17"
grader.summary()
