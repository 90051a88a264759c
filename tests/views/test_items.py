"""Item analysis (issue 23): difficulty and discrimination of every check, on a class with planted properties."""
from __future__ import annotations

import random

import numpy as np
import pytest

from autograder import report
from autograder.report.items import LOOK_AT, item_analysis, look_at, point_biserial

A = "01_scores_softmax"
CHECKS = {"dot_product_seed_example": 2, "softmax_rows_sum_to_one": 3, "softmax_large_scores": 1,
          "CONCEPTS_01": 1, "attention_scores_shape": 2, "weighted_average_batched": 3}


def _planted_class(n=40, seed=3):
    """Students of rising ability: a good check passes with ability, ``softmax_large_scores`` is planted
    to fail for the strong students (it passes only below the median ability), every student passes
    ``dot_product_seed_example`` (it tells nothing), and one graded cell is a hand-graded answer."""
    rng = random.Random(seed)
    subs = []
    for i in range(n):
        ability = i / (n - 1)
        passes = {"dot_product_seed_example": True,
                  "softmax_rows_sum_to_one": rng.random() < ability,
                  "softmax_large_scores": ability < 0.5,
                  "CONCEPTS_01": rng.random() < 0.2 + 0.6 * ability,
                  "attention_scores_shape": rng.random() < ability,
                  "weighted_average_batched": rng.random() < ability}
        cells = [{"grade_id": g, "task": g.split("_")[0], "max_score": p, "score": p if passes[g] else 0.0,
                  "passed": passes[g], "manual": False,
                  "misconception": None if passes[g] else ("softmax.global_max" if g == "softmax_large_scores"
                                                          else "wrong_values")}
                 for g, p in CHECKS.items()]
        cells.append({"grade_id": "why", "task": None, "max_score": 2, "score": 2 * ability, "manual": True})
        subs.append({"student_id": f"s{i:02d}", "assignment_id": A, "notebook_id": A, "status": "graded",
                     "cells": cells, "flags": []})
    subs.append({"student_id": "zz", "assignment_id": A, "notebook_id": A, "status": "failed", "cells": [],
                 "flags": [], "reason": "invalid JSON"})
    return subs


def test_a_check_failing_the_strong_students_is_looked_at_first():
    rows = {r.grade_id: r for r in item_analysis(_planted_class())}
    assert set(rows) == set(CHECKS)  # the hand-graded cell and the unreadable file are not items
    planted = rows["softmax_large_scores"]
    assert planted.discrimination < -0.5 and planted.difficulty == pytest.approx(0.5)
    assert planted.misconceptions == [("softmax.global_max", 20)]
    assert rows["softmax_rows_sum_to_one"].discrimination > LOOK_AT
    assert rows["dot_product_seed_example"].difficulty == 1.0
    assert rows["dot_product_seed_example"].discrimination is None  # everyone passed: no information
    flagged = look_at(list(rows.values()))
    assert flagged[0].grade_id == "softmax_large_scores"
    assert "dot_product_seed_example" not in {r.grade_id for r in flagged}


def test_discrimination_is_the_correlation_with_the_rest_of_the_score():
    subs = [s for s in _planted_class() if s["status"] == "graded"]
    for row in item_analysis(subs):
        if row.discrimination is None:
            continue
        item = np.array([next(c["score"] for c in s["cells"] if c["grade_id"] == row.grade_id) > 0 for s in subs], float)
        total = np.array([sum(c["score"] for c in s["cells"] if not c["manual"]) for s in subs])
        rest = total - item * CHECKS[row.grade_id]
        assert row.discrimination == pytest.approx(np.corrcoef(item, rest)[0, 1])  # numpy's Pearson r


def test_too_few_or_constant_gives_no_correlation():
    assert point_biserial([True, False, True], [1.0, 0.0, 1.0]) is None  # fewer than 5 submissions
    assert point_biserial([True, False] * 5, [3.0] * 10) is None  # the rest of the score does not vary


def test_report_lists_and_plots_the_checks_to_look_at():
    s = report.summarise({"course_id": "c", "submissions": _planted_class()}, course_dir=None)
    text = report.render_text(s)
    assert "Checks to look at" in text and "softmax_large_scores" in text.split("Checks to look at")[1].split("\n\n")[0]
    page = report.render_html(s)
    section = page.split('id="items"')[1].split("</section>")[0]
    assert "Look at these checks" in section
    assert section.index("softmax_large_scores") < section.index("Every check")
    assert "<svg" in section  # the difficulty-against-discrimination plot


def test_a_per_student_items_checks_count_students_right_on_their_own_numbers():
    """Issue 22: a check of a per-student item (02's Stop-and-try values) is marked ``own_numbers`` from the
    registry (``Check.item``), and its "passing" counts the verified verdicts, each judged on the student's own
    numbers: two right on their own, one who handed in a classmate's answers."""
    verdicts = {"alice": (True, None), "eve": (True, None), "bob": (False, "variants.others_numbers")}
    subs = [{"student_id": sid, "assignment_id": "02_scaling", "notebook_id": "02_scaling", "status": "graded",
             "flags": [], "cells": [{"grade_id": g, "task": g.rsplit("_", 1)[0], "max_score": 1.0,
                                     "score": float(ok), "passed": ok, "manual": False, "misconception": m}
                                    for g in ("STOP_AND_TRY_SCORES_values", "STOP_AND_TRY_SCORES_format")]}
            for sid, (ok, m) in verdicts.items()]
    rows = {r.grade_id: r for r in item_analysis(subs)}
    values, form = rows["STOP_AND_TRY_SCORES_values"], rows["STOP_AND_TRY_SCORES_format"]
    assert values.own_numbers and not form.own_numbers
    assert values.difficulty == pytest.approx(2 / 3) and values.misconceptions == [("variants.others_numbers", 1)]
    assert values.record()["own_numbers"] is True
    # the report shows a count right on their own item, not a share of one shared answer
    assert (values.passed, values.submissions, values.record()["passed"]) == (2, 3, 2)
    page = report.render_html(report.summarise({"course_id": "c", "submissions": subs}, course_dir=None))
    row = page.split('id="items"')[1].split("<code>STOP_AND_TRY_SCORES_values</code>")[1].split("</tr>")[0]
    assert "2 of 3 on their own" in row and "67%" not in row
    form_row = page.split('id="items"')[1].split("<code>STOP_AND_TRY_SCORES_format</code>")[1].split("</tr>")[0]
    assert "67%" in form_row  # a shared check keeps its share
    from autograder.report.terminal import passing
    assert passing(values) == "2 of 3 right on their own numbers" and passing(form) == "passing 67%"
