"""What keeping grades.csv and results.json current costs the coordinator after each batch, at class size.

    .venv/bin/python benchmarks/bench_reports.py [--students 300] [--batch 64]

A temporary copy of the course gets a gradebook of every assignment and ``students`` synthetic
graded submissions of each (random scores, every graded cell, recorded by ``record.record_batch``)
and their grading log. Then the same batches of regraded results are reported twice, alternating
batch by batch in this one process so that load from elsewhere hits both alike: by a full
rewrite (:func:`reports.write_reports`: the whole gradebook read and overlaid, what ``autograder
report`` does) and by the run's :class:`reports.RunReports` (the batch's rows only). Printed:
milliseconds per batch and the ratio, and what the incremental reports cost once per run.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_gradebook import make_course, results  # noqa: E402

from autograder.config import validate_course  # noqa: E402
from autograder.grading import gradebook as gbk  # noqa: E402
from autograder.grading import record, reports  # noqa: E402
from autograder.grading.state import GradingState  # noqa: E402


def build(root: Path, students: int):
    """The course at ``root`` with a gradebook and grading log of ``students`` x every assignment."""
    import shutil

    for a in validate_course(REPO).assignments[1:]:
        shutil.copytree(REPO / "solutions" / a.id, root / "solutions" / a.id)
    course = validate_course(root)
    url = f"sqlite:///{root / 'gradebook.db'}"
    state = GradingState(root / "reports")
    todo = []
    for a in course.assignments:
        gbk.ensure_assignment(course, root, a.id, url)
        todo += results(course, url, a.id, students, seed=len(todo))
    with gbk.Gradebook(url, course.course_id) as gb:
        for start in range(0, len(todo), 256):
            chunk = todo[start:start + 256]
            penalties = record.record_batch(gb, course, [(r, None) for r in chunk])
            state.append([reports.result_record(r, p) for r, p in zip(chunk, penalties)])
    return course, url, state, todo


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--students", type=int, default=300)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--batches", type=int, default=6)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-reports-") as t:
        root = make_course(Path(t), validate_course(REPO).assignments[0].id)
        t0 = time.perf_counter()
        course, url, state, todo = build(root, args.students)
        print(f"{len(todo)} submissions ({args.students} students x {len(course.assignments)} assignments) "
              f"built in {time.perf_counter() - t0:.0f} s; batches of {args.batch}")
        t0 = time.perf_counter()
        run = reports.RunReports(course, root, state.records.values(), [])
        run.write()  # what the run pays once: the whole gradebook read, every record dumped
        once = time.perf_counter() - t0
        spent = {"full": 0.0, "incremental": 0.0}
        with gbk.Gradebook(url, course.course_id) as gb:
            for i in range(args.batches):
                chunk = todo[i * args.batch:(i + 1) * args.batch]
                penalties = record.record_batch(gb, course, [(r, None) for r in chunk])
                batch = [reports.result_record(r, p) for r, p in zip(chunk, penalties)]
                state.append(batch)
                t1 = time.perf_counter()
                reports.write_reports(course, root, list(state.records.values()))
                t2 = time.perf_counter()
                run.update(batch, [])
                t3 = time.perf_counter()
                spent["full"] += t2 - t1
                spent["incremental"] += t3 - t2
        ms = {k: 1000 * v / args.batches for k, v in spent.items()}
        print(f"reports per batch: full rewrite {ms['full']:7.1f} ms   incremental {ms['incremental']:7.1f} ms"
              f"   -> {ms['full'] / ms['incremental']:.1f}x   (incremental, once per run: {1000 * once:.0f} ms)")


if __name__ == "__main__":
    main()
