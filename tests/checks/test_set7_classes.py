"""Issue 24, blind set 7: a mistake is named only where the check's inputs (and its never-graded probes) fit it and
no other; where two mistakes give the same outcome, both are said or neither is named. Each test states a property
over a class of answers (several ways of writing a mistake, several sizes or dtypes), judged on the checks
themselves at several seeds; the catalogue holds one notebook cell of each named class."""
from __future__ import annotations

import math

import numpy as np
import pytest

import attention_ref as ref
from autograder.checks import CHECKS, GENERIC_MISCONCEPTIONS, executor
from autograder.checks.core import Outcome, check_rng, evaluate
from autograder.checks.items import DTYPES, TableSize
from autograder.checks.numbers import StudentNumbers, judge_with_numbers

SEEDS = (0, 4242, 98765)


def _verdict(grade_id, name, answer, seed=0):
    check = CHECKS[grade_id]
    namespace = {"np": np, "math": math, "softmax": ref.softmax, "causal_mask": ref.causal_mask,
                 "padding_mask": ref.padding_mask, "multi_head_attention": ref.multi_head_attention,
                 "scaled_dot_product_attention": ref.scaled_dot_product_attention,
                 **{n: getattr(ref, n) for n in check.helpers}, name: answer}
    return evaluate(check, executor(check, namespace), seed)


def _generic(verdict) -> bool:
    return not verdict.passed and verdict.misconception in GENERIC_MISCONCEPTIONS


# ---------------------------------------------------------------- one length, or two: told apart where they differ
def _over_length(which, power):
    def dot_product(q, k):
        q, k = np.asarray(q, float), np.asarray(k, float)
        return float(q @ k / np.linalg.norm(k if which == "k" else q) ** power)
    return dot_product


@pytest.mark.parametrize("power", (1, 2))
@pytest.mark.parametrize("seed", SEEDS)
def test_a_projection_is_not_a_cosine_where_the_query_has_length_one(power, seed):
    """q . k over |k| and the cosine coincide wherever |q| = 1 (the seeds' query): the seed check never names the
    cosine, and names the projection only by its never-graded probe of three entries, whose query is not of length 1
    (over |k|^2 they differ on the seeds too); the random vectors, where they differ, name it."""
    seeded = _verdict("dot_product_seed_example", "dot_product", _over_length("k", power), seed)
    assert not seeded.passed and seeded.misconception != "dot_product.cosine", seeded
    assert _generic(seeded) or (seeded.misconception == "dot_product.projection"
                                and "length of k" in seeded.message), seeded
    random = _verdict("dot_product_random_vectors", "dot_product", _over_length("k", power), seed)
    assert random.misconception == "dot_product.projection" and "length of k" in random.message, random


# ---------------------------------------------------------------- squashed scores are no clipped softmax
SQUASHERS = {"sigmoid": lambda x: 1 / (1 + np.exp(-x)), "tanh": np.tanh, "softsign": lambda x: x / (1 + np.abs(x)),
             "clip to [0, 1]": lambda x: np.clip(x, 0.0, 1.0)}


@pytest.mark.parametrize("name", SQUASHERS)
def test_scores_squashed_one_by_one_are_never_called_clipped(name):
    """Each score squashed on its own makes 1000 and 999 equal as a clipped softmax does, but its rows do not sum to
    1: flattens_scores is said only of rows that are a softmax (positive, summing to 1)."""
    def softmax(x, axis=-1):
        with np.errstate(all="ignore"):
            return SQUASHERS[name](np.asarray(x, dtype=float))
    verdict = _verdict("softmax_row_max", "softmax", softmax)
    assert not verdict.passed and verdict.misconception != "softmax.flattens_scores", verdict


# ---------------------------------------------------------------- a divisor after the softmax
def _divided_after(where):
    def scaled_dot_product_attention(Q, K, V):
        Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
        weights = ref.softmax(Q @ np.swapaxes(K, -1, -2))
        factor = {"values": 1 / math.sqrt(Q.shape[-1]), "doubled": 2.0}[where]
        return weights @ (V * factor), weights
    return scaled_dot_product_attention


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("check", ["seed_example", "non_square", "batched", "large_scores"])
def test_weights_of_one_divisor_are_never_said_not_to_be(check, seed):
    """Weights that are the softmax of the raw scores are never said not to be the softmax over one number, whatever
    the output does: the output divided by sqrt(d_k) is the divisor moved past the softmax; any other output is said
    to be what it is not (the weights times V)."""
    grade_id = f"scaled_dot_product_attention_{check}"
    moved = _verdict(grade_id, "scaled_dot_product_attention", _divided_after("values"), seed)
    assert moved.misconception == "attention.divisor_after_softmax", moved
    other = _verdict(grade_id, "scaled_dot_product_attention", _divided_after("doubled"), seed)
    assert not other.passed and "not the softmax of the scores divided by one" not in other.message, other


# ---------------------------------------------------------------- W_v or W_o: the other flag tells
def _count_without(missing):
    def attention_param_count(d_model, num_heads, d_k=None, d_v=None, output_projection=True):
        d_k = d_model // num_heads if d_k is None else d_k
        d_v = d_model // num_heads if d_v is None else d_v
        count = num_heads * d_model * (2 * d_k + (0 if missing == "W_v" else d_v))
        return count + (num_heads * d_v * d_model if output_projection and missing != "W_o" else 0)
    return attention_param_count


@pytest.mark.parametrize("seed", SEEDS)
def test_a_count_one_w_v_short_is_named_only_where_the_other_flag_tells(seed):
    """With W_o counted, a count one W_v short is one W_o short. The explicit-widths check tells them apart by its
    probes with the flag flipped; the seeds' layer (d_k = d_v, every map as large) names neither, and no message
    guesses which is more likely."""
    for missing, named in (("W_v", "attention_param_count.no_value_map"),
                           ("W_o", "attention_param_count.no_output_projection")):
        verdict = _verdict("attention_param_count_explicit_widths", "attention_param_count", _count_without(missing), seed)
        assert verdict.misconception == named, (missing, verdict)
        seeded = _verdict("attention_param_count_seed_example", "attention_param_count", _count_without(missing), seed)
        assert "likely" not in seeded.message and (seeded.passed or _generic(seeded)), (missing, seeded)


# ---------------------------------------------------------------- a mask's head axis: where it went
def _mha_mask(reshape):
    def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
        Q, K, V = (ref.split_heads(X @ W, num_heads) for X, W in ((X_q, W_q), (X_kv, W_k), (X_kv, W_v)))
        heads, weights = ref.scaled_dot_product_attention(Q, K, V, mask=None if mask is None else reshape(np.asarray(mask)))
        return ref.merge_heads(heads) @ W_o, weights
    return multi_head_attention


@pytest.mark.parametrize("seed", SEEDS)
def test_a_head_axis_in_front_is_not_a_missing_head_axis(seed):
    """A (batch, n_q, n_k) mask passed as it is and one given its head axis in front of the batch raise on the same
    inputs: the shape the given attention reports tells them apart, and each is named only where it is that one."""
    cases = {"multi_head_attention.mask_no_head_axis": lambda m: m,
             "multi_head_attention.head_axis_in_front": lambda m: m[np.newaxis],
             "multi_head_attention.head_axis_in_front#reshape": lambda m: m.reshape((1,) + m.shape)}
    for named, reshape in cases.items():
        verdict = _verdict("multi_head_attention_batch_mask", "multi_head_attention", _mha_mask(reshape), seed)
        assert verdict.misconception == named.partition("#")[0], (named, verdict)


# ---------------------------------------------------------------- one number, two mistakes: both said
@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("n", (1024, 4096, 6144))
def test_a_table_count_two_mistakes_give_names_neither(dtype, n):
    """Twice the bytes is two tables, and as much another dtype's size (8 bytes a float32 weight, 4 a float16 one):
    named only where no dtype gives it (a float64 table), else said with both readings; the same for every count
    two candidates give (one head's table of a float64 table is also its number of weights)."""
    table = TableSize(n, dtype)
    right, size = table.bytes(), table.itemsize
    counts = {"twice": 2 * right, "one head": n * n * size, "weights": right // size,
              **{f"{other} bytes": right // size * other_size for other, other_size in DTYPES.items() if other != dtype}}
    check = CHECKS["TABLE_BYTES_value"]
    for what, count in counts.items():
        givers = [w for w, c in counts.items() if c == count]
        verdict, _ = judge_with_numbers(check, check.make_calls(check_rng(0, check.grade_id)), [Outcome(value=count)],
                                        StudentNumbers("s", {check.item: table}))
        assert not verdict.passed, (what, verdict)
        if len(givers) > 1:
            assert verdict.misconception == "mistakes_coincide" and verdict.message.count("reading:") == len(givers), \
                (dtype, n, what, givers, verdict)
        else:
            assert verdict.misconception != "mistakes_coincide", (dtype, n, what, verdict)


# ---------------------------------------------------------------- a per-pair count: the tanh or the sum
def _costs_extra(extra):
    def score_costs(kind, n, d, h):
        params, macs = ref.score_costs(kind, n, d, h)
        return params, macs + (extra(n, h) if kind == "additive" else 0)
    return score_costs


@pytest.mark.parametrize("seed", SEEDS)
def test_one_more_operation_per_hidden_unit_of_a_pair_says_both_causes(seed):
    """Counting the tanh of every hidden unit of every pair and counting the addition of the two projections give
    the same n^2 h: the message says both, so that it is true of either code."""
    verdict = _verdict("score_costs_values", "score_costs", _costs_extra(lambda n, h: n * n * h), seed)
    assert verdict.misconception == "score_costs.counts_tanh", verdict
    assert "tanh" in verdict.message and "addition" in verdict.message, verdict.message


# ---------------------------------------------------------------- a whole-number root: not half of d_k
@pytest.mark.parametrize("divisor, named", [(lambda d: math.isqrt(d), True), (lambda d: round(math.sqrt(d)), True),
                                            (lambda d: max(1, d // 2), False), (lambda d: math.ceil(math.sqrt(d)), False)])
def test_a_whole_number_root_is_told_from_other_whole_divisors(divisor, named):
    """sqrt(d_k) truncated or rounded gives 1 at d_k = 2 and 2 at d_k = 5, as half of d_k does: the probe at
    d_k = 10 (3 against 5) tells them apart; a root rounded up (2 at d_k = 2) is not one either."""
    verdict = _verdict("scale_scores_seed_example", "scale_scores", lambda scores, d_k: np.asarray(scores) / divisor(d_k))
    assert not verdict.passed and (verdict.misconception == "scale.whole_number_root") == named, verdict


# ---------------------------------------------------------------- raising everywhere names nothing by itself
def _additive_einsum_columns(Q, K, W_q, W_k, v):
    q = np.einsum("hd,...nd->...nh", np.asarray(W_q), np.asarray(Q))
    k = np.einsum("hd,...nd->...nh", np.asarray(W_k), np.asarray(K))
    return np.tanh(q[..., :, None, :] + k[..., None, :, :]) @ np.asarray(v)


def _additive_row_by_row(Q, K, W_q, W_k, v):
    return np.tanh(np.asarray(Q) @ W_q + np.asarray(K) @ W_k) @ v


@pytest.mark.parametrize("seed", SEEDS)
def test_a_broadcasting_error_is_not_a_row_by_row_sum_by_itself(seed):
    """Maps applied as column-vector maps through einsum raise the broadcasting error a row-by-row sum raises: each
    is named only by the values it gives on the probe (n_q = n_k, square maps), never from the error alone."""
    einsum = _verdict("additive_scores_matches_reference", "additive_scores", _additive_einsum_columns, seed)
    assert einsum.misconception == "additive_scores.maps_transposed", einsum
    rows = _verdict("additive_scores_matches_reference", "additive_scores", _additive_row_by_row, seed)
    assert rows.misconception == "additive_scores.pairs_not_broadcast", rows
    for grade_id in ("additive_scores_batched", "additive_scores_inputs_unmodified"):
        assert _verdict(grade_id, "additive_scores", _additive_einsum_columns, seed).misconception in \
            GENERIC_MISCONCEPTIONS


# ---------------------------------------------------------------- an empty row that reads every key
def _empty_row_fallback(how):
    def scaled_dot_product_attention(Q, K, V, mask=None):
        Q = np.asarray(Q)
        raw = Q @ np.swapaxes(K, -1, -2) / math.sqrt(Q.shape[-1])
        if mask is None:
            weights = ref.softmax(raw)
        elif how == "fallback":  # a query that may read nothing reads everything
            masked = ref.apply_mask(raw, mask)
            weights = ref.softmax(np.where(np.isneginf(masked).all(axis=-1, keepdims=True), raw, masked))
        else:  # softmax of every key, masked, renormalised where anything is left
            plain = ref.softmax(raw)
            kept = plain * np.broadcast_to(mask, plain.shape)
            total = kept.sum(axis=-1, keepdims=True)
            weights = np.where(total > 0, kept / np.where(total > 0, total, 1), plain)
        return weights @ V, weights
    return scaled_dot_product_attention


@pytest.mark.parametrize("seed", SEEDS)
def test_an_empty_row_with_its_unmasked_weights_names_no_cause_there(seed):
    """An explicit fallback to every key and a softmax before masking, renormalised with a fallback, give a fully
    masked row the same weights: that check says what the row got under a generic id; only the underflow probe of
    the large-scores check (allowed keys far below a hidden one) names the softmax taken before masking."""
    for how in ("fallback", "renormalised"):
        verdict = _verdict("scaled_dot_product_attention_fully_masked_row", "scaled_dot_product_attention",
                           _empty_row_fallback(how), seed)
        assert _generic(verdict) and "unmasked scores" in verdict.message, (how, verdict)
    large = _verdict("scaled_dot_product_attention_masked_large_scores", "scaled_dot_product_attention",
                     _empty_row_fallback("renormalised"), seed)
    assert large.misconception == "mask.after_softmax_renormalised", large
    assert _verdict("scaled_dot_product_attention_masked_large_scores", "scaled_dot_product_attention",
                    _empty_row_fallback("fallback"), seed).passed
