"""One SQLAlchemy engine per gradebook URL inside a grading worker.

nbgrader opens its gradebook about eleven times per autograded notebook, each time with a brand
new SQLAlchemy engine, and SQLAlchemy caches compiled SQL per engine: so every query of every
submission is compiled again, which was the largest part of nbgrader's per-submission
bookkeeping when profiled. A worker grades each job at the same private gradebook path, so with
the engine shared the compiled statements survive from one submission to the next. Same
database, same queries, same results: only the repeated compilation goes.

A job's private gradebook is a throwaway copy (the coordinator records the results in the course's
gradebook), so its engine writes without waiting for the disk (``PRAGMA synchronous=OFF``, the
journal in memory): nbgrader commits about 50 times per notebook, and each commit's fsync cost
0.16 s of a worker's time per submission when profiled. Only URLs marked :func:`disposable` get it.
"""
from __future__ import annotations

import threading

import nbgrader.api
from sqlalchemy import create_engine, event

_engines: dict = {}
_disposable: set[str] = set()
_lock = threading.Lock()


def _no_fsync(connection, _record) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA synchronous=OFF")
    cursor.execute("PRAGMA journal_mode=MEMORY")
    cursor.close()


def _shared_create_engine(url, **kwargs):
    key = (str(url), tuple(sorted(kwargs.items())))
    with _lock:
        if key not in _engines:
            _engines[key] = engine = create_engine(url, **kwargs)
            if str(url) in _disposable:
                event.listen(engine, "connect", _no_fsync)
        return _engines[key]


def install() -> None:
    """Make nbgrader's ``Gradebook`` reuse one engine per URL in this process (idempotent)."""
    nbgrader.api.create_engine = _shared_create_engine


def disposable(url: str) -> None:
    """Mark ``url`` (a job's private SQLite gradebook) as a copy whose loss in a crash loses nothing."""
    with _lock:
        _disposable.add(str(url))


def reset(url: str) -> None:
    """Drop the pooled connections of ``url``'s engine (its database file is about to change)."""
    with _lock:
        for (u, _), engine in _engines.items():
            if u == url:
                engine.dispose()
