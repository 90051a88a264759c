"""What recording results in nbgrader's gradebook costs the coordinator: one at a time or in batches.

    .venv/bin/python benchmarks/bench_gradebook.py [--n 200] [--batch 32] [--assignment 01_scores_softmax]

Two fresh copies of the same course gradebook; the same ``n`` synthetic results (every graded
cell of the assignment, random scores, new students: nbgrader creates each submission's rows)
are recorded into one with ``record.record_with_nbgrader_api`` (nbgrader's ORM API, one result per
transaction, as nbgrader's own ``autograde`` does) and into the other with ``record.record_batch``. The two alternate chunk
by chunk in this one process, so load from elsewhere hits both alike. Then a regrade (the same
students again: updates only). Printed: milliseconds per result and the ratio.
"""
from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from autograder.config import validate_course  # noqa: E402
from autograder.grading import gradebook as gbk  # noqa: E402
from autograder.grading import record  # noqa: E402
from autograder.grading.job import JobResult  # noqa: E402


def make_course(tmp: Path, assignment: str) -> Path:
    root = tmp / "course"
    (root / "solutions").mkdir(parents=True)
    shutil.copy(REPO / "course.yml", root)
    shutil.copy(REPO / "nbgrader_config.py", root)
    shutil.copytree(REPO / "solutions" / assignment, root / "solutions" / assignment)
    return root


def results(course, db_url: str, assignment: str, n: int, seed: int) -> list[JobResult]:
    rng = random.Random(seed)
    with gbk.Gradebook(db_url, course.course_id) as gb:
        notebooks = [(nb.name, [(g.name, float(g.max_score)) for g in nb.grade_cells])
                     for nb in gb.find_assignment(assignment).notebooks]
    out = []
    for i in range(n):
        for name, cells in notebooks:
            rows = []
            for grade_id, max_score in cells:
                score = max_score if rng.random() < 0.7 else 0.0
                rows.append({"grade_id": grade_id, "task": None, "score": score, "max_score": max_score,
                             "passed": score == max_score, "message": None, "misconception": None,
                             "nbgrader_score": score, "verified_score": score, "manual": False})
            out.append(JobResult(f"student{i:05d}", assignment, name, "0" * 64, "graded", None, rows, {}, None))
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=200)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--assignment", default="01_scores_softmax")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-gradebook-") as t:
        root = make_course(Path(t), args.assignment)
        course = validate_course(root)
        base = f"sqlite:///{root / 'gradebook.db'}"
        gbk.ensure_assignment(course, root, args.assignment, base)
        urls = {}
        for name in ("single", "batched"):
            shutil.copy(root / "gradebook.db", root / f"{name}.db")
            urls[name] = f"sqlite:///{root / f'{name}.db'}"
        todo = results(course, base, args.assignment, args.n, seed=1)
        print(f"{len(todo)} results of {args.assignment}, batches of {args.batch}")
        for phase in ("new submissions", "regrade"):
            spent = {"single": 0.0, "batched": 0.0}
            with gbk.Gradebook(urls["single"], course.course_id) as single, \
                    gbk.Gradebook(urls["batched"], course.course_id) as batched:
                for start in range(0, len(todo), args.batch):
                    chunk = todo[start:start + args.batch]
                    t0 = time.perf_counter()
                    for r in chunk:
                        record.record_with_nbgrader_api(single, course, r, None)
                    t1 = time.perf_counter()
                    record.record_batch(batched, course, [(r, None) for r in chunk])
                    t2 = time.perf_counter()
                    spent["single"] += t1 - t0
                    spent["batched"] += t2 - t1
            ms = {k: 1000 * v / len(todo) for k, v in spent.items()}
            print(f"{phase:16s} nbgrader API, one at a time {ms['single']:7.1f} ms/result   batched {ms['batched']:7.1f} ms/result"
                  f"   -> {ms['single'] / ms['batched']:.1f}x")


if __name__ == "__main__":
    main()
