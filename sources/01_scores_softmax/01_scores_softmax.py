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
# # 01 · Scores and softmax: the arithmetic of attention
#
# **After this notebook you can** compute, by hand and in numpy, how one query reads a set of keys and values:
# the dot-product scores, the softmax weights and the weighted average of the values — and say why each step is there.
#
# **How the checks work.** Each task has a cell that starts as a stub (`raise NotImplementedError()`); replace it with
# your answer and run it. The cell after it, `grader.check("...")`, runs the same checks as the grader on public
# examples (the lesson's worked examples and small random cases) and prints which properties hold and which fail,
# with a hint about the likely mistake. It never shows the expected arrays. When you submit, hidden tests run the
# same properties on fresh random inputs (other shapes, batches, float32, very large scores), so make your functions
# general, not just right on the examples. Work with numpy only; the last cell summarises your progress.

# %% nbgrader={"grade": false, "grade_id": "given", "locked": true, "schema_version": 3, "solution": false, "task": false} cell_id="c01-given"
# %matplotlib inline
import math
import numpy as np
import matplotlib.pyplot as plt
from autograder.hidden import check
from autograder.notebook import Grader
grader = Grader("01_scores_softmax", globals())


# %% [markdown] cell_id="c02"
# ## The library: a question, labels and pages
#
# A library holds a question, a shelf of labelled folders, and the pages inside them. You do not read every page:
# you compare the question with the labels and then open the folders whose labels match.
#
# Attention keeps the three roles and changes the reading. A librarian opens one folder; attention opens *every*
# folder and takes a share of each page, in proportion to how well its label matches the question. Each item of a
# sequence produces three vectors through three learned linear maps:
#
# | role | in the library | in attention |
# |---|---|---|
# | **query** $q$ | the question | what a position is looking for |
# | **key** $k_j$ | the label on folder $j$ | what item $j$ advertises |
# | **value** $v_j$ | the pages in folder $j$ | what item $j$ passes on if it is read |
#
# The arithmetic is a comparison followed by an average: the query is compared with every key, and the resulting
# weights average the values. The keys decide *where to look*; the values decide *what is retrieved*.
#
# ## 1. Comparing a query with a key: the dot product
#
# The score of key $k$ for query $q$ is their dot product, which multiplies matching entries and adds the results:
#
# $$ q \cdot k = \sum_{i=1}^{d_k} q_i\, k_i . $$
#
# Two vectors pointing the same way score high, perpendicular vectors score zero, opposing vectors score negative.
# With the query $q = (1, 0)$: the key $(1, 0)$ scores $1$, the key $(0, 1)$ scores $0$, the key $(0.5, 0.5)$
# scores $0.5$ and the key $(-1, 0)$ scores $-1$.
#
# **Task.** Write `dot_product(q, k)` for two 1-D vectors of the same length; return a Python `float`.

# %% [markdown] cell_id="c02b-bottleneck"
# ## Why attention: one running state, or every position
#
# Before attention, a sequence was read by a recurrent network, one word at a time. Its gates (LSTM, GRU) let
# gradients, and so learned dependencies, travel much further across a sequence, but they do it by making one
# memory better: everything relevant from the whole history still has to be compressed into **one fixed-size
# hidden state**, updated one step at a time. When the last word is read, the first one is present only through
# that vector.
#
# Attention takes a structurally different route. Every output position looks **directly and individually** at
# every input position, and the network learns how much weight to give each one. The tool for "how well does this
# position match what I am looking for" is nothing more exotic than the dot product.

# %% nbgrader={"grade": false, "grade_id": "dot_product", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="c03-dot-product"
def dot_product(q, k):
    """Dot product of two vectors: multiply matching entries and add the results.

    Parameters
    ----------
    q : array_like, shape (d_k,)
        A query vector.
    k : array_like, shape (d_k,)
        A key vector of the same length.

    Returns
    -------
    float
        sum_i q[i] * k[i]
    """
    ### BEGIN SOLUTION
    q = np.asarray(q, dtype=float)
    k = np.asarray(k, dtype=float)
    return float(np.sum(q * k))
    ### END SOLUTION


# %% cell_id="c04"
grader.check("dot_product")

# %% nbgrader={"grade": true, "grade_id": "dot_product_seed_example", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c05-dot-product-seed-example"
# Hidden test: dot_product, the seeds' query (1, 0) against keys (1, 0), (0, 1), (0.5, 0.5), (-1, 0) (1 point)
### BEGIN HIDDEN TESTS
check("dot_product_seed_example", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "dot_product_random_vectors", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c06-dot-product-random-vectors"
# Hidden test: dot_product, random vectors of several lengths (1 point)
### BEGIN HIDDEN TESTS
check("dot_product_random_vectors", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="c07"
# ## 2. Every query against every key: the score matrix
#
# A sequence has many queries and many keys. Stack the queries as the rows of a matrix $Q$ of shape
# $(n_q, d_k)$ and the keys as the rows of $K$ of shape $(n_k, d_k)$. All the dot products at once are
#
# $$ S = Q K^\top, \qquad S_{ij} = q_i \cdot k_j, \qquad S \in \mathbb{R}^{n_q \times n_k} . $$
#
# Row $i$ of $S$ holds query $i$'s scores against every key. Queries and keys must share their width $d_k$; the
# number of queries and the number of keys may differ.
#
# Real models work on *batches* of sequences, and (in notebook 04) on several heads at once, so the arrays carry
# leading axes: `Q` has shape `(..., n_q, d_k)` and `K` has shape `(..., n_k, d_k)`. Transpose only the last
# two axes of `K`; numpy's `@` then multiplies matching batch entries.
#
# **Task.** Write `attention_scores(Q, K)` returning the scores of shape `(..., n_q, n_k)`.

# %% nbgrader={"grade": false, "grade_id": "attention_scores", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="c08-attention-scores"
def attention_scores(Q, K):
    """Every query against every key: Q @ K^T over the last two axes.

    Parameters
    ----------
    Q : array_like, shape (..., n_q, d_k)
        Queries, one per row.
    K : array_like, shape (..., n_k, d_k)
        Keys, one per row; leading (batch) axes match those of Q.

    Returns
    -------
    ndarray, shape (..., n_q, n_k)
        scores[..., i, j] is the dot product of query i with key j.
    """
    ### BEGIN SOLUTION
    Q = np.asarray(Q)
    K = np.asarray(K)
    return Q @ np.swapaxes(K, -1, -2)
    ### END SOLUTION


# %% cell_id="c09"
grader.check("attention_scores")

# %% nbgrader={"grade": true, "grade_id": "attention_scores_seed_example", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c10-attention-scores-seed-example"
# Hidden test: attention_scores, the seed's query (1, 0) against keys (1, 0), (0, 1), (0.5, 0.5) (1 point)
### BEGIN HIDDEN TESTS
check("attention_scores_seed_example", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "attention_scores_non_square", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c11-attention-scores-non-square"
# Hidden test: attention_scores, more keys than queries, d_k different from both (and a square case) (1 point)
### BEGIN HIDDEN TESTS
check("attention_scores_non_square", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "attention_scores_batched", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c12-attention-scores-batched"
# Hidden test: attention_scores, leading batch axes (a batch of 2 sequences with 3 heads each) (1 point)
### BEGIN HIDDEN TESTS
check("attention_scores_batched", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "attention_scores_float32_unmodified", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c13-attention-scores-float32-unmodified"
# Hidden test: attention_scores, float32 queries and keys, left unchanged (1 point)
### BEGIN HIDDEN TESTS
check("attention_scores_float32_unmodified", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="c15"
# ## 3. From scores to weights: the softmax
#
# The scores become weights through the softmax, applied to each row (each query) separately:
#
# $$ \operatorname{softmax}(s)_j = \frac{e^{s_j}}{\sum_{l=1}^{n_k} e^{s_l}} . $$
#
# Exponentiation raises $e \approx 2.718$ to each score: it turns a small lead into a larger one and keeps every
# weight positive; the division makes the weights of a row sum to one.
#
# **Numerical care.** `np.exp(1000)` overflows to `inf`, and `inf / inf` is `nan`. Softmax does not change when the
# same number is subtracted from every score of a row ($e^{s_j - m} / \sum_l e^{s_l - m}$ cancels $e^{-m}$),
# so subtract each row's **own** maximum first: the largest exponential is then exactly $1$ and nothing can
# overflow. Keep the reduced axis (`keepdims=True`) so the row maxima and sums broadcast back along the right axis.
#
# **Task.** Write `softmax(x, axis=-1)`: weights of the same shape as `x`, normalised along `axis`
# (the key axis, `-1`, by default). Do not modify `x`.

# %% nbgrader={"grade": false, "grade_id": "softmax", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="c16-softmax"
def softmax(x, axis=-1):
    """Turn scores into weights: exp(x) / sum(exp(x)) along `axis`.

    Parameters
    ----------
    x : array_like
        Scores, any shape.
    axis : int, optional
        The axis whose slices are normalised (the key axis -1 by default).

    Returns
    -------
    ndarray, same shape as x
        Positive weights summing to 1 along `axis`; no overflow for scores of 1e4.
    """
    ### BEGIN SOLUTION
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(float)
    shifted = x - x.max(axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)
    ### END SOLUTION


# %% cell_id="c17"
grader.check("softmax")

# %% nbgrader={"grade": true, "grade_id": "softmax_seed_example", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c18-softmax-seed-example"
# Hidden test: softmax, scores (2, 1, 0) give weights (0.665, 0.245, 0.090) (1 point)
### BEGIN HIDDEN TESTS
check("softmax_seed_example", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "softmax_rows_sum_to_one", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c19-softmax-rows-sum-to-one"
# Hidden test: softmax, each row of weights is positive and sums to 1 (1 point)
### BEGIN HIDDEN TESTS
check("softmax_rows_sum_to_one", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "softmax_matches_reference", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c20-softmax-matches-reference"
# Hidden test: softmax, values on batched, non-square scores (1 point)
### BEGIN HIDDEN TESTS
check("softmax_matches_reference", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "softmax_large_scores", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c21-softmax-large-scores"
# Hidden test: softmax, no overflow at large scores (1e3 and 1e4) (1 point)
### BEGIN HIDDEN TESTS
check("softmax_large_scores", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "softmax_row_max", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c22-softmax-row-max"
# Hidden test: softmax, rows of very different sizes (each row's own maximum) (1 point)
### BEGIN HIDDEN TESTS
check("softmax_row_max", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "softmax_other_axis", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c23-softmax-other-axis"
# Hidden test: softmax, the `axis` argument (axis 0 and 1 of a 3-D array) (1 point)
### BEGIN HIDDEN TESTS
check("softmax_other_axis", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "softmax_float32", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c24-softmax-float32"
# Hidden test: softmax, float32 scores (1 point)
### BEGIN HIDDEN TESTS
check("softmax_float32", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "softmax_input_unmodified", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c25-softmax-input-unmodified"
# Hidden test: softmax, leaves its input unchanged (1 point)
### BEGIN HIDDEN TESTS
check("softmax_input_unmodified", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="c26"
# ## 4. Reading the values: the weighted average
#
# The output for a query is the average of the values with its weights: stack the values as the rows of $V$
# (shape $(n_k, d_v)$; $d_v$ may differ from $d_k$) and
#
# $$ \text{output}_i = \sum_{j=1}^{n_k} w_{ij}\, v_j, \qquad \text{output} = W V \in \mathbb{R}^{n_q \times d_v}. $$
#
# Because each row of weights sums to one, this weighted sum *is* an average: no further division.
#
# **Task.** Write `weighted_average(weights, V)`: `weights` of shape `(..., n_q, n_k)`, `V` of shape
# `(..., n_k, d_v)`, output of shape `(..., n_q, d_v)`.

# %% nbgrader={"grade": false, "grade_id": "weighted_average", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="c27-weighted-average"
def weighted_average(weights, V):
    """Average the values with the attention weights: weights @ V.

    Parameters
    ----------
    weights : array_like, shape (..., n_q, n_k)
        One row of weights per query.
    V : array_like, shape (..., n_k, d_v)
        Values, one row per key.

    Returns
    -------
    ndarray, shape (..., n_q, d_v)
        Row i is sum_j weights[..., i, j] * V[..., j, :].
    """
    ### BEGIN SOLUTION
    return np.asarray(weights) @ np.asarray(V)
    ### END SOLUTION


# %% cell_id="c28"
grader.check("weighted_average")

# %% nbgrader={"grade": true, "grade_id": "weighted_average_seed_example", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c29-weighted-average-seed-example"
# Hidden test: weighted_average, the worked example (weights 0.665, 0.245, 0.090 on values 1, 2, 3 give 1.425) and the seed's values (10, 0), (0, 10), (5, 5) (1 point)
### BEGIN HIDDEN TESTS
check("weighted_average_seed_example", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "weighted_average_non_square", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c30-weighted-average-non-square"
# Hidden test: weighted_average, n_q, n_k and d_v all different (and a square case) (1 point)
### BEGIN HIDDEN TESTS
check("weighted_average_non_square", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "weighted_average_batched", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c31-weighted-average-batched"
# Hidden test: weighted_average, leading batch axes (2 sequences, 3 heads) (1 point)
### BEGIN HIDDEN TESTS
check("weighted_average_batched", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "weighted_average_inputs_unmodified", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="c32-weighted-average-inputs-unmodified"
# Hidden test: weighted_average, leaves the weights and V unchanged (1 point)
### BEGIN HIDDEN TESTS
check("weighted_average_inputs_unmodified", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="c33"
# ## 5. The worked example, by hand and by your code
#
# One query meets three keys and the dot products are $2$, $1$ and $0$. Exponentiate: $e^2 \approx 7.389$,
# $e^1 \approx 2.718$, $e^0 = 1$. The total is $11.107$; dividing each exponential by it gives the weights.
#
# | item | score | exponential | weight | value |
# |---|---|---|---|---|
# | 1 | 2 | 7.389 | 0.665 | 1 |
# | 2 | 1 | 2.718 | 0.245 | 2 |
# | 3 | 0 | 1 | 0.090 | 3 |
#
# The weights add to one, so multiply each value by its weight and add:
# $0.665 \cdot 1 + 0.245 \cdot 2 + 0.090 \cdot 3 = 0.665 + 0.49 + 0.27 = 1.425$.
#
# The largest score takes about two thirds of the weight although it leads the second by only one point: the
# exponential turns a small lead into a large share. Run the cell below: your functions should reproduce the table.

# %% cell_id="c34"
try:
    example_weights = softmax(np.array([[2.0, 1.0, 0.0]]))
    example_output = weighted_average(example_weights, np.array([[1.0], [2.0], [3.0]]))
    print("weights:", np.round(example_weights, 3), " (the table: 0.665, 0.245, 0.090)")
    print("output: ", np.round(example_output, 3), " (the table: 1.425)")
except NotImplementedError:
    print("(the example runs once softmax and weighted_average are done)")

# %% [markdown] cell_id="c35"
# ## 6. Why not just take the best key?
#
# A discrete selection — keep the single best key (`argmax`) and read only its value — is what the librarian does.
# It cannot be trained by gradient descent: a small change in a score moves the choice not at all, or makes it
# jump to another item, so the output is a step function of the scores and its slope is zero almost everywhere
# (and undefined at the jumps). No usable gradient reaches the maps that produced the queries and keys.
#
# Softmax keeps every item with a positive weight, so a small change in a score produces a small change in the
# output, and the gradient can travel back into the maps. The plot sweeps the first score of the worked example
# from $-2$ to $4$ and shows the output of both rules.

# %% cell_id="c36"
try:
    first_scores = np.linspace(-2, 4, 301)
    values = np.array([[1.0], [2.0], [3.0]])
    soft, hard = [], []
    for s in first_scores:
        scores = np.array([[s, 1.0, 0.0]])
        soft.append(weighted_average(softmax(scores), values)[0, 0])
        hard.append(values[np.argmax(scores[0]), 0])
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(first_scores, soft, label="softmax weights (smooth: a slope everywhere)")
    ax.plot(first_scores, hard, drawstyle="steps-post", label="argmax (a step: slope 0 or undefined)")
    ax.axvline(2.0, color="grey", linestyle=":", label="the worked example (score 2 → output 1.425)")
    ax.set_xlabel("score of item 1 (items 2 and 3 keep scores 1 and 0)")
    ax.set_ylabel("attention output")
    ax.set_title("Soft weights can be trained, a hard choice cannot")
    ax.legend(fontsize=8)
    plt.show()
except NotImplementedError:
    print("(plot appears once softmax and weighted_average are done)")

# %% [markdown] cell_id="c36a-why"
# ### Stop and write: why the soft choice can be trained
#
# In two to four sentences, and with the numbers of the plot above: why can the maps that produce the queries and
# keys be trained when the output averages the values with softmax weights, and not when it reads only the value
# of the best-scoring key (argmax)?

# %% [markdown] nbgrader={"grade": true, "grade_id": "SOFTMAX_NOT_ARGMAX_WHY", "locked": false, "points": 1, "schema_version": 3, "solution": true, "task": false} cell_id="c36a-SOFTMAX-NOT-ARGMAX-WHY"
# Training moves the maps by gradient descent, so it needs to know how the output changes when a score changes a
# little. With argmax the output is a step function of the score: in the plot it stays at 2 (item 2's value) while
# the first score is below 1, jumps to 1 when it passes item 2's score of 1, and stays at 1 after that. Its slope is
# zero everywhere except at the jump, where it is undefined, so no usable gradient reaches the maps. With softmax
# every key keeps a positive weight and the output changes smoothly with every score (1.425 at a score of 2, a
# little lower for a slightly larger score), so a small change of a score gives a small, informative change of the
# output and the gradient flows back into the maps.

# %% [markdown] autograder={"rubric_for": "SOFTMAX_NOT_ARGMAX_WHY"} cell_id="rubric-SOFTMAX-NOT-ARGMAX-WHY"
# **Rubric (instructor only)** — `SOFTMAX_NOT_ARGMAX_WHY`, 1 point.
#
# * **1 point: a slope against none.** The argmax output is a step: a small change of a score leaves it unchanged
#   or makes it jump (from 2 to 1 at a first score of 1 in the plot), so its slope is 0 or undefined and no
#   gradient reaches the maps; the softmax output changes smoothly with every score (every weight is positive), so
#   a gradient exists and training can use it. Half a point for only one side (e.g. "argmax is not
#   differentiable" with no reason, or "softmax is smooth" without saying what argmax lacks). No credit for speed,
#   negative scores or "softmax picks a better key": argmax and softmax rank the keys the same way.

# %% [markdown] cell_id="c36b-understanding"
# ## 7. Check your understanding
#
# Answer with one letter per question, in order, as a tuple of strings: `CONCEPTS_01 = ("a", "b", "c")`.
# The visible check says only whether the answer has the expected form; the letters are checked when your notebook
# is graded.
#
# The cell after the questions prints their options, lettered in an order of your own (each student's differs):
# answer with the letters it prints.
#
# **Question 1.** An LSTM or GRU reads a sentence one word at a time. Which of its limits does attention remove?
#
# **Question 2.** Why does attention average the values with softmax weights instead of reading only the
# best-matching item (argmax)?
#
# **Question 3.** Which comparison does scaled dot-product attention make between a query and a key?

# %% nbgrader={"grade": false, "grade_id": "concepts_numbers", "locked": true, "schema_version": 3, "solution": false, "task": false} cell_id="concepts-numbers-01"
# The options of each question above, lettered in your own order: answer with these letters
CONCEPT_ORDER = grader.numbers("01_scores_softmax/concepts")

# %% nbgrader={"grade": false, "grade_id": "CONCEPTS_01", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["raises-exception"] cell_id="sol-CONCEPTS-01"
# CONCEPTS_01 = ("?", "?", "?")  (one letter per question, in order)
### BEGIN SOLUTION
# the letter you see each right option under (CONCEPT_ORDER[i]: the lesson's letters in the order you see them)
CONCEPTS_01 = tuple("abcd"[shown.index(right)] for shown, right in zip(CONCEPT_ORDER, "bcd"))
### END SOLUTION

# %% cell_id="check-CONCEPTS-01"
grader.check("CONCEPTS_01")

# %% nbgrader={"grade": true, "grade_id": "CONCEPTS_01_format", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-CONCEPTS-01-format"
# Hidden test: CONCEPTS_01, 3 letters, each one of a to d (1 point)
### BEGIN HIDDEN TESTS
check("CONCEPTS_01_format", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "CONCEPTS_01_value", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-CONCEPTS-01-value"
# Hidden test: CONCEPTS_01, the limit of recurrent networks that attention removes; why softmax weights and not the single best item; which comparison scaled dot-product attention uses (1 point)
### BEGIN HIDDEN TESTS
check("CONCEPTS_01_value", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="c37"
# ## Summary
#
# A query is compared with every key by a dot product (`attention_scores`), the scores of each query become
# weights that are positive and sum to one (`softmax`, stable thanks to the row maximum), and the weights average
# the values (`weighted_average`). Notebook 02 asks what happens to these scores when the vectors get long.

# %% [markdown] cell_id="c37b-reading"
# ## Further reading
#
# * Vaswani et al., *Attention Is All You Need* (2017), §3.2.1: scaled dot-product attention, additive attention as
#   the older alternative, and the footnote that computes the variance $d_k$ of a dot product of independent
#   unit-variance entries (why the divisor has the form it has); §3.2.2: multi-head attention and its cost.
# * Prince, *Understanding Deep Learning*, §12.3: self-attention, with the scaling argument in §12.3.2 and
#   multiple heads in §12.3.3; it also explains the names query, key and value, inherited from information
#   retrieval.

# %% cell_id="c38"
grader.summary()
