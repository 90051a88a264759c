"""Grade a realistic class of every assignment with serial stock ``nbgrader autograde`` and ``autograder grade``.

    .venv/bin/python benchmarks/bench_grading.py [--n 30] [--workers 2] [--assignments 01_scores_softmax ...]
                                                 [--costs sandbox verification isolation memory memo | --costs none]

The class (``autograder.synthetic``, ``REALISTIC`` mix): about two thirds of the students right
everywhere, the rest with one or two typical mistakes from ``autograder/catalogue`` per
assignment, a few notebooks not handed in (one per 40, at least one) and one broken file.
Everything happens in temporary copies of the course; every grader runs as a fresh process
(imports and the prepared gradebook count), ``autograder grade`` through its command line
(``autograder.cli``) with kernels sandboxed and verification on. The kernel's student kit of
each assignment (about 5 s each, cached in ``.autograder/kit`` by what it is built from) is built
once beforehand, as the release or the first grading of the course leaves it, and its time is
printed apart.

Assignment by assignment, stock and ours run one after the other (interleaved, so the load of a
shared machine falls on both alike), then ours without one guarantee at a time: the *cost* of a
guarantee is ours with it minus ours without it, per submission of the assignments it concerns:

* ``sandbox``: kernels outside bubblewrap (``--unsafe-no-sandbox``'s stock kernel, forced even as root);
* ``verification``: ``--no-verify`` (nbgrader's in-kernel scores);
* ``isolation``: the composite tasks of 02, 03 and 04 judged with the student's own helpers (no phase that
  gives the runner the reference's helpers once the helpers' answers are back);
* ``memory``: 06's memory check run in the common runner instead of its own measured run;
* ``memo`` (not a guarantee: what the kept results save): 07's ``compare_scorers`` computed afresh in
  the kernel and in verification, as stock nbgrader's kernel computes it, instead of answered from
  the kit's ``_memo.json`` (``autograder/sandbox/memo.py``).

Printed: seconds and seconds per submission of each, the ratio stock / ours per assignment and
for the whole class, where a submission's time goes worker-side (kernel start and stop, cell
execution, nbgrader bookkeeping, verification), each
guarantee's cost, and ``uptime`` before and after. Falls back to the mini course of the tests
when the course notebooks are not written.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
ENV = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
COSTS = ("sandbox", "verification", "isolation", "memory", "memo")
#: The assignments whose guarantee a cost row switches off (None: every assignment).
CONCERNS = {"sandbox": None, "verification": None, "isolation": ("02_scaling", "03_masking", "04_heads"),
            "memory": ("06_long_sequences",),
            "memo": ("07_scoring_functions",)}

# Run in a fresh interpreter: the shipped CLI, with one guarantee switched off where asked (patches
# made before the pool forks its workers), and the run's per-job timings dumped as JSON.
GRADE = """
import json, sys
from autograder import api, cli
course, assignment, workers, out, off = sys.argv[1:6]
if off == "sandbox":
    from autograder.grading import pipeline
    pipeline._require_sandbox = lambda *args: False
elif off == "isolation":
    from autograder.sandbox import verify as v
    run_session = v.run_session
    v.run_session = lambda *args, helpers=None, **kwargs: run_session(*args, **kwargs)
elif off == "memory":
    from autograder.sandbox import launch
    launch.is_measured = lambda call: False
elif off == "memo":
    from autograder.kit import build
    kit_files = build.kernel_kit_files
    build.kernel_kit_files = lambda *a: {k: v for k, v in kit_files(*a).items() if not k.endswith("/_memo.json")}
box, grade = {}, api.grade
api.grade = lambda *a, **k: box.setdefault("s", grade(*a, **k))
argv = ["grade", assignment, "--course", course, "--workers", workers, "--no-progress"]
code = cli.main(argv + (["--no-verify"] if off == "verification" else []))
s = box["s"]
json.dump({"code": code, "graded": s.graded, "failed": s.failed, "errors": [str(e) for e in s.errors],
           "timing": [r.timing for r in s.results]}, open(out, "w"))
"""


def make_course(tmp: Path, assignments: list[str], n: int) -> tuple[Path, list[str], str]:
    """A course directory with a realistic synthetic class of ``n`` students, released by nbgrader."""
    root = tmp / "course"
    if all((REPO / "solutions" / a).exists() for a in assignments):
        root.mkdir()
        shutil.copy(REPO / "course.yml", root)
        shutil.copy(REPO / "nbgrader_config.py", root)
        for a in assignments:
            shutil.copytree(REPO / "solutions" / a, root / "solutions" / a)
            subprocess.run([BIN / "nbgrader", "generate_assignment", a], cwd=root, env=ENV, check=True,
                           capture_output=True)
        from autograder.synthetic import REALISTIC, generate_class

        unsubmitted = max(1, n * len(assignments) // 40)
        klass = generate_class(root / "submitted", n_students=n, seed=0, assignments=assignments, course_dir=REPO,
                               mix=REALISTIC, unsubmitted=unsubmitted, broken=1)
        kinds = ", ".join(f"{c} {k}" for k, c in klass.kinds().items())
        kits = _build_kits(root, assignments)
        return root, assignments, (f"{n} students ({kinds}); {unsubmitted} notebook(s) not handed in, 1 broken file; "
                                   f"student kits built once beforehand in {kits:.1f} s (cached in .autograder/kit, "
                                   f"as after the release or the first grading; not in the ratios)")
    from autograder.grading.minicourse import ASSIGNMENT, make_class
    from autograder.grading.minicourse import make_course as make_mini

    make_mini(root)
    subprocess.run([BIN / "nbgrader", "generate_assignment", ASSIGNMENT], cwd=root, env=ENV, check=True,
                   capture_output=True)
    make_class(root, n)
    return root, [ASSIGNMENT], f"{n} submissions of the tests' mini course"


def _build_kits(root: Path, assignments: list[str]) -> float:
    """Build the kernel's student kit of each assignment into the course's cache, as a first grading would."""
    from autograder.kit.build import kernel_kit_files

    t0 = time.perf_counter()
    for a in assignments:
        kernel_kit_files(root, a)
    return time.perf_counter() - t0


def run(cmd: list, cwd: Path) -> tuple[float, int, str]:
    t0 = time.perf_counter()
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=ENV, capture_output=True, text=True)
    return time.perf_counter() - t0, proc.returncode, proc.stderr[-3000:]


def stock(base: Path, tmp: Path, assignment: str) -> tuple[float, int]:
    """Serial stock ``nbgrader autograde``: seconds, and how many notebooks it autograded.

    Its exit status is 1 when a notebook could not be graded (the broken file): counted, not fatal.
    """
    root = shutil.copytree(base, tmp / f"stock-{assignment}")
    seconds, _, _ = run([BIN / "nbgrader", "autograde", assignment], root)
    graded = len(list((root / "autograded").glob(f"*/{assignment}/*.ipynb")))
    shutil.rmtree(root, ignore_errors=True)
    return seconds, graded


def ours(base: Path, tmp: Path, assignment: str, workers: int, off: str = "none") -> tuple[float, dict]:
    """``autograder grade --workers N`` (every guarantee on, or all but ``off``): seconds and what it reported."""
    root = shutil.copytree(base, tmp / f"ours-{off}-{assignment}")
    out = tmp / f"ours-{off}-{assignment}.json"
    seconds, code, err = run([sys.executable, "-c", GRADE, root, assignment, workers, out, off], root)
    if not out.exists():
        sys.exit(f"autograder grade ({off} off) failed on {assignment} (exit {code}):\n{err}")
    info = json.loads(out.read_text())
    if info["errors"]:
        print(f"  note: {assignment} ({off} off): grader errors {info['errors'][:3]}", flush=True)
    shutil.rmtree(root, ignore_errors=True)
    return seconds, info


SPLIT = ("kernel", "execute", "bookkeeping", "verify")


def split(timings: list[dict]) -> str:
    n = max(1, len(timings))
    return " / ".join(f"{sum(t.get(k, 0.0) for t in timings) / n:.2f}" for k in SPLIT)


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return f"load average {os.getloadavg()}"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=30, help="students (default 30)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    p.add_argument("--assignments", nargs="*", default=None, help="default: every assignment of course.yml")
    p.add_argument("--costs", nargs="*", default=list(COSTS), choices=[*COSTS, "none"],
                   help="the guarantees whose cost to measure (default: all; 'none': none)")
    args = p.parse_args(argv)
    if args.n < 1:
        p.error("--n must be at least 1")
    from autograder.config import load_course

    assignments = args.assignments or [a.id for a in load_course(REPO).assignments]
    costs = [c for c in args.costs if c != "none"]
    print(f"before: {uptime()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as t:
        tmp = Path(t)
        base, assignments, described = make_course(tmp, assignments, args.n)
        print(f"class: {described}; {os.cpu_count()} cores; autograder grade --workers {args.workers}", flush=True)
        head = f"{'assignment':<22}{'subs':>5}{'stock s':>9}{'ours s':>8}{'ratio':>7}   worker-side s/submission: " \
               f"{' / '.join(SPLIT)}"
        print(head, flush=True)
        rows, cost_rows = [], {c: [0.0, 0.0, 0] for c in costs}  # with, without, submissions
        for a in assignments:
            n = len(list((base / "submitted").glob(f"*/{a}/*.ipynb")))
            st, st_graded = stock(base, tmp, a)
            us, info = ours(base, tmp, a, args.workers)
            rows.append((a, n, st, us))
            print(f"{a:<22}{n:>5}{st:>9.1f}{us:>8.1f}{st / us:>6.2f}x   {split(info['timing'])}"
                  f"   [stock autograded {st_graded}; ours graded {info['graded']}, failed {info['failed']}]",
                  flush=True)
            for c in costs:
                if CONCERNS[c] is not None and a not in CONCERNS[c]:
                    continue
                off_s, off = ours(base, tmp, a, args.workers, off=c)
                cost_rows[c][0] += us
                cost_rows[c][1] += off_s
                cost_rows[c][2] += n
                print(f"{'  without ' + c:<27}{off_s:>17.1f}{st / off_s:>6.2f}x   {split(off['timing'])}", flush=True)
        n_all, st_all, us_all = (sum(r[i] for r in rows) for i in (1, 2, 3))
        print(f"{'whole class':<22}{n_all:>5}{st_all:>9.1f}{us_all:>8.1f}{st_all / us_all:>6.2f}x   "
              f"stock {st_all / n_all:.2f} s/submission, ours {us_all / n_all:.2f} s/submission", flush=True)
        if cost_rows:
            print("cost of each guarantee (ours with it minus ours without it, on the assignments it concerns):")
        for c, (with_s, without_s, n) in cost_rows.items():
            if n:
                where = "every assignment" if CONCERNS[c] is None else ", ".join(CONCERNS[c])
                print(f"  {c:<14}{(with_s - without_s) / n:+.2f} s/submission ({where}: {with_s:.1f} s with, "
                      f"{without_s:.1f} s without, {100 * (with_s - without_s) / with_s:+.0f}% of ours)")
    print(f"after:  {uptime()}")


if __name__ == "__main__":
    main()
