"""The numbers printed in the two lesson texts (shared/seeds/), reproduced by attention_ref.

Each test cites the seed file and line. The seeds round: a figure given with k
decimals is compared to within one unit of its last decimal (the seeds' own
arithmetic with rounded intermediates drifts by up to that much), and the
exact values are pinned separately.
"""
import math

import numpy as np
import pytest

from attention_ref import (
    attention_param_count,
    attention_scores,
    dot_product,
    leading_weight,
    scale_scores,
    scaled_dot_product_attention,
    score_variance,
    softmax,
    weighted_average,
)

SEED_000 = "shared/seeds/000_65a55d04fc8aa690.txt"
SEED_002 = "shared/seeds/002_275b65b56f152465.txt"


def close_at_seed_precision(actual, seed_figures, decimals):
    """True when each value is within one unit of the seed's last printed decimal."""
    return np.allclose(actual, seed_figures, rtol=0, atol=10.0**-decimals)


def test_softmax_of_2_1_0():
    # 000, line 14: "Suppose one query meets three keys and the dot products are 2, 1 and 0."
    # 000, lines 17-19 (table): weights 0.665, 0.245, 0.090.
    weights = softmax([2.0, 1.0, 0.0])
    assert close_at_seed_precision(weights, [0.665, 0.245, 0.090], 3)
    exact = np.array([math.exp(2), math.exp(1), 1.0]) / (math.exp(2) + math.exp(1) + 1)
    np.testing.assert_allclose(weights, exact, rtol=1e-15)
    # 000, line 14: "the score of 2 becomes e squared, about 7.389; ... about 2.718 ... The total is 11.107"
    assert round(math.exp(2), 3) == 7.389 and round(math.exp(2) + math.exp(1) + 1, 3) == 11.107


def test_weighted_average_of_values_1_2_3():
    # 000, line 20: "The output is 1.425." (values 1, 2, 3 from the table, lines 17-19)
    weights = softmax([[2.0, 1.0, 0.0]])
    output = weighted_average(weights, [[1.0], [2.0], [3.0]])
    assert output.shape == (1, 1)
    assert close_at_seed_precision(output[0, 0], 1.425, 3)


def test_example_1_weights():
    # 002, line 31: "Let the query q = (1, 0), and three keys k1 = (1, 0), k2 = (0, 1), k3 = (0.5, 0.5), with d = 2"
    q, K = [[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]
    # 002, lines 34-36: raw scores 1.0, 0.0, 0.5; scaled 0.707, 0.000, 0.354
    raw = attention_scores(q, K)
    np.testing.assert_array_equal(raw, [[1.0, 0.0, 0.5]])
    assert [dot_product(q[0], k) for k in K] == [1.0, 0.0, 0.5]
    assert close_at_seed_precision(scale_scores(raw, 2), [[0.707, 0.000, 0.354]], 3)
    # 002, line 41: "weights ≈ (0.455, 0.225, 0.320)". The exact weights are 0.4555, 0.2246,
    # 0.3199: the seed's 0.455 is one unit low in its last decimal (rounded intermediates).
    _, weights = scaled_dot_product_attention(q, K, [[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])
    assert close_at_seed_precision(weights, [[0.455, 0.225, 0.320]], 3)
    np.testing.assert_allclose(weights, [[0.4555, 0.2246, 0.3199]], atol=5e-5)


def test_example_2_output():
    # 002, line 47: values v1 = (10, 0), v2 = (0, 10), v3 = (5, 5)
    # 002, line 52: "= (6.15, 3.85)"; exactly (6.155, 3.845) with the unrounded weights.
    q, K, V = [[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], [[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]]
    output, _ = scaled_dot_product_attention(q, K, V)
    assert close_at_seed_precision(output, [[6.15, 3.85]], 2)
    np.testing.assert_allclose(output, [[6.155, 3.845]], atol=5e-4)


def test_stop_and_try():
    # 000, line 26: "a query is (1, 0), and the three keys are (1, 0), (0, 1) and (-1, 0).
    # Which key receives the largest weight, and why?" -> the aligned key (1, 0).
    q, K = [[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]
    np.testing.assert_array_equal(attention_scores(q, K), [[1.0, 0.0, -1.0]])
    _, weights = scaled_dot_product_attention(q, K, np.eye(3))
    assert weights[0].argmax() == 0
    assert weights[0, 0] > weights[0, 1] > weights[0, 2]
    s = 1 / math.sqrt(2)
    exact = np.array([math.exp(s), 1.0, math.exp(-s)]) / (math.exp(s) + 1.0 + math.exp(-s))
    np.testing.assert_allclose(weights[0], exact, rtol=1e-14)


def test_divisor_for_keys_of_length_two():
    # 000, line 22: "With keys of length two, the divisor is about 1.414, so a raw score of 2 becomes 1.414."
    assert close_at_seed_precision(scale_scores(2.0, 2), 1.414, 3)


def test_parameter_count_512_8_64():
    # 000, line 39: "eight heads at width 64 hold the same total width as one head at 512"
    # 000, line 29: the heads hold the same projection parameters as one head of full width,
    # and the output projection is added on top.
    assert attention_param_count(512, 8) == 1_048_576 == 4 * 512 * 512
    assert attention_param_count(512, 8, d_k=64, d_v=64) == 1_048_576
    assert attention_param_count(512, 1) == attention_param_count(512, 8)
    assert attention_param_count(512, 8, output_projection=False) == 3 * 512 * 512


@pytest.mark.parametrize("width", [1, 2, 4, 64, 512, 4096, 10**6])
def test_flat_line_at_0665(width):
    # 000, line 7: "dividing by the square root of the key length holds the three weights at
    # 0.665, 0.245 and 0.090 at every width." Without the division the leading weight tends to one.
    assert close_at_seed_precision(leading_weight(width), 0.665, 3)
    assert leading_weight(width) == pytest.approx(leading_weight(1), rel=1e-12)
    unscaled = leading_weight(width, scaled=False)
    assert unscaled >= leading_weight(width) - 1e-12
    if width >= 64:
        assert unscaled > 0.999  # width 64: scores (16, 8, 0) give 0.99966


def test_unscaled_leading_weight_grows_with_width():
    # 000, line 21: "the scores become large and the softmax saturates, meaning one weight takes almost all the mass"
    widths = [1, 4, 16, 64, 256]
    unscaled = [leading_weight(w, scaled=False) for w in widths]
    assert all(a < b for a, b in zip(unscaled, unscaled[1:]))


def test_score_variance_is_the_width():
    # 000, line 35: "Their dot product is a sum of products, so its mean is zero and its variance is [d_k]"
    for d_k in (4, 64):
        v = score_variance(d_k, n_samples=20_000, rng=0)
        assert abs(v - d_k) < 0.05 * d_k
