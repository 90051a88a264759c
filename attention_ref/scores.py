"""Scores and softmax: compare each query with every key, turn scores into weights."""
from __future__ import annotations

import numpy as np

from ._validate import as_float_array, batch_shape, check_qkv


def dot_product(q, k) -> float:
    """Dot product of two vectors: multiply matching entries and add the results.

    Parameters
    ----------
    q : array_like, shape (d_k,)
        A query vector.
    k : array_like, shape (d_k,)
        A key vector of the same length.

    Returns
    -------
    float
        ``sum_i q[i] * k[i]`` as a Python float: positive for vectors pointing the
        same way, zero for perpendicular ones, negative for opposing ones.

    Examples
    --------
    >>> dot_product([1, 0], [0.5, 0.5])
    0.5
    """
    q = as_float_array(q, "q")
    k = as_float_array(k, "k")
    if q.ndim != 1 or k.ndim != 1:
        raise ValueError(f"q and k must be 1-D vectors, got q of shape {q.shape} and k of shape {k.shape}")
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same length, got q of shape {q.shape} and k of shape {k.shape}")
    return float(q @ k)


def attention_scores(Q, K) -> np.ndarray:
    """Every query against every key: ``Q @ K^T`` over the last two axes.

    Parameters
    ----------
    Q : array_like, shape (..., n_q, d_k)
        Queries, one per row.
    K : array_like, shape (..., n_k, d_k)
        Keys, one per row; leading (batch) axes broadcast with those of ``Q``.

    Returns
    -------
    ndarray, shape (..., n_q, n_k)
        ``scores[..., i, j]`` is the dot product of query ``i`` with key ``j``.

    Examples
    --------
    >>> attention_scores([[1, 0]], [[1, 0], [0, 1], [-1, 0]])
    array([[ 1.,  0., -1.]])
    """
    Q, K = check_qkv(Q, K)
    return Q @ np.swapaxes(K, -1, -2)  # (..., n_q, d_k) @ (..., d_k, n_k) -> (..., n_q, n_k)


def softmax_inplace(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax that overwrites ``x`` (a floating array the caller owns); returns it.

    Kept separate from :func:`softmax` so that attention can reuse its own score array
    instead of allocating three more arrays of the same size.
    """
    if x.shape[axis] == 0:  # no keys at all: nothing to normalise (and max() would fail)
        return x
    row_max = x.max(axis=axis, keepdims=True)
    # A slice that is entirely -inf (every key masked) would give -inf - -inf = nan;
    # subtracting 0 instead leaves exp(-inf) = 0 and a zero total, handled below.
    row_max[row_max == -np.inf] = 0
    x -= row_max  # the largest entry becomes 0, so exp cannot overflow
    np.exp(x, out=x)
    total = x.sum(axis=axis, keepdims=True)
    # After the shift the largest exponential is exactly 1, so a total of 0 means
    # the whole slice was masked; dividing by 1 keeps its zeros instead of 0/0.
    total[total == 0] = 1
    x /= total
    return x


def softmax(x, axis: int = -1) -> np.ndarray:
    """Turn scores into weights: ``exp(x) / sum(exp(x))`` along ``axis``.

    Parameters
    ----------
    x : array_like
        Scores. ``-inf`` entries (masked positions) get weight exactly 0.
    axis : int, optional
        The axis whose slices are normalised; the key axis ``-1`` by default.

    Returns
    -------
    ndarray, same shape as ``x``
        Non-negative weights that sum to 1 along ``axis``; a slice that is
        entirely ``-inf`` gives all zeros (not NaN). Floating input keeps its
        dtype, integer input is promoted to float64. No overflow at scores of
        1e4, because the slice maximum is subtracted first.

    Examples
    --------
    >>> print(np.round(softmax([2.0, 1.0, 0.0]), 3))
    [0.665 0.245 0.09 ]
    """
    x = as_float_array(x, "x")
    if x.ndim == 0 and axis in (-1, 0):  # a single score is its own slice: weight 1
        return np.ones_like(x)
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis {axis!r} is out of range for x of shape {x.shape}")
    return softmax_inplace(x.copy(), axis=axis)


def weighted_average(weights, V) -> np.ndarray:
    """Average the values with the attention weights: ``weights @ V``.

    Parameters
    ----------
    weights : array_like, shape (..., n_q, n_k)
        One row of weights per query (rows normally sum to 1).
    V : array_like, shape (..., n_k, d_v)
        Values, one row per key.

    Returns
    -------
    ndarray, shape (..., n_q, d_v)
        Row ``i`` is ``sum_j weights[..., i, j] * V[..., j, :]``.

    Examples
    --------
    >>> w = softmax([[2.0, 1.0, 0.0]])
    >>> print(np.round(weighted_average(w, [[1.0], [2.0], [3.0]]), 3))
    [[1.425]]
    """
    weights = as_float_array(weights, "weights", min_ndim=2, shape_hint="(..., n_q, n_k)")
    V = as_float_array(V, "V", min_ndim=2, shape_hint="(..., n_k, d_v)")
    if weights.shape[-1] != V.shape[-2]:
        raise ValueError(
            f"weights must have one column per row of V: weights has shape {weights.shape} "
            f"(n_k={weights.shape[-1]}) but V has shape {V.shape} (n_k={V.shape[-2]})"
        )
    batch_shape("weights", weights, "V", V)
    return weights @ V  # (..., n_q, n_k) @ (..., n_k, d_v) -> (..., n_q, d_v)
