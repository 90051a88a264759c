"""Issue 24, blind set 10 (heldout_2026_12_10)'s vague classes: a reshape of K where a transpose is meant, and queries and keys swapped
in the attention, are named only where their signature over a check's inputs and never-graded probes is theirs
and no other mistake's; a look-alike stays vague, at every seed."""
from __future__ import annotations

import math

import numpy as np
import pytest

import attention_ref as ref
from autograder.checks import CHECKS, GENERIC_MISCONCEPTIONS, executor
from autograder.checks.core import evaluate

SEEDS = (0, 4242, 98765, 12345, 288545019, 1222356006)


def _named(grade_id, name, answer, seed=0, **extra):
    check = CHECKS[grade_id]
    namespace = {"np": np, "math": math, name: answer, **{n: getattr(ref, n) for n in check.helpers}, **extra}
    verdict = evaluate(check, executor(check, namespace), seed)
    return None if verdict.passed else verdict.misconception


def _swapped_last(K):
    return K.reshape(K.shape[:-2] + (K.shape[-1], K.shape[-2]))


# ---------------------------------------------------------------- 01 attention_scores: K reshaped, not transposed
def scores_reshaped(Q, K):
    return np.matmul(Q, np.reshape(K, _swapped_last(K).shape))


def scores_reshaped_2d(Q, K):  # written for one (n_k, d_k) matrix
    return Q @ K.reshape(K.shape[1], K.shape[0])


def scores_as_is(Q, K):
    return Q @ K


def scores_reshaped_scaled(Q, K):  # two mistakes at once: neither named
    return Q @ _swapped_last(K) / np.sqrt(Q.shape[-1])


SCORE_CHECKS = ("attention_scores_seed_example", "attention_scores_non_square", "attention_scores_batched",
                "attention_scores_float32_unmodified")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_reshape_of_the_keys_is_named_where_the_keys_are_not_square(seed):
    for grade_id in SCORE_CHECKS:
        assert _named(grade_id, "attention_scores", scores_reshaped, seed) == "attention_scores.reshaped_keys"
        assert _named(grade_id, "attention_scores", scores_as_is, seed) == "attention_scores.k_not_transposed"
        assert _named(grade_id, "attention_scores", scores_reshaped_scaled, seed) in GENERIC_MISCONCEPTIONS
    for grade_id in ("attention_scores_seed_example", "attention_scores_non_square"):
        assert _named(grade_id, "attention_scores", scores_reshaped_2d, seed) == "attention_scores.reshaped_keys"


def test_square_keys_alone_name_neither_reading():
    from autograder.checks.core import Call, Outcome
    from autograder.checks.expect import each
    from autograder.checks.nb01_scores_softmax import _judge_scores
    rng = np.random.default_rng(3)
    call = Call("attention_scores", (rng.standard_normal((5, 5)), rng.standard_normal((5, 5))))
    Q, K = call.args
    with pytest.raises(AssertionError) as failure:
        each([call], [Outcome(value=Q @ K)], _judge_scores)
    assert failure.value.misconception == "mistakes_coincide"


# ---------------------------------------------------------------- 02 scaled_dot_product_attention: the scores' axes
def _attention(scores_of, average=lambda w, V: w @ V):
    def answer(Q, K, V):
        w = ref.softmax(ref.scale_scores(scores_of(Q, K), Q.shape[-1]))
        return average(w, V), w
    return answer


sdpa_swapped = _attention(lambda Q, K: ref.attention_scores(K, Q), ref.weighted_average)
sdpa_swapped_einsum = _attention(lambda Q, K: np.einsum("...kd,...qd->...kq", K, Q),
                                 lambda w, V: np.einsum("...qk,...kd->...qd", w, V))
sdpa_reshaped = _attention(lambda Q, K: Q @ _swapped_last(K))
sdpa_as_is = _attention(lambda Q, K: Q @ K)


def sdpa_swapped_query_axis(Q, K, V):  # the swap with the softmax down the other axis: not the swap's values
    w = ref.softmax(ref.scale_scores(K @ np.swapaxes(Q, -1, -2), Q.shape[-1]), axis=-2)
    return w @ V, w


SDPA_CHECKS = ("scaled_dot_product_attention_seed_example", "scaled_dot_product_attention_non_square",
               "scaled_dot_product_attention_batched", "scaled_dot_product_attention_large_scores")


@pytest.mark.parametrize("seed", SEEDS)
def test_queries_and_keys_swapped_are_named_by_the_probe(seed):
    for grade_id in SDPA_CHECKS:
        for answer in (sdpa_swapped, sdpa_swapped_einsum):
            assert _named(grade_id, "scaled_dot_product_attention", answer, seed) == "attention.queries_keys_swapped"
        # its errors on the graded inputs are K-as-it-is's too: the probe, not the error, says which
        assert _named(grade_id, "scaled_dot_product_attention", sdpa_as_is, seed) == "attention.k_not_transposed"
        assert _named(grade_id, "scaled_dot_product_attention", sdpa_reshaped, seed) == "attention.reshaped_keys"
        assert _named(grade_id, "scaled_dot_product_attention", sdpa_swapped_query_axis, seed) in GENERIC_MISCONCEPTIONS


# ---------------------------------------------------------------- 02 score_variance: numpy's global random state
def variance_global(d_k, n_samples=100_000, rng=None):
    return float((np.random.standard_normal((n_samples, d_k)) * np.random.randn(n_samples, d_k)).sum(axis=1).var())


def variance_unseeded(d_k, n_samples=100_000, rng=None):  # ignores rng too, but no global state: not named
    gen = np.random.default_rng()
    return float((gen.standard_normal((n_samples, d_k)) * gen.standard_normal((n_samples, d_k))).sum(axis=1).var())


def variance_seeds_global(d_k, n_samples=100_000, rng=None):  # the global state, seeded from rng: reproducible
    np.random.seed(rng)
    return variance_global(d_k, n_samples)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_global_random_state_is_named_where_seeding_it_makes_two_calls_agree(seed):
    assert _named("score_variance_uses_rng", "score_variance", variance_global, seed) == "score_variance.global_state"
    assert _named("score_variance_uses_rng", "score_variance", variance_unseeded, seed) == "score_variance.ignores_rng"
    assert _named("score_variance_uses_rng", "score_variance", variance_seeds_global, seed) is None


def test_a_seeded_call_puts_numpy_s_global_state_back():
    from autograder.checks.core import Call, call_student
    np.random.seed(11)
    expected = np.random.random()
    np.random.seed(11)
    outcome, _ = call_student({"score_variance": variance_global},
                              Call("score_variance", (4, 50), {"rng": 7}, legacy_seed=3))
    assert outcome.error is None and np.random.random() == expected


def test_the_sandbox_wire_carries_the_global_seed():
    from autograder.checks.core import Call
    from autograder.sandbox import wire
    specs, _ = wire.encode_calls([(0, Call("score_variance", (8, 20), {"rng": 7}, legacy_seed=5))])
    assert specs[0]["legacy_seed"] == 5
