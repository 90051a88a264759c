"""Scaling: why the scores are divided by sqrt(d_k) before the softmax."""
from __future__ import annotations

import math
import numbers

import numpy as np

from ._validate import as_float_array, positive_int
from .scores import softmax


def scale_scores(scores, d_k: int) -> np.ndarray:
    """Divide the scores by ``sqrt(d_k)``, the typical size of a raw score.

    Parameters
    ----------
    scores : array_like, shape (..., n_q, n_k)
        Raw dot products.
    d_k : int
        Width of the queries and keys.

    Returns
    -------
    ndarray, same shape as ``scores``
        ``scores / sqrt(d_k)``; float32 stays float32 (``math.sqrt`` is a
        Python float, whereas ``np.sqrt(d_k)`` would promote to float64).

    Examples
    --------
    >>> print(np.round(scale_scores([2.0, 1.0, 0.0], 2), 3))
    [1.414 0.707 0.   ]
    """
    scores = as_float_array(scores, "scores")
    d_k = positive_int(d_k, "d_k")
    return scores / math.sqrt(d_k)


def score_variance(d_k: int, n_samples: int = 100_000, rng=None) -> float:
    """Empirical variance of ``q . k`` for independent standard-normal entries.

    Each of the ``d_k`` products has mean 0 and variance 1, so their sum has
    variance ``d_k``: a typical raw score grows like ``sqrt(d_k)``.

    Parameters
    ----------
    d_k : int
        Width of the query and key vectors.
    n_samples : int, optional
        Number of random (query, key) pairs.
    rng : None, int or numpy.random.Generator, optional
        Seed or generator, passed to :func:`numpy.random.default_rng`.

    Returns
    -------
    float
        The sample variance of the dot products (close to ``d_k``).

    Examples
    --------
    >>> v = score_variance(64, n_samples=20_000, rng=0)
    >>> 60 < v < 68
    True
    """
    d_k = positive_int(d_k, "d_k")
    n_samples = positive_int(n_samples, "n_samples")
    if n_samples < 2:
        raise ValueError(f"n_samples must be at least 2 to estimate a variance, got {n_samples}")
    rng = np.random.default_rng(rng)
    dots = np.empty(n_samples)
    # Chunks bound the memory at about 8 MB per operand whatever d_k is.
    chunk = max(1, 1_000_000 // d_k)
    for start in range(0, n_samples, chunk):
        stop = min(start + chunk, n_samples)
        q = rng.standard_normal((stop - start, d_k))
        k = rng.standard_normal((stop - start, d_k))
        dots[start:stop] = np.einsum("ij,ij->i", q, k)  # (m, d_k), (m, d_k) -> (m,)
    return float(dots.var(ddof=1))


def leading_weight(width, scaled: bool = True) -> float:
    """The seeds' synthetic experiment: the leading softmax weight at a given width.

    Raw scores ``(2, 1, 0) * sqrt(width)`` stand for dot products that grow with
    the width. Dividing by ``sqrt(width)`` brings them back to ``(2, 1, 0)``, so
    the leading weight stays 0.665 at every width; without the division it tends
    to 1 and the softmax saturates.

    Parameters
    ----------
    width : int or float
        Key width ``d_k`` (positive).
    scaled : bool, optional
        Divide by ``sqrt(width)`` before the softmax.

    Returns
    -------
    float
        The largest of the three weights, in (1/3, 1].

    Examples
    --------
    >>> round(leading_weight(512), 3), round(leading_weight(512, scaled=False), 3)
    (0.665, 1.0)
    """
    if isinstance(width, bool) or not isinstance(width, numbers.Real) or not width > 0:
        raise ValueError(f"width must be a positive number, got {width!r}")
    raw = np.array([2.0, 1.0, 0.0]) * math.sqrt(width)
    scores = raw / math.sqrt(width) if scaled else raw
    return float(softmax(scores)[0])


def softmax_jacobian(p) -> np.ndarray:
    """Jacobian of the softmax at the output ``p``: ``diag(p) - p p^T``.

    Entry ``(i, j)`` is ``d p_i / d x_j``. When one weight is near 1 and the rest
    near 0 (a saturated softmax) every entry is near 0, so almost no gradient
    flows back to the scores: this is why unscaled attention trains slowly.

    Parameters
    ----------
    p : array_like, shape (n,)
        One probability vector (non-negative, sums to 1).

    Returns
    -------
    ndarray, shape (n, n)
        Symmetric; each row and column sums to 0.

    Examples
    --------
    >>> print(softmax_jacobian([0.5, 0.5]))
    [[ 0.25 -0.25]
     [-0.25  0.25]]
    """
    p = as_float_array(p, "p")
    if p.ndim != 1:
        raise ValueError(f"p must be one probability vector of shape (n,), got shape {p.shape}")
    tol = 1e-4 if p.dtype == np.float32 else 1e-8
    if p.size == 0 or (p < -tol).any() or abs(float(p.sum()) - 1) > tol * max(1, p.size):
        raise ValueError(f"p must be non-negative and sum to 1, got sum {float(p.sum()):.6g}")
    return np.diag(p) - np.outer(p, p)  # (n,) -> (n, n)
