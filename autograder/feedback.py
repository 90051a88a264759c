"""Per-student feedback pages, without hidden-test code.

    autograder feedback [--results reports/results.json] [--out feedback/]

writes one HTML page per student and notebook, ``feedback/<student>/<assignment>/<notebook>.html``
(nbgrader's feedback layout, with the submission's ``timestamp.txt`` and
``submission_secret.txt``, so ``nbgrader release_feedback`` hands them out and
``nbgrader fetch_feedback`` finds them), with the student's score per task, the message of every
failed check and the misconception it points to, the hand grades and comments from formgrader,
and the student's own answer cells. Stock ``nbgrader generate_feedback`` would render the
autograded notebook, hidden tests included (nbgrader issues 917 and 1363); this course's
``nbgrader_config.py`` makes it render this same page instead (:mod:`autograder.feedback_exporter`),
so whichever command writes ``feedback/`` (``--force`` included) students fetch one page that
never contains a test cell's source, a ``check(...)`` line, the instructor's solution, a rubric
or any cell other than the student's answers.

Python API: :func:`render_feedback` (one page), :func:`write_feedback` (the class).
"""
from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import markupsafe

from .grading import provenance
from .notebook import model
from .checks import NOT_ATTEMPTED
from .report import DEFAULT_RESULTS, _course_info, _registry, cell_task, load_results, misconception_title
from .text import points as points_text

DEFAULT_OUT = Path("feedback")

#: Text that must never reach a feedback page: hidden-test markers, check calls, solution markers.
FORBIDDEN = re.compile(r"BEGIN HIDDEN TESTS|END HIDDEN TESTS|BEGIN SOLUTION|END SOLUTION|"
                       r"\bcheck\(\s*['\"]|autograder\.hidden|instructor only|rubric_for", re.I)

#: Files of a submission that ``nbgrader release_feedback`` needs beside each page.
EXCHANGE_FILES = ("timestamp.txt", "submission_secret.txt")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def scrub(text: str | None) -> str | None:
    """A message made safe for a student: ANSI colours removed, lines with test code dropped."""
    if text is None:
        return None
    text = _ANSI.sub("", str(text))
    lines = [line for line in text.splitlines() if not FORBIDDEN.search(line)]
    return "\n".join(lines).strip() or None


def answer_cells(nb) -> list[dict]:
    """The student's own answer cells of a notebook: ``[{grade_id, kind, source}]``.

    Only cells that nbgrader marks as solution cells (the cells the student writes in) are kept,
    never a locked or test cell; a cell whose source carries a hidden-test or solution marker
    is left out too (it would be the instructor's text, not the student's).
    """
    return [{"grade_id": cell.grade_id or "", "kind": cell.cell_type, "source": cell.source}
            for cell in model.as_notebook(nb).cells
            if cell.is_solution and not cell.locked and not (cell.meta.get("grade") and cell.cell_type == "code")
            and not FORBIDDEN.search(cell.source)]


def _read_notebook(path: Path):
    try:
        return model.read(path)
    except model.NotANotebook:
        return None


def find_notebook(sub: dict, roots: list[Path]) -> dict | None:
    """The student's notebook (autograded, else submitted) as a model Notebook, or None."""
    rel = Path(sub["student_id"]) / sub["assignment_id"] / f"{sub.get('notebook_id') or sub['assignment_id']}.ipynb"
    for root in roots:
        if root and (root / rel).is_file():
            nb = _read_notebook(root / rel)
            if nb is not None:
                return nb
    return None


def page_data(sub: dict, notebook=None, title: str | None = None) -> dict:
    """What one feedback page shows (plain data; :func:`render_feedback` renders it)."""
    checks, registry_tasks, titles = _registry()
    order = registry_tasks.get(sub.get("assignment_id"), [])
    by_task: dict[str, list[dict]] = defaultdict(list)
    manual = []
    for cell in sub.get("cells") or []:
        if cell.get("manual") or cell.get("passed") is None:
            graded = cell.get("manual_score") is not None or sub.get("status") == "failed"
            manual.append({"grade_id": cell.get("grade_id"), "max_score": cell.get("max_score"),
                           "score": float(cell.get("score") or 0) if graded else None,
                           "comment": scrub(cell.get("comment"))})
            continue
        by_task[cell_task(cell, checks) or cell.get("grade_id")].append(cell)
    tasks = []
    for task in [t for t in order if t in by_task] + [t for t in by_task if t not in order]:
        cells = by_task[task]
        failures = []
        for c in cells:
            if c.get("passed"):
                continue
            mid = c.get("misconception")
            check = checks.get(c.get("grade_id"))
            failures.append({
                "check": getattr(check, "title", None) or c.get("grade_id"),
                "message": scrub(c.get("message")) or "this check did not pass.",
                "misconception": None if not mid or mid in NOT_ATTEMPTED else misconception_title(mid, titles),
            })
        passed = sum(bool(c.get("passed")) for c in cells)
        not_started = bool(cells) and all(c.get("passed") or c.get("misconception") in NOT_ATTEMPTED for c in cells) \
            and passed < len(cells)
        status = "done" if passed == len(cells) else ("not started" if not_started else "to fix")
        comments = [scrub(c.get("comment")) for c in cells if scrub(c.get("comment"))]
        tasks.append({"task": task, "passed": passed, "checks": len(cells), "status": status, "comments": comments,
                      "score": sum(float(c.get("score") or 0) for c in cells),
                      "max_score": sum(float(c.get("max_score") or 0) for c in cells),
                      "failures": [] if status == "not started" else failures,
                      "misconceptions": sorted({f["misconception"] for f in failures if f["misconception"]})})
    answers = answer_cells(notebook) if notebook else []
    return {
        "flags": grader_notes(sub.get("flags") or []),
        "student_id": sub.get("student_id"), "assignment_id": sub.get("assignment_id"),
        "notebook_id": sub.get("notebook_id") or sub.get("assignment_id"),
        "title": title or sub.get("assignment_id"),
        "status": sub.get("status", "graded"), "reason": scrub(sub.get("reason")),
        "score": max(0.0, float(sub.get("score") or 0) - float(sub.get("late_penalty") or 0)),
        "late_penalty": float(sub.get("late_penalty") or 0), "max_score": float(sub.get("max_score") or 0),
        "tasks": tasks, "manual": manual, "answers": answers,
        "comments": [{"name": name, "text": scrub(text)} for name, text in (sub.get("comments") or {}).items()
                     if scrub(text)],
    }


def grader_notes(flags: list[dict], most: int = 20) -> list[dict]:
    """What the student is told of the flags: ``[{kind, cell, advice}]`` of those with student-facing ``advice``.

    A flag's ``evidence`` is the instructor's and never shown; its ``advice`` (what the grader's rule did and
    what the student can do) is written for the student, and scrubbed here like every message.
    """
    notes, seen = [], set()
    for flag in flags:
        advice = scrub(flag.get("advice")) if isinstance(flag, dict) else None
        if not advice or advice in seen:
            continue
        seen.add(advice)
        notes.append({"kind": str(flag.get("kind") or "note"), "cell": scrub(flag.get("cell")), "advice": advice})
    return notes[:most]


def inline_markdown(text) -> "markupsafe.Markup":
    """Escape ``text``, then render the two marks the check messages use: `code` and *emphasis*."""
    import markupsafe
    escaped = str(markupsafe.escape(text or ""))
    escaped = re.sub(r"`([^`\n]+)`", r"<code>\1</code>", escaped)
    escaped = re.sub(r"(?<![\w*])\*([^*\n]+?)\*(?![\w*])", r"<em>\1</em>", escaped)
    return markupsafe.Markup(escaped)


def _env():
    import jinja2
    env = jinja2.Environment(loader=jinja2.PackageLoader("autograder", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]))
    env.filters["num"] = points_text
    env.filters["md"] = inline_markdown
    return env


class NoPage(LookupError):
    """A submission nobody may be shown a page of: one made from another account than the student it names."""


def render_feedback(sub: dict, notebook: dict | None = None, title: str | None = None, env=None) -> str:
    """The HTML page of one submission (``sub``: one entry of results.json's ``submissions``).

    Raises :class:`NoPage` for a submission refused for its submitter (``grading/provenance.py``): the
    student it names never made it, and the one who did (the only one who could fetch it) is not them.
    """
    if any(f.get("rule") == provenance.RULE for f in sub.get("flags") or []):
        raise NoPage(f"{sub.get('student_id')}/{sub.get('assignment_id')} was submitted from another account: "
                     f"no feedback page is written for it")
    data = page_data(sub, notebook, title)
    html = (env or _env()).get_template("feedback.html.j2").render(
        p=data, created=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    leak = FORBIDDEN.search(html)
    if leak:  # belt and braces: a page with test code is never written
        raise RuntimeError(f"feedback page of {data['student_id']}/{data['assignment_id']} would contain {leak.group(0)!r}")
    return html


def write_feedback(results_path: str | Path = DEFAULT_RESULTS, out_dir: str | Path = DEFAULT_OUT,
                   course_dir: str | Path | None = ".", autograded_dir: str | Path | None = None,
                   submissions_dir: str | Path | None = None, students=None, assignments=None,
                   with_answers: bool = True) -> list[Path]:
    """Write every page; returns their paths.

    The student's answer cells are read from ``autograded_dir`` (default
    ``COURSE_DIR/autograded``), else from ``submissions_dir``; without either the pages show
    scores and messages only.
    """
    results = load_results(results_path)
    course_titles = _course_info(course_dir)[0]
    roots = []
    if with_answers:
        if autograded_dir is None and course_dir is not None:
            autograded_dir = Path(course_dir) / "autograded"
        roots = [Path(p) for p in (autograded_dir, submissions_dir) if p is not None]
    env = _env()
    exchange_roots = [Path(r) for r in (autograded_dir, submissions_dir) if r is not None]
    if course_dir is not None:
        exchange_roots += [Path(course_dir) / "autograded", Path(course_dir) / "submitted"]
    written = []
    for sub in results.get("submissions", []):
        if students and sub.get("student_id") not in students:
            continue
        if assignments and sub.get("assignment_id") not in assignments:
            continue
        nb = find_notebook(sub, roots) if roots else None
        try:
            page = render_feedback(sub, nb, course_titles.get(sub.get("assignment_id")), env)
        except NoPage:
            continue
        path = Path(out_dir) / sub["student_id"] / sub["assignment_id"] / f"{sub.get('notebook_id') or sub['assignment_id']}.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page, encoding="utf-8")
        copy_exchange_files(sub, exchange_roots, path.parent)
        written.append(path)
    return written


def copy_exchange_files(sub: dict, roots: list[Path], dest: Path) -> None:
    """Copy the submission's ``timestamp.txt`` and ``submission_secret.txt`` beside its page.

    ``nbgrader release_feedback`` needs both (it names the released page after a hash of the
    secret); ``nbgrader collect`` put them in ``submitted/<student>/<assignment>/``. Only small
    regular files are copied (a student writes them in the exchange; never a link).
    """
    for name in EXCHANGE_FILES:
        for root in roots:
            src = Path(root) / sub["student_id"] / sub["assignment_id"] / name
            if src.is_file() and not src.is_symlink() and src.stat().st_size <= 4096:
                (dest / name).write_bytes(src.read_bytes())
                break


# ---------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--course", "--course-dir", dest="course_dir", default=".", help="course directory (default: .)")
    parser.add_argument("--results", default=None, help="results.json (default: COURSE_DIR/reports/results.json)")
    parser.add_argument("--out", default=None, help="output folder (default: COURSE_DIR/feedback)")
    parser.add_argument("--autograded", default=None, help="autograded notebooks, for the student's answers "
                                                           "(default: COURSE_DIR/autograded)")
    parser.add_argument("--submissions", default=None, help="submitted notebooks, used when no autograded copy exists")
    parser.add_argument("--student", action="append", default=None, help="only this student (repeatable)")
    parser.add_argument("--assignment", action="append", default=None, help="only this assignment (repeatable)")
    parser.add_argument("--no-answers", action="store_true", help="leave the student's answer cells out")


def main(args: argparse.Namespace) -> int:
    """Run ``autograder feedback`` on the arguments :func:`autograder.cli.main` parsed with :func:`add_arguments`."""
    course_dir = Path(args.course_dir)
    results = Path(args.results) if args.results else course_dir / DEFAULT_RESULTS
    out = Path(args.out) if args.out else course_dir / DEFAULT_OUT
    try:
        if not args.results:
            from .report import refresh
            refresh(course_dir)
        written = write_feedback(results, out, course_dir, args.autograded, args.submissions, args.student,
                                 args.assignment, not args.no_answers)
    except (FileNotFoundError, ValueError) as exc:
        print(f"autograder feedback: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(written)} feedback page{'s' if len(written) != 1 else ''} under {out}")
    return 0
