"""``autograder`` command line: a thin layer over :mod:`autograder.api`.

One argparse parser with a subparser per command; ``feedback``, ``report``, ``check`` and
``demo`` are implemented in their own modules (``autograder.feedback`` etc.), which add their
options to their subparser (``add_arguments``) and run the parsed arguments (``main(args)``).
"""
from __future__ import annotations

import argparse
import importlib
import sys


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="autograder", description="Grade the attention course on top of nbgrader.")
    sub = p.add_subparsers(dest="command", required=True)

    g = sub.add_parser("generate", help="regenerate assignments/ from solutions/ (nbgrader)")
    g.add_argument("assignments", nargs="*", help="assignment ids (default: all)")
    g.add_argument("--course", default=".", help="course directory (default: .)")

    r = sub.add_parser("grade", help="grade every submission in parallel")
    r.add_argument("assignments", nargs="*", help="assignment ids (default: all)")
    r.add_argument("--course", default=".", help="course directory (default: .)")
    r.add_argument("--submissions", help="DIR/<student>/<assignment>/<notebook>.ipynb (default: COURSE/submitted)")
    where = r.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, help="local worker processes (default: one per core)")
    where.add_argument("--scheduler", help="address of an existing dask.distributed scheduler")
    r.add_argument("--force", action="store_true", help="regrade submissions that have not changed")
    r.add_argument("--no-verify", action="store_true",
                   help="record nbgrader's in-kernel scores unverified (the student's code can decide them: "
                        "not for credit)")
    r.add_argument("--unsafe-no-sandbox", action="store_true",
                   help="grade where bubblewrap is missing: kernels and verification are not isolated from "
                        "the grader (never as root; not for credit, see the README)")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")

    for name, (module, helptext) in _DELEGATED.items():
        x = sub.add_parser(name, help=helptext, description=helptext)
        importlib.import_module(module).add_arguments(x)
    return p


#: Subcommands implemented in their own modules, each with ``add_arguments(parser)`` and ``main(args)``.
_DELEGATED = {"feedback": ("autograder.feedback", "per-student HTML feedback"),
              "report": ("autograder.report", "class report"),
              "check": ("autograder.selfcheck", "grade one notebook on the spot"),
              "demo": ("autograder.demo", "grade a synthetic class"),
              "kit": ("autograder.kit", "build the student kit of released assignments (classroom mode)")}


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser().parse_args(argv)
    if args.command in _DELEGATED:
        return importlib.import_module(_DELEGATED[args.command][0]).main(args) or 0

    from . import api
    from .config import CourseConfigError
    from .kit.publicdata import KitBuildError
    from .sandbox.command import SandboxError
    from .variants import SecretMissing

    try:
        if args.command == "generate":
            for path in api.generate(args.course, args.assignments or None):
                print(path)
            return 0
        s = api.grade(args.course, args.submissions, args.assignments or None, workers=args.workers,
                      scheduler=args.scheduler, force=args.force, verify=not args.no_verify,
                      progress=not args.no_progress, unsafe_no_sandbox=args.unsafe_no_sandbox)
    except CourseConfigError as exc:
        print(f"autograder: course.yml is invalid:\n{exc}", file=sys.stderr)
        return 2
    except SandboxError as exc:
        print(f"autograder: refusing to grade: {exc}", file=sys.stderr)
        return 2
    except KitBuildError as exc:
        print(f"autograder: {exc}", file=sys.stderr)
        return 2
    except SecretMissing as exc:
        print(f"autograder: refusing to grade: {exc}", file=sys.stderr)
        return 2
    print(f"graded {s.graded}, failed {s.failed}, unchanged {s.skipped} in {s.seconds:.1f} s "
          f"(seed {s.seed}); wrote {s.csv} and {s.json}")
    for note in s.notes:
        print(f"note: {note}")
    for warning in s.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for err in s.errors:
        print(f"grader error (will be retried): {err}", file=sys.stderr)
    return 1 if s.errors else 0


if __name__ == "__main__":
    sys.exit(main())
