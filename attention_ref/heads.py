"""Learned maps and heads: projections, splitting the width into heads, self- and cross-attention."""
from __future__ import annotations

import numpy as np

from ._validate import as_float_array, batch_shape, check_mask, positive_int
from .attention import scaled_dot_product_attention
from .masking import causal_mask, padding_mask


def project(X, W) -> np.ndarray:
    """Apply a learned linear map: one output entry per column of ``W``.

    Parameters
    ----------
    X : array_like, shape (..., n, d_model)
        One row per position.
    W : array_like, shape (d_model, d_out)
        The map: ``d_model`` rows, one column per output entry (no bias).

    Returns
    -------
    ndarray, shape (..., n, d_out)

    Examples
    --------
    >>> project([[1.0, 2.0]], [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    array([[1., 2., 3.]])
    """
    X = as_float_array(X, "X", min_ndim=1, shape_hint="(..., n, d_model)")
    W = as_float_array(W, "W")
    if W.ndim != 2:
        raise ValueError(f"W must be a matrix of shape (d_model, d_out), got shape {W.shape}")
    if X.shape[-1] != W.shape[0]:
        raise ValueError(
            f"W must have one row per entry of X: X has shape {X.shape} (d_model={X.shape[-1]}) "
            f"but W has shape {W.shape} ({W.shape[0]} rows)"
        )
    return X @ W  # (..., n, d_model) @ (d_model, d_out) -> (..., n, d_out)


def attention_param_count(d_model: int, num_heads: int, d_k=None, d_v=None, output_projection: bool = True) -> int:
    """Number of entries in the maps of one multi-head attention layer (no biases).

    The query and key maps are ``d_model x (num_heads * d_k)``, the value map
    ``d_model x (num_heads * d_v)``, the output map ``(num_heads * d_v) x d_model``.

    Parameters
    ----------
    d_model : int
        Width of the input rows.
    num_heads : int
        Number of heads.
    d_k, d_v : int, optional
        Per-head widths; ``d_model // num_heads`` by default (then ``d_model``
        must be divisible by ``num_heads``).
    output_projection : bool, optional
        Count the output map that recombines the heads.

    Returns
    -------
    int
        At fixed total width the heads do not change the count; the output
        projection adds ``d_model**2`` when ``num_heads * d_v == d_model``.

    Examples
    --------
    >>> attention_param_count(512, 8), attention_param_count(512, 1)
    (1048576, 1048576)
    """
    d_model = positive_int(d_model, "d_model")
    num_heads = positive_int(num_heads, "num_heads")
    if (d_k is None or d_v is None) and d_model % num_heads:
        raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}; pass d_k and d_v explicitly")
    d_k = d_model // num_heads if d_k is None else positive_int(d_k, "d_k")
    d_v = d_model // num_heads if d_v is None else positive_int(d_v, "d_v")
    count = d_model * num_heads * (2 * d_k + d_v)  # W_q, W_k, W_v
    if output_projection:
        count += num_heads * d_v * d_model  # W_o
    return count


def split_heads(X, num_heads: int) -> np.ndarray:
    """Cut the width into ``num_heads`` slices and move the head axis in front.

    Parameters
    ----------
    X : array_like, shape (..., n, d_model)
    num_heads : int
        Must divide ``d_model``.

    Returns
    -------
    ndarray, shape (..., num_heads, n, d_model // num_heads)
        Head ``h`` holds columns ``h*d : (h+1)*d`` of every row.

    Examples
    --------
    >>> split_heads(np.arange(4.0).reshape(1, 4), 2)
    array([[[0., 1.]],
    <BLANKLINE>
           [[2., 3.]]])
    """
    X = as_float_array(X, "X", min_ndim=2, shape_hint="(..., n, d_model)")
    num_heads = positive_int(num_heads, "num_heads")
    *batch, n, d_model = X.shape
    if d_model % num_heads:
        raise ValueError(f"the width of X {X.shape} (d_model={d_model}) is not divisible by num_heads={num_heads}")
    X = X.reshape(*batch, n, num_heads, d_model // num_heads)  # (..., n, d_model) -> (..., n, h, d)
    return np.swapaxes(X, -3, -2)  # (..., n, h, d) -> (..., h, n, d)


def merge_heads(X) -> np.ndarray:
    """Inverse of :func:`split_heads`: concatenate the heads along the width.

    Parameters
    ----------
    X : array_like, shape (..., h, n, d)

    Returns
    -------
    ndarray, shape (..., n, h * d)

    Examples
    --------
    >>> X = np.arange(12.0).reshape(2, 6)
    >>> bool((merge_heads(split_heads(X, 3)) == X).all())
    True
    """
    X = as_float_array(X, "X", min_ndim=3, shape_hint="(..., h, n, d)")
    *batch, h, n, d = X.shape
    X = np.swapaxes(X, -3, -2)  # (..., h, n, d) -> (..., n, h, d)
    return X.reshape(*batch, n, h * d)  # (..., n, h, d) -> (..., n, h*d)


def _check_map(W, name: str, d_in: int, X_name: str):
    W = as_float_array(W, name)
    if W.ndim != 2 or W.shape[0] != d_in:
        raise ValueError(f"{name} must have shape ({d_in}, ...) to map rows of {X_name} of width {d_in}, got shape {W.shape}")
    return W


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads: int, mask=None):
    """Multi-head attention: project, split into heads, attend per head, merge, project back.

    Parameters
    ----------
    X_q : array_like, shape (..., n_q, d_model)
        Rows that ask (the queries come from here).
    X_kv : array_like, shape (..., n_k, d_model)
        Rows that are read (keys and values come from here).
    W_q, W_k : array_like, shape (d_model, num_heads * d_k)
    W_v : array_like, shape (d_model, num_heads * d_v)
    W_o : array_like, shape (num_heads * d_v, d_out)
    num_heads : int
        Must divide the widths of the three projections.
    mask : array_like of bool or float, broadcastable to (..., n_q, n_k), optional
        Applied to every head.

    Returns
    -------
    output : ndarray, shape (..., n_q, d_out)
    weights : ndarray, shape (..., num_heads, n_q, n_k)
        Each head divides its scores by the square root of its own width ``d_k``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((5, 8))
    >>> W_q, W_k, W_v, W_o = rng.standard_normal((4, 8, 8))
    >>> out, w = multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads=2)
    >>> out.shape, w.shape
    ((5, 8), (2, 5, 5))
    """
    X_q = as_float_array(X_q, "X_q", min_ndim=2, shape_hint="(..., n_q, d_model)")
    X_kv = as_float_array(X_kv, "X_kv", min_ndim=2, shape_hint="(..., n_k, d_model)")
    num_heads = positive_int(num_heads, "num_heads")
    W_q = _check_map(W_q, "W_q", X_q.shape[-1], "X_q")
    W_k = _check_map(W_k, "W_k", X_kv.shape[-1], "X_kv")
    W_v = _check_map(W_v, "W_v", X_kv.shape[-1], "X_kv")
    if W_q.shape[1] != W_k.shape[1]:
        raise ValueError(f"W_q {W_q.shape} and W_k {W_k.shape} must have the same number of columns (queries and keys share d_k)")
    W_o = _check_map(W_o, "W_o", W_v.shape[1], "the merged heads")
    for name, W in (("W_q", W_q), ("W_v", W_v)):
        if W.shape[1] % num_heads:
            raise ValueError(
                f"{name} has shape {W.shape}: its {W.shape[1]} columns do not split into num_heads={num_heads} equal heads"
            )
    batch = batch_shape("X_q", X_q, "X_kv", X_kv)
    if mask is not None:
        # Checked against the shape the caller knows, before the head axis is added.
        mask = check_mask(mask, (*batch, X_q.shape[-2], X_kv.shape[-2]))
        if mask.ndim >= 2:
            mask = np.expand_dims(mask, -3)  # (..., n_q, n_k) -> (..., 1, n_q, n_k): same for every head
    Q = split_heads(X_q @ W_q, num_heads)  # (..., n_q, h*d_k) -> (..., h, n_q, d_k)
    K = split_heads(X_kv @ W_k, num_heads)  # (..., n_k, h*d_k) -> (..., h, n_k, d_k)
    V = split_heads(X_kv @ W_v, num_heads)  # (..., n_k, h*d_v) -> (..., h, n_k, d_v)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return merge_heads(heads) @ W_o, weights  # (..., h, n_q, d_v) -> (..., n_q, h*d_v) -> (..., n_q, d_out)


def self_attention(X, W_q, W_k, W_v, W_o, num_heads: int, causal: bool = False):
    """Multi-head attention of a sequence over itself.

    Parameters
    ----------
    X : array_like, shape (..., n, d_model)
    W_q, W_k, W_v, W_o, num_heads
        As in :func:`multi_head_attention`.
    causal : bool, optional
        Let position ``i`` read only positions ``j <= i``.

    Returns
    -------
    output : ndarray, shape (..., n, d_out)
    weights : ndarray, shape (..., num_heads, n, n)

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((4, 6))
    >>> W_q, W_k, W_v, W_o = rng.standard_normal((4, 6, 6))
    >>> _, w = self_attention(X, W_q, W_k, W_v, W_o, num_heads=3, causal=True)
    >>> bool((w[:, 0, 1:] == 0).all())
    True
    """
    X = as_float_array(X, "X", min_ndim=2, shape_hint="(..., n, d_model)")
    mask = causal_mask(X.shape[-2]) if causal else None
    return multi_head_attention(X, X, W_q, W_k, W_v, W_o, num_heads, mask=mask)


def cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads: int, enc_lengths=None):
    """The output side (decoder) asks, the input side (encoder) is read.

    Parameters
    ----------
    X_dec : array_like, shape (..., n_dec, d_model)
        Queries come from here.
    X_enc : array_like, shape (..., n_enc, d_model)
        Keys and values come from here.
    W_q, W_k, W_v, W_o, num_heads
        As in :func:`multi_head_attention`.
    enc_lengths : array_like of int, shape (batch,), optional
        True lengths of the encoder sequences; padded positions get weight 0.
        Needs ``X_enc`` of shape ``(batch, n_enc, d_model)``.

    Returns
    -------
    output : ndarray, shape (..., n_dec, d_out)
    weights : ndarray, shape (..., num_heads, n_dec, n_enc)

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X_dec, X_enc = rng.standard_normal((2, 3, 8)), rng.standard_normal((2, 5, 8))
    >>> W_q, W_k, W_v, W_o = rng.standard_normal((4, 8, 8))
    >>> _, w = cross_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, 2, enc_lengths=[5, 2])
    >>> w.shape, bool((w[1, :, :, 2:] == 0).all())
    ((2, 2, 3, 5), True)
    """
    X_enc = as_float_array(X_enc, "X_enc", min_ndim=2, shape_hint="(..., n_enc, d_model)")
    mask = None
    if enc_lengths is not None:
        lengths = np.asarray(enc_lengths)
        if lengths.dtype.kind not in "iu":
            raise TypeError(f"enc_lengths must be integers, got dtype {lengths.dtype} (shape {lengths.shape})")
        if X_enc.ndim != 3 or lengths.shape != (X_enc.shape[0],):
            raise ValueError(
                f"enc_lengths must hold one length per sequence of X_enc (batch, n_enc, d_model): "
                f"X_enc has shape {X_enc.shape}, enc_lengths has shape {lengths.shape}"
            )
        if (lengths < 0).any() or (lengths > X_enc.shape[-2]).any():
            raise ValueError(f"enc_lengths must lie in [0, n_enc={X_enc.shape[-2]}] for X_enc of shape {X_enc.shape}, got {lengths.tolist()}")
        mask = padding_mask(lengths, X_enc.shape[-2])  # (batch, 1, n_enc)
    return multi_head_attention(X_dec, X_enc, W_q, W_k, W_v, W_o, num_heads, mask=mask)
