"""docs/COVERAGE.md against the notebooks: every row's cell and assessment exist, and every written answer
and every understanding question of the course is listed (a concept cannot silently lose its assessment)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from autograder.checks import CHECKS, concepts
from autograder.config import load_course

ROOT = Path(__file__).resolve().parents[2]
IDS = [a.id for a in load_course(ROOT).assignments]
ASSESSMENT = re.compile(r"^(?P<grade_id>\w+)(?: \((?P<kind>rubric|Q(?P<question>\d+))\))?$")


def _rows() -> list[dict]:
    text = (ROOT / "docs" / "COVERAGE.md").read_text(encoding="utf-8")
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] not in ("concept", "---"):
            rows.append(dict(zip(("concept", "seed", "notebook", "cell", "assessed"), cells)))
    return rows


ROWS = _rows()


def _items(row) -> list[re.Match]:
    items = [ASSESSMENT.match(part.strip()) for part in row["assessed"].split(", ")]
    assert all(items), f"unreadable assessment in {row['concept']!r}: {row['assessed']}"
    return items


def test_the_table_is_read():
    assert len(ROWS) >= 30 and {r["notebook"] for r in ROWS} == set(IDS)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r['notebook']}:{r['cell']}")
def test_row_names_a_cell_and_an_assessment_of_its_notebook(course, row):
    nb = course.source(row["notebook"])
    cells = {c.get("id"): c for c in nb.cells}
    assert row["cell"] in cells, f"{row['notebook']} has no cell {row['cell']!r}"
    graded = {course.meta(c)["grade_id"]: c for c in nb.cells if course.meta(c).get("grade")}
    for item in _items(row):
        grade_id = item["grade_id"]
        assert grade_id in graded, f"{grade_id} grades nothing in {row['notebook']}"
        if item["kind"] == "rubric":
            index = nb.cells.index(graded[grade_id])
            assert nb.cells[index + 1].metadata.get("autograder", {}).get("rubric_for") == grade_id
        elif item["question"]:
            task = CHECKS[grade_id].task
            assert grade_id == f"{task}_value" and 1 <= int(item["question"]) <= len(concepts.questions(row["notebook"]))


@pytest.mark.parametrize("assignment", IDS)
def test_every_written_answer_and_question_is_covered(course, assignment):
    listed = {(m["grade_id"], m["question"]) for r in ROWS if r["notebook"] == assignment for m in _items(r)}
    written = {course.meta(c)["grade_id"] for c in course.source(assignment).cells
               if c.cell_type == "markdown" and course.meta(c).get("solution")}
    assert written <= {g for g, _ in listed}, f"written answers missing from docs/COVERAGE.md: {written}"
    asked = concepts.questions(assignment)
    if asked:
        value = f"{concepts.TASK_OF[assignment]}_value"
        assert {(value, str(i)) for i in range(1, len(asked) + 1)} <= listed, "a question missing from the table"
