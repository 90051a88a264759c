"""Attention for long sequences: the same result without the n_q x n_k table of weights."""
from __future__ import annotations

import numpy as np

from ._validate import check_mask, check_qkv, positive_int
from .attention import resolve_scale


def blockwise_attention(Q, K, V, block_size: int = 128, mask=None, scale=None) -> np.ndarray:
    """Exact scaled dot-product attention over key blocks with an online softmax.

    Keys and values are read ``block_size`` at a time. Each query keeps a running
    maximum ``m``, a running total ``l`` of ``exp(score - m)`` and a running
    weighted sum of values; when a block raises the maximum, the old total and
    sum are rescaled by ``exp(m_old - m_new)``. Memory grows like
    ``n_q * block_size`` instead of ``n_q * n_k``.

    Parameters
    ----------
    Q : array_like, shape (..., n_q, d_k)
    K : array_like, shape (..., n_k, d_k)
    V : array_like, shape (..., n_k, d_v)
    block_size : int, optional
        Number of keys per block.
    mask : array_like of bool or float, broadcastable to (..., n_q, n_k), optional
        As in :func:`scaled_dot_product_attention`; sliced per block, never expanded.
    scale : float, optional
        ``1 / sqrt(d_k)`` by default.

    Returns
    -------
    ndarray, shape (..., n_q, d_v)
        Equal to ``scaled_dot_product_attention(Q, K, V, mask)[0]`` up to
        rounding (1e-12 in float64); zeros for a query with no allowed key.

    Examples
    --------
    >>> from attention_ref import scaled_dot_product_attention
    >>> rng = np.random.default_rng(0)
    >>> Q, K, V = rng.standard_normal((4, 6)), rng.standard_normal((10, 6)), rng.standard_normal((10, 3))
    >>> full, _ = scaled_dot_product_attention(Q, K, V)
    >>> bool(np.allclose(blockwise_attention(Q, K, V, block_size=3), full, rtol=0, atol=1e-12))
    True
    """
    Q, K, V = check_qkv(Q, K, V)
    block_size = positive_int(block_size, "block_size")
    factor = resolve_scale(scale, Q.shape[-1])
    n_q, n_k = Q.shape[-2], K.shape[-2]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    if mask is not None:
        mask = check_mask(mask, (*batch, n_q, n_k))
    dtype = np.result_type(Q, K, V)
    Q = Q * factor  # scale the queries once, as scaled_dot_product_attention does (a new array: the input is untouched)
    running_max = np.full((*batch, n_q, 1), -np.inf, dtype=dtype)
    running_total = np.zeros((*batch, n_q, 1), dtype=dtype)
    acc = np.zeros((*batch, n_q, V.shape[-1]), dtype=dtype)  # (..., n_q, d_v)
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        scores = Q @ np.swapaxes(K[..., start:stop, :], -1, -2)  # (..., n_q, d_k) @ (..., d_k, b) -> (..., n_q, b)
        if mask is not None:
            block_mask = mask[..., start:stop] if mask.ndim and mask.shape[-1] > 1 else mask
            if mask.dtype == bool:
                np.copyto(scores, -np.inf, where=~block_mask)
            else:
                scores += block_mask
        new_max = np.maximum(running_max, scores.max(axis=-1, keepdims=True))
        # While every key seen so far is masked the maximum is -inf; shifting by 0
        # keeps exp(-inf) = 0 instead of the nan of -inf - -inf.
        shift = np.where(new_max == -np.inf, 0, new_max)
        rescale = np.exp(running_max - shift)  # (..., n_q, 1); 0 while nothing was allowed
        scores -= shift
        np.exp(scores, out=scores)  # now unnormalised weights of this block
        running_total = running_total * rescale + scores.sum(axis=-1, keepdims=True)
        acc = acc * rescale + scores @ V[..., start:stop, :]  # (..., n_q, b) @ (..., b, d_v) -> (..., n_q, d_v)
        running_max = new_max
    # A query with no allowed key has total 0 and sum 0: divide by 1 to keep zeros.
    running_total[running_total == 0] = 1
    return acc / running_total
