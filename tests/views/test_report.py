"""autograder report: the class view from a hand-written results.json."""
from __future__ import annotations

import re

from autograder import cli, report


def test_task_counts(results_small):
    s = report.summarise(results_small, course_dir=None)
    rows = {(r.assignment, r.task): r for r in s.tasks}
    assert list(rows) == [("01_scores_softmax", "dot_product"), ("01_scores_softmax", "softmax"),
                          ("02_scaling", "scaled_scores")]
    dot, soft, scaled = rows.values()
    # 01: s01 full, s02 wrong axis, s03 blank, s04 two mistakes, s05 overflow
    assert (dot.submissions, dot.passed, dot.not_attempted) == (5, 4 - 1, 1)
    assert (soft.submissions, soft.passed, soft.not_attempted) == (5, 1, 1)
    assert soft.misconceptions == {"softmax.wrong_axis": 2, "softmax.no_max_subtraction": 1}
    # 02: s05's submission failed (no cells): counted, not passed, not a misconception
    assert (scaled.submissions, scaled.passed, scaled.not_attempted) == (4, 2, 1)
    assert dot.points == 4 and soft.points == 6


def test_misconception_ranking_and_titles(results_small):
    s = report.summarise(results_small, course_dir=None)
    assert [(m.id, m.count) for m in s.misconceptions] == [
        ("softmax.wrong_axis", 2), ("dot_product.elementwise", 1), ("scaled_scores.divides_by_d", 1),
        ("softmax.no_max_subtraction", 1)]
    wrong_axis = s.misconceptions[0]
    assert wrong_axis.title == "softmax normalised along the wrong axis"  # from checks.MISCONCEPTIONS
    assert wrong_axis.students == ["s02", "s04"]
    # "not attempted" is not ranked as a misconception
    assert all(m.id != "not_implemented" for m in s.misconceptions)


def test_scores_totals_flags_failures(results_small):
    s = report.summarise(results_small, course_dir=None)
    assert s.students == ["s01", "s02", "s03", "s04", "s05"]
    by = {r.assignment: r for r in s.scores}
    assert sorted(by["01_scores_softmax"].scores) == [0, 3, 4, 4, 10]
    assert by["02_scaling"].max_score == 8 and by["02_scaling"].submitted == 4
    assert s.totals == {"s01": 17, "s02": 11, "s03": 0, "s04": 5, "s05": 4}  # s03 did not submit 02
    assert s.total_max == 18
    assert [f["kind"] for f in s.flags] == ["possible tampering", "static scan"]
    assert s.failed == [{"student_id": "s05", "assignment_id": "02_scaling", "notebook_id": "02_scaling",
                         "reason": "invalid JSON: the file is not a notebook"}]


def test_bonus_is_left_out_of_the_total(results_small):
    s = report.summarise(results_small, course_dir=None, bonus={"02_scaling"})
    assert s.total_max == 10 and s.totals["s01"] == 10 and s.bonus_totals["s01"] == 7


def test_text_report(results_small):
    text = report.render_text(report.summarise(results_small, course_dir=None))
    assert "5 students, 9 submissions (1 could not be graded, 2 flagged)" in text
    assert re.search(r"01_scores_softmax\s+softmax\s+1/5\s+20%\s+1\s+softmax.wrong_axis \(2\)", text)
    lines = text.splitlines()
    ranking = lines[lines.index(next(l for l in lines if l.startswith("Most frequent"))) + 1:][:4]
    assert ranking[0].split()[:2] == ["2", "softmax.wrong_axis"]
    assert "softmax normalised along the wrong axis" in ranking[0]
    assert "s04/01_scores_softmax  [possible tampering] softmax_rows_sum_to_one\n      nbgrader scored 3/3" in text
    assert "s05/01_scores_softmax  [static scan] line 12\n      np.allclose = ..." in text
    assert "s05/02_scaling/02_scaling: invalid JSON: the file is not a notebook" in text
    assert "Flagged submissions (2 submissions, 2 flags)" in text
    assert "Total per student (of 18; an assignment not submitted counts 0)" in text
    assert max(len(l) for l in lines) <= 100


def test_html_report(results_small, tmp_path):
    summary = report.summarise(results_small, course_dir=None)
    page = report.render_html(summary)
    assert page.startswith("<!DOCTYPE html>")
    assert page.count("<svg") == 4  # pass rates, misconceptions, score histograms, item analysis
    # self-contained: no external scripts, stylesheets, images or fonts
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "<script" not in page and "<link" not in page
    for text in ("softmax normalised along the wrong axis", "possible tampering", "static scan",
                 "invalid JSON: the file is not a notebook", "s05/02_scaling/02_scaling"):
        assert text in page
    assert "&lt;" not in summary.course_id and "<script>" not in page  # escaped output


def test_flags_grouped_per_submission(results_small):
    sub = results_small["submissions"][5]  # s04/01, one tampering flag
    sub["flags"] += [dict(sub["flags"][0], grade_id=f"softmax_extra_{i}", task="softmax") for i in range(30)]
    s = report.summarise(results_small, course_dir=None)
    assert s.flagged_submissions == 2 and len(s.flags) == 32
    groups = s.flag_groups
    assert [(g["student_id"], g["kind"], g["count"]) for g in groups] == [
        ("s04", "possible tampering", 31), ("s05", "static scan", 1)]
    text = report.render_text(s)
    assert "[possible tampering ×31] 31 cells of 1 task: softmax\n" in text
    assert text.count("possible tampering") == 1
    text = report.render_text(s, max_flags=1)
    assert "… and 1 more flagged submissions" in text
    page = report.render_html(s, plots=False)
    assert "all 31</summary>" in page


def test_html_escapes_student_text(results_small):
    results_small["submissions"][0]["flags"] = [{"kind": "static scan", "grade_id": None, "line": 1, "cell": None,
                                                 "evidence": "<script>alert(1)</script>"}]
    page = report.render_html(report.summarise(results_small, course_dir=None), plots=False)
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page


def test_cli(results_path, tmp_path, capsys):
    html = tmp_path / "out" / "report.html"
    assert cli.main(["report", "--results", str(results_path), "--html", str(html), "--course", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Most frequent misconceptions" in out and f"HTML report: {html}" in out
    assert html.read_text().count("<svg") == 4
    assert cli.main(["report", "--course", str(tmp_path)]) == 2  # no reports/results.json there
    assert "run `autograder grade` first" in capsys.readouterr().err


def test_empty_class():
    s = report.summarise({"submissions": []}, course_dir=None)
    text = report.render_text(s)
    assert "0 students, 0 submissions" in text
    report.render_html(s)  # no plots, no crash


def test_the_terminal_report_carries_no_escape_sequence_of_a_student(results_small):
    """Issue 13 (5): an ESC/OSC sequence in a flag's evidence or a failure reason is not printed raw."""
    import copy

    results = copy.deepcopy(results_small)
    sub = results["submissions"][0]
    sub["flags"] = [{"kind": "static scan", "rule": "x", "grade_id": None, "line": 1, "cell": "c",
                     "evidence": "line 1: \x1b]8;;http://evil\x07click\x1b]8;;\x07 \x1b[2J\x1b[31mred"}]
    sub["status"], sub["reason"] = "failed", "bad \x1b[1mbold\x1b[0m \x07bell"
    text = report.render_text(report.summarise(results))
    assert "\x1b" not in text and "\x07" not in text
    assert "click" in text and "red" in text and "bold" in text  # the words stay, the sequences go


def test_grades_csv_cells_cannot_be_formulas():
    """Issue 13 (5): a student id or flag text that a spreadsheet would run as a formula is quoted."""
    from autograder.grading.reports import spreadsheet_safe

    assert spreadsheet_safe('=HYPERLINK("http://evil","x")') == '\'=HYPERLINK("http://evil","x")'
    assert [spreadsheet_safe(t) for t in ("+1", "-2", "@SUM(A1)", "\tx")] == ["'+1", "'-2", "'@SUM(A1)", "'\tx"]
    assert spreadsheet_safe("s01") == "s01" and spreadsheet_safe("") == ""


def test_write_reports_quotes_a_formula_student_id(tmp_path):
    import csv

    from autograder.config import parse_course
    from autograder.grading.minicourse import COURSE_YML
    from autograder.grading.reports import write_reports

    record = {"student_id": "=HYPERLINK(1)", "assignment_id": "ps1", "notebook_id": "ps1", "score": 1.0,
              "late_penalty": None, "status": "failed", "reason": "-x", "flags": [], "cells": []}
    csv_path, _ = write_reports(parse_course(COURSE_YML), tmp_path, [record])
    with open(csv_path, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[1][0] == "'=HYPERLINK(1)" and not rows[1][-1].startswith(("=", "+", "-", "@"))


def test_a_submission_left_unrecorded_by_a_grader_fault_is_submitted_and_flagged(results_small):
    """s03 submitted 02 but every try died with its worker: 02 counts s03 as submitted (not missing), adds no
    score, and the flag tells the instructor why there is no grade."""
    results = dict(results_small, not_recorded=[{
        "student_id": "s03", "assignment_id": "02_scaling", "notebook_id": "02_scaling", "path": "submitted/s03/...",
        "cause": "worker died", "message": "the worker process died", "attempts": 3}])
    s = report.summarise(results, course_dir=None)
    by = {r.assignment: r for r in s.scores}
    assert (by["02_scaling"].submitted, by["02_scaling"].not_submitted, len(by["02_scaling"].scores)) == (5, 0, 4)
    assert s.totals["s03"] == 0
    flag = s.flags[-1]
    assert (flag["student_id"], flag["kind"]) == ("s03", "not graded (grader error)")
    assert "worker died" in flag["evidence"] and "3 tries" in flag["evidence"]
    assert "not graded (grader error)" in report.render_text(s)
