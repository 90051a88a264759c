"""What the item analysis adds to ``autograder report`` on a large class (issue 23: at most 10 %).

    .venv/bin/python benchmarks/bench_report.py [--students 300] [--repeat 3]

Writes a results.json of ``--students`` x every assignment of the course (each check passed with a
per-student ability), then runs ``autograder report --results`` on it in fresh processes, with the
item analysis and with it switched off (its rows and its plot), interleaved, and prints the best
wall and CPU seconds of each and the ratio.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from autograder.checks import TASKS, checks_for_assignment  # noqa: E402

REPORT = """
import sys
from autograder import cli
if sys.argv[1] == "off":
    from autograder.report import html, summary
    summary.item_analysis = lambda subs: []
    html.plot_items = lambda s: None
sys.exit(cli.main(["report", "--course", sys.argv[2], "--results", sys.argv[3], "--html", sys.argv[4]]))
"""


def make_results(students: int, seed: int = 0) -> dict:
    rng = random.Random(seed)
    subs = []
    for i in range(students):
        ability = rng.random()
        for assignment in TASKS:
            cells = []
            for check in checks_for_assignment(assignment):
                ok = rng.random() < ability
                cells.append({"grade_id": check.grade_id, "task": check.task, "max_score": 1.0,
                              "score": 1.0 if ok else 0.0, "passed": ok, "manual": False,
                              "misconception": None if ok else "wrong_values"})
            subs.append({"student_id": f"s{i:03d}", "assignment_id": assignment, "notebook_id": assignment,
                         "status": "graded", "cells": cells, "flags": []})
    return {"course_id": "bench", "submissions": subs}


def _run(mode: str, results: Path, out: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", REPORT, mode, str(REPO), str(results), str(out / f"{mode}.html")],
                   check=True, stdout=subprocess.DEVNULL, cwd=out, env=dict(os.environ, MPLBACKEND="Agg"))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - t0, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        out = Path(tmp)
        results = out / "results.json"
        data = make_results(args.students)
        results.write_text(json.dumps(data))
        times = {"on": [], "off": []}
        for _ in range(args.repeat):
            for mode in ("off", "on"):
                times[mode].append(_run(mode, results, out))
        print(f"{len(data['submissions'])} submissions; load average {os.getloadavg()[0]:.1f}")
        best = {m: (min(w for w, _ in t), min(c for _, c in t)) for m, t in times.items()}
        for mode, label in (("off", "autograder report, no item analysis"), ("on", "autograder report")):
            print(f"{label:<40} {best[mode][0]:6.2f} s wall  {best[mode][1]:6.2f} s CPU")
        print(f"the item analysis adds {best['on'][0] / best['off'][0] - 1:+.1%} wall, "
              f"{best['on'][1] / best['off'][1] - 1:+.1%} CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
