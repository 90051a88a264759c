"""course.yml: the schema, its error messages (key path and line), points against the notebooks."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograder.config import (CourseConfigError, check_points, load_course, parse_course,
                               points_in_notebooks, validate_course)
from autograder import api
from autograder.grading.minicourse import COURSE_YML, make_course

REPO = Path(__file__).resolve().parents[2]


def test_repo_course_yml_is_valid():
    course = load_course(REPO)
    from autograder.checks import MODULES

    assert [a.id for a in course.assignments] == [m.ASSIGNMENT for m in MODULES]  # the registry is the course
    assert course.course_points == 100  # the five core notebooks (issue: "the five core notebooks still total 100")
    bonus = [a.id for a in course.assignments if a.bonus]
    assert bonus and bonus == [a.id for a in course.assignments if a.title.endswith("(bonus)")]


def test_repo_points_agree_with_written_notebooks():
    assert check_points(load_course(REPO), REPO) == []


def test_unknown_key_quotes_path_and_line():
    text = COURSE_YML.replace("    points: 4\n", "    points: 4\n    pointz: 5\n")
    with pytest.raises(CourseConfigError) as err:
        parse_course(text)
    line = text.splitlines().index("    pointz: 5") + 1
    assert f"assignments[0].pointz (course.yml line {line}): unknown key" in str(err.value)


def test_a_repeated_key_is_an_error_quoting_path_and_line(tmp_path):
    """YAML keeps the last of two equal keys silently: ``points: 4`` then ``points: 5`` would load as 5."""
    text = COURSE_YML.replace("    points: 4\n", "    points: 4\n    points: 5\n")
    lines = text.splitlines()
    first, repeat = lines.index("    points: 4") + 1, lines.index("    points: 5") + 1
    with pytest.raises(CourseConfigError) as err:
        parse_course(text)
    assert str(err.value) == f"assignments[0].points (course.yml line {repeat}): duplicate key (also at line {first})"
    nested = COURSE_YML + "  cell_timeout: 25\n"  # top level `grading:` twice would be one too
    with pytest.raises(CourseConfigError, match=r"grading\.cell_timeout \(course.yml line 10\): duplicate key"):
        parse_course(nested)
    (tmp_path / "course.yml").write_text(text)  # the loader of the file is the same one
    with pytest.raises(CourseConfigError, match="duplicate key"):
        load_course(tmp_path)


def test_repeated_keys_and_schema_errors_are_reported_together():
    text = COURSE_YML.replace("  cell_timeout: 20\n", "  cell_timeout: 20\n  cell_timeout: soon\n")
    with pytest.raises(CourseConfigError) as err:
        parse_course(text)
    assert str(err.value).splitlines() == [
        "grading.cell_timeout (course.yml line 10): duplicate key (also at line 9)",
        "grading.cell_timeout (course.yml line 10): Input should be a valid integer, unable to parse string as an "
        "integer"]


def test_nested_unknown_key_and_wrong_type_are_all_reported():
    text = COURSE_YML.replace("  cell_timeout: 20\n", "  cell_timeout: soon\n  sandbox:\n    cpu: 3\n")
    with pytest.raises(CourseConfigError) as err:
        parse_course(text)
    msg = str(err.value)
    lines = text.splitlines()
    assert f"grading.cell_timeout (course.yml line {lines.index('  cell_timeout: soon') + 1}): " in msg
    assert "valid integer" in msg
    assert f"grading.sandbox.cpu (course.yml line {lines.index('    cpu: 3') + 1}): unknown key" in msg


def test_missing_key_points_at_its_parent_line():
    text = COURSE_YML.replace("    points: 4\n", "")
    with pytest.raises(CourseConfigError, match=r"assignments\[0\]\.points \(course.yml line 4\): Field required"):
        parse_course(text)


def test_not_yaml_and_duplicate_ids():
    with pytest.raises(CourseConfigError, match="not valid YAML"):
        parse_course("course_id: [unclosed")
    dup = COURSE_YML + COURSE_YML[COURSE_YML.index("  - id:"):COURSE_YML.index("grading:")]
    dup = dup.replace("grading:\n  cell_timeout: 20\n", "") + "grading:\n  cell_timeout: 20\n"
    with pytest.raises(CourseConfigError, match="duplicate assignment ids: ps1"):
        parse_course(dup)


def test_points_disagreeing_with_notebooks(tmp_path):
    root = make_course(tmp_path)
    assert points_in_notebooks(root) == {"ps1": 4.0}
    validate_course(root)
    (root / "course.yml").write_text(COURSE_YML.replace("points: 4", "points: 5"))
    with pytest.raises(CourseConfigError) as err:
        validate_course(root)
    assert str(err.value) == ("assignments[0].points (course.yml line 7): "
                              "course.yml says 5 but the notebooks of ps1 total 4")


def test_a_notebook_course_yml_names_must_exist(tmp_path):
    """A missing notebook is an error naming it, not an assignment silently left out."""
    root = make_course(tmp_path)
    (root / "solutions" / "ps1" / "ps1.ipynb").unlink()
    with pytest.raises(CourseConfigError, match=r"course.yml names ps1, but .*ps1.ipynb does not exist"):
        validate_course(root)
    with pytest.raises(CourseConfigError, match="does not exist"):
        api.generate(root)


def test_notebook_points_count_only_graded_cells(tmp_path):
    nb = {"cells": [{"cell_type": "code", "metadata": {"nbgrader": {"grade": True, "points": 2}}},
                    {"cell_type": "code", "metadata": {"nbgrader": {"grade": False, "points": 9}}},
                    {"cell_type": "code", "metadata": {}}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "solutions" / "a").mkdir(parents=True)
    (tmp_path / "solutions" / "a" / "a.ipynb").write_text(json.dumps(nb))
    assert points_in_notebooks(tmp_path) == {"a": 2.0}


@pytest.mark.parametrize("value", ["0", "200", "lots"])
def test_a_worker_memory_bound_below_what_a_worker_needs_is_refused(value):
    text = COURSE_YML + f"  worker_memory_mb: {value}\n"
    with pytest.raises(CourseConfigError) as err:
        parse_course(text)
    line = text.splitlines().index(f"  worker_memory_mb: {value}") + 1
    assert f"grading.worker_memory_mb (course.yml line {line}):" in str(err.value)
    assert parse_course(COURSE_YML + "  worker_memory_mb: 300\n").grading.worker_memory_mb == 300
