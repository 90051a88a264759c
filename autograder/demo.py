"""``autograder demo``: build a synthetic class, grade it in parallel, print the class report.

    autograder demo [--out demo-output] [--students 30] [--seed 0]
                    [--assignments 01_scores_softmax 02_scaling | all] [--workers N] [--no-verify]

The demo course lives in ``--out`` (default ``demo-output/``, git-ignored): a copy of
``course.yml`` and ``solutions/``, the synthetic submissions in ``submitted/`` (see
:mod:`autograder.synthetic`; what each student did is in ``class.json``), and what grading
writes: ``gradebook.db``, ``autograded/``, ``reports/`` (grades.csv, results.json,
report.html) and ``feedback/``. By default the first two assignments are graded, which keeps
the demo under two minutes on two cores; ``--assignments all`` grades every assignment.

Python API: :func:`run_demo`.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from . import report, synthetic

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = Path("demo-output")
DEFAULT_ASSIGNMENTS = 2  # the first assignments of course.yml graded by default
MARKER = ".autograder-demo"


def course_assignments(course_dir: Path = PACKAGE_ROOT) -> list[str]:
    """Assignment ids of course.yml (in its order) that have a source notebook."""
    from .config import load_course
    course = load_course(course_dir)
    return [a.id for a in course.assignments if any((course_dir / "solutions" / a.id).glob("*.ipynb"))]


def prepare_course(out: Path, source: Path = PACKAGE_ROOT) -> Path:
    """A fresh demo course directory: course.yml, nbgrader_config.py, solutions/ and assignments/ copied from ``source``.

    A previous demo folder (it carries a marker file) is replaced; any other non-empty folder
    is left alone and refused.
    """
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        if not (out / MARKER).exists():
            raise FileExistsError(f"{out} exists and is not a demo folder; choose another --out")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("made by `autograder demo`; deleted and rebuilt by the next demo\n")
    for name in ("course.yml", "nbgrader_config.py"):
        if (source / name).is_file():
            shutil.copy2(source / name, out / name)
    # solutions/ to grade against; assignments/ (what generation makes of it) for the kernel's student kit
    for folder in ("solutions", "assignments"):
        shutil.copytree(source / folder, out / folder,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    return out


def run_demo(out: str | Path = DEFAULT_OUT, n_students: int = 30, seed: int = 0,
             assignments: list[str] | None = None, workers: int | None = None, verify: bool = True,
             progress: bool = True, feedback: bool = True, stream=None) -> dict:
    """Build, grade and report on a synthetic class; returns timings and paths."""
    stream = sys.stdout if stream is None else stream
    say = lambda text: print(text, file=stream, flush=True)  # noqa: E731
    timings = {}
    t0 = time.perf_counter()
    available = course_assignments()
    if not assignments:
        assignments = available[:DEFAULT_ASSIGNMENTS]
    elif assignments in (["all"], "all"):
        assignments = available
    missing = [a for a in assignments if a not in available]
    if missing:
        raise ValueError(f"no source notebook for {', '.join(missing)}; available: {', '.join(available)}")

    out = prepare_course(Path(out))
    say(f"Building a synthetic class of {n_students} students for {', '.join(assignments)} in {out}/ ...")
    klass = synthetic.generate_class(out / "submitted", n_students, seed, assignments)
    import json
    (out / "class.json").write_text(json.dumps(klass.to_json(), indent=1), encoding="utf-8")
    kinds = ", ".join(f"{klass.kinds()[k]} {k.replace('_', ' ')}" for k in synthetic.KINDS if klass.kinds()[k])
    timings["build"] = time.perf_counter() - t0
    say(f"  {kinds} ({timings['build']:.1f} s)")

    t1 = time.perf_counter()
    from . import api  # the grading API (autograder.api.grade)
    say(f"Grading {len(klass.students) * len(assignments)} notebooks in parallel with nbgrader"
        + (" and verification" if verify else "") + " ...")
    # The class is this project's own synthetic notebooks: where bubblewrap is missing (a fresh
    # laptop) they may be graded without it; students' submissions never are.
    summary = api.grade(out, out / "submitted", assignments, workers=workers, verify=verify, progress=progress,
                        trusted_submissions=True)
    timings["grade"] = time.perf_counter() - t1
    say(f"  graded {summary.graded}, failed {summary.failed} in {timings['grade']:.1f} s; wrote {summary.csv} and {summary.json}")
    for err in getattr(summary, "errors", []) or []:
        say(f"  grader error: {err}")

    t2 = time.perf_counter()
    say("")
    results = Path(summary.json) if getattr(summary, "json", None) else out / report.DEFAULT_RESULTS
    html_path = out / report.DEFAULT_HTML
    report.write_report(results, html_path, course_dir=out, out=stream)
    pages = []
    if feedback:
        from . import feedback as fb
        pages = fb.write_feedback(results, out / "feedback", course_dir=out, submissions_dir=out / "submitted")
        say(f"Feedback pages: {len(pages)} under {out / 'feedback'}/")
    timings["report"] = time.perf_counter() - t2
    timings["total"] = time.perf_counter() - t0
    say(f"Demo done in {timings['total']:.0f} s (build {timings['build']:.1f} s, grade {timings['grade']:.1f} s, "
        f"report and feedback {timings['report']:.1f} s).")
    return {"out": str(out), "assignments": assignments, "timings": timings, "results": str(results),
            "html": str(html_path), "feedback": [str(p) for p in pages], "class": klass, "summary": summary}


# ---------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default=str(DEFAULT_OUT), help=f"demo course folder (default {DEFAULT_OUT}/)")
    parser.add_argument("--students", type=int, default=30, help="class size (default 30)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic class (default 0)")
    parser.add_argument("--assignments", nargs="+", default=None,
                        help=f"assignment ids, or `all` (default: the first {DEFAULT_ASSIGNMENTS} of course.yml)")
    parser.add_argument("--workers", type=int, default=None, help="grading processes (default: one per core)")
    parser.add_argument("--no-verify", action="store_true", help="skip verification outside the student's kernel")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--no-feedback", action="store_true", help="do not write feedback pages")


def main(args: argparse.Namespace) -> int:
    """Run ``autograder demo`` on the arguments :func:`autograder.cli.main` parsed with :func:`add_arguments`."""
    try:
        result = run_demo(args.out, args.students, args.seed, args.assignments, args.workers,
                          verify=not args.no_verify, progress=not args.no_progress, feedback=not args.no_feedback)
    except (FileExistsError, FileNotFoundError, ValueError) as exc:
        print(f"autograder demo: {exc}", file=sys.stderr)
        return 2
    return 1 if getattr(result["summary"], "errors", None) else 0
