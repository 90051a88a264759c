"""A message states a cause only when the answer's outcomes show it (issue 24, faults of a blind review): a divisor
is tied to a size only when it follows that size at every input of a check, a NaN is blamed on a fully masked row
only when it is there alone, and a failing count's message agrees with the call's own arguments. The answers are
functions judged on the checks themselves, over several seeds."""
from __future__ import annotations

import math

import numpy as np
import pytest

import attention_ref as ref
from autograder.checks import CHECKS, executor
from autograder.checks.core import evaluate

SEEDS = (0, 12345)
SDPA_CHECKS = [g for g, c in CHECKS.items() if c.task == "scaled_dot_product_attention"]
#: The ids that tie a divisor to a size (or to no division at all).
SIZE_IDS = {"scale.none", "scale.by_d_k", "scale.by_n_k", "scale.by_d_v", "attention.width_from_wrong_axis"}


def _verdict(grade_id, name, answer, seed):
    check = CHECKS[grade_id]
    namespace = {"np": np, "math": math, name: answer, **{n: getattr(ref, n) for n in check.helpers}}
    return evaluate(check, executor(check, namespace), seed)


def _attention(divisor):
    def scaled_dot_product_attention(Q, K, V, mask=None):
        scores = np.asarray(Q) @ np.swapaxes(K, -1, -2) / divisor(np.asarray(Q), np.asarray(K), np.asarray(V))
        weights = ref.softmax(scores if mask is None else ref.apply_mask(scores, mask))
        return weights @ V, weights
    return scaled_dot_product_attention


@pytest.mark.parametrize("number", (2.0, 3.0, 8.0))
@pytest.mark.parametrize("seed", SEEDS)
def test_a_fixed_divisor_is_never_tied_to_a_size(number, seed):
    """A literal divisor equals sqrt(n_q), sqrt(n_k), sqrt(d_v) or sqrt(d_k) on some input: it is said to be fixed."""
    failed = [v for g in SDPA_CHECKS if not (v := _verdict(g, "scaled_dot_product_attention",
                                                           _attention(lambda Q, K, V: number), seed)).passed]
    assert failed and not {v.misconception for v in failed} & SIZE_IDS, [(v.grade_id, v.message) for v in failed]
    assert {v.misconception for v in failed} <= {"scale.fixed_divisor", "wrong_values"}, failed


@pytest.mark.parametrize("seed", SEEDS)
def test_a_divisor_that_follows_n_q_is_said_to_be_the_number_of_queries(seed):
    failed = [v for g in SDPA_CHECKS if not (v := _verdict(
        g, "scaled_dot_product_attention", _attention(lambda Q, K, V: math.sqrt(Q.shape[-2])), seed)).passed]
    assert failed and {v.misconception for v in failed} <= {"attention.width_from_wrong_axis", "scale.fixed_divisor",
                                                            "scale.wrong_divisor"}, failed
    assert any("number of queries" in v.message for v in failed)


def renormalised(Q, K, V, mask=None):
    """The given softmax of the masked scores, then divided by its row totals: 0 / 0 on a fully masked row."""
    scores = np.asarray(Q) @ np.swapaxes(K, -1, -2) / math.sqrt(np.shape(Q)[-1])
    weights = ref.softmax(scores if mask is None else ref.apply_mask(scores, mask))
    with np.errstate(all="ignore"):
        weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights


def nan_in_first_row(Q, K, V, mask=None):
    """Right everywhere but one query's row with allowed keys, which is NaN."""
    out, weights = ref.scaled_dot_product_attention(Q, K, V, mask=mask)
    out, weights = out.copy(), weights.copy()
    weights[..., 0, :], out[..., 0, :] = np.nan, np.nan
    return out, weights


@pytest.mark.parametrize("seed", SEEDS)
def test_a_nan_is_blamed_on_a_fully_masked_row_only_where_it_is_there_alone(seed):
    verdict = _verdict("scaled_dot_product_attention_fully_masked_row", "scaled_dot_product_attention",
                       renormalised, seed)
    assert verdict.misconception == "mask.fully_masked_nan" and "every score is -inf" not in verdict.message
    for grade_id in ("scaled_dot_product_attention_fully_masked_row", "scaled_dot_product_attention_causal"):
        verdict = _verdict(grade_id, "scaled_dot_product_attention", nan_in_first_row, seed)
        assert not verdict.passed and verdict.misconception != "mask.fully_masked_nan", verdict
        assert "query 0" in verdict.message, verdict.message


def count_off_by_one_without_w_o(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    right = ref.attention_param_count(d_model, num_heads, d_k, d_v, output_projection)
    return right + (0 if output_projection or d_k is None else 1)  # right wherever no explicit width is given


def test_a_count_message_agrees_with_the_calls_arguments():
    verdict = _verdict("attention_param_count_output_projection", "attention_param_count",
                       count_off_by_one_without_w_o, 0)
    assert not verdict.passed and "output_projection=False" in verdict.message
    assert "and of W_o" not in verdict.message and "W_o is not part of the count" in verdict.message


def mha_nan_in_first_query(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    out, weights = ref.multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=mask)
    out = out.copy()
    out[..., 0, :] = np.nan  # query 0 has allowed keys in the mask check (its row of the causal mask holds key 0)
    return out, weights


@pytest.mark.parametrize("seed", SEEDS)
def test_a_multi_head_nan_is_blamed_on_a_fully_masked_query_only_where_it_is_there_alone(seed):
    verdict = _verdict("multi_head_attention_mask", "multi_head_attention", mha_nan_in_first_query, seed)
    assert not verdict.passed and "all masked" not in verdict.message and "query 0" in verdict.message, verdict
