"""A message names the misconception or the property that fails; it does not hand over the answer (issue 24:
a blind review found the code or the formula of the solution in four messages). Each answer below gets the
message that once held it, judged on the check itself; the message must still say what is wrong."""
from __future__ import annotations

import math

import numpy as np
import pytest

import attention_ref as ref
from autograder.checks import CHECKS, executor
from autograder.checks.core import evaluate


def causal_bottom_right(n_q, n_k):
    return np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q)


def mha_mask_as_is(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q, K, V = (ref.split_heads(X @ W, num_heads) for X, W in ((X_q, W_q), (X_kv, W_k), (X_kv, W_v)))
    heads, weights = ref.scaled_dot_product_attention(Q, K, V, mask=mask)
    return ref.merge_heads(heads) @ W_o, weights


def jacobian_halved(p):
    return ref.softmax_jacobian(p) / 2   # no catalogued mistake: the generic message


def _verdict(grade_id, name, answer, seed=0):
    check = CHECKS[grade_id]
    namespace = {"np": np, "math": math, name: answer, **{n: getattr(ref, n) for n in check.helpers}}
    return evaluate(check, executor(check, namespace), seed)


@pytest.mark.parametrize("grade_id, name, answer, said, not_said", [
    ("causal_mask_non_square", "causal_mask", causal_bottom_right, "bottom-right", ("np.tril", "array of ones")),
    ("multi_head_attention_batch_mask", "multi_head_attention", mha_mask_as_is, "head",
     ("expand_dims", "-3)", "[:, None]")),
    ("softmax_jacobian_matches_reference", "softmax_jacobian", jacobian_halved, "diagonal",
     ("diag(p) - p p", "p_i (1 - p_i)", "-p_i p_j")),
    ("TABLE_BYTES_value", "TABLE_BYTES", 123, "bytes", ("4 bytes each", "x n_q x n_k", "heads x")),
])
def test_the_message_names_the_property_not_the_answer(grade_id, name, answer, said, not_said):
    verdict = _verdict(grade_id, name, answer)
    assert not verdict.passed and said in verdict.message, verdict
    assert not [text for text in not_said if text in verdict.message], verdict.message


# ---------------------------------------------------------------- issue 24, blind set 6: more texts that held the fix
def dot_distance(q, k):
    return float(np.linalg.norm(np.asarray(q, float) - np.asarray(k, float)))


def average_transposed(weights, V):
    return np.swapaxes(weights, -1, -2) @ V


def additive_off(Q, K, W_q, W_k, v):
    return ref.additive_scores(Q, K, W_q, W_k, v) * 1.5  # no catalogued mistake: the generic text


def softmax_sharpened(x, axis=-1):
    return ref.softmax(np.asarray(x, float) * 1.1, axis=axis)


def scale_shifted(scores, d_k):
    return ref.scale_scores(scores, d_k) + 0.1


def leading_damped(width, scaled=True):
    return ref.leading_weight(width, scaled=scaled) * 0.99


def variance_squared(d_k, n_samples=100_000, rng=None):
    return float(d_k) ** 2


def asymmetry_halved(X, W_q, W_k):
    return ref.score_asymmetry(X, W_q, W_k) / 2


@pytest.mark.parametrize("grade_id, name, answer, said, not_said", [
    ("dot_product_seed_example", "dot_product", dot_distance, "distance",
     ("Multiply matching entries", "add the products")),
    ("weighted_average_non_square", "weighted_average", average_transposed, "columns",
     ("as they are", "not their transpose", ") by V")),
    ("additive_scores_matches_reference", "additive_scores", additive_off, "additive score",
     ("v . tanh", "q_i W_q + k_j W_k", "tanh(")),
    ("softmax_matches_reference", "softmax", softmax_sharpened, "sum to 1",
     ("exponentiate each score", "divide by the total")),
    ("scale_scores_matches_reference", "scale_scores", scale_shifted, "d_k", ("scores / sqrt(d_k)",)),
    ("leading_weight_scaled_flat", "leading_weight", leading_damped, "scaled curve",
     ("(2, 1, 0) times sqrt(width)", "return the largest softmax weight")),
    ("score_variance_matches_d_k", "score_variance", variance_squared, "d_k",
     ("draw the entries", "take the dot product of each pair")),
    ("score_asymmetry_values", "score_asymmetry", asymmetry_halved, "gap",
     ("for every pair, and return the largest gap",)),
])
def test_a_failing_property_is_said_without_its_formula(grade_id, name, answer, said, not_said):
    verdict = _verdict(grade_id, name, answer)
    assert not verdict.passed and said in verdict.message, verdict
    assert not [text for text in not_said if text in verdict.message], verdict.message
