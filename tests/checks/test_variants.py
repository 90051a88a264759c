"""Each student their own Stop-and-try numbers (issue 22): the draw over 300 ids, and the grader's verdicts on them.

Expected values are computed here with plain arithmetic (the dot product written out, the softmax from
``math.exp``), not with ``checks/items.py``'s methods.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from autograder.checks import CHECKS
from autograder.checks.core import Call, Outcome
from autograder.checks.items import (ITEM, LESSON_STOP_AND_TRY, StopAndTry, draw_stop_and_try,
                                     stop_and_try_problems)
from autograder.checks.forms import HAND_ATOL
from autograder.checks.numbers import StudentNumbers, judge_with_numbers
from autograder.variants import class_numbers, student_rng

SECRET = b"a test secret of the course, 0123456789"
COURSE = "attention-arithmetic"
IDS = [f"student{i:03d}" for i in range(300)]


def _scores(item):
    (qx, qy), keys = item.query, item.keys
    return [qx * kx + qy * ky for kx, ky in keys]


def _weights(scores, divisor=math.sqrt(2)):
    e = [math.exp(s / divisor) for s in scores]
    return [x / sum(e) for x in e]


@pytest.fixture(scope="module")
def drawn():
    return {sid: draw_stop_and_try(student_rng(SECRET, COURSE, ITEM, sid)) for sid in IDS}


def test_300_students_get_300_different_items_each_with_a_clear_winner_and_no_one_hot_weights(drawn):
    assert len({(item.query, item.keys) for item in drawn.values()}) == len(IDS)
    for sid, item in drawn.items():
        scores = _scores(item)
        assert all(float(2 * x).is_integer() and abs(x) <= 3 for x in (*item.query, *sum(item.keys, ()))), item
        w = sorted(_weights(scores), reverse=True)
        assert len(set(scores)) == 3 and w[0] >= 2 * w[1], (sid, item, w)  # one key clearly wins
        assert 0.02 <= w[2] and w[0] <= 0.9, (sid, item, w)  # not one-hot
        assert item != LESSON_STOP_AND_TRY and scores != [1.0, 0.0, -1.0]  # the lesson's worked answer is wrong
        assert max(abs(a - b) for a, b in zip(_weights(scores), [0.576, 0.284, 0.140])) > 0.05
    winners = [1 + max(range(3), key=lambda i: _scores(item)[i]) for item in drawn.values()]
    assert {winners.count(k) for k in (1, 2, 3)} and min(winners.count(k) for k in (1, 2, 3)) > 60  # any key can win


@pytest.mark.parametrize("item, why", [
    (StopAndTry((1.0, 0.0), ((3.0, 0.0), (-3.0, 0.0), (0.0, 1.0))), "nearly one-hot"),   # scores 3, -3, 0
    (StopAndTry((1.0, 0.0), ((1.0, 0.0), (1.0, 2.0), (0.0, 1.0))), "two equal scores"),
    (StopAndTry((1.0, 1.0), ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0))), "two equal scores"),
    (StopAndTry((0.0, 0.0), ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0))), "zero"),
    (StopAndTry((1.0, 0.0), ((1.0, 0.0), (1.0, 0.0), (-1.0, 0.0))), "two equal keys"),
    (StopAndTry((1.0, 0.0), ((1.0, 0.0), (3.0, 3.0), (-1.0, 0.0))), "most nearly in the query's direction"),
    (LESSON_STOP_AND_TRY, "the lesson's own example"),
    (StopAndTry((1.0, 0.0), ((3.0, 0.0), (2.0, 1.0), (1.0, -1.0))), "the lesson's scores or weights"),  # 3, 2, 1
])
def test_the_acceptance_rule_refuses_what_would_hide_the_lesson(item, why):
    problems = stop_and_try_problems(item)
    assert any(why in p for p in problems), problems
    if why == "the lesson's scores or weights":
        assert len(problems) == 1  # refused for that reason alone


def _value(name, value):
    return [Call(name, value_only=True)], [Outcome(value=value)]


def _verdict(grade_id, value, numbers):
    calls, outcomes = _value(grade_id.rsplit("_", 1)[0], value)
    return judge_with_numbers(CHECKS[grade_id], calls, outcomes, numbers)


@pytest.fixture(scope="module")
def numbers():
    everyone = class_numbers(SECRET, COURSE, "02_scaling", IDS)
    return {sid: StudentNumbers(sid, everyone[sid], everyone) for sid in IDS}


def test_every_student_gets_full_marks_for_their_own_right_answers(drawn, numbers):
    for sid in IDS:
        scores = _scores(drawn[sid])
        answers = {"STOP_AND_TRY_SCORES_values": scores,
                   "STOP_AND_TRY_WEIGHTS_values": tuple(round(w, 3) for w in _weights(scores)),  # typed by hand
                   "STOP_AND_TRY_LARGEST_value": 1 + scores.index(max(scores))}
        for grade_id, answer in answers.items():
            verdict, flags = _verdict(grade_id, answer, numbers[sid])
            assert verdict.passed and not flags, (sid, grade_id, verdict.message)


def test_the_typical_mistakes_are_named_on_every_students_numbers(drawn, numbers):
    for sid in IDS:
        scores = _scores(drawn[sid])
        for grade_id, answer, named in [
                ("STOP_AND_TRY_WEIGHTS_values", _weights(scores, 1.0), "STOP_AND_TRY.unscaled_weights"),
                ("STOP_AND_TRY_WEIGHTS_values", _weights(scores, 2.0), "STOP_AND_TRY.scaled_by_d_k"),
                ("STOP_AND_TRY_SCORES_values", [s / math.sqrt(2) for s in scores], "STOP_AND_TRY.scaled_scores")]:
            verdict, flags = _verdict(grade_id, answer, numbers[sid])
            assert not verdict.passed and verdict.misconception == named and not flags, (sid, grade_id, verdict)


def test_a_classmates_right_answers_score_0_with_a_flag_naming_whose_numbers_they_are(drawn, numbers):
    copied = 0
    for thief, victim in zip(IDS[:25], IDS[25:50]):
        theirs = _scores(drawn[victim])
        if theirs == _scores(drawn[thief]):
            continue  # the same scores from other keys: right on the copier's own numbers too
        copied += 1
        for grade_id, answer in [("STOP_AND_TRY_SCORES_values", theirs),
                                 ("STOP_AND_TRY_WEIGHTS_values", _weights(theirs))]:
            verdict, flags = _verdict(grade_id, answer, numbers[thief])
            own_weights = _weights(_scores(drawn[thief]))
            if grade_id.startswith("STOP_AND_TRY_WEIGHTS") and np.allclose(own_weights, _weights(theirs), atol=5e-3):
                assert verdict.passed  # shifted scores give the same weights: a right answer on one's own numbers
                continue
            assert not verdict.passed and verdict.misconception == "variants.others_numbers", (thief, verdict)
            assert len(flags) == 1 and flags[0]["kind"] == "another student's numbers", flags
            assert victim in flags[0]["evidence"] and thief in flags[0]["evidence"]
            assert victim not in flags[0]["advice"] and victim not in verdict.message  # the student is not told whose
    assert copied >= 20


def test_the_lessons_example_answered_instead_of_ones_own_is_named_without_a_flag(drawn, numbers):
    """Where a typical mistake on the student's own numbers also lands on the lesson's weights, the message says
    both (it cannot tell which): never the mistake alone, which a copy of the lesson's rubric did not make."""
    lesson = _scores(LESSON_STOP_AND_TRY)  # seed 000: q = (1, 0), keys (1, 0), (0, 1), (-1, 0)
    assert lesson == [1.0, 0.0, -1.0]
    rubric = [0.576, 0.284, 0.140]  # the lesson's worked weights

    def coincide(item):  # unscaled, divided by d_k, by sqrt(n_k): within a hand computation's rounding of the rubric
        return any(max(abs(a - b) for a, b in zip(_weights(_scores(item), d), rubric)) <= HAND_ATOL
                   for d in (1.0, 2.0, math.sqrt(3)))

    for sid in IDS:
        for grade_id, answer in [("STOP_AND_TRY_SCORES_values", lesson), ("STOP_AND_TRY_WEIGHTS_values", rubric)]:
            verdict, flags = _verdict(grade_id, answer, numbers[sid])
            assert verdict.misconception == "variants.lesson_numbers" and not flags, (sid, verdict)
        said = "also what this mistake" in _verdict("STOP_AND_TRY_WEIGHTS_values", rubric, numbers[sid])[0].message
        assert said == coincide(drawn[sid]), sid
    # about 1 id in 600 draws numbers on which dividing by sqrt(3) gives the rubric: the first one past the 300
    sid = next(f"student{i}" for i in range(300, 5000)
               if coincide(draw_stop_and_try(student_rng(SECRET, COURSE, ITEM, f"student{i}"))))
    mine = class_numbers(SECRET, COURSE, "02_scaling", [sid])
    verdict, flags = _verdict("STOP_AND_TRY_WEIGHTS_values", rubric, StudentNumbers(sid, mine[sid], mine))
    assert verdict.misconception == "variants.lesson_numbers" and "also what this mistake" in verdict.message, verdict
    assert "square root of the number of keys" in verdict.message and not flags


def test_a_wrong_answer_that_fits_nobody_is_plain_wrong(numbers):
    verdict, flags = _verdict("STOP_AND_TRY_SCORES_values", [100.0, 200.0, 300.0], numbers[IDS[0]])
    assert verdict.misconception == "wrong_values" and not flags


def test_without_numbers_the_checks_judge_the_lessons_example_as_before():
    assert _verdict("STOP_AND_TRY_SCORES_values", [1.0, 0.0, -1.0], None)[0].passed
    assert _verdict("STOP_AND_TRY_WEIGHTS_values", [0.576, 0.284, 0.140], None)[0].passed
    assert _verdict("STOP_AND_TRY_LARGEST_value", 1, None)[0].passed
    assert not _verdict("STOP_AND_TRY_LARGEST_value", 2, None)[0].passed


def test_02_works_the_seeds_stop_and_try_example_in_the_prose_before_the_students_own_numbers():
    """Issue 22: section 6 works seed 000's example (line 26: q = (1, 0), keys (1, 0), (0, 1), (-1, 0)) with
    numbers computed here with ``math``, and only then gives the student their own numbers (a locked cell)."""
    import math

    from autograder.checks.items import ITEM, LESSON

    from pathlib import Path

    from autograder import submissions

    root = Path(__file__).resolve().parents[2]
    cells = submissions.read(root / "solutions/02_scaling/02_scaling.ipynb").cells
    at = next(i for i, c in enumerate(cells)
              if c.metadata.get("nbgrader", {}).get("grade_id") == "stop_and_try_numbers")
    prose = cells[at - 1].source
    assert prose.startswith("## 6. Stop and try") and cells[at - 1].cell_type == "markdown"
    assert LESSON[ITEM].query == (1.0, 0.0) and LESSON[ITEM].keys == ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0))
    assert "$q = (1, 0)$" in prose and "$k_1 = (1, 0)$, $k_2 = (0, 1)$" in prose and "$k_3 = (-1, 0)$" in prose

    def weights(divisor):
        e = [math.exp(s / divisor) for s in (1, 0, -1)]
        return "(" + ", ".join(f"{x / sum(e):.3f}" for x in e) + ")"

    assert f"\\approx {weights(math.sqrt(2))}$" in prose and f"\\approx {weights(1)}$" in prose  # 0.576 ..., 0.665 ...
    assert "own" in prose and not any("STOP_Q" in c.source for c in cells[:at])


# ---------------------------------------------------------------- the order of the understanding questions' options
CONCEPTS = {"01_scores_softmax": ("CONCEPTS_01", "bcd"), "02_scaling": ("CONCEPTS_02", "a"),
            "04_heads": ("CONCEPTS_04", "dba"), "05_cross_attention": ("CONCEPTS_05", "b")}  # the lesson's answers


def _letters_verdict(grade_id, letters, numbers):
    calls = list(CHECKS[grade_id].make_calls(np.random.default_rng(0)))  # the call carries the number of questions
    return judge_with_numbers(CHECKS[grade_id], calls, [Outcome(value=letters)], numbers)


def shown_letters(printed: str, texts) -> tuple[str, ...]:
    """The letters under which ``texts`` (one per question) are printed to the student, read off the printed options
    (the hub test reads a notebook's printed output with it too)."""
    questions = printed.split("Question ")[1:]
    letters = []
    for block, text in zip(questions, texts, strict=True):
        found = [line.strip()[0] for line in block.splitlines()[1:] if line.strip()[3:] == text]
        assert len(found) == 1, (text, block)
        letters.append(found[0])
    return tuple(letters)


@pytest.mark.parametrize("assignment", CONCEPTS)
def test_each_student_sees_the_options_in_an_order_of_their_own_and_is_graded_through_it(assignment):
    from autograder.checks.concepts import item_of, questions

    task, right = CONCEPTS[assignment]
    item = item_of(assignment)
    rights = [q.options["abcd".index(r)] for q, r in zip(questions(assignment), right, strict=True)]
    everyone = class_numbers(SECRET, COURSE, assignment, IDS)
    orders, shown_right = set(), []
    for sid in IDS:
        mine = everyone[sid][item]
        orders.add(mine.order)
        assert all(sorted(o) == list("abcd") for o in mine.order) and mine.order != ("abcd",) * len(right), mine
        printed = mine.describe()
        letters = shown_letters(printed, rights)
        shown_right.append(letters)
        numbers = StudentNumbers(sid, everyone[sid], everyone)
        verdict, flags = _letters_verdict(f"{task}_value", letters, numbers)
        assert verdict.passed and not flags, (sid, verdict.message)
        if letters != tuple(right):  # the lesson's letters are no answer for this student
            verdict, _ = _letters_verdict(f"{task}_value", tuple(right), numbers)
            assert not verdict.passed and verdict.misconception.startswith(f"{task}."), verdict
            for letter in "abcd":  # the message names no letter, so it cannot point at the right one
                assert f"{letter})" not in verdict.message and f"'{letter}'" not in verdict.message \
                       and f'"{letter}"' not in verdict.message, verdict.message
    # any letter can be the right one: the right option of question 1 is shown under each letter to many students
    assert {letters[0] for letters in shown_right} == set("abcd")
    assert min(sum(letters[0] == x for letters in shown_right) for x in "abcd") > 40
    assert len(orders) > (20 if len(right) == 1 else 250)  # 23 orders of one question other than the lesson's


def test_a_wrong_option_seen_under_ones_own_letter_is_named_by_what_it_says():
    """A student who picks the option 'at every step of training' (02's divisor_always) is told that misconception,
    whatever letter it was shown under."""
    from autograder.checks.concepts import item_of, questions

    item = item_of("02_scaling")
    always = questions("02_scaling")[0].options[1]  # the lesson's b
    everyone = class_numbers(SECRET, COURSE, "02_scaling", IDS[:40])
    for sid in IDS[:40]:
        letter = shown_letters(everyone[sid][item].describe(), [always])
        verdict, _ = _letters_verdict("CONCEPTS_02_value", letter, StudentNumbers(sid, everyone[sid], everyone))
        assert verdict.misconception == "CONCEPTS_02.divisor_always", (sid, letter, verdict)


# ---------------------------------------------------------------- 06's table: another n and another dtype per student
def _table_bytes(table, per_number=None):
    """8 heads x n x n numbers, each ``np.dtype(dtype).itemsize`` bytes (or ``per_number``)."""
    return 8 * table.n * table.n * (np.dtype(table.dtype).itemsize if per_number is None else per_number)


@pytest.fixture(scope="module")
def tables():
    everyone = class_numbers(SECRET, COURSE, "06_long_sequences", IDS)
    return {sid: StudentNumbers(sid, everyone[sid], everyone) for sid in IDS}


def test_each_student_gets_their_own_table_and_is_graded_on_it(tables):
    from autograder.checks.items import TABLE_ITEM

    drawn = {sid: numbers.items[TABLE_ITEM] for sid, numbers in tables.items()}
    assert all(t.n % 512 == 0 and 1024 <= t.n <= 16384 for t in drawn.values())
    assert {t.dtype for t in drawn.values()} == {"float16", "float32", "float64"}
    assert len({t.n for t in drawn.values()}) > 25 and len(set(drawn.values())) > 80  # 31 lengths x 3 dtypes
    assert (4096, "float32") not in {(t.n, t.dtype) for t in drawn.values()}  # the lesson's (the prose works it)
    for sid, table in drawn.items():
        right = _table_bytes(table)
        verdict, flags = _verdict("TABLE_BYTES_value", right, tables[sid])
        assert verdict.passed and not flags, (sid, table, verdict.message)
        assert right != 8 * 4096 * 4096 * 4  # the prose's 536,870,912 bytes is no student's answer
        # one head's table of a float64 table is its count of weights (both / 8): there neither is named
        for answer, named in [(right // 8, "TABLE_BYTES.one_head" if table.dtype != "float64" else "mistakes_coincide"),
                              (8 * table.n * np.dtype(table.dtype).itemsize, "TABLE_BYTES.linear_in_n"),
                              (right * 8, "TABLE_BYTES.bits"),
                              (right / 2**20, "TABLE_BYTES.megabytes"), (right / 1e6, "TABLE_BYTES.megabytes")]:
            verdict, flags = _verdict("TABLE_BYTES_value", answer, tables[sid])
            assert verdict.misconception == named and not flags, (sid, table, answer, verdict)
        # 8 bytes a weight: named on a float16 table (4 times the bytes); on a float32 one it is also two tables
        # (twice the bytes), and both are said, neither named
        verdict, _ = _verdict("TABLE_BYTES_value", _table_bytes(table, 8), tables[sid])
        assert verdict.passed == (table.dtype == "float64")
        if table.dtype == "float16":
            assert verdict.misconception == "TABLE_BYTES.wrong_itemsize" and table.dtype in verdict.message, verdict
        if table.dtype == "float32":
            assert verdict.misconception == "mistakes_coincide" and "two tables" in verdict.message \
                and "8 bytes" in verdict.message, verdict


def test_a_classmates_table_bytes_score_0_with_a_flag_naming_them(tables):
    from autograder.checks.items import TABLE_ITEM

    flagged = 0
    for thief, victim in zip(IDS[:40], IDS[40:80]):
        mine, theirs = tables[thief].items[TABLE_ITEM], _table_bytes(tables[victim].items[TABLE_ITEM])
        right = _table_bytes(mine)
        kinder = {right, right // 8, right * 8, 2 * right, 8 * mine.n * np.dtype(mine.dtype).itemsize,
                  8 * (mine.n * (mine.n + 1) // 2) * np.dtype(mine.dtype).itemsize,
                  *(_table_bytes(mine, size) for size in (2, 4, 8))}
        if theirs in kinder:
            continue  # right on the thief's own table too, or what a known mistake on it gives (the kinder reading)
        verdict, flags = _verdict("TABLE_BYTES_value", theirs, tables[thief])
        assert not verdict.passed and verdict.misconception == "variants.others_numbers", (thief, victim, verdict)
        assert victim in flags[0]["evidence"] and victim not in verdict.message + flags[0]["advice"]
        flagged += 1
    assert flagged >= 30
