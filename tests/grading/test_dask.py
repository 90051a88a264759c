"""The same grading on a Dask LocalCluster (workers share nothing with the coordinator but the
job's bytes) gives the same gradebook as the local pool and as serial stock nbgrader, with workers
of one thread and of two."""
from __future__ import annotations

import gc
import warnings

import pytest
from .conftest import N_STUDENTS, comments, copy_course, grades
from .test_pipeline import _outputs

from autograder import api

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore::ResourceWarning"),
              pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")]


@pytest.fixture(scope="module", autouse=True)
def _collect_distributed_sockets():
    """distributed leaves sockets of its closed comms to the garbage collector: collect them here, where their
    ResourceWarning is ignored, and not in whichever test of the worker the collector next runs in (it failed
    test_generate once)."""
    yield
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()


def test_dask_local_cluster_equals_pool(parallel_graded, generated_course, tmp_path):
    from distributed import Client, LocalCluster

    pool_root, _ = parallel_graded
    root = copy_course(generated_course, tmp_path / "course")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=50) as cluster, Client(cluster) as client:
        summary = api.grade(root, scheduler=client.scheduler.address, progress=False, verify=False)
    assert (summary.graded, summary.failed, summary.errors) == (N_STUDENTS, 0, [])
    honest = {k: v for k, v in grades(pool_root).items() if k[0] in {f"s{i:02d}" for i in range(N_STUDENTS)}}
    assert grades(root) == honest


def test_two_workers_of_two_threads_with_verification_equal_stock_nbgrader(stock_graded, generated_course, tmp_path):
    """Issue 13 (1): a default Dask worker (one thread per core) recorded honest students as 0 (nbgrader's
    process-wide state). Each worker process now grades one job at a time: 2 workers x 2 threads, with
    verification on, record every honest submission as serial stock nbgrader does, cell by cell."""
    from distributed import Client, LocalCluster

    root = copy_course(generated_course, tmp_path / "course")
    with LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=":0",
                      silence_logs=50) as cluster, Client(cluster) as client:
        summary = api.grade(root, scheduler=client.scheduler.address, progress=False, verify=True)
    assert (summary.graded, summary.failed, summary.errors) == (N_STUDENTS, 0, [])
    assert grades(root) == grades(stock_graded)
    assert comments(root) == comments(stock_graded)
    for sid in (f"s{i:02d}" for i in range(N_STUDENTS)):
        assert _outputs(root, sid) == _outputs(stock_graded, sid)


def test_a_hung_job_on_a_dask_worker_is_stopped_and_the_worker_restarted():
    """A job that never comes back (a step of the grader's own hung) holds its worker: stop() cancels it and
    restarts that worker, so the next job on a one-worker cluster runs."""
    import time

    from distributed import Client, LocalCluster

    from autograder.grading.executors import DaskCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=50) as cluster, Client(cluster) as client:
        executor = DaskCluster({}, client, memory_mb=1024)
        hung = client.submit(time.sleep, 600, pure=False)
        deadline = time.monotonic() + 60
        while not any(client.processing().values()) and time.monotonic() < deadline:
            time.sleep(0.1)
        executor.stop(hung)
        assert hung.cancelled()
        assert client.submit(sum, [1, 2, 3], pure=False).result(timeout=120) == 6


def test_every_dask_worker_is_bounded_as_the_pool_s_are():
    """grading.worker_memory_mb on a cluster: a worker plugin sets each worker process's soft RLIMIT_AS."""
    import resource

    from distributed import Client, LocalCluster

    from autograder.grading import executors
    from autograder.grading.executors import DaskCluster

    def limits():
        return resource.getrlimit(resource.RLIMIT_AS)[0], executors._address_space()

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=50) as cluster, Client(cluster) as client:
        assert {soft for soft, _ in client.run(limits).values()} == {resource.RLIM_INFINITY}
        DaskCluster({}, client, memory_mb=256)
        bounded = client.run(limits)
    assert len(bounded) == 2 and all(now < soft <= now + (256 << 20) for soft, now in bounded.values())
