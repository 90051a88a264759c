"""A mistake is named only when its signature identifies it (issue 24): the answer's outcome on every probe
of a check is one catalogued mistake's outcome and no other catalogued mistake's; otherwise the check
says which property fails and names nothing. The four answers of the 2026-12-02 held-out set that were
named wrongly are here as functions, judged on the checks themselves."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import attention_ref as ref
from autograder.checks import CHECKS, GENERIC_MISCONCEPTIONS, executor, expect, signature
from autograder.checks.core import CheckFailed, Outcome, evaluate
from autograder.checks.signature import Raised

SEEDS = (0, 12345, 777)


def test_identify_names_one_mistake_only_where_no_other_fits():
    outcomes = [Outcome(value=np.array([1.0, 2.0])), Outcome(error="ValueError: matmul: mismatch")]
    first = ("a.first", "first", [np.array([1.0, 2.0]), Raised("ValueError")])
    other_value = ("a.other", "other", [np.array([1.0, 3.0]), Raised("ValueError")])
    same_again = ("a.other", "other", [np.array([1.0, 2.0]), Raised("ValueError")])
    other_error = ("a.first", "first", [np.array([1.0, 2.0]), Raised("TypeError")])
    assert signature.identify(outcomes, [first, other_value]) == ("a.first", "first")
    assert signature.identify(outcomes, [first, same_again]) is None  # two ids fit: neither is named
    assert signature.identify(outcomes, [other_error, other_value]) is None  # none fits every probe
    assert signature.identify(outcomes, [first, ("a.first", "again", first[2])]) == ("a.first", "first")  # one id, two ways


def test_with_the_reference_raising_alone_names_nothing():
    """An error on every input, or an error plus the right values, is shared by mistakes nobody catalogued."""
    right = [np.array([1.0]), np.array([2.0])]
    raises_twice = [Outcome(error="ValueError: x"), Outcome(error="ValueError: y")]
    everywhere = ("a.everywhere", "m", [Raised("ValueError"), Raised("ValueError")])
    assert signature.identify(raises_twice, [everywhere]) == ("a.everywhere", "m")  # without the reference
    assert signature.identify(raises_twice, [everywhere], reference=right) is None
    selective = [Outcome(error="ValueError: x"), Outcome(value=np.array([2.0]))]
    only_first = ("a.selective", "m", [Raised("ValueError"), np.array([2.0])])
    assert signature.identify(selective, [only_first], reference=right) == ("a.selective", "m")
    own = [Outcome(error="ValueError: x"), Outcome(value=np.array([5.0]))]
    own_value = ("a.own", "m", [Raised("ValueError"), np.array([5.0])])
    assert signature.identify(own, [own_value], reference=right) == ("a.own", "m")


def test_predict_turns_a_mistakes_error_into_its_type_and_family():
    assert signature.predict(lambda a, b: a @ b, np.ones((2, 3)), np.ones((2, 3))) == Raised("ValueError", "product")
    assert signature.agrees(Outcome(error="ValueError: operands could not be broadcast"), Raised("ValueError"))
    assert not signature.agrees(Outcome(value=np.ones(2)), Raised("ValueError"))


def test_an_error_of_the_same_type_but_another_family_is_not_the_mistakes():
    """A ValueError from unpacking ``weights.shape`` is not the ValueError of a misaligned product (issue 24:
    code written for 2-D input was told that it fails "exactly where `.T` would")."""
    weights, V = ref.softmax(np.ones((2, 3, 4))), np.ones((2, 4, 5))
    transpose = signature.predict(lambda w, v: (v.T @ w.T).T, weights, V)
    assert transpose == Raised("ValueError", "product")
    unpacked = signature.predict(average_unpacked, weights, V)
    assert unpacked == Raised("ValueError", "unpack")
    assert not signature.agrees(Outcome(error="ValueError: too many values to unpack (expected 2)"), transpose)
    assert signature.agrees(Outcome(error="ValueError: matmul: Input operand 1 has a mismatch in its core dimension 0"),
                            transpose)


def test_close_names_no_mistake_where_two_give_the_answers_numbers():
    answer = np.array([0.5, 0.5])
    both = [(np.array([0.5, 0.5]), "x.one", "one"), (np.array([0.5, 0.5]), "x.two", "two")]
    with pytest.raises(CheckFailed) as failure:
        expect.close(answer, np.array([0.7, 0.3]), "your weights", diagnoses=both)
    assert failure.value.misconception == "wrong_values"
    with pytest.raises(CheckFailed) as failure:  # the task's own mistake is tried first
        expect.close(answer, np.array([0.7, 0.3]), "your weights", diagnoses=both[1:], own=both[:1])
    assert failure.value.misconception == "x.one"


def softmax_column_max(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x, axis=0, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def softmax_shift_by_min(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.min(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def average_column_form(weights, V):
    return (np.asarray(V).T @ np.asarray(weights).T).T


def average_unpacked(weights, V):
    n_q, n_k = np.shape(weights)              # written for one table: right unbatched, raises on a stack
    return np.asarray(weights) @ np.asarray(V)


def scores_einsum_two_axes(Q, K):
    return np.einsum("id,jd->ij", Q, K)


def scores_swap_first_axes(Q, K):
    return np.asarray(Q) @ np.swapaxes(np.asarray(K), 0, 1)   # the first two axes: right on one (n, d) matrix only


def sdpa_unpacked(Q, K, V):
    n_q, d_k = np.shape(Q)
    weights = ref.softmax(np.einsum("qd,kd->qk", Q, K) / math.sqrt(d_k))
    return weights @ V, weights


def sdpa_dot_T(Q, K, V):
    weights = ref.softmax(Q @ np.asarray(K).T / math.sqrt(np.shape(Q)[-1]))
    return weights @ V, weights


def additive_two_axes(Q, K, W_q, W_k, v):
    a, c = Q @ W_q, K @ W_k
    return np.tanh(a[:, None, :] + c[None, :, :]) @ v


def costs_counting_tanh(kind, n, d, h):
    if kind == "bilinear":
        return d * d, n * d * d + n * n * d
    extra = n * n * h if kind == "additive" else 0
    return 2 * d * h + (h if kind == "additive" else 0), 2 * n * d * h + n * n * h + extra


def leading_index(width, scaled=True):
    scores = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    weights = ref.softmax(scores / math.sqrt(width) if scaled else scores)
    return int(np.argmax(weights))             # the index of the leading key, not its weight


def leading_index_as_float(width, scaled=True):
    return float(leading_index(width, scaled))


def average_transposed(weights, V):
    return np.swapaxes(np.asarray(weights), -1, -2) @ np.asarray(V)


def leading_fixed_raw(width, scaled=True):
    scores = np.array([2.0, 1.0, 0.0])
    return float(ref.softmax(scores / math.sqrt(width) if scaled else scores).max())


def leading_by_width(width, scaled=True):
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    return float(ref.softmax(raw / width if scaled else raw).max())


def mha_values_from_queries(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q, K, V = (ref.split_heads(X @ W, num_heads) for X, W in ((X_q, W_q), (X_kv, W_k), (X_q, W_v)))
    mask = None if mask is None else np.expand_dims(np.asarray(mask), -3)
    heads, weights = ref.scaled_dot_product_attention(Q, K, V, mask=mask)
    return ref.merge_heads(heads) @ W_o, weights


def mha_keys_from_queries(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    """It raises wherever values taken from X_q do (n_q != n_k) and is right in self-attention: named only where
    keys and queries of equal length from two sequences give it values of its own (catalogued since 2026-12-03)."""
    Q, K, V = (ref.split_heads(X @ W, num_heads) for X, W in ((X_q, W_q), (X_q, W_k), (X_kv, W_v)))
    mask = None if mask is None else np.expand_dims(np.asarray(mask), -3)
    heads, weights = ref.scaled_dot_product_attention(Q, K, V, mask=mask)
    return ref.merge_heads(heads) @ W_o, weights


def mha_mask_as_is(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q, K, V = (ref.split_heads(X @ W, num_heads) for X, W in ((X_q, W_q), (X_kv, W_k), (X_kv, W_v)))
    heads, weights = ref.scaled_dot_product_attention(Q, K, V, mask=mask)
    return ref.merge_heads(heads) @ W_o, weights


def _verdict(grade_id, name, answer, seed, first=None):
    """The verdict of check ``grade_id`` on ``answer`` (bound to ``name``); ``first``: judge only that many calls."""
    check = CHECKS[grade_id]
    if first is not None:
        calls = list(check.make_calls(np.random.default_rng(0)))[:first]
        check = dataclasses.replace(check, make_calls=lambda rng: calls)
    namespace = {"np": np, "math": math, "softmax": ref.softmax,
                 "scaled_dot_product_attention": ref.scaled_dot_product_attention, name: answer}
    return evaluate(check, executor(check, namespace), seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("grade_id, name, answer, named", [
    ("softmax_large_scores", "softmax", softmax_column_max, "softmax.max_wrong_axis"),
    ("softmax_matches_reference", "softmax", softmax_column_max, "softmax.max_wrong_axis"),
    ("softmax_large_scores", "softmax", softmax_shift_by_min, "softmax.no_max_subtraction"),
    ("weighted_average_batched", "weighted_average", average_column_form, "weighted_average.batched_transpose"),
    ("weighted_average_batched", "weighted_average", average_transposed, "weighted_average.transposed_weights"),
    ("weighted_average_non_square", "weighted_average", average_transposed, "weighted_average.transposed_weights"),
    ("leading_weight_scaled_flat", "leading_weight", leading_fixed_raw, "leading_weight.raw_not_grown"),
    ("leading_weight_unscaled_saturates", "leading_weight", leading_fixed_raw, "leading_weight.raw_not_grown"),
    ("leading_weight_scaled_flat", "leading_weight", leading_by_width, "leading_weight.scaled_by_width"),
    # issue 24, third pass: written for two axes is named as such, never as a `.T` or a row-by-row sum
    ("weighted_average_batched", "weighted_average", average_unpacked, "weighted_average.fixed_axes"),
    ("attention_scores_batched", "attention_scores", scores_einsum_two_axes, "attention_scores.fixed_axes"),
    ("attention_scores_batched", "attention_scores", scores_swap_first_axes, "attention_scores.fixed_axes"),
    ("additive_scores_batched", "additive_scores", additive_two_axes, "additive_scores.fixed_axes"),
    ("scaled_dot_product_attention_batched", "scaled_dot_product_attention", sdpa_unpacked, "attention.fixed_axes"),
    ("scaled_dot_product_attention_batched", "scaled_dot_product_attention", sdpa_dot_T, "attention.batched_transpose"),
    # a count named only by the mistake that explains every call (at d = 2 h two mistakes give one number)
    ("score_costs_values", "score_costs", costs_counting_tanh, "score_costs.counts_tanh"),
    ("multi_head_attention_batch_mask", "multi_head_attention", mha_values_from_queries,
     "multi_head_attention.values_from_queries"),
    ("multi_head_attention_batch_mask", "multi_head_attention", mha_mask_as_is, "multi_head_attention.mask_no_head_axis"),
    ("multi_head_attention_batch_mask", "multi_head_attention", mha_keys_from_queries,
     "multi_head_attention.keys_from_queries"),
])
def test_the_signature_names_the_mistake_it_is(grade_id, name, answer, named, seed):
    verdict = _verdict(grade_id, name, answer, seed)
    assert not verdict.passed and verdict.misconception == named, verdict


@pytest.mark.parametrize("grade_id, name, answer", [
    # the probes before issue 24's second pass: each raise fits two catalogued mistakes
    ("weighted_average_batched", "weighted_average", average_column_form),
    ("weighted_average_batched", "weighted_average", average_transposed),
    ("multi_head_attention_batch_mask", "multi_head_attention", mha_values_from_queries),
    ("multi_head_attention_batch_mask", "multi_head_attention", mha_mask_as_is),
])
def test_a_failure_two_mistakes_share_names_neither(grade_id, name, answer):
    first = {"weighted_average_batched": 2, "multi_head_attention_batch_mask": 1}[grade_id]
    verdict = _verdict(grade_id, name, answer, 0, first=first)
    assert not verdict.passed and verdict.misconception in GENERIC_MISCONCEPTIONS, verdict


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("grade_id, answer", [
    ("multi_head_attention_matches_reference", mha_values_from_queries),  # raises on every input: says only that
    ("multi_head_attention_matches_reference", mha_keys_from_queries),
    ("multi_head_attention_mask", mha_keys_from_queries),
])
def test_an_answer_that_only_raises_where_a_mistake_raises_is_not_given_its_name(grade_id, answer, seed):
    verdict = _verdict(grade_id, "multi_head_attention", answer, seed)
    assert not verdict.passed and verdict.misconception in GENERIC_MISCONCEPTIONS, verdict


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("grade_id", ["leading_weight_scaled_flat", "leading_weight_unscaled_saturates"])
@pytest.mark.parametrize("answer", [leading_index, leading_index_as_float])
def test_an_index_is_not_diagnosed_as_a_flag_mistake(grade_id, answer, seed):
    """An argmax reads the flag but gives 0 either way: the verdict names no flag mistake (issue 24: it was told
    "your result does not change with `scaled`"), and says what came back: the position of the largest weight at
    every width and flag (an int or a float alike)."""
    verdict = _verdict(grade_id, "leading_weight", answer, seed)
    assert not verdict.passed and verdict.misconception == "leading_weight.returns_index", verdict
    assert "position of the largest weight" in verdict.message and "scaled`:" not in verdict.message, verdict


def leading_truncated(width, scaled=True):
    """int() of the weight: 0 at small widths like an index, 1 where the softmax saturates (no index is 1 there)."""
    return int(ref.leading_weight(width, scaled=scaled))


@pytest.mark.parametrize("grade_id", ["leading_weight_scaled_flat", "leading_weight_unscaled_saturates"])
def test_a_whole_number_that_is_not_the_position_is_not_named_an_index(grade_id):
    verdict = _verdict(grade_id, "leading_weight", leading_truncated, 0)
    assert not verdict.passed and verdict.misconception != "leading_weight.returns_index", verdict


def test_the_cost_calls_separate_the_tanh_count_from_the_per_pair_width():
    """At least one call has d != 2 h, where counting the tanh and counting d per pair give different numbers."""
    calls = CHECKS["score_costs_values"].make_calls(np.random.default_rng(0))
    assert any(c.args[0] == "additive" and c.args[2] != 2 * c.args[3] for c in calls[:6])


def test_a_count_two_mistakes_explain_names_neither():
    """On the seeds' sizes alone (the additive call at (8, 16, 8), d = 2 h), counting the tanh and counting d per
    pair give the same number: neither is named (the held-out answer was named pairs_at_input_width from it)."""
    verdict = _verdict("score_costs_values", "score_costs", costs_counting_tanh, 0, first=1)
    assert not verdict.passed and verdict.misconception == "wrong_values", verdict
    assert "(8, 16, 8)" in verdict.message


def test_two_inputs_that_name_two_mistakes_name_neither():
    """expect.each: a diagnosis holds only where no other input of the check names a different mistake; the
    verdict is then the first input's property, vague (issue 24: one call's coincidence named a mistake)."""
    from autograder.checks.core import Call

    calls = [Call("f", (np.zeros(2),)), Call("f", (np.ones(2),))]
    outcomes = [Outcome(value=np.array([1.0, 2.0])), Outcome(value=np.array([3.0, 4.0]))]
    reference = np.zeros(2)

    def judge(call, outcome, mistakes):
        expect.close(np.asarray(outcome.value), reference, "your values", generic="are off at this input",
                     diagnoses=[(np.asarray(outcome.value), mistakes[int(call.args[0][0])], "a message")])

    with pytest.raises(CheckFailed) as failure:
        expect.each(calls, outcomes, judge, ("m.one", "m.two"))
    assert failure.value.misconception == "wrong_values" and failure.value.message == "your values are off at this input"
    with pytest.raises(CheckFailed) as failure:
        expect.each(calls, outcomes, judge, ("m.one", "m.one"))
    assert failure.value.misconception == "m.one"


def test_exact_names_a_count_mistake_only_where_every_input_agrees():
    """signature.exact (the merge of wt-diag2's exact with wt-diag3's rule): an input where the answer is right and
    the mistake is not says the answer is not that mistake, unless the inputs are grouped by the part of the task
    they exercise (score_costs' kinds) and that part is right throughout."""
    right = [10, 20, 30]
    per_input = [{"m.a": {11}}, {"m.a": {21}}, {"m.a": {31}, "m.b": {31}}]
    assert signature.exact([11, 21, 31], right, per_input) == "m.a"
    assert signature.exact([11, 20, 30], right, per_input) is None  # right at inputs 2 and 3, where m.a is not
    # 31 is m.a's and m.b's value at input 3; inputs 1 and 2 are right, which m.a is not there and m.b (not listed) is
    assert signature.exact([10, 20, 31], right, per_input) == "m.b"
    assert signature.exact([10, 20, 31], right, [{"m.b": {11}}, {}, {"m.a": {31}, "m.b": {31}}]) == "m.a"
    assert signature.exact([11, 21, 30], right, per_input, ["x", "x", "y"]) == "m.a"  # part "y" right throughout
    assert signature.exact([11, 20, 30], right, per_input, ["x", "x", "y"]) is None  # part "x" disagrees within
    assert signature.exact(right, right, per_input) is None
