"""Properties that tell the causes of a failure apart (issue 24, the 2026-12-03 held-out set): each mistake
below is named on the check whose probe separates it, for every seed, and an answer the property does not
fit is not given its name. The answers are functions judged on the checks themselves."""
from __future__ import annotations

import math

import numpy as np
import pytest

import attention_ref as ref
from autograder.checks import CHECKS, GENERIC_MISCONCEPTIONS, executor
from autograder.checks.core import evaluate

SEEDS = (0, 12345, 777)


def _verdict(grade_id, name, answer, seed, given=None):
    check = CHECKS[grade_id]
    namespace = {"np": np, "math": math, "softmax": ref.softmax, "attention_scores": ref.attention_scores,
                 "weighted_average": ref.weighted_average, "scale_scores": ref.scale_scores,
                 "scaled_dot_product_attention": ref.scaled_dot_product_attention, "padding_mask": ref.padding_mask,
                 "multi_head_attention": ref.multi_head_attention, **(given or {}), name: answer}
    return evaluate(check, executor(check, namespace), seed)


# ---------------------------------------------------------------- answers that make the mistakes
def dot_abs_products(q, k):
    return float(np.sum(np.abs(np.asarray(q, float) * np.asarray(k, float))))


def dot_abs_cosine(q, k):  # never negative, and divided by the lengths: neither property alone
    q, k = np.asarray(q, float), np.asarray(k, float)
    return float(abs(q @ k) / (np.linalg.norm(q) * np.linalg.norm(k)))


def variance_uniform(d_k, n_samples=100_000, rng=None):
    gen = np.random.default_rng(rng)
    q, k = gen.random((n_samples, d_k)), gen.random((n_samples, d_k))
    return float(np.var((q * k).sum(axis=1)))


def variance_squared_width(d_k, n_samples=100_000, rng=None):  # d_k^2: not a common factor of d_k
    return float(d_k) ** 2


def jacobian_delta_as_one(p):
    p = np.asarray(p, float)
    return p[:, None] * (1 - p[None, :])


def sdpa_width_from_axis_1(Q, K, V):
    Q = np.asarray(Q)
    weights = ref.softmax(ref.attention_scores(Q, K) / math.sqrt(Q.shape[1]))
    return weights @ V, weights


def sdpa_unshifted_softmax(Q, K, V):
    Q = np.asarray(Q)
    e = np.exp(ref.attention_scores(Q, K) / math.sqrt(Q.shape[-1]))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ V, weights


def apply_fill_minus_1e4(scores, mask):
    mask = np.asarray(mask)
    return np.where(mask, scores, -1e4) if mask.dtype == bool else scores + mask


def apply_fill_minus_10(scores, mask):  # finite, but not far below: the property does not hold
    mask = np.asarray(mask)
    return np.where(mask, scores, -10.0) if mask.dtype == bool else scores + mask


def merge_concatenate_axis0(X):
    return np.concatenate(list(np.asarray(X)), axis=-1)


def mha_keys_from_queries(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q, K, V = (ref.split_heads(X @ W, num_heads) for X, W in ((X_q, W_q), (X_q, W_k), (X_kv, W_v)))
    mask = None if mask is None else np.expand_dims(np.asarray(mask), -3)
    heads, weights = ref.scaled_dot_product_attention(Q, K, V, mask=mask)
    return ref.merge_heads(heads) @ W_o, weights


def asymmetry_sum(X, W_q, W_k):
    S = (X @ W_q) @ (X @ W_k).T
    return float(np.abs(S - S.T).sum())


def cross_mask_decoder_length(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, enc_lengths=None):
    mask = None if enc_lengths is None else ref.padding_mask(enc_lengths, np.shape(X_dec)[-2])
    return ref.multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)


def blockwise_stops_early(Q, K, V, block_size=128, mask=None, scale=None):
    n_k = K.shape[-2]
    stop = max(0, (n_k - 1) // block_size) * block_size  # the last block (partial or whole) left out
    if stop == 0:
        return np.zeros(Q.shape[:-1] + V.shape[-1:])
    if mask is not None and np.shape(mask)[-1] > 1:
        mask = np.asarray(mask)[..., :stop]
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    return ref.blockwise_attention(Q, K[..., :stop, :], V[..., :stop, :], block_size, mask, scale=factor)


def additive_keys_major(Q, K, W_q, W_k, v):
    return np.swapaxes(ref.additive_scores(Q, K, W_q, W_k, v), -1, -2)


def scaled_dot_by_width(Q, K, W_q, W_k):
    q, k = Q @ W_q, K @ W_k
    return q @ np.swapaxes(k, -1, -2) / q.shape[-1]


def width_round_nearest(kind, d, budget):
    return round(budget / (2 * d + (1 if kind == "additive" else 0)))


def project_einsum_2d(X, W):
    return np.einsum("nd,de->ne", X, W)


def split_unpacked(X, num_heads):
    n, d_model = np.shape(X)
    return np.asarray(X).reshape(n, num_heads, d_model // num_heads).transpose(1, 0, 2)


def merge_unpacked(X):
    h, n, d = np.shape(X)
    return np.asarray(X).transpose(1, 0, 2).reshape(n, h * d)


def project_batch_only(X, W):  # wrong on one sequence too: "written for one sequence" does not fit
    return np.einsum("nd,de->ne", X, W) * 2 if np.ndim(X) == 2 else X @ W * 2


NAMED = [
    ("dot_product_seed_example", "dot_product", dot_abs_products, "dot_product.never_negative"),
    ("dot_product_random_vectors", "dot_product", dot_abs_products, "dot_product.never_negative"),
    ("score_variance_matches_d_k", "score_variance", variance_uniform, "score_variance.not_standard_normal"),
    ("softmax_jacobian_matches_reference", "softmax_jacobian", jacobian_delta_as_one, "softmax_jacobian.delta_as_one"),
    ("scaled_dot_product_attention_batched", "scaled_dot_product_attention", sdpa_width_from_axis_1,
     "attention.width_from_wrong_axis"),
    ("scaled_dot_product_attention_large_scores", "scaled_dot_product_attention", sdpa_unshifted_softmax,
     "softmax.no_max_subtraction"),
    ("apply_mask_bool", "apply_mask", apply_fill_minus_1e4, "mask.large_negative_fill"),
    ("merge_heads_batched", "merge_heads", merge_concatenate_axis0, "merge_heads.moves_batch_axis"),
    ("multi_head_attention_batch_mask", "multi_head_attention", mha_keys_from_queries,
     "multi_head_attention.keys_from_queries"),
    ("score_asymmetry_values", "score_asymmetry", asymmetry_sum, "score_asymmetry.total_not_largest"),
    ("cross_attention_padding", "cross_attention", cross_mask_decoder_length, "cross_attention.padding_decoder_length"),
    ("blockwise_attention_matches_reference", "blockwise_attention", blockwise_stops_early,
     "blockwise_attention.skips_keys"),
    ("blockwise_attention_masks", "blockwise_attention", blockwise_stops_early, "blockwise_attention.skips_keys"),
    ("additive_scores_matches_reference", "additive_scores", additive_keys_major, "additive_scores.keys_by_queries"),
    ("scaled_dot_scores_matches_reference", "scaled_dot_scores", scaled_dot_by_width,
     "scaled_dot_scores.divides_by_width"),
    ("width_for_budget_values", "width_for_budget", width_round_nearest, "width_for_budget.rounds_up"),
    ("project_batched", "project", project_einsum_2d, "project.fixed_axes"),
    ("split_heads_batched", "split_heads", split_unpacked, "split_heads.fixed_axes"),
    ("merge_heads_batched", "merge_heads", merge_unpacked, "merge_heads.fixed_axes"),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("grade_id, name, answer, named", NAMED, ids=[f"{n[0]}-{n[2].__name__}" for n in NAMED])
def test_the_property_names_the_mistake(grade_id, name, answer, named, seed):
    verdict = _verdict(grade_id, name, answer, seed)
    assert not verdict.passed and verdict.misconception == named, verdict


@pytest.mark.parametrize("grade_id, name, answer", [
    ("dot_product_random_vectors", "dot_product", dot_abs_cosine),
    ("score_variance_matches_d_k", "score_variance", variance_squared_width),
    ("apply_mask_bool", "apply_mask", apply_fill_minus_10),
    ("project_batched", "project", project_batch_only),
])
@pytest.mark.parametrize("seed", SEEDS)
def test_where_the_property_does_not_hold_nothing_is_named(grade_id, name, answer, seed):
    verdict = _verdict(grade_id, name, answer, seed)
    assert not verdict.passed and verdict.misconception in GENERIC_MISCONCEPTIONS, verdict


@pytest.mark.parametrize("grade_id, answer, graded, core", [("project_batched", ref.project, 1, 2),
                                                              ("split_heads_batched", ref.split_heads, 2, 2),
                                                              ("merge_heads_batched", ref.merge_heads, 2, 3)])
def test_the_first_sequence_probes_cost_the_right_answer_nothing(grade_id, answer, graded, core):
    calls = list(CHECKS[grade_id].make_calls(np.random.default_rng(0)))
    batched = [c for c in calls[:graded] if c.args[0].ndim > core]
    assert len(calls) == graded + len(batched) and all(c.args[0].ndim == core for c in calls[graded:])
    for call, probe in zip(batched, calls[graded:]):  # the probe is the batch's first sequence
        np.testing.assert_array_equal(probe.args[0], call.args[0][(0,) * (call.args[0].ndim - core)])
    assert _verdict(grade_id, answer.__name__, answer, 0).passed


def mha_first_head_weights(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    out, weights = ref.multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=mask)
    return out, weights[..., 0, :, :]


def mha_mean_weights(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    out, weights = ref.multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=mask)
    return out, weights.mean(axis=-3)


@pytest.mark.parametrize("grade_id", ["multi_head_attention_shapes", "multi_head_attention_matches_reference"])
def test_weights_without_a_head_axis_are_called_averaged_only_when_they_are_the_average(grade_id):
    """The shape alone named 'averaged over the heads' for any table without a head axis (one head's, say)."""
    averaged = _verdict(grade_id, "multi_head_attention", mha_mean_weights, 0)
    assert averaged.misconception == "multi_head_attention.weights_averaged", averaged
    first = _verdict(grade_id, "multi_head_attention", mha_first_head_weights, 0)
    assert not first.passed and first.misconception == "wrong_shape" and "head axis" in first.message, first


def sdpa_no_softmax(Q, K, V):
    weights = ref.attention_scores(Q, K) / math.sqrt(np.shape(Q)[-1])
    return weights @ V, weights


def sdpa_scaled_after(Q, K, V):
    weights = ref.softmax(ref.attention_scores(Q, K)) / math.sqrt(np.shape(Q)[-1])
    return weights @ V, weights


def scores_scaled(Q, K):
    return ref.attention_scores(Q, K) / math.sqrt(np.shape(Q)[-1])


def blockwise_unnormalised(Q, K, V, block_size=128, mask=None, scale=None):
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    scores = Q @ np.swapaxes(K, -1, -2) * factor
    if mask is not None:
        scores = ref.apply_mask(scores, mask)
    top = scores.max(axis=-1, keepdims=True)
    return np.exp(scores - np.where(np.isfinite(top), top, 0)) @ V


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("grade_id, name, answer, named", [
    ("scaled_dot_product_attention_non_square", "scaled_dot_product_attention", sdpa_no_softmax, "attention.no_softmax"),
    ("scaled_dot_product_attention_non_square", "scaled_dot_product_attention", sdpa_scaled_after,
     "attention.scaled_after_softmax"),
    ("attention_scores_non_square", "attention_scores", scores_scaled, "attention_scores.scaled"),
    ("blockwise_attention_matches_reference", "blockwise_attention", blockwise_unnormalised,
     "blockwise_attention.no_normalisation"),
    ("blockwise_attention_masks", "blockwise_attention", blockwise_unnormalised, "blockwise_attention.no_normalisation"),
])
def test_a_missing_or_misplaced_step_is_named(grade_id, name, answer, named, seed):
    verdict = _verdict(grade_id, name, answer, seed)
    assert not verdict.passed and verdict.misconception == named, verdict


def jacobian_diagonal_vector(p):
    p = np.asarray(p, float)
    return p * (1 - p)


def softmax_fixed_axis_1(x, axis=-1):
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def sdpa_softmax_axis_0(Q, K, V):
    weights = ref.softmax(ref.attention_scores(Q, K) / math.sqrt(np.shape(Q)[-1]), axis=0)
    return weights @ V, weights


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("grade_id, name, answer, named", [
    ("softmax_jacobian_matches_reference", "softmax_jacobian", jacobian_diagonal_vector, "softmax_jacobian.diagonal_only"),
    ("softmax_matches_reference", "softmax", softmax_fixed_axis_1, "softmax.wrong_axis"),
    ("scaled_dot_product_attention_batched", "scaled_dot_product_attention", sdpa_softmax_axis_0,
     "attention.softmax_wrong_axis"),
])
def test_which_axis_is_named(grade_id, name, answer, named, seed):
    verdict = _verdict(grade_id, name, answer, seed)
    assert not verdict.passed and verdict.misconception == named, verdict


def mha_queries_from_kv(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    return ref.multi_head_attention(X_kv, X_kv, W_q, W_k, W_v, W_o, num_heads,
                                    mask=None if mask is None else np.asarray(mask)[..., :np.shape(X_kv)[-2], :])


@pytest.mark.parametrize("seed", SEEDS)
def test_which_sequence_the_queries_follow_is_named(seed):
    verdict = _verdict("multi_head_attention_batch_mask", "multi_head_attention", mha_queries_from_kv, seed)
    assert not verdict.passed and verdict.misconception == "multi_head_attention.queries_from_kv", verdict
    shape = _verdict("multi_head_attention_matches_reference", "multi_head_attention", mha_queries_from_kv, seed)
    assert shape.misconception == "wrong_shape" and "one row per key" in shape.message, shape


def dot_squared_distance(q, k):
    return float(np.sum((np.asarray(q, float) - np.asarray(k, float)) ** 2))


@pytest.mark.parametrize("seed", SEEDS)
def test_a_distance_is_named(seed):
    for grade_id in ("dot_product_seed_example", "dot_product_random_vectors"):
        verdict = _verdict(grade_id, "dot_product", dot_squared_distance, seed)
        assert not verdict.passed and verdict.misconception == "dot_product.distance", verdict


def causal_tril_one_ahead(n_q, n_k=None):
    return np.tril(np.ones((n_q, n_q if n_k is None else n_k)), k=1).astype(bool)


def self_attention_len_of_x(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    mask = ref.causal_mask(len(X)) if causal else None
    return ref.multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)


def blockwise_default_scale(Q, K, V, block_size=128, mask=None, scale=None):
    return ref.blockwise_attention(Q, K, V, block_size, mask)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("grade_id, name, answer, named", [
    ("causal_mask_square", "causal_mask", causal_tril_one_ahead, "causal_mask.sees_ahead"),
    ("self_attention_causal", "self_attention", self_attention_len_of_x, "self_attention.mask_size_from_batch"),
    ("blockwise_attention_block_sizes", "blockwise_attention", blockwise_default_scale,
     "blockwise_attention.ignores_scale"),
])
def test_the_2026_12_02_vague_ones_are_named_by_their_property(grade_id, name, answer, named, seed):
    verdict = _verdict(grade_id, name, answer, seed)
    assert not verdict.passed and verdict.misconception == named, verdict


def width_without_v(kind, d, budget):
    return budget // (2 * d)


@pytest.mark.parametrize("seed", SEEDS)
def test_rounding_and_a_count_without_v_are_told_apart(seed):
    """Both can give the width above the one that fits on additive budgets: the fixed probes separate them."""
    assert _verdict("width_for_budget_values", "width_for_budget", width_without_v, seed).misconception == \
        "width_for_budget.additive_without_v"
    assert _verdict("width_for_budget_values", "width_for_budget", width_round_nearest, seed).misconception == \
        "width_for_budget.rounds_up"
