"""The memory bound of a Dask worker: the local pool's (:func:`.executors.bound_memory`), as a worker plugin.

Its own module because it subclasses ``distributed.WorkerPlugin``: the local pool never imports Dask.
A registered plugin is set up on every worker of the cluster, and again on each worker that restarts.
"""
from __future__ import annotations

from distributed import WorkerPlugin

from .executors import bound_memory


class MemoryBound(WorkerPlugin):
    """Bounds each Dask worker process to ``megabytes`` more address space than it held when first bounded."""

    name = "autograder-worker-memory"

    def __init__(self, megabytes: int):
        self.megabytes = int(megabytes)

    def setup(self, worker) -> None:
        """Set the bound in the worker's process (see :func:`.executors.bound_memory`)."""
        bound_memory(self.megabytes)
