"""The same grading on a Dask LocalCluster (workers share nothing with the coordinator but the
job's bytes) gives the same gradebook as the local pool."""
from __future__ import annotations

import pytest
from .conftest import N_STUDENTS, copy_course, grades

from autograder import api

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore::ResourceWarning"),
              pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")]


def test_dask_local_cluster_equals_pool(parallel_graded, generated_course, tmp_path):
    from distributed import Client, LocalCluster

    pool_root, _ = parallel_graded
    root = copy_course(generated_course, tmp_path / "course")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=50) as cluster, Client(cluster) as client:
        summary = api.grade(root, scheduler=client.scheduler.address, progress=False, verify=False)
    assert (summary.graded, summary.failed, summary.errors) == (N_STUDENTS, 0, [])
    honest = {k: v for k, v in grades(pool_root).items() if k[0] in {f"s{i:02d}" for i in range(N_STUDENTS)}}
    assert grades(root) == honest


def test_a_worker_with_threads_is_refused_before_any_job(generated_course, tmp_path):
    """Issue 13 (1): a default Dask worker (one thread per core) recorded honest students as 0;
    grading now refuses it at connect time, says how to start the workers, and records nothing."""
    from distributed import Client, LocalCluster

    root = copy_course(generated_course, tmp_path / "course")
    with LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None,
                      silence_logs=50) as cluster, Client(cluster) as client:
        with pytest.raises(ValueError, match="--nthreads 1"):
            api.grade(root, scheduler=client.scheduler.address, progress=False)
    assert not (root / "reports" / "results.json").exists() or \
        '"submissions": []' in (root / "reports" / "results.json").read_text()
