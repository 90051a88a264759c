"""What the grader's own memory measurement costs per 06 submission (issue 10).

Verifies the solution of 06_long_sequences ``--n`` times each way, in turns:

* **measured**: the memory check's call in a run and control group of its own, its inputs sent
  after the group's memory is bounded (``autograder/sandbox/measure.py``, what grading does);
* **in-runner**: the same call run with the other calls in the one runner process, measured by
  tracemalloc inside it (how it was measured before, and forgeable).

Prints the seconds per verification (median) and their ratio. Needs bubblewrap and a writable
memory control group (root). Timing only: never a test.

    .venv/bin/python benchmarks/bench_memory_check.py --n 5
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from unittest import mock

from autograder import submissions
from autograder.sandbox import Limits, cgroup, command, launch, verify_submission

ROOT = Path(__file__).resolve().parents[1]
A06 = "06_long_sequences"


def _solution_bytes() -> bytes:
    import nbformat

    release = submissions.read(ROOT / "assignments" / A06 / f"{A06}.ipynb")
    answers = submissions.solution_answers(submissions.read(ROOT / "solutions" / A06 / f"{A06}.ipynb"))
    return nbformat.writes(submissions.fill(release, answers)).encode()


def _once(notebook: bytes, seed: int, measured: bool) -> float:
    start = time.perf_counter()
    if measured:
        result = verify_submission(A06, notebook, seed, Limits())
    else:
        with mock.patch.object(launch, "is_measured", lambda call: False):
            result = verify_submission(A06, notebook, seed, Limits())
    seconds = time.perf_counter() - start
    assert all(v.passed for v in result.verdicts.values()), {g: v.message for g, v in result.verdicts.items()}
    return seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5, help="verifications each way")
    args = parser.parse_args(argv)
    if command._detect() != "bubblewrap" or "memory" not in cgroup.available():
        print("needs bubblewrap and a writable memory control group (run as root)")
        return 2
    notebook = _solution_bytes()
    times: dict[str, list[float]] = {"measured": [], "in-runner": []}
    for i in range(args.n):
        for way in ("measured", "in-runner"):  # in turns: a burst of load hits both alike
            times[way].append(_once(notebook, 100 + i, way == "measured"))
    measured, in_runner = (statistics.median(times[w]) for w in ("measured", "in-runner"))
    print(f"06 verification, {args.n} each, median seconds: measured {measured:.2f}, in-runner {in_runner:.2f}, "
          f"ratio {measured / in_runner:.2f}x, difference {measured - in_runner:+.2f} s per submission")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
