"""Three compatibility (score) functions and what each costs: additive, scaled dot-product, bilinear.

Row-vector convention, as everywhere in this package: a map ``W`` of shape ``(d_in, h)`` sends a
row ``x`` to ``x @ W``. Every function takes queries ``Q`` ``(..., n_q, d_q)`` and keys ``K``
``(..., n_k, d_k)`` *before* any projection and returns scores ``(..., n_q, n_k)``, so the three
can be compared on the same inputs with the parameters each one learns.
"""
from __future__ import annotations

import math

import numpy as np

from ._validate import as_float_array

KINDS = ("additive", "dot", "bilinear")


def _inputs(Q, K):
    Q, K = as_float_array(Q, "Q"), as_float_array(K, "K")
    if Q.ndim < 2 or K.ndim < 2:
        raise ValueError(f"Q and K must have at least 2 axes (..., n, width), got Q {Q.shape} and K {K.shape}")
    return Q, K


def _map(W, name: str, rows: int, what: str) -> np.ndarray:
    W = as_float_array(W, name)
    if W.ndim != 2 or W.shape[0] != rows:
        raise ValueError(f"{name} must have shape ({rows}, h) to map {what}, got {W.shape}")
    return W


def additive_scores(Q, K, W_q, W_k, v) -> np.ndarray:
    """Additive (Bahdanau) scores ``v^T tanh(q W_q + k W_k)`` for every query-key pair.

    Parameters
    ----------
    Q : array_like, shape (..., n_q, d_q)
    K : array_like, shape (..., n_k, d_k)
    W_q : array_like, shape (d_q, h)
    W_k : array_like, shape (d_k, h)
    v : array_like, shape (h,)

    Returns
    -------
    ndarray, shape (..., n_q, n_k)
        ``scores[..., i, j] = v @ tanh(Q[i] @ W_q + K[j] @ W_k)``. The tanh of the *sum* makes the
        score depend on the pair; a tanh of each part alone would split it into a query term plus a
        key term, and the softmax over keys would ignore the query term.

    Examples
    --------
    >>> additive_scores([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], np.eye(2), np.eye(2), [1.0, 1.0]).round(4)
    array([[0.964 , 1.5232]])
    """
    Q, K = _inputs(Q, K)
    W_q = _map(W_q, "W_q", Q.shape[-1], "the queries")
    W_k = _map(W_k, "W_k", K.shape[-1], "the keys")
    v = as_float_array(v, "v")
    if v.shape != (W_q.shape[1],) or W_k.shape[1] != W_q.shape[1]:
        raise ValueError(f"W_q {W_q.shape}, W_k {W_k.shape} and v {v.shape} must share the hidden width h")
    hidden = (Q @ W_q)[..., :, None, :] + (K @ W_k)[..., None, :, :]  # (..., n_q, n_k, h): every pair
    return np.tanh(hidden) @ v


def scaled_dot_scores(Q, K, W_q, W_k) -> np.ndarray:
    """Scaled dot-product scores ``(q W_q) . (k W_k) / sqrt(h)`` for every query-key pair.

    Parameters
    ----------
    Q : array_like, shape (..., n_q, d_q)
    K : array_like, shape (..., n_k, d_k)
    W_q : array_like, shape (d_q, h)
    W_k : array_like, shape (d_k, h)

    Returns
    -------
    ndarray, shape (..., n_q, n_k)
        The divisor is the square root of the *projected* width ``h``, the length of the vectors
        whose dot product is taken.

    Examples
    --------
    >>> scaled_dot_scores([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], np.eye(2), np.eye(2)).round(4)
    array([[0.7071, 0.    ]])
    """
    Q, K = _inputs(Q, K)
    W_q = _map(W_q, "W_q", Q.shape[-1], "the queries")
    W_k = _map(W_k, "W_k", K.shape[-1], "the keys")
    if W_k.shape[1] != W_q.shape[1]:
        raise ValueError(f"W_q {W_q.shape} and W_k {W_k.shape} must share the projected width h")
    return (Q @ W_q) @ np.swapaxes(K @ W_k, -1, -2) / math.sqrt(W_q.shape[1])


def bilinear_scores(Q, K, W) -> np.ndarray:
    """Bilinear scores ``q^T W k`` for every query-key pair (one learned matrix, no divisor).

    Parameters
    ----------
    Q : array_like, shape (..., n_q, d_q)
    K : array_like, shape (..., n_k, d_k)
    W : array_like, shape (d_q, d_k)

    Returns
    -------
    ndarray, shape (..., n_q, n_k)
        ``Q @ W @ K^T``. Scaled dot-product scores are the special case ``W = W_q W_k^T / sqrt(h)``,
        a matrix of rank at most ``h``.

    Examples
    --------
    >>> bilinear_scores([[1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]], [[0.0, 2.0], [0.0, 0.0]])
    array([[0., 2.]])
    """
    Q, K = _inputs(Q, K)
    W = as_float_array(W, "W")
    if W.shape != (Q.shape[-1], K.shape[-1]):
        raise ValueError(f"W must have shape (d_q, d_k) = {(Q.shape[-1], K.shape[-1])}, got {W.shape}")
    return Q @ W @ np.swapaxes(K, -1, -2)


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(map(repr, KINDS))}, got {kind!r}")


def score_costs(kind: str, n: int, d: int, h: int) -> tuple[int, int]:
    """Parameters and multiply-adds of one score table for ``n`` items of width ``d`` (self-attention).

    Parameters
    ----------
    kind : {"additive", "dot", "bilinear"}
    n : int
        Number of items (queries = keys = n).
    d : int
        Width of every item (``d_q = d_k = d``).
    h : int
        Hidden (projected) width of the additive and dot-product scores; ignored by ``"bilinear"``,
        whose one matrix is ``d x d``.

    Returns
    -------
    (int, int)
        ``(parameters, multiply_adds)`` for the whole ``n x n`` table. Counted multiply-adds: the
        projections (``2 n d h``), then ``h`` per pair (the dot product, or ``v^T`` of the additive
        hidden vector); bilinear: ``Q W`` (``n d^2``) then ``d`` per pair. Additions, the tanh
        (``n^2 h`` of them for additive) and the divisor are not counted.

    Examples
    --------
    >>> [score_costs(kind, 8, 16, 8) for kind in KINDS]
    [(264, 2560), (256, 2560), (256, 3072)]
    """
    _check_kind(kind)
    if kind == "bilinear":
        return d * d, n * d * d + n * n * d
    parameters = 2 * d * h + (h if kind == "additive" else 0)  # W_q and W_k, plus v for additive
    return parameters, 2 * n * d * h + n * n * h


def width_for_budget(kind: str, d: int, budget: int) -> int:
    """The largest hidden width ``h >= 1`` whose score parameters fit in ``budget``.

    Parameters
    ----------
    kind : {"additive", "dot"}
    d : int
        Width of the items.
    budget : int
        Largest number of parameters allowed.

    Returns
    -------
    int
        ``budget // (2 d + 1)`` for additive (``W_q``, ``W_k`` and ``v``), ``budget // (2 d)`` for dot.

    Examples
    --------
    >>> width_for_budget("additive", 16, 256), width_for_budget("dot", 16, 256)
    (7, 8)
    """
    if kind not in ("additive", "dot"):
        raise ValueError(f"kind must be 'additive' or 'dot' (bilinear has no hidden width), got {kind!r}")
    per_unit = 2 * d + (1 if kind == "additive" else 0)
    if budget < per_unit:
        raise ValueError(f"a budget of {budget} parameters fits no hidden unit of width-{d} {kind} scores")
    return budget // per_unit


def score_asymmetry(X, W_q, W_k) -> float:
    """The largest gap between "i reads j" and "j reads i" in the scores ``(X W_q)(X W_k)^T``.

    Parameters
    ----------
    X : array_like, shape (n, d_model)
        One row per position.
    W_q, W_k : array_like, shape (d_model, d_k)
        The query and key maps.

    Returns
    -------
    float
        ``max |S - S^T|`` for ``S = (X W_q)(X W_k)^T``: exactly 0 when ``W_q = W_k``, because
        ``S = X W W^T X^T`` is then symmetric; two maps let the two directions differ.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> score_asymmetry(X, np.eye(2), np.eye(2)), score_asymmetry(X, np.eye(2), [[0.0, 1.0], [0.0, 0.0]])
    (0.0, 1.0)
    """
    X = as_float_array(X, "X")
    if X.ndim != 2:
        raise ValueError(f"X must have shape (n, d_model), got {X.shape}")
    W_q = _map(W_q, "W_q", X.shape[1], "the positions")
    W_k = _map(W_k, "W_k", X.shape[1], "the positions")
    S = (X @ W_q) @ (X @ W_k).T
    return float(np.abs(S - S.T).max())
