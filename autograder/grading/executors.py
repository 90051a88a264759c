"""Where jobs run: a local process pool or an existing dask.distributed cluster.

Both expose ``submit(bundle_key, job)`` and ``wait_any(futures)``; the coordinator keeps a
bounded number of jobs in flight so that a large class never sits in memory twice.

Every worker process's address space is bounded (:func:`bound_memory`, ``grading.worker_memory_mb``):
a kernel can make its worker receive far more than the output cap ever counts (one ZeroMQ message
whose frames all reference one buffer), and the worst it may then do is fail its own job with
``MemoryError`` or kill its worker, a grader fault (:mod:`.faults`) that is retried and reported.
"""
from __future__ import annotations

import multiprocessing
import os
import resource
import shutil
import tempfile
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from .job import AssignmentBundle, Job, grade_job


#: This process's address space when :func:`bound_memory` first bounded it (None: never).
_BASE: int | None = None


def _address_space() -> int:
    """Bytes of address space this process holds now (Linux's ``/proc/self/statm``, first field)."""
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[0]) * resource.getpagesize()


def bound_memory(megabytes: int) -> int:
    """Bound this process's address space to what it held when first bounded plus ``megabytes``.

    Relative, not absolute: a worker starts with whatever it inherits (forked from a coordinator
    whose OpenBLAS reserved about 40 MB per core), and what a job adds is what a hostile kernel can
    inflate. Only the soft limit is set, the hard one is left as it is: the kernel (``prlimit``) and
    the verification runner (``setrlimit``) that the worker starts set both of theirs to
    ``sandbox.memory_mb``, up or down, with no privilege needed and none left to the student's code.

    Parameters
    ----------
    megabytes : int
        ``grading.worker_memory_mb``.

    Returns
    -------
    int
        The soft ``RLIMIT_AS`` now set, in bytes.
    """
    global _BASE
    if _BASE is None:  # a Dask worker may be set up again (plugin registered by the next run): same base
        _BASE = _address_space()
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = _BASE + (int(megabytes) << 20)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    return limit


class LocalPool:
    """``workers`` processes on this machine (default: one per core), each bounded to ``memory_mb`` more
    address space than it starts with (:func:`bound_memory`)."""

    def __init__(self, bundles: dict[str, AssignmentBundle], workers: int | None = None, *, memory_mb: int):
        self.workers = workers or os.cpu_count() or 1
        self.bundles = bundles
        self.memory_mb = memory_mb
        # fork: workers start with nbgrader already imported by the coordinator (spawn would
        # pay ~1-2 s of imports per worker).
        self._pool = self._start()
        self._stopped = False

    def _start(self) -> ProcessPoolExecutor:
        pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("fork"),
                                   initializer=bound_memory, initargs=(self.memory_mb,))
        # Fork the workers now, before the coordinator opens the gradebook (an SQLite connection
        # must not be inherited across fork) or starts the progress bar's thread. (A pool started
        # again after a worker died forks from a coordinator that has both: the workers never use
        # the inherited connection, each job opens its own private gradebook.)
        pool.submit(os.getpid).result()
        return pool

    def submit(self, assignment_id: str, job: Job):
        """Start grading ``job`` of ``assignment_id``; returns a future of a JobResult.

        A pool that a dead worker has broken (every job in flight then fails with
        BrokenProcessPool, which the coordinator handles) is replaced by a fresh one first.
        """
        try:
            if self._stopped:
                raise BrokenProcessPool("its workers were stopped")
            return self._pool.submit(grade_job, self.bundles[assignment_id], job)
        except BrokenProcessPool:
            self._stopped = False
            dead = list(getattr(self._pool, "_processes", None) or {})
            self._pool.shutdown(wait=False, cancel_futures=True)
            for pid in dead:  # the private folders a killed worker could not remove (submission, gradebook copy)
                for folder in Path(tempfile.gettempdir()).glob(f"autograder-{pid}-*"):
                    shutil.rmtree(folder, ignore_errors=True)
            self._pool = self._start()
            return self._pool.submit(grade_job, self.bundles[assignment_id], job)

    @staticmethod
    def wait_any(futures, timeout: float | None = None):
        """Block until at least one future is done or ``timeout`` seconds pass; return (done, not_done)."""
        return wait(futures, timeout=timeout, return_when=FIRST_COMPLETED)

    def stop(self, future) -> None:
        """Stop a hung job: a pool cannot stop one call, so every worker is killed (the other jobs in
        flight fail with BrokenProcessPool) and the next submit starts a fresh pool."""
        for process in list((getattr(self._pool, "_processes", None) or {}).values()):
            process.kill()
        self._stopped = True

    def close(self, cancel: bool = False) -> None:
        """Shut the pool down (cancelling queued jobs if asked)."""
        self._pool.shutdown(wait=not cancel, cancel_futures=cancel)


class DaskCluster:
    """An existing dask.distributed cluster at ``address`` (or a Client/cluster object).

    Any number of threads per worker is safe (each worker process grades one job at a time);
    one thread per worker process and ``--nworkers`` per core is what makes a cluster fast.
    """

    def __init__(self, bundles: dict[str, AssignmentBundle], address, *, memory_mb: int):
        from distributed import Client

        self.client = address if isinstance(address, Client) else Client(address)
        self._own = self.client is not address
        # The cluster's memory_limit is its owner's, and its nanny samples memory now and then: a
        # burst of gigabytes arrives in well under a second. Each worker process is bounded as the
        # local pool's are, now and on every restart (a worker plugin).
        from .dask_bound import MemoryBound

        self.client.register_plugin(MemoryBound(memory_mb), name=MemoryBound.name)
        # Jobs run one at a time per worker process (job._ONE_AT_A_TIME: nbgrader edits process-wide
        # state), so a worker's extra threads are safe but add no speed: `--nworkers` gives the parallelism.
        self.workers = max(1, len(self.client.nthreads()))
        # Ship each assignment's bundle to the workers once, not once per job.
        self.bundles = {aid: self.client.scatter(b, broadcast=True) for aid, b in bundles.items()}

    def stop(self, future) -> None:
        """Stop a hung job: cancel it and restart the worker it is stuck on (its thread holds the worker)."""
        stuck = [w for w, keys in self.client.processing().items() if future.key in keys]
        future.cancel()
        if stuck:
            try:
                self.client.restart_workers(stuck, raise_for_error=False)
            except Exception:  # noqa: BLE001 - a worker that cannot restart times out its next jobs too (reported)
                pass

    def submit(self, assignment_id: str, job: Job):
        """Start grading ``job`` on the cluster; returns a dask future of a JobResult."""
        # pure=False: a regrade of the same bytes (--force) must really run again.
        return self.client.submit(grade_job, self.bundles[assignment_id], job, pure=False)

    @staticmethod
    def wait_any(futures, timeout: float | None = None):
        """Block until at least one future is done or ``timeout`` seconds pass; return (done, not_done)."""
        from distributed import wait as dwait

        try:
            done, not_done = dwait(list(futures), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return set(), set(futures)
        return done, not_done

    def close(self, cancel: bool = False) -> None:
        """Close our client (the cluster itself belongs to whoever started it)."""
        if self._own:
            self.client.close()

