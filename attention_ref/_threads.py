"""A small thread pool for the elementwise passes over large score arrays.

Why threads help: the two matrix products of attention already run on every
core (BLAS), but numpy's ufuncs (``exp``, ``max``, ``sum``, ``/``) run on one
core. Per score, one core's softmax costs about as much as both products on
one core (``exp`` alone is most of it), so on two cores a serial softmax would
take twice as long as the products. numpy releases the GIL inside a ufunc, so
a few Python threads working on disjoint rows of the same array do run at the
same time.

The pool is only used between the two products (BLAS is idle then), so the two
kinds of threads do not compete for the cores. Small arrays (the course's 3 x 2
examples) never come here: below :data:`PARALLEL_MIN_ELEMENTS` the plain serial
code is faster than handing work to threads.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

#: Arrays with fewer elements than this (4 MB of float32) are processed by the
#: calling thread alone: below it, waking the pool costs more than it saves,
#: and much more on a busy machine where a pool thread can wait milliseconds for a core.
PARALLEL_MIN_ELEMENTS = 1 << 20

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
    """Call ``func(item)`` for every item, the calling thread and the pool's threads together.

    Every thread takes the next item from a shared list until none is left, and
    the calling thread works too instead of waiting. On a busy machine, where a
    pool thread may not get a core for milliseconds, the caller simply does
    most of the items itself: the worst case is the serial time, not the serial
    time plus the scheduling delay. Re-raises the first error.
    """
    items = list(items)
    executor = pool()
    if executor is None or len(items) < 2:
        for item in items:
            func(item)
        return
    remaining = iter(items)
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                item = next(remaining, None)
            if item is None:
                return
            func(item)

    helpers = [executor.submit(work) for _ in range(min(cpu_count(), len(items)) - 1)]
    try:
        work()
    finally:
        for helper in helpers:
            # A helper that has not started yet would find nothing left to do:
            # cancel it rather than wait for it to be scheduled.
            if not helper.cancel():
                helper.result()  # it is running: wait for its item (re-raises its error)
