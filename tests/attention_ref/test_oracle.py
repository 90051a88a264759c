"""attention_ref against an independent oracle: plain Python loops, one query at a time.

The oracle never calls attention_ref and uses math.exp on Python floats, so it
shares no code (and no numpy broadcasting) with the reference. Inputs are
seeded and deliberately non-square: n_q != n_k != d_k != d_v, two batch axes
(the second one plays the heads), broadcasting batch axes, and masks with fully
masked rows.
"""
import math

import numpy as np
import pytest

from attention_ref import (
    blockwise_attention,
    causal_mask,
    cross_attention,
    multi_head_attention,
    padding_mask,
    scaled_dot_product_attention,
    self_attention,
)

N_Q, N_K, D_K, D_V = 5, 7, 4, 3
BATCH = (2, 3)  # (batch, heads)


def oracle_attention(Q, K, V, mask=None, scale=None):
    """softmax(Q K^T * scale + mask) V, one query at a time, in Python floats."""
    Q, K, V = (np.asarray(a, dtype=np.float64) for a in (Q, K, V))
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    n_q, d_k = Q.shape[-2:]
    n_k, d_v = V.shape[-2:]
    scale = 1 / math.sqrt(d_k) if scale is None else scale
    Qb = np.broadcast_to(Q, batch + Q.shape[-2:])
    Kb = np.broadcast_to(K, batch + K.shape[-2:])
    Vb = np.broadcast_to(V, batch + V.shape[-2:])
    Mb = None if mask is None else np.broadcast_to(np.asarray(mask), batch + (n_q, n_k))
    output = np.zeros(batch + (n_q, d_v))
    weights = np.zeros(batch + (n_q, n_k))
    for b in np.ndindex(*batch):
        for i in range(n_q):
            q = Qb[b][i].tolist()
            scores = []
            for j in range(n_k):
                s = sum(qa * ka for qa, ka in zip(q, Kb[b][j].tolist())) * scale
                if Mb is not None:
                    m = Mb[b][i][j]
                    if Mb.dtype == bool:
                        s = s if m else -math.inf
                    else:
                        s = s + float(m)
                scores.append(s)
            allowed = [s for s in scores if s != -math.inf]
            if not allowed:  # no key to read: zero weights, zero output
                continue
            top = max(allowed)
            exps = [math.exp(s - top) if s != -math.inf else 0.0 for s in scores]
            total = sum(exps)
            for j in range(n_k):
                w = exps[j] / total
                weights[b][i][j] = w
                for c in range(d_v):
                    output[b][i][c] += w * float(Vb[b][j][c])
    return output, weights


def random_qkv(rng, q_batch=BATCH, k_batch=BATCH, v_batch=BATCH, dtype=np.float64, spread=1.0):
    Q = rng.standard_normal((*q_batch, N_Q, D_K)) * spread
    K = rng.standard_normal((*k_batch, N_K, D_K)) * spread
    V = rng.standard_normal((*v_batch, N_K, D_V))
    return Q.astype(dtype), K.astype(dtype), V.astype(dtype)


def random_bool_mask(rng, shape, fully_masked_rows=True):
    mask = rng.random(shape) < 0.6
    if fully_masked_rows:
        mask[..., 1, :] = False  # query 1 may read nothing
        if shape[-1] > 2:
            mask[..., 3, :] = False
            mask[..., 3, 2] = True  # query 3 may read key 2 only
    return mask


def random_float_mask(rng, shape):
    bias = rng.standard_normal(shape)
    bias[rng.random(shape) < 0.3] = -np.inf
    bias[..., 2, :] = -np.inf  # a fully masked row in the additive form
    return bias


MASK_SHAPES = [(N_Q, N_K), (2, 1, N_Q, N_K), (*BATCH, N_Q, N_K), (1, N_K), (N_Q, 1)]


@pytest.mark.parametrize("seed", range(3))
def test_no_mask(seed):
    rng = np.random.default_rng(seed)
    Q, K, V = random_qkv(rng, spread=2.0)
    output, weights = scaled_dot_product_attention(Q, K, V)
    want_out, want_w = oracle_attention(Q, K, V)
    assert output.shape == (*BATCH, N_Q, D_V) and weights.shape == (*BATCH, N_Q, N_K)
    np.testing.assert_allclose(weights, want_w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(output, want_out, rtol=0, atol=1e-12)


def test_broadcast_batch_axes():
    rng = np.random.default_rng(10)
    Q, K, V = random_qkv(rng, q_batch=(2, 1), k_batch=(1, 3), v_batch=(3,))
    output, weights = scaled_dot_product_attention(Q, K, V)
    want_out, want_w = oracle_attention(Q, K, V)
    assert output.shape == (2, 3, N_Q, D_V)
    np.testing.assert_allclose(weights, want_w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(output, want_out, rtol=0, atol=1e-12)


@pytest.mark.parametrize("mask_shape", MASK_SHAPES)
def test_bool_mask(mask_shape):
    rng = np.random.default_rng(20)
    Q, K, V = random_qkv(rng)
    mask = random_bool_mask(rng, mask_shape, fully_masked_rows=mask_shape[-2] == N_Q)
    output, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    want_out, want_w = oracle_attention(Q, K, V, mask)
    np.testing.assert_allclose(weights, want_w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(output, want_out, rtol=0, atol=1e-12)
    if mask_shape[-2] == N_Q:  # the fully masked row: zeros, not NaN
        assert (weights[..., 1, :] == 0).all() and (output[..., 1, :] == 0).all()
        assert np.isfinite(weights).all() and np.isfinite(output).all()


@pytest.mark.parametrize("mask_shape", [(N_Q, N_K), (*BATCH, N_Q, N_K), (2, 1, N_Q, N_K)])
def test_float_mask(mask_shape):
    rng = np.random.default_rng(30)
    Q, K, V = random_qkv(rng)
    mask = random_float_mask(rng, mask_shape)
    output, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    want_out, want_w = oracle_attention(Q, K, V, mask)
    np.testing.assert_allclose(weights, want_w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(output, want_out, rtol=0, atol=1e-12)
    assert (weights[..., 2, :] == 0).all() and (output[..., 2, :] == 0).all()


def test_explicit_scale():
    rng = np.random.default_rng(40)
    Q, K, V = random_qkv(rng)
    output, weights = scaled_dot_product_attention(Q, K, V, scale=0.3)
    want_out, want_w = oracle_attention(Q, K, V, scale=0.3)
    np.testing.assert_allclose(weights, want_w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(output, want_out, rtol=0, atol=1e-12)


def test_float32_against_oracle():
    rng = np.random.default_rng(50)
    Q, K, V = random_qkv(rng, dtype=np.float32)
    mask = random_bool_mask(rng, (N_Q, N_K))
    output, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    want_out, want_w = oracle_attention(Q, K, V, mask)
    assert output.dtype == weights.dtype == np.float32
    np.testing.assert_allclose(weights, want_w, rtol=0, atol=2e-6)
    np.testing.assert_allclose(output, want_out, rtol=0, atol=2e-6)


def test_integer_inputs_against_oracle():
    rng = np.random.default_rng(60)
    Q, K, V = (rng.integers(-3, 4, size=s) for s in ((2, N_Q, D_K), (2, N_K, D_K), (2, N_K, D_V)))
    output, weights = scaled_dot_product_attention(Q, K, V)
    want_out, want_w = oracle_attention(Q, K, V)
    assert output.dtype == weights.dtype == np.float64
    np.testing.assert_allclose(weights, want_w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(output, want_out, rtol=0, atol=1e-12)


# ---------------------------------------------------------------- blockwise

@pytest.mark.parametrize("block_size", [1, 2, 3, 4, 6, 7, 8, 100])
@pytest.mark.parametrize("masking", [None, "bool", "float"])
def test_blockwise_equals_full(block_size, masking):
    n_k = 7  # block sizes 2, 3, 4 and 6 do not divide it; 1 is the extreme; 7 and 100 are one block
    rng = np.random.default_rng(block_size)
    Q, K, V = random_qkv(rng, spread=3.0)  # spread: the running maximum changes from block to block
    mask = None
    if masking == "bool":
        mask = random_bool_mask(rng, (*BATCH, N_Q, n_k))
        mask[..., 4, :5] = False  # the first blocks of query 4 are all masked, the last are not
    elif masking == "float":
        mask = random_float_mask(rng, (N_Q, n_k))
    full, _ = scaled_dot_product_attention(Q, K, V, mask=mask)
    blocks = blockwise_attention(Q, K, V, block_size=block_size, mask=mask)
    assert blocks.shape == full.shape and blocks.dtype == full.dtype
    np.testing.assert_allclose(blocks, full, rtol=0, atol=1e-12)
    if masking is not None:
        np.testing.assert_allclose(blocks, oracle_attention(Q, K, V, mask)[0], rtol=0, atol=1e-12)


def test_blockwise_broadcasts_and_scalar_mask():
    rng = np.random.default_rng(70)
    Q, K, V = random_qkv(rng, q_batch=(2, 1), k_batch=(1, 3), v_batch=(3,))
    full, _ = scaled_dot_product_attention(Q, K, V)
    np.testing.assert_allclose(blockwise_attention(Q, K, V, block_size=3), full, rtol=0, atol=1e-12)
    np.testing.assert_allclose(blockwise_attention(Q, K, V, block_size=3, mask=True), full, rtol=0, atol=1e-12)
    assert (blockwise_attention(Q, K, V, block_size=3, mask=np.array(False)) == 0).all()


def test_blockwise_float32_and_extreme_scores():
    rng = np.random.default_rng(80)
    Q, K, V = random_qkv(rng, dtype=np.float32, spread=30.0)  # scores of several hundred
    full, _ = scaled_dot_product_attention(Q, K, V)
    blocks = blockwise_attention(Q, K, V, block_size=2)
    assert blocks.dtype == np.float32
    np.testing.assert_allclose(blocks, full, rtol=0, atol=1e-5)


# ---------------------------------------------------------------- heads

def oracle_multi_head(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    """Loop over the heads with explicit column slices of the maps, then concatenate."""
    d_k = W_q.shape[1] // num_heads
    d_v = W_v.shape[1] // num_heads
    heads, weights = [], []
    for h in range(num_heads):
        q_cols = slice(h * d_k, (h + 1) * d_k)
        v_cols = slice(h * d_v, (h + 1) * d_v)
        out_h, w_h = oracle_attention(X_q @ W_q[:, q_cols], X_kv @ W_k[:, q_cols], X_kv @ W_v[:, v_cols], mask)
        heads.append(out_h)
        weights.append(w_h)
    merged = np.concatenate(heads, axis=-1)  # (..., n_q, h * d_v), head 0 first
    return merged @ W_o, np.stack(weights, axis=-3)


def random_maps(rng, d_model, num_heads, d_k, d_v, d_out):
    return (rng.standard_normal((d_model, num_heads * d_k)), rng.standard_normal((d_model, num_heads * d_k)),
            rng.standard_normal((d_model, num_heads * d_v)), rng.standard_normal((num_heads * d_v, d_out)))


@pytest.mark.parametrize("with_mask", [False, True])
def test_multi_head_against_head_loop(with_mask):
    rng = np.random.default_rng(90)
    d_model, num_heads, d_k, d_v, d_out = 6, 3, 2, 4, 5  # per-head widths differ from d_model / h
    X_q = rng.standard_normal((2, N_Q, d_model))
    X_kv = rng.standard_normal((2, N_K, d_model))
    maps = random_maps(rng, d_model, num_heads, d_k, d_v, d_out)
    mask = random_bool_mask(rng, (2, N_Q, N_K)) if with_mask else None
    output, weights = multi_head_attention(X_q, X_kv, *maps, num_heads, mask=mask)
    want_out, want_w = oracle_multi_head(X_q, X_kv, *maps, num_heads, mask=mask)
    assert output.shape == (2, N_Q, d_out) and weights.shape == (2, num_heads, N_Q, N_K)
    np.testing.assert_allclose(weights, want_w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(output, want_out, rtol=1e-12, atol=1e-10)


def test_self_attention_causal_against_head_loop():
    rng = np.random.default_rng(100)
    n, d_model, num_heads = 6, 8, 2
    X = rng.standard_normal((3, n, d_model))
    maps = random_maps(rng, d_model, num_heads, 4, 4, d_model)
    output, weights = self_attention(X, *maps, num_heads, causal=True)
    want_out, want_w = oracle_multi_head(X, X, *maps, num_heads, mask=np.tril(np.ones((n, n))).astype(bool))
    np.testing.assert_allclose(weights, want_w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(output, want_out, rtol=1e-12, atol=1e-10)
    assert (weights[..., np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]] == 0).all()


def test_cross_attention_padding_against_head_loop():
    rng = np.random.default_rng(110)
    n_dec, n_enc, d_model, num_heads = 4, 6, 6, 3
    X_dec = rng.standard_normal((3, n_dec, d_model))
    X_enc = rng.standard_normal((3, n_enc, d_model))
    maps = random_maps(rng, d_model, num_heads, 2, 2, d_model)
    lengths = [6, 2, 0]  # full, short, and empty (every query fully masked)
    output, weights = cross_attention(X_dec, X_enc, *maps, num_heads, enc_lengths=lengths)
    mask = np.array([[j < L for j in range(n_enc)] for L in lengths])[:, None, :]
    want_out, want_w = oracle_multi_head(X_dec, X_enc, *maps, num_heads, mask=mask)
    np.testing.assert_allclose(weights, want_w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(output, want_out, rtol=1e-12, atol=1e-10)
    assert (weights[1, :, :, 2:] == 0).all() and (output[2] == 0).all()
    np.testing.assert_array_equal(padding_mask(lengths, n_enc), mask)


def test_causal_mask_oracle_in_attention():
    rng = np.random.default_rng(120)
    Q, K, V = random_qkv(rng)
    mask = causal_mask(N_Q, N_K)
    output, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    want_out, want_w = oracle_attention(Q, K, V, np.tril(np.ones((N_Q, N_K))).astype(bool))
    np.testing.assert_allclose(weights, want_w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(output, want_out, rtol=0, atol=1e-12)
