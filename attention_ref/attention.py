"""Scaled dot-product attention: compare, scale, mask, softmax, average."""
from __future__ import annotations

import math

import numpy as np

from ._validate import check_mask, check_qkv
from .scores import softmax_inplace


def resolve_scale(scale, d_k: int) -> float:
    """The factor the scores are multiplied by: ``1 / sqrt(d_k)`` unless given."""
    if scale is None:
        if d_k == 0:
            raise ValueError("queries and keys have width d_k=0: the default scale 1/sqrt(d_k) is undefined")
        return 1.0 / math.sqrt(d_k)  # a Python float: float32 scores stay float32 (np.sqrt would promote)
    try:
        return float(scale)
    except (TypeError, ValueError):
        raise TypeError(f"scale must be a number or None, got {scale!r}") from None


def scaled_dot_product_attention(Q, K, V, mask=None, scale=None):
    """``softmax(Q K^T / sqrt(d_k)) V``, with an optional mask.

    Parameters
    ----------
    Q : array_like, shape (..., n_q, d_k)
        Queries.
    K : array_like, shape (..., n_k, d_k)
        Keys.
    V : array_like, shape (..., n_k, d_v)
        Values. Leading (batch) axes of Q, K and V broadcast like matmul's.
    mask : array_like of bool or float, broadcastable to (..., n_q, n_k), optional
        Boolean: True = may attend. Floating: an additive bias on the scaled
        scores, as PyTorch accepts.
    scale : float, optional
        Factor applied to the scores; ``1 / sqrt(d_k)`` by default.

    Returns
    -------
    output : ndarray, shape (..., n_q, d_v)
        Weighted averages of the values.
    weights : ndarray, shape (..., n_q, n_k)
        Each row sums to 1, except a query with no allowed key, whose weights and
        output are all zeros (the guard for the 0/0 of a fully masked row; no NaN,
        no warning). Masked positions get weight exactly 0.

    Examples
    --------
    >>> out, w = scaled_dot_product_attention(
    ...     [[1.0, 0.0]], [[1, 0], [0, 1], [0.5, 0.5]], [[10, 0], [0, 10], [5, 5]])
    >>> print(np.round(w, 4), np.round(out, 3))  # the seed's 0.455, 0.225, 0.320 and (6.15, 3.85), unrounded
    [[0.4555 0.2246 0.3199]] [[6.155 3.845]]
    """
    Q, K, V = check_qkv(Q, K, V)
    factor = resolve_scale(scale, Q.shape[-1])
    # Scaling the n_q x d_k queries instead of the n_q x n_k scores gives the same
    # scaled scores (up to rounding) and saves a pass over the largest array.
    scores = (Q * factor) @ np.swapaxes(K, -1, -2)  # (..., n_q, d_k) @ (..., d_k, n_k) -> (..., n_q, n_k)
    # The score array is ours alone, so every step below works in place for speed:
    # each extra n_q x n_k temporary costs as much time as the softmax itself.
    if mask is not None:
        mask = check_mask(mask, scores.shape)
        if mask.dtype == bool:
            np.copyto(scores, -np.inf, where=~mask)
        else:
            scores += mask
    weights = softmax_inplace(scores)
    output = weights @ V  # (..., n_q, n_k) @ (..., n_k, d_v) -> (..., n_q, d_v)
    return output, weights
