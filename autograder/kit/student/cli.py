"""``autograder check NOTEBOOK``: the student kit's command line (classroom mode: public checks only).

Runs the notebook's code cells in a child Python process (killed after ``--timeout`` seconds)
and prints what the notebook's visible checks print: every task's public checks and the
summary. It says first that these are public checks only: the hidden tests are not in this kit,
and whether an answer-key value (a Stop-and-try answer) is right is not said here. Exits 0 when
every task passes its visible checks, 1 otherwise, 2 when the notebook cannot be read.

The notebook is read by the grader's own reader (``autograder/notebook/model.py``, shipped in the
kit as it is): the same cells run, as the same Python (test cells and cell magics other than
``%%time``, ``%%timeit``, ``%%capture`` and ``%%prun`` are not run; a ``%`` or ``!`` line is
``pass``), so ``autograder check`` and ``autograder grade`` never read one notebook two ways.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

from .kit import KIT
from .notebook import model

HEADER = ("Classroom mode: this runs the public checks only (the visible checks of the notebook, on the public "
          "examples). The hidden tests that decide your grade are not in this kit, and whether an answer-key value "
          "(such as a Stop-and-try answer) is right is not said here: you learn it when your notebook is graded.")
_GRADER_CALL = re.compile(r"""Grader\(\s*["']([A-Za-z0-9_\-]+)["']""")


def runnable(path: Path) -> list[tuple[int, str]]:
    """``(cell index, Python)`` of every cell the check runs, in order: the grader's rule (:mod:`.notebook.model`).

    Raises
    ------
    autograder.notebook.model.NotANotebook
        When ``path`` is not a readable notebook (the message says why).
    """
    return [(cell.index, cell.python) for cell in model.read(path).code_cells if cell.python is not None]


def _assignment(path: Path, given: str | None) -> str:
    if given:
        return given
    for cell in model.read(path).code_cells:
        match = _GRADER_CALL.search(cell.source)
        if match:
            return match.group(1)
    for assignment in KIT["released"]:
        if assignment in path.stem or path.stem.startswith(assignment[:3]):
            return assignment
    raise ValueError(f"cannot tell which assignment {path.name} is; pass --assignment (one of "
                     f"{', '.join(KIT['released'])})")


def _child(path: Path, assignment: str) -> int:
    from .notebook import Grader

    namespace = {"__name__": "__main__"}
    for index, python in runnable(path):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            try:
                exec(compile(python, f"<cell {index}>", "exec"), namespace)
            except BaseException:  # noqa: BLE001 - a stub or a failing cell: Run All with errors allowed
                pass
    grader = Grader(assignment, namespace)
    for task in grader.data["tasks"]:
        grader.check(task)
    grader.summary()
    return 0 if all(v.passed for t in grader.data["tasks"] for v in grader.verdicts(t)) else 1


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="autograder", description="The course's student kit.")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="run a notebook's visible checks (public examples only)")
    check.add_argument("notebook")
    check.add_argument("--assignment", help=f"one of {', '.join(KIT['released'])} (default: from the notebook)")
    check.add_argument("--timeout", type=float, default=60.0, help="seconds the notebook may run (default 60)")
    child = sub.add_parser("_child")
    child.add_argument("notebook")
    child.add_argument("assignment")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.command == "_child":
        return _child(Path(args.notebook), args.assignment)
    path = Path(args.notebook)
    try:
        assignment = _assignment(path, args.assignment)
    except ValueError as exc:  # model.NotANotebook included
        print(f"autograder check: {exc}", file=sys.stderr)
        return 2
    if assignment not in KIT["released"]:
        print(f"autograder check: {assignment} is not released in this kit ({', '.join(KIT['released'])})",
              file=sys.stderr)
        return 2
    print(HEADER + "\n")
    try:
        done = subprocess.run([sys.executable, "-m", "autograder.cli", "_child", str(path), assignment],
                              timeout=args.timeout)
    except subprocess.TimeoutExpired:
        print(f"autograder check: the notebook ran for more than {args.timeout:g} s", file=sys.stderr)
        return 1
    return 1 if done.returncode else 0


if __name__ == "__main__":
    sys.exit(main())
