"""Argument checking shared by the reference functions.

Every public function funnels its inputs through here so that a bad argument
fails early with a message naming the argument, its shape and what was expected,
instead of surfacing later as an opaque numpy broadcasting error.
"""
from __future__ import annotations

import numbers

import numpy as np


def as_float_array(x, name: str, *, min_ndim: int = 0, shape_hint: str = "") -> np.ndarray:
    """Return ``x`` as a floating array without copying floating input.

    Integers and booleans are promoted to float64 (so ``[2, 1, 0]`` works as
    scores); floating arrays keep their dtype, so float32 stays float32.
    """
    try:
        arr = np.asarray(x)
    except ValueError as error:  # e.g. a ragged list of lists
        raise ValueError(f"{name} must be a rectangular array of numbers {shape_hint}: {error}") from None
    if arr.dtype.kind in "biu":
        arr = arr.astype(np.float64)
    elif arr.dtype.kind != "f":
        raise TypeError(f"{name} must hold real numbers, got an array of dtype {arr.dtype} and shape {arr.shape}")
    if arr.ndim < min_ndim:
        expected = f" {shape_hint}" if shape_hint else ""
        raise ValueError(
            f"{name} must have at least {min_ndim} dimensions{expected}, got shape {arr.shape}"
        )
    return arr


def positive_int(value, name: str) -> int:
    """Return ``value`` as an ``int`` if it is a positive integer (bool rejected)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer, got {value!r} of type {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value}")
    return int(value)


def batch_shape(name_a: str, a: np.ndarray, name_b: str, b: np.ndarray) -> tuple[int, ...]:
    """Broadcast the leading (batch) axes of two stacks of matrices, as matmul does."""
    try:
        return np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the batch axes of {name_a} {a.shape} and {name_b} {b.shape} do not broadcast: "
            f"leading axes {a.shape[:-2]} vs {b.shape[:-2]}"
        ) from None


def check_qkv(Q, K, V=None):
    """Validate queries, keys and (optionally) values against the shape vocabulary.

    ``Q: (..., n_q, d_k)``, ``K: (..., n_k, d_k)``, ``V: (..., n_k, d_v)``.
    """
    Q = as_float_array(Q, "Q", min_ndim=2, shape_hint="(..., n_q, d_k)")
    K = as_float_array(K, "K", min_ndim=2, shape_hint="(..., n_k, d_k)")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(
            f"queries and keys must share their width d_k: Q has shape {Q.shape} (d_k={Q.shape[-1]}) "
            f"but K has shape {K.shape} (d_k={K.shape[-1]})"
        )
    batch_shape("Q", Q, "K", K)
    if V is None:
        return Q, K
    V = as_float_array(V, "V", min_ndim=2, shape_hint="(..., n_k, d_v)")
    if V.shape[-2] != K.shape[-2]:
        raise ValueError(
            f"K and V must have one row per key: K has shape {K.shape} (n_k={K.shape[-2]}) "
            f"but V has shape {V.shape} (n_k={V.shape[-2]})"
        )
    batch_shape("K", K, "V", V)
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    except ValueError:
        raise ValueError(
            f"the batch axes of Q {Q.shape}, K {K.shape} and V {V.shape} do not broadcast together: "
            f"leading axes {Q.shape[:-2]}, {K.shape[:-2]} and {V.shape[:-2]}"
        ) from None
    return Q, K, V


def check_mask(mask, scores_shape: tuple[int, ...]) -> np.ndarray:
    """Validate a mask against the shape ``(..., n_q, n_k)`` of the scores it applies to.

    Boolean masks follow PyTorch's and JAX's convention (True = may attend);
    floating masks are additive biases. Anything else is a ``TypeError``.
    """
    mask = np.asarray(mask)
    if mask.dtype.kind not in "bf":
        raise TypeError(
            f"mask must be boolean (True = may attend) or floating (an additive bias), "
            f"got dtype {mask.dtype} (shape {mask.shape})"
        )
    try:
        broadcast = np.broadcast_shapes(mask.shape, scores_shape)
    except ValueError:
        broadcast = None
    if broadcast != tuple(scores_shape):
        raise ValueError(
            f"mask of shape {mask.shape} does not broadcast to the scores' shape "
            f"(..., n_q, n_k) = {tuple(scores_shape)}"
        )
    return mask
