"""Releases follow course.yml's calendar; the kit is a classroom thing; due dates carry a time zone."""
from __future__ import annotations

import datetime as dt
import re
import shutil
import subprocess
import sys

import pytest

from autograder.config import CourseConfigError, load_course, parse_course
from autograder.kit.build import build_kit, given_of, plan_release
from autograder.kit.publicdata import KitBuildError
from autograder.sandbox.given import given_package
from tests.kit.conftest import ALL, ROOT

UTC = dt.timezone.utc


def test_a_building_block_graded_by_an_undue_assignment_is_refused_naming_both():
    course = load_course(ROOT)
    before_02_due = course.assignment("02_scaling").due - dt.timedelta(days=1)
    with pytest.raises(KitBuildError, match=r"04_heads gives `scaled_dot_product_attention`, which 02_scaling grades"):
        plan_release(course, ["04_heads"], before_02_due)
    with pytest.raises(KitBuildError, match=r"02_scaling gives `dot_product`, which 01_scores_softmax grades"):
        plan_release(course, ["01_scores_softmax", "02_scaling"], dt.datetime(2027, 1, 1, tzinfo=UTC))


def test_once_due_the_building_block_is_given():
    course = load_course(ROOT)
    plan = plan_release(course, ["04_heads"], course.assignment("03_masking").due + dt.timedelta(hours=1))
    assert "scaled_dot_product_attention" in plan.given
    assert "multi_head_attention" in plan.withheld and "scaled_dot_product_attention" not in plan.withheld


def test_a_classroom_course_needs_a_due_date_for_every_assignment():
    """Without one an assignment is never due: the kit would withhold what it grades forever, nothing is late."""
    text = ROOT.joinpath("course.yml").read_text()
    assert all(a.due is not None for a in parse_course(text).assignments)
    no_07 = re.sub(r"(  - id: 07_scoring_functions\n)    due: .*\n", r"\1", text)
    line = no_07.splitlines().index("  - id: 07_scoring_functions") + 1
    with pytest.raises(CourseConfigError) as err:
        parse_course(no_07)
    assert str(err.value) == (f"assignments[6].due (course.yml line {line}): 07_scoring_functions has no due date: "
                              "mode: classroom needs one for every assignment (the student kit's releases and late "
                              "penalties count from it)")
    self_study = parse_course(re.sub(r"    due: .*\n", "", text).replace("mode: classroom", "mode: self-study"))
    assert [a.due for a in self_study.assignments] == [None] * 7  # no calendar: learners work at their pace


def test_unknown_assignments_are_refused():
    with pytest.raises(KitBuildError, match="99_nothing is not an assignment with checks"):
        plan_release(load_course(ROOT), ["99_nothing"], dt.datetime(2030, 1, 1, tzinfo=UTC))


def test_a_due_date_without_a_time_zone_is_an_error_naming_its_key():
    text = ROOT.joinpath("course.yml").read_text().replace("2027-02-15T23:59:00+00:00", "2027-02-15T23:59:00")
    with pytest.raises(CourseConfigError, match=r"assignments\[1\].*needs a timezone"):
        parse_course(text)


def test_self_study_courses_build_no_kit(tmp_path):
    shutil.copyfile(ROOT / "course.yml", tmp_path / "course.yml")
    (tmp_path / "course.yml").write_text((tmp_path / "course.yml").read_text().replace("mode: classroom",
                                                                                       "mode: self-study"))
    with pytest.raises(KitBuildError, match="mode: self-study"):
        build_kit(tmp_path, ["01_scores_softmax"], tmp_path / "out", now=dt.datetime(2030, 1, 1, tzinfo=UTC))


@pytest.mark.parametrize("assignment", ALL)
def test_the_kit_and_the_verification_sandbox_give_the_same_names(assignment):
    """Issue 12 (5): one generator; the kit of one assignment (as the grader's kernel gets it) holds the
    verification sandbox's package, file for file."""
    from autograder.checks import MODULES

    module = next(m for m in MODULES if m.ASSIGNMENT == assignment)
    sandbox = given_package(assignment, tuple(given_of(assignment)), tuple(module.TASKS))
    plan = plan_release(load_course(ROOT), [assignment], None, due_anyway=(assignment,))  # as kernel_kit_files
    assert plan.given == tuple(given_of(assignment))
    assert plan.withheld == tuple(sorted(module.TASKS))
    assert given_package(assignment, plan.given, plan.withheld) == sandbox  # __init__.py too: the same names withheld


def test_grading_without_the_student_versions_says_what_to_run(tmp_path):
    from autograder.kit.build import kernel_kit_files

    shutil.copyfile(ROOT / "course.yml", tmp_path / "course.yml")
    shutil.copytree(ROOT / "solutions" / "01_scores_softmax", tmp_path / "solutions" / "01_scores_softmax")
    with pytest.raises(KitBuildError, match=r"run `autograder generate 01_scores_softmax` first"):
        kernel_kit_files(tmp_path, "01_scores_softmax")


def test_the_graders_kernel_kit_needs_no_calendar(tmp_path):
    """A self-study course may set no due dates: grading 02 still gives its kernel 01's `dot_product`.

    The kernel's kit withholds the graded assignment's names only; with "never due" assignments
    it refused to build (02 gives `dot_product`, which 01 grades and is not due yet), so no
    notebook after 01 of such a course could be graded.
    """
    from autograder.kit.build import kernel_kit_files

    text = re.sub(r"    due: .*\n", "", ROOT.joinpath("course.yml").read_text())
    (tmp_path / "course.yml").write_text(text.replace("mode: classroom", "mode: self-study"))
    for folder in ("solutions", "assignments"):
        shutil.copytree(ROOT / folder / "02_scaling", tmp_path / folder / "02_scaling")
    given = kernel_kit_files(tmp_path, "02_scaling")["attention_ref/__init__.py"].decode()
    assert "dot_product" in given and "def scale_scores" not in given
    with pytest.raises(KitBuildError, match="a student kit needs the date it is for"):
        plan_release(load_course(ROOT), ["02_scaling"], None)


def test_an_assignment_without_checks_gets_a_kernel_kit_with_nothing_of_the_grader(tmp_path):
    """An instructor's own notebook (no module in autograder/checks/): its kernel held the whole grader, the
    reference included. Its kit is an empty ``autograder`` and an ``attention_ref`` that gives nothing."""
    from autograder.kit.build import kernel_kit_files

    files = kernel_kit_files(ROOT, "ps1")
    assert sorted(files) == ["attention_ref/__init__.py", "autograder/__init__.py"]
    for rel, data in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    code = (f"import importlib, sys\nsys.path.insert(0, {str(tmp_path)!r})\nfor name in ('attention_ref.softmax', 'autograder.checks', 'autograder.hidden', "
            "'autograder.notebook'):\n    module, _, attr = name.partition('.')\n    try:\n"
            "        getattr(importlib.import_module(module), attr) if module == 'attention_ref' else "
            "importlib.import_module(name)\n        print(name, 'found')\n"
            "    except ImportError as exc:\n        print(name, type(exc).__name__, exc)")
    # -S: no site-packages, so nothing but the kit can answer an import of ours
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin"}, cwd=tmp_path).stdout
    lines = out.splitlines()
    assert "`softmax` is not one of the building blocks ps1 gives (none)" in lines[0]
    assert [line.split()[1] for line in lines[1:]] == ["ModuleNotFoundError"] * 3, out
