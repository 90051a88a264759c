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
# # 05 · Self-attention and cross-attention
#
# Multi-head attention (notebook 4) takes two sets of rows: $X_q$, the rows that ask, and $X_{kv}$, the rows
# that are read. Which sequences you pass decides what the layer does:
#
# * **self-attention**: a sequence reads itself, $X_q = X_{kv} = X$; when a model predicts the next word, a
#   causal mask stops a position from reading words that have not been produced yet;
# * **cross-attention**: the queries come from one sequence and the keys and values from another. Translation
#   uses it: the side that writes the output asks about the input sentence, and every position of the output
#   can read every position of the input.
#
# After this notebook you can write both, hide the padding of the input sentences, and read a cross-attention
# heat map.
#
# **How the checks work.** After each answer, run `grader.check("...")`: it tries your function on public
# examples and says which properties hold and, when one fails, the mistake it suggests, never the expected
# arrays. Hidden tests grade the same properties on other inputs. Given: `multi_head_attention(X_q, X_kv, W_q,
# W_k, W_v, W_o, num_heads, mask=None)` from notebook 4, which returns `(output, weights)` with weights of shape
# `(..., num_heads, n_q, n_k)`, and `causal_mask`, `padding_mask` and `scaled_dot_product_attention` from
# notebooks 2 and 3.

# %% nbgrader={"grade": false, "grade_id": "given", "locked": true, "schema_version": 3, "solution": false, "task": false} cell_id="given"
# %matplotlib inline
import math
import numpy as np
import matplotlib.pyplot as plt
from attention_ref import scaled_dot_product_attention, multi_head_attention, causal_mask, padding_mask
from autograder.hidden import check
from autograder.notebook import Grader
grader = Grader("05_cross_attention", globals())


# %% [markdown] cell_id="md-02"
# ## 1. Self-attention
#
# In self-attention every position of one sequence $X$ (shape `(..., n, d_model)`) produces a query, a key and
# a value, and every query is compared with every key of the same sequence:
#
# $$\operatorname{SelfAttention}(X) = \operatorname{MultiHead}(X, X).$$
#
# With `causal=True`, position $i$ may read only positions $j \le i$ (itself included): a mask sets the scores
# of the later positions to $-\infty$ before the softmax, so their weights are exactly 0. The causal mask is
# top-left aligned and lower-triangular, `causal_mask(n)`.
#
# **Task.** Write `self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False)`, returning `(output, weights)`
# as `multi_head_attention` does.

# %% nbgrader={"grade": false, "grade_id": "self_attention", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="sol-self-attention"
def self_attention(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    """Multi-head attention of a sequence over itself.

    Parameters
    ----------
    X : ndarray, shape (..., n, d_model)
    W_q, W_k, W_v, W_o, num_heads
        As in ``multi_head_attention``.
    causal : bool, optional
        Let position ``i`` read only positions ``j <= i``.

    Returns
    -------
    output : ndarray, shape (..., n, d_out)
    weights : ndarray, shape (..., num_heads, n, n)
    """
    ### BEGIN SOLUTION
    X = np.asarray(X)
    mask = causal_mask(X.shape[-2]) if causal else None  # (n, n), the same for every head and batch entry
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)
    ### END SOLUTION


# %% cell_id="code-03"
grader.check("self_attention")

# %% nbgrader={"grade": true, "grade_id": "self_attention_matches_reference", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-self-attention-matches-reference"
# Hidden test: self_attention, 3 heads over 4 positions of width 6; batch axes, d_k != d_v, W_o to another width, causal=False (1 point)
### BEGIN HIDDEN TESTS
check("self_attention_matches_reference", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "self_attention_causal", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-self-attention-causal"
# Hidden test: self_attention, causal=True: position i reads only positions j <= i (1 point)
### BEGIN HIDDEN TESTS
check("self_attention_causal", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "self_attention_float32_unmodified", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-self-attention-float32-unmodified"
# Hidden test: self_attention, float32 inputs, left unchanged (1 point)
### BEGIN HIDDEN TESTS
check("self_attention_float32_unmodified", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="md-04"
# ## 2. Cross-attention
#
# In translation an encoder reads the input sentence $X_{enc}$ (shape `(..., n_enc, d_model)`) and a decoder
# writes the output $X_{dec}$ (shape `(..., n_dec, d_model)`). In cross-attention the side that writes asks:
#
# $$\operatorname{CrossAttention}(X_{dec}, X_{enc}) = \operatorname{MultiHead}(X_q = X_{dec},\ X_{kv} = X_{enc}),$$
#
# so the queries come from the output side and the keys and values from the input side. The weights have one
# row per output position and one column per input position, shape `(..., heads, n_dec, n_enc)`. There is no
# causal mask: the whole input sentence is known, and every output position may read every input position.
#
# **Padding.** The input sentences of a batch have different lengths and are padded to $n_{enc}$.
# `enc_lengths[b]` is the true length of sentence $b$; the padded positions are keys that no query may read.
# `padding_mask(enc_lengths, n_enc)` (shape `(batch, 1, n_enc)`) varies along the **key** axis and broadcasts over
# the queries. A sentence of length 0 leaves its queries with no allowed key: their weights and output are
# zeros (the guard of notebook 3).
#
# **Task.** Write `cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None)`, returning
# `(output, weights)`. `enc_lengths`, when given, holds one length per sentence of `X_enc` of shape
# `(batch, n_enc, d_model)`.

# %% nbgrader={"grade": false, "grade_id": "cross_attention", "locked": false, "schema_version": 3, "solution": true, "task": false} cell_id="sol-cross-attention"
def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    """The output side (decoder) asks, the input side (encoder) is read.

    Parameters
    ----------
    X_dec : ndarray, shape (..., n_dec, d_model)
        Queries come from here.
    X_enc : ndarray, shape (..., n_enc, d_model)
        Keys and values come from here.
    W_q, W_k, W_v, W_o, num_heads
        As in ``multi_head_attention``.
    enc_lengths : ndarray of int, shape (batch,), optional
        True lengths of the input sentences (``X_enc`` of shape ``(batch, n_enc, d_model)``);
        padded positions get weight 0.

    Returns
    -------
    output : ndarray, shape (..., n_dec, d_out)
    weights : ndarray, shape (..., num_heads, n_dec, n_enc)
    """
    ### BEGIN SOLUTION
    X_enc = np.asarray(X_enc)
    mask = None
    if enc_lengths is not None:
        mask = padding_mask(np.asarray(enc_lengths), X_enc.shape[-2])  # (batch, 1, n_enc): hides key columns
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
    ### END SOLUTION


# %% cell_id="code-05"
grader.check("cross_attention")

# %% nbgrader={"grade": true, "grade_id": "cross_attention_matches_reference", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-cross-attention-matches-reference"
# Hidden test: cross_attention, 3 output positions read 5 input positions; batch axes, n_dec != n_enc, d_k != d_v, 4 heads, W_o to another width (1 point)
### BEGIN HIDDEN TESTS
check("cross_attention_matches_reference", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "cross_attention_self_special_case", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-cross-attention-self-special-case"
# Hidden test: cross_attention, cross_attention(X, X, ...) is self-attention (1 point)
### BEGIN HIDDEN TESTS
check("cross_attention_self_special_case", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "cross_attention_padding", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-cross-attention-padding"
# Hidden test: cross_attention, enc_lengths: padded source positions get weight 0 (1 point)
### BEGIN HIDDEN TESTS
check("cross_attention_padding", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "cross_attention_empty_source", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-cross-attention-empty-source"
# Hidden test: cross_attention, a source of length 0: zeros for that sequence, no NaN (1 point)
### BEGIN HIDDEN TESTS
check("cross_attention_empty_source", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "cross_attention_float32_unmodified", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-cross-attention-float32-unmodified"
# Hidden test: cross_attention, float32 inputs, left unchanged (1 point)
### BEGIN HIDDEN TESTS
check("cross_attention_float32_unmodified", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="md-06"
# ## 3. Self-attention is the special case
#
# When both sequences are the same, cross-attention *is* self-attention (without a causal mask): the formula
# does not know where its queries and its keys come from. The cell below checks it on your two answers.

# %% cell_id="code-07"
rng = np.random.default_rng(5)
X_same = rng.standard_normal((2, 5, 8))
W_q_same, W_k_same, W_v_same, W_o_same = rng.standard_normal((4, 8, 8)) / 3
try:
    out_cross, w_cross = cross_attention(X_same, X_same, W_q_same, W_k_same, W_v_same, W_o_same, num_heads=2)
    out_self, w_self = self_attention(X_same, W_q_same, W_k_same, W_v_same, W_o_same, num_heads=2)
    print("same weights:", np.allclose(w_cross, w_self), "  same output:", np.allclose(out_cross, out_self))
except NotImplementedError:
    print("(the comparison appears once self_attention and cross_attention are done)")

# %% [markdown] cell_id="md-08"
# ## 4. A toy translation
#
# Here is a translation-shaped example with maps written by hand instead of learned. The input sentence is
# *the black cat sleeps*, padded to 5 positions; the output is *le chat noir dort*. Each word is a vector of
# width 8: the English words live in the first four coordinates, the French words in the last four, with a
# little noise. The query map sends a French word to the coordinate of its meaning, the key map does the same
# for an English word, so a query and a key align when the words mean the same thing. One head of width 4;
# the values and the output map are the identity.
#
# Read the heat map row by row: each French word puts almost all its weight on its English word. The
# alignment crosses — *chat*, the second French word, reads *cat*, the third English word, and *noir* reads
# *black* — because French puts the adjective after the noun. The padding column gets weight 0.

# %% cell_id="code-09"
english = ["the", "black", "cat", "sleeps", "<pad>"]
french = ["le", "chat", "noir", "dort"]
meaning = {"the": 0, "black": 1, "cat": 2, "sleeps": 3, "le": 0, "noir": 1, "chat": 2, "dort": 3}
rng = np.random.default_rng(0)
X_enc_toy = 0.1 * rng.standard_normal((1, 5, 8))          # (batch, n_enc, d_model); position 4 is padding
X_dec_toy = 0.1 * rng.standard_normal((1, 4, 8))          # (batch, n_dec, d_model)
for j, word in enumerate(english[:4]):
    X_enc_toy[0, j, meaning[word]] += 1.0                  # English words: coordinates 0-3
for i, word in enumerate(french):
    X_dec_toy[0, i, 4 + meaning[word]] += 1.0              # French words: coordinates 4-7
W_q_toy = np.zeros((8, 4)); W_q_toy[4:, :] = 3 * np.eye(4)  # French coordinate -> meaning
W_k_toy = np.zeros((8, 4)); W_k_toy[:4, :] = 3 * np.eye(4)  # English coordinate -> meaning
W_v_toy, W_o_toy = np.eye(8), np.eye(8)
try:
    _, w_toy = cross_attention(X_dec_toy, X_enc_toy, W_q_toy, W_k_toy, W_v_toy, W_o_toy, num_heads=1,
                               enc_lengths=np.array([4]))
    fig, ax = plt.subplots(figsize=(6, 4.5))
    image = ax.imshow(w_toy[0, 0], cmap="viridis", vmin=0, vmax=1)
    ax.set_xticks(range(5), english)
    ax.set_yticks(range(4), french)
    ax.set_xlabel("input sentence (keys and values)")
    ax.set_ylabel("output sentence (queries)")
    ax.set_title("Cross-attention of a toy translation")
    for i in range(4):
        for j in range(5):
            ax.text(j, i, f"{w_toy[0, 0, i, j]:.2f}", ha="center", va="center",
                    color="black" if w_toy[0, 0, i, j] > 0.5 else "white")
    fig.colorbar(image, ax=ax, label="weight")
    plt.show()
    plt.close(fig)
except NotImplementedError:
    print("(plot appears once cross_attention is done)")

# %% [markdown] cell_id="md-09a-why"
# ### Stop and write: who asks and who answers
#
# In two to four sentences, with the toy translation above: why do the queries of cross-attention come from the
# output side (the decoder, the French words) and the keys and values from the input side (the encoder, the
# English words), and not the other way round?

# %% [markdown] nbgrader={"grade": true, "grade_id": "CROSS_ATTENTION_WHY", "locked": false, "points": 1, "schema_version": 3, "solution": true, "task": false} cell_id="md-09a2-CROSS-ATTENTION-WHY"
# A query is what a position is looking for, and the position that is looking is the one being written: each
# output word needs to know which input words to read, so it asks. The keys advertise what each input word offers
# and the values carry what is read, so both come from the sentence being read. Every row of the weights then
# belongs to one output word and sums to 1 over the input words (*chat* puts almost all its weight on *cat*, the
# padding gets 0), and the output has one vector per output word, which is what the decoder needs to write its next
# word. The other way round, each English word would get an average of French words: a vector per input word,
# with rows that sum over the output.

# %% [markdown] autograder={"rubric_for": "CROSS_ATTENTION_WHY"} cell_id="rubric-CROSS-ATTENTION-WHY"
# **Rubric (instructor only)** — `CROSS_ATTENTION_WHY`, 1 point.
#
# * **1 point: the writer asks, the read sentence answers.** The queries come from the positions being written
#   because each of them needs its own weighted reading of the input (one row of weights, summing to 1 over the
#   input positions, and one output vector per output position); keys and values describe and carry the input
#   being read. Half a point for the roles alone ("query = what I look for, key/value = what is offered") without
#   saying why the output side is the one that looks, or for the shapes argument alone. No credit for "keys and
#   values are the same thing" (they come from two different maps).

# %% [markdown] cell_id="md-09b-understanding"
# ## Check your understanding
#
# Answer with one letter, as a tuple of one string: `CONCEPTS_05 = ("a",)`. The letter is checked when your
# notebook is graded.
#
# The cell after the questions prints their options, lettered in an order of your own (each student's differs):
# answer with the letters it prints.
#
# **Question 1.** In a trained translation model, one output position puts weight 0.7 on one input word. What does
# that say?

# %% nbgrader={"grade": false, "grade_id": "concepts_numbers", "locked": true, "schema_version": 3, "solution": false, "task": false} cell_id="concepts-numbers-05"
# The options of each question above, lettered in your own order: answer with these letters
CONCEPT_ORDER = grader.numbers("05_cross_attention/concepts")

# %% nbgrader={"grade": false, "grade_id": "CONCEPTS_05", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["raises-exception"] cell_id="sol-CONCEPTS-05"
# CONCEPTS_05 = ("?",)  (one letter)
### BEGIN SOLUTION
# the letter you see each right option under (CONCEPT_ORDER[i]: the lesson's letters in the order you see them)
CONCEPTS_05 = tuple("abcd"[shown.index(right)] for shown, right in zip(CONCEPT_ORDER, "b"))
### END SOLUTION

# %% cell_id="check-CONCEPTS-05"
grader.check("CONCEPTS_05")

# %% nbgrader={"grade": true, "grade_id": "CONCEPTS_05_format", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-CONCEPTS-05-format"
# Hidden test: CONCEPTS_05, 1 letters, each one of a to d (1 point)
### BEGIN HIDDEN TESTS
check("CONCEPTS_05_format", globals())
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "CONCEPTS_05_value", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false} cell_id="test-CONCEPTS-05-value"
# Hidden test: CONCEPTS_05, what a high cross-attention weight says (1 point)
### BEGIN HIDDEN TESTS
check("CONCEPTS_05_value", globals())
### END HIDDEN TESTS

# %% [markdown] cell_id="md-10"
# ## Summary
#
# One mechanism, two uses: self-attention passes the same sequence twice (with a causal mask when the model
# predicts the next word); cross-attention lets the output side ask and the input side answer, with the
# padding of the input hidden along the key axis. The table below shows which tasks pass their visible checks.

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
