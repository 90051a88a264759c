"""Issue 24, blind set 6: a mistake is named only where the failure's signature identifies it, and a cause the
signature does not pin down is said as the property that fails. Each pair below is two answers that one input
of a check cannot tell apart; the check's other inputs (or never-graded probes) must, at every seed. The
answers are functions judged on the checks themselves (the catalogue holds the named ones as notebook cells)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import attention_ref as ref
from autograder.checks import CHECKS, GENERIC_MISCONCEPTIONS, executor
from autograder.checks.core import evaluate

SEEDS = (0, 4242, 98765)


def _verdict(grade_id, name, answer, seed=0):
    check = CHECKS[grade_id]
    namespace = {"np": np, "math": math, name: answer, "multi_head_attention": ref.multi_head_attention,
                 "causal_mask": ref.causal_mask, "padding_mask": ref.padding_mask,
                 **{n: getattr(ref, n) for n in check.helpers}}
    return evaluate(check, executor(check, namespace), seed)


# ---------------------------------------------------------------- answers
def dot_minus_squared_distance(q, k):
    d = np.asarray(q, float) - np.asarray(k, float)
    return float(-(d @ d))


def variance_self_dot(d_k, n_samples=100_000, rng=None):  # right draws, a vector met with itself: 2 d_k
    q = np.random.default_rng(rng).standard_normal((n_samples, d_k))
    return float(np.var((q * q).sum(axis=1)))


def self_attention_flag_as_mask(X, W_q, W_k, W_v, W_o, num_heads, causal=False):
    return ref.multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=causal)


def self_attention_flag_mixed_up(X, W_q, W_k, W_v, W_o, num_heads, causal=False):  # reads the flag, never masks
    out, weights = ref.multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads)
    return (out, weights) if causal else (out * 2, weights)


def _online(Q, K, V, block_size=128, mask=None, scale=None, *, start=-np.inf, inverted=False, shift=True):
    """An online softmax over blocks of keys with one mistake switched on (no guard for 0/0 at the end)."""
    factor = 1 / math.sqrt(Q.shape[-1]) if scale is None else scale
    m = np.full(Q.shape[:-1] + (1,), start)
    total = np.zeros(Q.shape[:-1] + (1,))
    acc = np.zeros(Q.shape[:-1] + (V.shape[-1],))
    for b in range(0, K.shape[-2], block_size):
        s = Q @ np.swapaxes(K[..., b:b + block_size, :], -1, -2) * factor
        new = np.maximum(m, s.max(axis=-1, keepdims=True)) if shift else np.zeros_like(m)
        factor_old = np.exp(new - m) if inverted else np.exp(m - new)
        e = np.exp(s - new)
        total = total * (factor_old if shift else 1) + e.sum(axis=-1, keepdims=True)
        acc = acc * (factor_old if shift else 1) + e @ V[..., b:b + block_size, :]
        m = new
    return acc / total


def blockwise_no_shift(Q, K, V, block_size=128, mask=None, scale=None):
    return _online(Q, K, V, block_size, mask, scale, start=0.0, shift=False)


def blockwise_inverted_from_minus_inf(Q, K, V, block_size=128, mask=None, scale=None):
    return _online(Q, K, V, block_size, mask, scale, inverted=True)  # inf * 0 on the first block: NaN everywhere


def blockwise_max_from_zero(Q, K, V, block_size=128, mask=None, scale=None):
    return _online(Q, K, V, block_size, mask, scale, start=0.0)


def costs_pairs_twice(kind, n, d, h):  # the per-pair work counted twice: off in the n^2 term only
    params, macs = ref.score_costs(kind, n, d, h)
    return params, macs + (n * n * (d if kind == "bilinear" else h))


def costs_projection_once(kind, n, d, h):  # one projection of two: off in the n term only (not catalogued)
    params, macs = ref.score_costs(kind, n, d, h)
    return params, macs - (n * d * h if kind != "bilinear" else 0)


def apply_mask_keeps_finite(scores, mask):  # a bias read as keep/hide: -inf hides, other values dropped
    mask = np.asarray(mask)
    keep = mask if mask.dtype == bool else np.isfinite(mask)
    return np.where(keep, np.asarray(scores, float), -np.inf)


# ---------------------------------------------------------------- named where the signature identifies
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("grade_id, name, answer, named", [
    ("dot_product_seed_example", "dot_product", dot_minus_squared_distance, "dot_product.negative_distance"),
    ("self_attention_causal", "self_attention", self_attention_flag_as_mask, "self_attention.flag_as_mask"),
    ("blockwise_attention_large_scores_float32", "blockwise_attention", blockwise_no_shift,
     "blockwise_attention.no_max_subtraction"),
    ("blockwise_attention_large_scores_float32", "blockwise_attention", blockwise_inverted_from_minus_inf,
     "blockwise_attention.rescale_inverted"),
    ("blockwise_attention_large_scores_float32", "blockwise_attention", blockwise_max_from_zero,
     "blockwise_attention.max_starts_at_zero"),
    ("apply_mask_float_additive", "apply_mask", apply_mask_keeps_finite, "mask.float_as_bool"),
], ids=lambda v: getattr(v, "__name__", None))
def test_the_signature_names_the_mistake(grade_id, name, answer, named, seed):
    verdict = _verdict(grade_id, name, answer, seed)
    assert not verdict.passed and verdict.misconception == named, verdict


def test_a_negative_distance_is_not_called_small_for_a_match():
    verdict = _verdict("dot_product_random_vectors", "dot_product", dot_minus_squared_distance)
    assert "small when" not in verdict.message and "largest" in verdict.message, verdict.message


# ---------------------------------------------------------------- honest where it does not
@pytest.mark.parametrize("seed", SEEDS)
def test_twice_d_k_names_no_distribution(seed):
    """q . q of right draws and entries of variance 2 both give 2 d_k: the estimate alone cannot tell them apart."""
    verdict = _verdict("score_variance_matches_d_k", "score_variance", variance_self_dot, seed)
    assert not verdict.passed and verdict.misconception in GENERIC_MISCONCEPTIONS, verdict
    assert "about 2" in verdict.message and "distribution" not in verdict.message, verdict.message


@pytest.mark.parametrize("seed", SEEDS)
def test_a_flag_read_wrongly_is_not_a_flag_ignored(seed):
    verdict = _verdict("self_attention_causal", "self_attention", self_attention_flag_mixed_up, seed)
    assert not verdict.passed and verdict.misconception in GENERIC_MISCONCEPTIONS, verdict
    assert "ignored" not in verdict.message and "hidden" in verdict.message, verdict.message


@pytest.mark.parametrize("answer, term", [(costs_pairs_twice, "per-pair work"), (costs_projection_once, "projections")])
def test_score_costs_says_which_term_is_off(answer, term):
    verdict = _verdict("score_costs_values", "score_costs", answer)
    assert not verdict.passed and verdict.misconception == "wrong_values", verdict
    assert term in verdict.message and "parameter" not in verdict.message, verdict.message


def test_a_raw_exception_is_said_as_an_input_of_the_check():
    def apply_mask_square_only(scores, mask):
        scores, mask = np.asarray(scores, float), np.asarray(mask)
        if scores.shape[-1] != scores.shape[-2]:
            raise KeyError("n_k")  # no catalogued mistake raises this
        return ref.apply_mask(scores, mask)
    verdict = _verdict("apply_mask_bool", "apply_mask", apply_mask_square_only)
    assert not verdict.passed and verdict.misconception == "raises", verdict
    assert verdict.message.startswith("your `apply_mask` fails on `apply_mask(<float64 array of shape (3, 5)>")
    assert "KeyError" in verdict.message and "shape (4, 4)" in verdict.message, verdict.message
    assert CHECKS["apply_mask_bool"].title in verdict.message, verdict.message
