"""Every bad argument raises ValueError/TypeError whose message names the argument and its shape."""
import re

import numpy as np
import pytest

import attention_ref as ar


def shape(*dims):
    """A regex matching a printed shape, e.g. shape(2, 3) -> '\\(2, 3\\)'."""
    return re.escape(str(tuple(dims)))


Q, K, V = np.ones((2, 5, 4)), np.ones((2, 7, 4)), np.ones((2, 7, 3))


@pytest.mark.parametrize("func", [ar.scaled_dot_product_attention, ar.blockwise_attention])
class TestAttentionArguments:
    def test_mismatched_d_k(self, func):
        with pytest.raises(ValueError, match=f"d_k.*Q has shape {shape(2, 5, 4)}.*K has shape {shape(2, 7, 6)}"):
            func(Q, np.ones((2, 7, 6)), V)

    def test_n_k_of_K_vs_V(self, func):
        with pytest.raises(ValueError, match=f"K and V.*{shape(2, 7, 4)}.*n_k=7.*V has shape {shape(2, 6, 3)}.*n_k=6"):
            func(Q, K, np.ones((2, 6, 3)))

    def test_too_few_dimensions(self, func):
        with pytest.raises(ValueError, match=r"Q must have at least 2 dimensions \(\.\.\., n_q, d_k\), got shape \(4,\)"):
            func(np.ones(4), K, V)
        with pytest.raises(ValueError, match=r"V must have at least 2 dimensions.*got shape \(7,\)"):
            func(Q, K, np.ones(7))

    def test_batch_axes_do_not_broadcast(self, func):
        with pytest.raises(ValueError, match=f"batch axes of Q {shape(2, 5, 4)} and K {shape(3, 7, 4)}"):
            func(Q, np.ones((3, 7, 4)), np.ones((3, 7, 3)))
        with pytest.raises(ValueError, match=f"Q {shape(2, 5, 4)}, K {shape(1, 7, 4)} and V {shape(3, 7, 3)}"):
            func(Q, np.ones((1, 7, 4)), np.ones((3, 7, 3)))

    def test_mask_does_not_broadcast(self, func):
        with pytest.raises(ValueError, match=f"mask of shape {shape(7, 5)}.*{shape(2, 5, 7)}"):
            func(Q, K, V, mask=np.ones((7, 5), dtype=bool))

    @pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.complex128, object])
    def test_mask_neither_bool_nor_float(self, func, dtype):
        with pytest.raises(TypeError, match=f"mask must be boolean.*dtype {np.dtype(dtype)}.*{shape(5, 7)}"):
            func(Q, K, V, mask=np.ones((5, 7), dtype=dtype))

    def test_complex_input(self, func):
        with pytest.raises(TypeError, match=f"K must hold real numbers.*complex128.*{shape(2, 7, 4)}"):
            func(Q, K.astype(complex), V)

    def test_ragged_input(self, func):
        with pytest.raises(ValueError, match="Q must be a rectangular array"):
            func([[1.0, 2.0], [3.0]], K, V)

    def test_zero_width(self, func):
        with pytest.raises(ValueError, match="width d_k=0"):
            func(np.ones((5, 0)), np.ones((7, 0)), V[0])

    def test_bad_scale(self, func):
        with pytest.raises(TypeError, match="scale must be a number or None, got 'big'"):
            func(Q, K, V, scale="big")


@pytest.mark.parametrize("block_size, error", [(0, ValueError), (-3, ValueError), (2.5, TypeError), (True, TypeError)])
def test_block_size(block_size, error):
    with pytest.raises(error, match=f"block_size must be a positive integer, got {re.escape(repr(block_size))}"):
        ar.blockwise_attention(Q, K, V, block_size=block_size)


def test_dot_product():
    with pytest.raises(ValueError, match=f"same length.*q of shape {shape(2)}.*k of shape {shape(3)}"):
        ar.dot_product([1, 0], [1, 0, 0])
    with pytest.raises(ValueError, match=f"1-D vectors.*q of shape {shape(1, 2)}"):
        ar.dot_product([[1, 0]], [1, 0])


def test_attention_scores():
    with pytest.raises(ValueError, match=f"d_k.*Q has shape {shape(3, 2)}.*K has shape {shape(4, 3)}"):
        ar.attention_scores(np.ones((3, 2)), np.ones((4, 3)))


def test_softmax_axis():
    with pytest.raises(ValueError, match=f"axis 2 is out of range for x of shape {shape(3, 4)}"):
        ar.softmax(np.ones((3, 4)), axis=2)
    with pytest.raises(ValueError, match=f"axis -3 is out of range for x of shape {shape(3, 4)}"):
        ar.softmax(np.ones((3, 4)), axis=-3)
    with pytest.raises(TypeError, match=r"x must hold real numbers.*<U1"):
        ar.softmax(["a", "b"])


def test_weighted_average():
    with pytest.raises(ValueError, match=f"weights has shape {shape(2, 3)}.*n_k=3.*V has shape {shape(4, 2)}.*n_k=4"):
        ar.weighted_average(np.ones((2, 3)), np.ones((4, 2)))
    with pytest.raises(ValueError, match=f"batch axes of weights {shape(2, 1, 3)} and V {shape(3, 3, 2)}"):
        ar.weighted_average(np.ones((2, 1, 3)), np.ones((3, 3, 2)))


def test_scaling_arguments():
    with pytest.raises(ValueError, match="d_k must be a positive integer, got 0"):
        ar.scale_scores([1.0], 0)
    with pytest.raises(TypeError, match="d_k must be a positive integer, got 2.0"):
        ar.scale_scores([1.0], 2.0)
    with pytest.raises(ValueError, match="n_samples must be at least 2"):
        ar.score_variance(4, n_samples=1)
    with pytest.raises(ValueError, match="width must be a positive number, got -1"):
        ar.leading_weight(-1)
    with pytest.raises(ValueError, match=f"p must be one probability vector.*{shape(2, 2)}"):
        ar.softmax_jacobian(np.full((2, 2), 0.25))
    with pytest.raises(ValueError, match="p must be non-negative and sum to 1, got sum 0.6"):
        ar.softmax_jacobian([0.3, 0.3])


def test_causal_mask_arguments():
    with pytest.raises(ValueError, match="n_q must be a positive integer, got 0"):
        ar.causal_mask(0)
    with pytest.raises(TypeError, match="n_k must be a positive integer, got 2.5"):
        ar.causal_mask(3, 2.5)


def test_padding_mask_arguments():
    with pytest.raises(ValueError, match=r"lengths must lie in \[0, n_k=3\], got \[-1, 2\]"):
        ar.padding_mask([-1, 2], 3)
    with pytest.raises(ValueError, match=r"lengths must lie in \[0, n_k=3\], got \[4\]"):
        ar.padding_mask([4], 3)
    with pytest.raises(TypeError, match="lengths must be integers, got dtype float64"):
        ar.padding_mask([1.5], 3)
    with pytest.raises(ValueError, match=f"lengths must be 1-D.*{shape(1, 2)}"):
        ar.padding_mask([[1, 2]], 3)


def test_apply_mask_arguments():
    with pytest.raises(ValueError, match=f"mask of shape {shape(3,)}.*{shape(2, 4)}"):
        ar.apply_mask(np.ones((2, 4)), np.ones(3, dtype=bool))
    with pytest.raises(TypeError, match=f"mask must be boolean.*int64.*{shape(4,)}"):
        ar.apply_mask(np.ones((2, 4)), np.ones(4, dtype=np.int64))


X = np.ones((2, 5, 6))
W = np.ones((6, 6))


def test_project_arguments():
    with pytest.raises(ValueError, match=f"X has shape {shape(2, 5, 6)}.*W has shape {shape(4, 6)}"):
        ar.project(X, np.ones((4, 6)))
    with pytest.raises(ValueError, match=f"W must be a matrix.*{shape(6,)}"):
        ar.project(X, np.ones(6))


def test_width_not_divisible_by_heads():
    with pytest.raises(ValueError, match=f"width of X {shape(2, 5, 6)}.*d_model=6.*num_heads=4"):
        ar.split_heads(X, 4)
    with pytest.raises(ValueError, match="d_model=10 is not divisible by num_heads=3"):
        ar.attention_param_count(10, 3)
    with pytest.raises(ValueError, match=f"W_q has shape {shape(6, 6)}.*num_heads=4"):
        ar.multi_head_attention(X, X, W, W, W, np.ones((6, 6)), 4)
    with pytest.raises(ValueError, match=f"W_v has shape {shape(6, 9)}.*num_heads=2"):
        ar.multi_head_attention(X, X, np.ones((6, 4)), np.ones((6, 4)), np.ones((6, 9)), np.ones((9, 6)), 2)


def test_multi_head_arguments():
    with pytest.raises(ValueError, match=f"W_k must have shape \\(6, \\.\\.\\.\\).*X_kv.*{shape(5, 6)}"):
        ar.multi_head_attention(X, X, W, np.ones((5, 6)), W, W, 2)
    with pytest.raises(ValueError, match=f"W_q {shape(6, 4)} and W_k {shape(6, 6)}"):
        ar.multi_head_attention(X, X, np.ones((6, 4)), W, W, W, 2)
    with pytest.raises(ValueError, match=f"W_o must have shape \\(6, \\.\\.\\.\\).*{shape(4, 6)}"):
        ar.multi_head_attention(X, X, W, W, W, np.ones((4, 6)), 2)
    with pytest.raises(ValueError, match=f"batch axes of X_q {shape(2, 5, 6)} and X_kv {shape(3, 4, 6)}"):
        ar.multi_head_attention(X, np.ones((3, 4, 6)), W, W, W, W, 2)
    with pytest.raises(ValueError, match=f"mask of shape {shape(4, 4)}.*{shape(2, 5, 7)}"):
        ar.multi_head_attention(X, np.ones((2, 7, 6)), W, W, W, W, 2, mask=np.ones((4, 4), dtype=bool))
    with pytest.raises(TypeError, match="num_heads must be a positive integer"):
        ar.multi_head_attention(X, X, W, W, W, W, 2.0)
    with pytest.raises(ValueError, match=f"X_q must have at least 2 dimensions.*{shape(6,)}"):
        ar.multi_head_attention(np.ones(6), X, W, W, W, W, 2)


def test_merge_heads_arguments():
    with pytest.raises(ValueError, match=r"X must have at least 3 dimensions \(\.\.\., h, n, d\), got shape \(5, 6\)"):
        ar.merge_heads(np.ones((5, 6)))


def test_cross_attention_lengths():
    X_enc = np.ones((2, 4, 6))
    with pytest.raises(ValueError, match=r"enc_lengths must lie in \[0, n_enc=4\].*\(2, 4, 6\).*\[-1, 2\]"):
        ar.cross_attention(X, X_enc, W, W, W, W, 2, enc_lengths=[-1, 2])
    with pytest.raises(ValueError, match=f"one length per sequence.*{shape(2, 4, 6)}.*{shape(3,)}"):
        ar.cross_attention(X, X_enc, W, W, W, W, 2, enc_lengths=[1, 2, 3])
    with pytest.raises(TypeError, match="enc_lengths must be integers, got dtype float64"):
        ar.cross_attention(X, X_enc, W, W, W, W, 2, enc_lengths=[1.0, 2.0])
