"""Properties every answer must have: normalisation, masking, invariances, dtypes, no side effects."""
import warnings

import numpy as np
import pytest

import attention_ref as ar
from attention_ref import (
    apply_mask,
    attention_scores,
    blockwise_attention,
    causal_mask,
    merge_heads,
    multi_head_attention,
    padding_mask,
    project,
    scale_scores,
    scaled_dot_product_attention,
    self_attention,
    softmax,
    softmax_jacobian,
    split_heads,
    weighted_average,
)


def qkv(seed=0, batch=(2, 3), n_q=5, n_k=7, d_k=4, d_v=3, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal((*batch, *s)).astype(dtype) for s in ((n_q, d_k), (n_k, d_k), (n_k, d_v)))


def mask_with_empty_rows(seed=0, shape=(2, 3, 5, 7)):
    mask = np.random.default_rng(seed).random(shape) < 0.5
    mask[..., 0, :] = False
    return mask


# ---------------------------------------------------------------- normalisation and masking

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rows_sum_to_one_or_zero(dtype):
    Q, K, V = qkv(dtype=dtype)
    mask = mask_with_empty_rows()
    _, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    sums = weights.sum(axis=-1)
    empty = ~mask.any(axis=-1)
    tol = 1e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(sums[~empty], 1, rtol=0, atol=tol)
    assert (sums[empty] == 0).all()
    assert (weights >= 0).all()


def test_masked_weights_exactly_zero():
    Q, K, V = qkv(1)
    mask = mask_with_empty_rows(1)
    _, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    assert (weights[~mask] == 0).all()
    assert (weights[mask] > 0).all()
    bias = np.where(mask, 0.0, -np.inf)
    _, weights_f = scaled_dot_product_attention(Q, K, V, mask=bias)
    assert (weights_f[~mask] == 0).all()
    np.testing.assert_allclose(weights_f, weights, rtol=0, atol=1e-15)


def test_fully_masked_rows_raise_no_floating_point_error():
    Q, K, V = qkv(2)
    mask = np.zeros((5, 7), dtype=bool)
    with warnings.catch_warnings(), np.errstate(divide="raise", invalid="raise", over="raise"):
        warnings.simplefilter("error")
        output, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
        assert (output == 0).all() and (weights == 0).all()
        assert (blockwise_attention(Q, K, V, block_size=2, mask=mask) == 0).all()
        assert (softmax(np.full((3, 4), -np.inf)) == 0).all()


def test_no_keys_at_all():
    Q, K, V = np.ones((2, 3)), np.ones((0, 3)), np.ones((0, 4))
    output, weights = scaled_dot_product_attention(Q, K, V)
    assert weights.shape == (2, 0) and (output == 0).all() and output.shape == (2, 4)
    assert (blockwise_attention(Q, K, V) == 0).all()


# ---------------------------------------------------------------- invariances

def test_softmax_invariant_to_row_constant():
    x = np.random.default_rng(3).standard_normal((4, 6))
    shift = np.array([[1e3], [-50.0], [0.5], [7.0]])
    # atol: x + 1e3 itself rounds at 1e3 * 2**-52 ~ 2e-13
    np.testing.assert_allclose(softmax(x + shift), softmax(x), rtol=0, atol=1e-12)


def test_attention_invariant_to_row_constant_bias():
    Q, K, V = qkv(4)
    row_bias = np.random.default_rng(4).standard_normal((2, 3, 5, 1)) * 100  # one constant per score row
    out, w = scaled_dot_product_attention(Q, K, V)
    out_b, w_b = scaled_dot_product_attention(Q, K, V, mask=row_bias)
    np.testing.assert_allclose(w_b, w, rtol=0, atol=1e-13)
    np.testing.assert_allclose(out_b, out, rtol=0, atol=1e-13)


def test_permuting_keys_and_values_together():
    Q, K, V = qkv(5)
    mask = mask_with_empty_rows(5)
    perm = np.random.default_rng(5).permutation(7)
    out, w = scaled_dot_product_attention(Q, K, V, mask=mask)
    out_p, w_p = scaled_dot_product_attention(Q, K[..., perm, :], V[..., perm, :], mask=mask[..., perm])
    np.testing.assert_allclose(w_p, w[..., perm], rtol=0, atol=1e-15)
    np.testing.assert_allclose(out_p, out, rtol=0, atol=1e-14)
    np.testing.assert_allclose(blockwise_attention(Q, K[..., perm, :], V[..., perm, :], block_size=3, mask=mask[..., perm]),
                               out, rtol=0, atol=1e-12)


def test_permuting_queries_permutes_rows():
    Q, K, V = qkv(6)
    perm = np.random.default_rng(6).permutation(5)
    out, w = scaled_dot_product_attention(Q, K, V)
    out_p, w_p = scaled_dot_product_attention(Q[..., perm, :], K, V)
    np.testing.assert_allclose(w_p, w[..., perm, :], rtol=0, atol=1e-15)
    np.testing.assert_allclose(out_p, out[..., perm, :], rtol=0, atol=1e-15)


# ---------------------------------------------------------------- softmax

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_at_1e4(dtype):
    x = np.array([[1e4, 0.0, -1e4], [1e4, 1e4, 1e4], [-1e4, -1e4, 1e4 - 1]], dtype=dtype)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        p = softmax(x)
    assert p.dtype == dtype and np.isfinite(p).all()
    np.testing.assert_allclose(p[0], [1, 0, 0])
    np.testing.assert_allclose(p[1], [1 / 3] * 3, rtol=1e-6)
    np.testing.assert_allclose(p[2], [0, 0, 1])


@pytest.mark.parametrize("axis", [0, 1, 2, -2, -3])
def test_softmax_other_axes(axis):
    x = np.random.default_rng(7).standard_normal((3, 4, 5)) * 3
    x[0, 0, 0] = -np.inf
    p = softmax(x, axis=axis)
    moved = np.moveaxis(x, axis, -1)
    e = np.exp(moved - moved.max(axis=-1, keepdims=True))
    want = np.moveaxis(e / e.sum(axis=-1, keepdims=True), -1, axis)
    np.testing.assert_allclose(p, want, rtol=1e-14, atol=0)
    np.testing.assert_allclose(p.sum(axis=axis), 1, rtol=1e-14)


def test_softmax_fully_masked_slice_along_axis_0():
    x = np.array([[-np.inf, 1.0], [-np.inf, 2.0]])
    p = softmax(x, axis=0)
    np.testing.assert_array_equal(p[:, 0], [0, 0])
    np.testing.assert_allclose(p[:, 1].sum(), 1)


def test_softmax_scalar_and_1d():
    assert float(softmax(3.0)) == 1.0
    np.testing.assert_allclose(softmax([0.0, 0.0]), [0.5, 0.5])


# ---------------------------------------------------------------- masks

@pytest.mark.parametrize("n_q, n_k", [(3, 5), (5, 3), (4, 4), (1, 6), (6, 1)])
def test_causal_mask_matches_tril(n_q, n_k):
    mask = causal_mask(n_q, n_k)
    assert mask.dtype == bool and mask.shape == (n_q, n_k)
    np.testing.assert_array_equal(mask, np.tril(np.ones((n_q, n_k))).astype(bool))


def test_causal_mask_default_square():
    np.testing.assert_array_equal(causal_mask(4), np.tril(np.ones((4, 4), dtype=bool)))


def test_padding_mask():
    mask = padding_mask([3, 0, 5], 5)
    assert mask.dtype == bool and mask.shape == (3, 1, 5)
    np.testing.assert_array_equal(mask[:, 0], [[1, 1, 1, 0, 0], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1]])
    np.testing.assert_array_equal(padding_mask(np.array([2], dtype=np.uint8), 3), [[[True, True, False]]])


def test_padding_mask_in_attention_ignores_padded_values():
    rng = np.random.default_rng(8)
    Q, K, V = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 6, 3)), rng.standard_normal((2, 6, 2))
    out, w = scaled_dot_product_attention(Q, K, V, mask=padding_mask([4, 6], 6))
    V2 = V.copy()
    V2[0, 4:] = 1e6  # whatever sits in the padding of sequence 0 must not matter
    out2, _ = scaled_dot_product_attention(Q, K, V2, mask=padding_mask([4, 6], 6))
    np.testing.assert_array_equal(out2, out)
    assert (w[0, :, 4:] == 0).all()
    short, _ = scaled_dot_product_attention(Q[0], K[0, :4], V[0, :4])
    np.testing.assert_allclose(out[0], short, rtol=0, atol=1e-15)


def test_apply_mask():
    scores = np.arange(6.0).reshape(2, 3)
    masked = apply_mask(scores, [[True, False, True], [False, False, False]])
    np.testing.assert_array_equal(masked, [[0, -np.inf, 2], [-np.inf, -np.inf, -np.inf]])
    np.testing.assert_array_equal(apply_mask(scores, np.array([0.0, -np.inf, 1.0])), [[0, -np.inf, 3], [3, -np.inf, 6]])
    assert apply_mask(scores.astype(np.float32), np.array([0.0, 1.0, 2.0])).dtype == np.float32


# ---------------------------------------------------------------- dtypes

def all_calls(dtype):
    """One call of every public function that takes arrays, on inputs of ``dtype``."""
    rng = np.random.default_rng(9)

    def arr(*shape):
        a = rng.standard_normal(shape) * 3
        return a.astype(dtype) if np.dtype(dtype).kind == "f" else np.round(a).astype(dtype)

    Q, K, V = arr(2, 4, 3), arr(2, 5, 3), arr(2, 5, 2)
    X, W = arr(2, 5, 4), arr(4, 4)
    p = np.full(4, 0.25, dtype=dtype if np.dtype(dtype).kind == "f" else np.float64)
    mask = causal_mask(4, 5)
    return {
        "attention_scores": lambda: attention_scores(Q, K),
        "softmax": lambda: softmax(arr(3, 4)),
        "softmax_axis0": lambda: softmax(arr(3, 4), axis=0),
        "weighted_average": lambda: weighted_average(arr(2, 4, 5), V),
        "scale_scores": lambda: scale_scores(arr(3, 4), 64),
        "softmax_jacobian": lambda: softmax_jacobian(p),
        "apply_mask": lambda: apply_mask(arr(2, 4, 5), mask),
        "sdpa_output": lambda: scaled_dot_product_attention(Q, K, V)[0],
        "sdpa_weights": lambda: scaled_dot_product_attention(Q, K, V, mask=mask)[1],
        "sdpa_float_mask": lambda: scaled_dot_product_attention(Q, K, V, mask=np.zeros((4, 5)))[0],
        "blockwise": lambda: blockwise_attention(Q, K, V, block_size=2, mask=mask),
        "project": lambda: project(X, W),
        "split_heads": lambda: split_heads(X, 2),
        "merge_heads": lambda: merge_heads(arr(2, 3, 4, 2)),
        "multi_head": lambda: multi_head_attention(X, X, W, W, W, W, 2)[0],
        "multi_head_weights": lambda: multi_head_attention(X, X, W, W, W, W, 2)[1],
        "self_attention": lambda: self_attention(X, W, W, W, W, 2, causal=True)[0],
    }


@pytest.mark.parametrize("name", sorted(all_calls(np.float32)))
def test_float32_in_float32_out(name):
    result = all_calls(np.float32)[name]()
    assert result.dtype == np.float32, name


@pytest.mark.parametrize("name", sorted(all_calls(np.int64)))
def test_integers_become_float64(name):
    result = all_calls(np.int64)[name]()
    assert result.dtype == np.float64, name


def test_dot_product_returns_python_float():
    value = ar.dot_product(np.array([1, 2], dtype=np.float32), [3, 4])
    assert type(value) is float and value == 11.0


# ---------------------------------------------------------------- inputs untouched

def test_inputs_never_modified():
    """Read-only inputs make any write raise; the copies check nothing changed anyway."""
    Q, K, V = qkv(11)
    mask = mask_with_empty_rows(11)
    bias = np.where(mask, 0.5, -np.inf)
    scores = np.random.default_rng(11).standard_normal((2, 3, 5, 7))
    X = np.random.default_rng(12).standard_normal((2, 5, 6))
    W = np.random.default_rng(13).standard_normal((6, 6))
    inputs = [Q, K, V, mask, bias, scores, X, W]
    copies = [a.copy() for a in inputs]
    for a in inputs:
        a.flags.writeable = False
    softmax(scores)
    softmax(scores, axis=1)
    apply_mask(scores, mask)
    apply_mask(scores, bias)
    scale_scores(scores, 4)
    weighted_average(softmax(scores), V)
    attention_scores(Q, K)
    scaled_dot_product_attention(Q, K, V)
    scaled_dot_product_attention(Q, K, V, mask=mask)
    scaled_dot_product_attention(Q, K, V, mask=bias, scale=0.1)
    blockwise_attention(Q, K, V, block_size=3, mask=mask)
    blockwise_attention(Q, K, V, block_size=3, mask=bias)
    project(X, W)
    merge_heads(split_heads(X, 3))
    multi_head_attention(X, X, W, W, W, W, 3, mask=causal_mask(5))
    self_attention(X, W, W, W, W, 2, causal=True)
    ar.cross_attention(X, X, W, W, W, W, 2, enc_lengths=[5, 3])
    for a, c in zip(inputs, copies):
        np.testing.assert_array_equal(a, c)


def test_float_mask_of_other_dtype_does_not_change_output_dtype():
    Q, K, V = qkv(14, dtype=np.float32)
    out, w = scaled_dot_product_attention(Q, K, V, mask=np.zeros((5, 7), dtype=np.float64))
    assert out.dtype == w.dtype == np.float32
