"""A small, seeded comparison of the three score functions at one parameter budget (notebook 07).

The task is retrieval where relevance is *not* raw alignment: each query ``q`` meets ``n_keys``
keys; the relevant one is ``R q`` plus noise, for a fixed random rotation ``R``, and one
distractor key is ``q`` itself, perfectly aligned and irrelevant. A score function is trained by
full-batch gradient descent (Adam) on the cross-entropy of the softmax over keys against the
relevant key; the gradients are derived by hand below (``tests/attention_ref/test_scoring.py``
checks them against finite differences). One core, a few seconds per run.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .scores import softmax
from .scoring import KINDS, additive_scores, bilinear_scores, scaled_dot_scores, score_costs, width_for_budget


@dataclass(frozen=True)
class Task:
    """Queries ``Q`` (B, d), keys ``K`` (B, n_keys, d) and the index of the relevant key (B,)."""

    Q: np.ndarray
    K: np.ndarray
    target: np.ndarray


def make_task(rng: np.random.Generator, rotation: np.ndarray, size: int, n_keys: int, noise: float = 0.3) -> Task:
    """``size`` queries, each with ``n_keys`` unit keys: one relevant (``R q`` + noise), one the query itself."""
    d = rotation.shape[0]
    unit = lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True)  # noqa: E731
    Q = unit(rng.standard_normal((size, d)))
    K = unit(rng.standard_normal((size, n_keys, d)))
    K[:, 1] = Q  # the distractor: perfectly aligned with the query, never relevant
    K[:, 0] = unit(Q @ rotation.T + noise * rng.standard_normal((size, d)) / math.sqrt(d))
    order = np.argsort(rng.random((size, n_keys)), axis=1)  # shuffle the keys of every query
    K = np.take_along_axis(K, order[..., None], axis=1)
    return Task(Q, K, np.argmax(order == 0, axis=1))


def init_params(kind: str, rng: np.random.Generator, d: int, h: int) -> dict:
    """Initial parameters with scores of variance about one at the start, whatever the kind."""
    if kind == "bilinear":
        return {"W": rng.standard_normal((d, d)) * math.sqrt(d) / d}
    params = {"W_q": rng.standard_normal((d, h)), "W_k": rng.standard_normal((d, h))}
    if kind == "additive":
        params = {name: W / math.sqrt(2) for name, W in params.items()}
        params["v"] = rng.standard_normal(h) / math.sqrt(h)
    return params


def scores(kind: str, params: dict, Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    """Scores (B, n_keys) of each query against its own keys."""
    Q1 = Q[:, None, :]  # (B, 1, d): one query against its own n_keys keys
    if kind == "additive":
        out = additive_scores(Q1, K, params["W_q"], params["W_k"], params["v"])
    elif kind == "dot":
        out = scaled_dot_scores(Q1, K, params["W_q"], params["W_k"])
    else:
        out = bilinear_scores(Q1, K, params["W"])
    return out[:, 0, :]


def loss_and_grads(kind: str, params: dict, task: Task) -> tuple[float, dict]:
    """Mean cross-entropy over queries and its gradient with respect to every parameter."""
    Q, K, size = task.Q, task.K, len(task.target)
    p = softmax(scores(kind, params, Q, K))
    loss = -float(np.mean(np.log(p[np.arange(size), task.target] + 1e-12)))
    g = p.copy()
    g[np.arange(size), task.target] -= 1
    g /= size  # d loss / d score, (B, n_keys)
    if kind == "bilinear":
        return loss, {"W": np.einsum("bd,bn,bne->de", Q, g, K)}
    a, c = Q @ params["W_q"], K @ params["W_k"]  # (B, h), (B, n_keys, h)
    if kind == "dot":
        root = math.sqrt(a.shape[-1])
        da = np.einsum("bn,bnh->bh", g, c) / root
        dc = g[..., None] * a[:, None, :] / root
        return loss, {"W_q": Q.T @ da, "W_k": np.einsum("bnd,bnh->dh", K, dc)}
    t = np.tanh(a[:, None, :] + c)
    dz = g[..., None] * params["v"] * (1 - t * t)  # through v^T and tanh, (B, n_keys, h)
    return loss, {"W_q": Q.T @ dz.sum(axis=1), "W_k": np.einsum("bnd,bnh->dh", K, dz),
                  "v": np.einsum("bn,bnh->h", g, t)}


def accuracy(kind: str, params: dict, task: Task) -> float:
    """Share of queries whose highest score is the relevant key."""
    return float(np.mean(np.argmax(scores(kind, params, task.Q, task.K), axis=1) == task.target))


def train(kind: str, train_task: Task, test_task: Task, h: int, *, seed: int, steps: int = 300,
          lr: float = 0.03) -> tuple[dict, list[float]]:
    """Adam on the full training set; returns the parameters and the test accuracy every 10 steps."""
    rng = np.random.default_rng(seed)
    params = init_params(kind, rng, train_task.Q.shape[1], h)
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
        ``rows``: one dict per kind (``kind``, ``h``, ``parameters``, ``multiply_adds`` for the
        ``n_keys`` table, the mean ``train_accuracy``, mean and spread of the final test ``accuracy`` over
        seeds); ``curves``:
        kind -> (seeds, steps // 10) test accuracies; ``raw_alignment``: the accuracy of the
        untrained dot product ``q . k`` on the test set; ``steps``.
    """
    budget = d * d
    widths = {"additive": width_for_budget("additive", d, budget), "dot": width_for_budget("dot", d, budget),
              "bilinear": d}
    curves = {kind: [] for kind in KINDS}
    fitted = {kind: [] for kind in KINDS}  # accuracy on the training set: memorised or learned?
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
    rows = []
    for kind in KINDS:
        final = np.array(curves[kind])[:, -1]
        parameters, multiply_adds = score_costs(kind, n_keys, d, widths[kind])
        rows.append({"kind": kind, "h": widths[kind], "parameters": parameters, "multiply_adds": multiply_adds,
                     "train_accuracy": float(np.mean(fitted[kind])),
                     "accuracy": float(final.mean()), "spread": float(final.max() - final.min())})
    return {"rows": rows, "curves": {k: np.array(v) for k, v in curves.items()},
            "raw_alignment": float(np.mean(raw)), "steps": steps}
