"""The class view: what a class got right and wrong, from ``reports/results.json``.

    autograder report [--results reports/results.json] [--html reports/report.html]

prints, per task, how many submissions passed every check of the task, the most frequent
misconceptions (with their titles from :data:`autograder.checks.MISCONCEPTIONS`), the score
distribution per assignment and in total, the submissions flagged ("possible tampering", the
static scan) and the submissions that could not be graded; and writes the same as an HTML page
with plots (matplotlib, inlined as SVG: the page has no external assets).

Python API: :func:`load_results`, :func:`summarise`, :func:`render_text`, :func:`render_html`,
:func:`write_report`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .html import plot_misconceptions, plot_pass_rates, plot_scores, render_html
from .summary import (DEFAULT_HTML, DEFAULT_RESULTS, ClassSummary, MisconceptionRow, ScoreRow, TaskRow,
                      _course_info, _registry, cell_task, load_results, misconception_title, summarise)
from .terminal import histogram, render_text

__all__ = ["ClassSummary", "MisconceptionRow", "ScoreRow", "TaskRow", "cell_task", "histogram", "load_results",
           "misconception_title", "plot_misconceptions", "plot_pass_rates", "plot_scores", "render_html",
           "render_text", "summarise", "write_report", "DEFAULT_HTML", "DEFAULT_RESULTS",
           "_course_info", "_registry"]


def write_report(results_path: str | Path = DEFAULT_RESULTS, html_path: str | Path | None = DEFAULT_HTML,
                 course_dir: str | Path | None = ".", top: int = 10, out=None) -> ClassSummary:
    """Print the text report to ``out`` (stdout) and write the HTML page; returns the summary."""
    summary = summarise(load_results(results_path), course_dir=course_dir)
    out = sys.stdout if out is None else out
    out.write(render_text(summary, top=top))
    if html_path:
        html_path = Path(html_path)
        html_path.parent.mkdir(parents=True, exist_ok=True)
        html_path.write_text(render_html(summary, top=max(top, 15)), encoding="utf-8")
        out.write(f"\nHTML report: {html_path}\n")
    return summary


def refresh(course_dir: str | Path) -> None:
    """Rewrite the course's results.json and grades.csv with the gradebook's hand grades (see
    :func:`autograder.grading.reports.refresh_reports`); nothing where the course was never graded."""
    if (Path(course_dir) / "course.yml").is_file():
        from autograder.grading.reports import refresh_reports
        refresh_reports(course_dir)


# ---------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--course", "--course-dir", dest="course_dir", default=".", help="course directory (course.yml, reports/); default: .")
    parser.add_argument("--results", default=None, help="results.json to read (default: COURSE_DIR/reports/results.json)")
    parser.add_argument("--html", default=None, help="HTML page to write (default: COURSE_DIR/reports/report.html)")
    parser.add_argument("--no-html", action="store_true", help="print the text report only")
    parser.add_argument("--top", type=int, default=10, help="misconceptions to list in the terminal (default 10)")


def main(args: argparse.Namespace) -> int:
    """Run ``autograder report`` on the arguments :func:`autograder.cli.main` parsed with :func:`add_arguments`."""
    course_dir = Path(args.course_dir)
    results = Path(args.results) if args.results else course_dir / DEFAULT_RESULTS
    html_path = None if args.no_html else (Path(args.html) if args.html else course_dir / DEFAULT_HTML)
    try:
        if not args.results:
            refresh(course_dir)
        write_report(results, html_path, course_dir=course_dir, top=args.top)
    except (FileNotFoundError, ValueError) as exc:
        print(f"autograder report: {exc}", file=sys.stderr)
        return 2
    return 0
