"""Issue 24, blind sets 9 and 10: each class of mistake is named only where its signature over the check's inputs
and probes is that mistake's and no other's; a look-alike that one input cannot tell from it stays vague (or is
named as what it is), at every seed. The answers are functions judged on the checks themselves (the catalogue
holds the named ones as notebook cells)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import attention_ref as ref
from autograder.checks import CHECKS, GENERIC_MISCONCEPTIONS, executor
from autograder.checks.core import evaluate

SEEDS = (0, 4242, 98765, 12345, 288545019, 1222356006)


def _verdict(grade_id, name, answer, seed=0, **extra):
    check = CHECKS[grade_id]
    namespace = {"np": np, "math": math, name: answer, **{n: getattr(ref, n) for n in check.helpers}, **extra}
    return evaluate(check, executor(check, namespace), seed)


def _named(grade_id, name, answer, seed=0, **extra):
    """The misconception the check names, None where it passes; generic ids come back as they are."""
    verdict = _verdict(grade_id, name, answer, seed, **extra)
    return None if verdict.passed else verdict.misconception


# ---------------------------------------------------------------- 01 softmax: which number is subtracted
def softmax_by_size(x, axis=-1):  # each row's largest |score|
    x = np.asarray(x, float)
    e = np.exp(x - np.abs(x).max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def softmax_by_global_size(x, axis=-1):  # the whole array's largest |score|: neither mistake named
    x = np.asarray(x, float)
    e = np.exp(x - np.abs(x).max())
    return e / e.sum(axis=axis, keepdims=True)


def softmax_global_max(x, axis=-1):
    x = np.asarray(x, float)
    e = np.exp(x - x.max())
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_shift_by_the_largest_size_is_not_the_global_maximum(seed):
    assert _named("softmax_large_scores", "softmax", softmax_by_size, seed) == "softmax.max_magnitude"
    assert _named("softmax_large_scores", "softmax", softmax_global_max, seed) == "softmax.global_max"
    assert _named("softmax_large_scores", "softmax", softmax_by_global_size, seed) in GENERIC_MISCONCEPTIONS
    assert _named("softmax_row_max", "softmax", softmax_by_size, seed) is None  # right on every row it reads


# ---------------------------------------------------------------- 02 softmax_jacobian: saturated p
def jacobian_odd_diagonal(p):  # a diagonal that is -p_i^2 where p is 0 or 1 (or within 1e-9 of them), nothing known
    p = np.asarray(p, float)
    J = -np.outer(p, p)
    np.fill_diagonal(J, -p ** 2 + (p * (1 - p)) ** 2)
    return J


def jacobian_no_diag(p):
    p = np.asarray(p, float)
    return -np.outer(p, p)


@pytest.mark.parametrize("seed", SEEDS)
def test_no_diag_is_named_only_where_every_p_agrees(seed):
    for grade_id in ("softmax_jacobian_saturated", "softmax_jacobian_matches_reference"):
        assert _named(grade_id, "softmax_jacobian", jacobian_odd_diagonal, seed) in GENERIC_MISCONCEPTIONS
        assert _named(grade_id, "softmax_jacobian", jacobian_no_diag, seed) == "softmax_jacobian.no_diag"


# ---------------------------------------------------------------- 04 score_asymmetry: a gap of 0, a norm
def _S(X, W_q, W_k):
    return (X @ W_q) @ (X @ W_k).T


def asymmetry_largest_entries(X, W_q, W_k):  # both maps read; max S = max S^T, so always 0
    S = _S(X, W_q, W_k)
    return float(abs(S.max() - S.T.max()))


def asymmetry_totals(X, W_q, W_k):  # both maps read; the totals of S and S^T are equal
    S = _S(X, W_q, W_k)
    return float(abs(S.sum() - S.T.sum()))


def asymmetry_query_map_twice(X, W_q, W_k):
    S = _S(X, W_q, W_q)
    return float(np.abs(S - S.T).max())


def asymmetry_raw_vectors(X, W_q, W_k):
    S = X @ X.T
    return float(np.abs(S - S.T).max())


def asymmetry_frobenius(X, W_q, W_k):
    return float(np.linalg.norm(_S(X, W_q, W_k) - _S(X, W_q, W_k).T))


def asymmetry_spectral(X, W_q, W_k):
    return float(np.linalg.norm(_S(X, W_q, W_k) - _S(X, W_q, W_k).T, 2))


@pytest.mark.parametrize("seed", SEEDS)
def test_a_zero_gap_names_one_map_only_where_a_map_is_never_read(seed):
    for answer in (asymmetry_largest_entries, asymmetry_totals):  # read both maps: no cause named
        assert _named("score_asymmetry_values", "score_asymmetry", answer, seed) in GENERIC_MISCONCEPTIONS
    for answer in (asymmetry_query_map_twice, asymmetry_raw_vectors):
        assert _named("score_asymmetry_values", "score_asymmetry", answer, seed) == "score_asymmetry.one_map"
    for answer in (asymmetry_frobenius, asymmetry_spectral):
        assert _named("score_asymmetry_values", "score_asymmetry", answer, seed) == "score_asymmetry.norm_not_largest"


# ---------------------------------------------------------------- 05 self_attention: the flag's default
def self_attention_default_causal(X, W_q, W_k, W_v, W_o, num_heads, causal=True):  # reads the flag
    mask = ref.causal_mask(X.shape[-2]) if causal else None
    return ref.multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)


def self_attention_always_masked(X, W_q, W_k, W_v, W_o, num_heads, causal=False):  # never reads it
    return ref.multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=ref.causal_mask(X.shape[-2]))


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_a_wrong_default_is_told_from_a_flag_never_read(seed):
    grade_id = "self_attention_matches_reference"
    assert _named(grade_id, "self_attention", self_attention_default_causal, seed) == "self_attention.causal_default"
    assert _named(grade_id, "self_attention", self_attention_always_masked, seed) == "self_attention.causal_always"
    assert _named("self_attention_causal", "self_attention", self_attention_default_causal, seed) is None


# ---------------------------------------------------------------- 02 a Stop-and-try answer whose cell raised
def _stop_verdict(cells, grade_id="STOP_AND_TRY_SCORES_values"):
    from autograder.checks.core import note_cell
    namespace = {"np": np}
    for source in cells:
        try:
            exec(source, namespace)
        except Exception as exc:  # noqa: BLE001
            note_cell(namespace, source, f"{type(exc).__name__}: {exc}")
        else:
            note_cell(namespace, source, None)
    return _named_in(grade_id, namespace)


def _named_in(grade_id, namespace):
    check = CHECKS[grade_id]
    verdict = evaluate(check, executor(check, namespace), 0)
    return verdict.misconception, verdict.message


def test_an_answer_whose_cell_raised_is_said_as_what_it_raised():
    mid, message = _stop_verdict(["STOP_K = np.eye(3)\nSTOP_AND_TRY_SCORES = [STOP_K[j] for j in (1, 2, 3)]"])
    assert mid == "raises" and "IndexError" in message and "not defined" not in message
    # the stub (no assignment), or no cell at all: not written yet
    assert _stop_verdict(["# STOP_AND_TRY_SCORES = ...\nraise NotImplementedError()"])[0] == "not_defined"
    assert _stop_verdict([])[0] == "not_defined"
    # the same cell run again once fixed: its error is forgotten
    fixed = _stop_verdict(["STOP_AND_TRY_SCORES = [][1]", "STOP_AND_TRY_SCORES = 1.0"])
    assert fixed[0] not in ("raises", "not_defined")
    # another namespace (another student's run) never reads this one's errors
    assert _named_in("STOP_AND_TRY_SCORES_values", {"np": np})[0] == "not_defined"


# ---------------------------------------------------------------- 07 width_for_budget: how the width is rounded
def width_ceil(kind, d, budget):
    return -(-budget // (2 * d + (kind == "additive")))


def width_nearest(kind, d, budget):
    return round(budget / (2 * d + (kind == "additive")))


def width_true_division(kind, d, budget):
    return budget / (2 * d + (kind == "additive"))


def width_fraction_kept_badly(kind, d, budget):  # a fraction, but not the budget over one unit's cost
    return budget / (2 * d + 2)


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_the_width_s_rounding_is_said_as_what_it_is(seed):
    for answer, words in ((width_ceil, "rounded up"), (width_nearest, "nearest")):
        verdict = _verdict("width_for_budget_values", "width_for_budget", answer, seed)
        assert verdict.misconception == "width_for_budget.rounds_up" and words in verdict.message
    assert _named("width_for_budget_values", "width_for_budget", width_true_division, seed) == \
        "width_for_budget.true_division"
    assert _named("width_for_budget_values", "width_for_budget", width_fraction_kept_badly, seed) in \
        GENERIC_MISCONCEPTIONS


# ---------------------------------------------------------------- 04 attention_param_count: one head, precedence
def _widths(d_model, num_heads, d_k, d_v):
    return (d_model // num_heads if d_k is None else d_k), (d_model // num_heads if d_v is None else d_v)


def count_divided_by_heads(d_model, num_heads, d_k=None, d_v=None, output_projection=True):  # one head's count
    return ref.attention_param_count(d_model, num_heads, d_k, d_v, output_projection) // num_heads


def count_precedence(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
    d_k, d_v = _widths(d_model, num_heads, d_k, d_v)
    return num_heads * d_model * 2 * d_k + d_v + (num_heads * d_v * d_model if output_projection else 0)


def count_value_map_one_head(d_model, num_heads, d_k=None, d_v=None, output_projection=True):  # neither mistake
    d_k, d_v = _widths(d_model, num_heads, d_k, d_v)
    return num_heads * d_model * 2 * d_k + d_model * d_v + (num_heads * d_v * d_model if output_projection else 0)


COUNT_CHECKS = ("attention_param_count_seed_example", "attention_param_count_heads_fixed_width",
                "attention_param_count_explicit_widths", "attention_param_count_output_projection")


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_a_count_names_one_head_or_precedence_only_where_it_fits_every_call(seed):
    for grade_id in COUNT_CHECKS:
        assert _named(grade_id, "attention_param_count", count_divided_by_heads, seed) == \
            "attention_param_count.one_head"
        assert _named(grade_id, "attention_param_count", count_precedence, seed) == "attention_param_count.precedence"
        assert _named(grade_id, "attention_param_count", count_value_map_one_head, seed) not in \
            ("attention_param_count.one_head", "attention_param_count.precedence")


# ---------------------------------------------------------------- 02 leading_weight: exp of the unshifted scores
def leading_unshifted(width, scaled=True):
    s = np.array([2.0, 1.0, 0.0]) * (1 if scaled else math.sqrt(width))
    e = np.exp(s)
    return float(e[0] / e.sum())


def leading_unshifted_and_smallest(width, scaled=True):  # overflows too, but scaled it is another weight
    s = np.array([2.0, 1.0, 0.0]) * (1 if scaled else math.sqrt(width))
    e = np.exp(s)
    return float(e[2 if scaled else 0] / e.sum())


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_an_overflow_is_named_only_where_the_answer_is_the_unshifted_exp_everywhere(seed):
    with np.errstate(all="ignore"):
        verdict = _verdict("leading_weight_unscaled_saturates", "leading_weight", leading_unshifted, seed)
        assert verdict.misconception == "softmax.no_max_subtraction" and "overflows" in verdict.message
        assert _named("leading_weight_unscaled_saturates", "leading_weight", leading_unshifted_and_smallest, seed) \
            != "softmax.no_max_subtraction"


def leading_unshifted_math(width, scaled=True):  # Python's math.exp raises OverflowError where numpy's gives inf
    s = [x * (1 if scaled else math.sqrt(width)) for x in (2.0, 1.0, 0.0)]
    e = [math.exp(x) for x in s]
    return e[0] / sum(e)


def leading_overflows_otherwise(width, scaled=True):  # raises OverflowError too, but is wrong where it gives a number
    s = [x * (1 if scaled else math.sqrt(width)) for x in (2.0, 1.0, 0.0)]
    e = [math.exp(x) for x in s]
    return e[1] / sum(e)


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_an_overflow_raised_by_math_exp_is_named_only_where_the_answer_is_the_unshifted_exp_everywhere(seed):
    """Blind set 12: math.exp's OverflowError was said only as the raw error. It is the unshifted exponential where
    the answer is that everywhere it gives a number and raises exactly where that overflows."""
    verdict = _verdict("leading_weight_unscaled_saturates", "leading_weight", leading_unshifted_math, seed)
    assert verdict.misconception == "softmax.no_max_subtraction", verdict
    assert "raised OverflowError" in verdict.message and "overflows" in verdict.message
    assert _named("leading_weight_unscaled_saturates", "leading_weight", leading_overflows_otherwise, seed) \
        != "softmax.no_max_subtraction"
