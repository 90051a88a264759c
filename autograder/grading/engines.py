"""One SQLAlchemy engine per gradebook URL inside a grading worker.

nbgrader opens its gradebook about eleven times per autograded notebook, each time with a brand
new SQLAlchemy engine, and SQLAlchemy caches compiled SQL per engine: so every query of every
submission is compiled again, which was the largest part of nbgrader's per-submission
bookkeeping when profiled. A worker grades each job at the same private gradebook path, so with
the engine shared the compiled statements survive from one submission to the next. Same
database, same queries, same results: only the repeated compilation goes.
"""
from __future__ import annotations

import threading

import nbgrader.api
from sqlalchemy import create_engine

_engines: dict = {}
_lock = threading.Lock()


def _shared_create_engine(url, **kwargs):
    key = (str(url), tuple(sorted(kwargs.items())))
    with _lock:
        if key not in _engines:
            _engines[key] = create_engine(url, **kwargs)
        return _engines[key]


def install() -> None:
    """Make nbgrader's ``Gradebook`` reuse one engine per URL in this process (idempotent)."""
    nbgrader.api.create_engine = _shared_create_engine


def reset(url: str) -> None:
    """Drop the pooled connections of ``url``'s engine (its database file is about to change)."""
    with _lock:
        for (u, _), engine in _engines.items():
            if u == url:
                engine.dispose()
