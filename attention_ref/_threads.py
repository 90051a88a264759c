"""A small thread pool for the elementwise passes over large score arrays.

Why threads help: the two matrix products of attention already run on every
core (BLAS), but numpy's ufuncs (``exp``, ``max``, ``sum``, ``/``) run on one
core. On large inputs the softmax then costs more than both products together.
numpy releases the GIL inside a ufunc, so a few Python threads working on
disjoint rows of the same array do run at the same time.

The pool is only used between the two products (BLAS is idle then), so the two
kinds of threads never compete for the cores. Small arrays (the course's 3 x 2
examples) never come here: below :data:`PARALLEL_MIN_ELEMENTS` the plain serial
code is faster than handing work to threads.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

#: Arrays with fewer elements than this are processed by the calling thread.
PARALLEL_MIN_ELEMENTS = 1 << 18

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_pid: int | None = None


def cpu_count() -> int:
    """Number of cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def pool() -> ThreadPoolExecutor | None:
    """The shared pool, or ``None`` when only one core is available.

    Created on first use. A forked child (a multiprocessing worker, a sandbox)
    inherits the pool object but none of its threads, so it gets a new one.
    """
    global _pool, _pool_pid
    workers = cpu_count()
    if workers < 2:
        return None
    with _lock:
        if _pool is None or _pool_pid != os.getpid():
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="attention_ref")
            _pool_pid = os.getpid()
        return _pool


def map_parallel(func, items) -> None:
    """Call ``func(item)`` for every item, spread over the pool; re-raise the first error."""
    executor = pool()
    if executor is None:
        for item in items:
            func(item)
        return
    for _ in executor.map(func, items):
        pass
