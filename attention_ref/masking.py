"""Masking: which keys each query may attend to (True = may attend, as in PyTorch and JAX)."""
from __future__ import annotations

import numpy as np

from ._validate import as_float_array, check_mask, positive_int


def causal_mask(n_q: int, n_k: int | None = None) -> np.ndarray:
    """Query ``i`` may attend key ``j`` iff ``j <= i``: no peeking at later positions.

    Top-left aligned, like ``torch.tril(torch.ones(n_q, n_k))``.

    Parameters
    ----------
    n_q : int
        Number of queries.
    n_k : int, optional
        Number of keys; ``n_q`` by default.

    Returns
    -------
    ndarray of bool, shape (n_q, n_k)
        Lower-triangular, diagonal included.

    Examples
    --------
    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    """
    n_q = positive_int(n_q, "n_q")
    n_k = n_q if n_k is None else positive_int(n_k, "n_k")
    return np.arange(n_k)[None, :] <= np.arange(n_q)[:, None]  # (1, n_k) vs (n_q, 1) -> (n_q, n_k)


def padding_mask(lengths, n_k: int) -> np.ndarray:
    """Hide the padding at the end of each sequence of a batch.

    Parameters
    ----------
    lengths : array_like of int, shape (batch,)
        True length of each sequence, ``0 <= lengths[b] <= n_k``.
    n_k : int
        Padded length (number of keys).

    Returns
    -------
    ndarray of bool, shape (batch, 1, n_k)
        True where key ``j < lengths[b]``; the middle axis broadcasts over queries.

    Examples
    --------
    >>> padding_mask([2, 3], 3).astype(int)
    array([[[1, 1, 0]],
    <BLANKLINE>
           [[1, 1, 1]]])
    """
    n_k = positive_int(n_k, "n_k")
    lengths = np.asarray(lengths)
    if lengths.dtype.kind not in "iu":
        raise TypeError(f"lengths must be integers, got dtype {lengths.dtype}")
    if lengths.ndim != 1:
        raise ValueError(f"lengths must be 1-D (one length per sequence), got shape {lengths.shape}")
    if (lengths < 0).any() or (lengths > n_k).any():
        raise ValueError(f"lengths must lie in [0, n_k={n_k}], got {lengths.tolist()}")
    return (np.arange(n_k)[None, :] < lengths[:, None])[:, None, :]  # (batch, n_k) -> (batch, 1, n_k)


def apply_mask(scores, mask) -> np.ndarray:
    """Set the scores of forbidden positions to ``-inf`` so the softmax gives them weight 0.

    Parameters
    ----------
    scores : array_like, shape (..., n_q, n_k)
        Scores before the softmax; never modified.
    mask : array_like of bool or float, broadcastable to (..., n_q, n_k)
        Boolean: True = may attend, False = replaced by ``-inf``. Floating: an
        additive bias (``0`` keeps a score, ``-inf`` removes it), as in PyTorch.

    Returns
    -------
    ndarray, same shape and dtype as ``scores``
        A new array.

    Examples
    --------
    >>> apply_mask([[1.0, 2.0]], [[True, False]])
    array([[ 1., -inf]])
    """
    scores = as_float_array(scores, "scores", min_ndim=1)
    mask = check_mask(mask, scores.shape)
    if mask.dtype == bool:
        return np.where(mask, scores, -np.inf)
    return scores + mask.astype(scores.dtype, copy=False)
