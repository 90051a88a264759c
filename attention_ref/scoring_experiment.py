"""A small, seeded comparison of the three score functions at one parameter budget (notebook 07).

The task is retrieval where relevance is *not* raw alignment: each query ``q`` meets ``n_keys``
keys; the relevant one is ``R q`` plus noise, for a fixed random rotation ``R``, and one
distractor key is ``q`` itself, perfectly aligned and irrelevant. A score function is trained by
full-batch gradient descent (Adam) on the cross-entropy of the softmax over keys against the
relevant key; the gradients are derived by hand below (``tests/attention_ref/test_scoring.py``
checks them against finite differences). One core, a few seconds per run.

The notebook gives this module while it grades the score functions of :mod:`.scoring`, so nothing
here calls them (the sandbox hands a notebook only what its given functions reach): the forward
pass is written out below, with the intermediate arrays the backward pass needs, and
``tests/attention_ref/test_scoring.py`` checks it against :mod:`.scoring`.
"""
from __future__ import annotations

import math

import numpy as np

from .scores import softmax
from .scoring import KINDS


def make_task(rng: np.random.Generator, rotation: np.ndarray, size: int, n_keys: int, noise: float = 0.3) -> tuple:
    """``size`` queries, each with ``n_keys`` unit keys: one relevant (``R q`` + noise), one the query itself.

    Returns ``(Q, K, target)``: queries (B, d), keys (B, n_keys, d), the index of the relevant key (B,).
    A plain tuple, not a class: the sandbox's cut-down package keeps functions and constants only.
    """
    d = rotation.shape[0]
    unit = lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True)  # noqa: E731
    Q = unit(rng.standard_normal((size, d)))
    K = unit(rng.standard_normal((size, n_keys, d)))
    K[:, 1] = Q  # the distractor: perfectly aligned with the query, never relevant
    K[:, 0] = unit(Q @ rotation.T + noise * rng.standard_normal((size, d)) / math.sqrt(d))
    order = np.argsort(rng.random((size, n_keys)), axis=1)  # shuffle the keys of every query
    K = np.take_along_axis(K, order[..., None], axis=1)
    return Q, K, np.argmax(order == 0, axis=1)


def init_params(kind: str, rng: np.random.Generator, d: int, h: int) -> dict:
    """Initial parameters with scores of variance about one at the start, whatever the kind."""
    if kind == "bilinear":
        return {"W": rng.standard_normal((d, d)) * math.sqrt(d) / d}
    params = {"W_q": rng.standard_normal((d, h)), "W_k": rng.standard_normal((d, h))}
    if kind == "additive":
        params = {name: W / math.sqrt(2) for name, W in params.items()}
        params["v"] = rng.standard_normal(h) / math.sqrt(h)
    return params


def forward(kind: str, params: dict, Q: np.ndarray, K: np.ndarray) -> tuple[np.ndarray, tuple]:
    """Scores (B, n_keys) of each query against its own keys, and what the backward pass reuses."""
    if kind == "bilinear":
        return (K @ (Q @ params["W"])[:, :, None])[..., 0], ()  # q^T W k per key, (B, n_keys)
    a, c = Q @ params["W_q"], K @ params["W_k"]  # (B, h), (B, n_keys, h)
    if kind == "dot":
        return (c @ a[:, :, None])[..., 0] / math.sqrt(a.shape[-1]), (a, c)
    t = np.tanh(a[:, None, :] + c)  # one hidden vector per query-key pair
    return t @ params["v"], (a, c, t)


def scores(kind: str, params: dict, Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    """Scores (B, n_keys) of each query against its own keys."""
    return forward(kind, params, Q, K)[0]


def loss_and_grads(kind: str, params: dict, task: tuple) -> tuple[float, dict]:
    """Mean cross-entropy over queries and its gradient with respect to every parameter."""
    Q, K, target = task
    size = len(target)
    s, cache = forward(kind, params, Q, K)
    p = softmax(s)
    loss = -float(np.mean(np.log(p[np.arange(size), target] + 1e-12)))
    g = p.copy()
    g[np.arange(size), target] -= 1
    g /= size  # d loss / d score, (B, n_keys)
    if kind == "bilinear":
        return loss, {"W": Q.T @ (g[:, None, :] @ K)[:, 0, :]}
    if kind == "dot":
        a, c = cache
        root = math.sqrt(a.shape[-1])
        da = (g[:, None, :] @ c)[:, 0, :] / root
        dc = g[..., None] * a[:, None, :] / root
        return loss, {"W_q": Q.T @ da, "W_k": _pairs(K).T @ _pairs(dc)}
    _, _, t = cache
    dz = g[..., None] * params["v"] * (1 - t * t)  # through v^T and tanh, (B, n_keys, h)
    return loss, {"W_q": Q.T @ dz.sum(axis=1), "W_k": _pairs(K).T @ _pairs(dz), "v": g.reshape(-1) @ _pairs(t)}


def _pairs(x: np.ndarray) -> np.ndarray:
    """(B, n_keys, m) -> (B * n_keys, m): a sum over queries and keys as one matrix product (BLAS, not einsum's loops)."""
    return x.reshape(-1, x.shape[-1])


def accuracy(kind: str, params: dict, task: tuple) -> float:
    """Share of queries whose highest score is the relevant key."""
    Q, K, target = task
    return float(np.mean(np.argmax(scores(kind, params, Q, K), axis=1) == target))


def train(kind: str, train_task: tuple, test_task: tuple, h: int, *, seed: int, steps: int = 300,
          lr: float = 0.03) -> tuple[dict, list[float]]:
    """Adam on the full training set; returns the parameters and the test accuracy every 10 steps."""
    rng = np.random.default_rng(seed)
    params = init_params(kind, rng, train_task[0].shape[1], h)
    m = {k: np.zeros_like(w) for k, w in params.items()}
    s = {k: np.zeros_like(w) for k, w in params.items()}
    curve = []
    for step in range(1, steps + 1):
        _, grads = loss_and_grads(kind, params, train_task)
        for k, grad in grads.items():
            m[k] = 0.9 * m[k] + 0.1 * grad
            s[k] = 0.999 * s[k] + 0.001 * grad * grad
            params[k] -= lr * (m[k] / (1 - 0.9 ** step)) / (np.sqrt(s[k] / (1 - 0.999 ** step)) + 1e-8)
        if step % 10 == 0:
            curve.append(accuracy(kind, params, test_task))
    return params, curve


def compare_scorers(d: int = 16, n_keys: int = 8, seeds=(0, 1, 2), steps: int = 300,
                    train_size: int = 512, test_size: int = 2048) -> dict:
    """Train the three kinds at the budget ``d * d`` (the bilinear matrix) on the same data, per seed.

    Returns
    -------
    dict
        ``rows``: one dict per kind (``kind``, ``h``, ``parameters`` counted from the trained arrays,
        the mean ``train_accuracy``, mean and spread of the final test ``accuracy`` over
        seeds); ``curves``:
        kind -> (seeds, steps // 10) test accuracies; ``raw_alignment``: the accuracy of the
        untrained dot product ``q . k`` on the test set; ``steps``.
    """
    budget = d * d
    # the largest hidden width within the budget: 2 d h (+ h for v) parameters
    widths = {"additive": budget // (2 * d + 1), "dot": budget // (2 * d), "bilinear": d}
    curves = {kind: [] for kind in KINDS}
    fitted = {kind: [] for kind in KINDS}  # accuracy on the training set: memorised or learned?
    sizes = {}
    raw = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        rotation, _ = np.linalg.qr(rng.standard_normal((d, d)))
        train_task = make_task(rng, rotation, train_size, n_keys)
        test_task = make_task(rng, rotation, test_size, n_keys)
        raw.append(accuracy("bilinear", {"W": np.eye(d)}, test_task))
        for kind in KINDS:
            params, curve = train(kind, train_task, test_task, widths[kind], seed=seed, steps=steps)
            curves[kind].append(curve)
            fitted[kind].append(accuracy(kind, params, train_task))
            sizes[kind] = sum(w.size for w in params.values())  # parameters counted from the arrays
    rows = []
    for kind in KINDS:
        final = np.array(curves[kind])[:, -1]
        rows.append({"kind": kind, "h": widths[kind], "parameters": sizes[kind],
                     "train_accuracy": float(np.mean(fitted[kind])),
                     "accuracy": float(final.mean()), "spread": float(final.max() - final.min())})
    return {"rows": rows, "curves": {k: np.array(v) for k, v in curves.items()},
            "raw_alignment": float(np.mean(raw)), "steps": steps}
