"""Every assignment of course.yml has all its parts, and the committed student version is what
``nbgrader generate_assignment`` makes of ``solutions/`` (every notebook, not a hand-kept list).

A notebook that course.yml names and that is missing, or a registry that forgot it, fails here:
adding notebook 07 means adding its files (source, release, ``checks/nb07_*.py``,
``catalogue/nb07.py``), never editing a list in the tests.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from autograder.catalogue import all_variants
from autograder.checks import MODULES, TASKS, checks_for_assignment
from autograder.config import load_course
from autograder.notebook import model

ROOT = Path(__file__).resolve().parents[2]
COURSE = load_course(ROOT)
IDS = [a.id for a in COURSE.assignments]
each_assignment = pytest.mark.parametrize("assignment", IDS)


def test_the_registries_are_the_course():
    assert sorted(m.ASSIGNMENT for m in MODULES) == sorted(IDS) == sorted(TASKS)
    assert {v.assignment for v in all_variants()} == set(IDS)


@each_assignment
def test_every_part_of_the_assignment_exists(assignment):
    for notebook in COURSE.assignment(assignment).notebooks:
        for folder in ("solutions", "assignments"):
            path = ROOT / folder / assignment / f"{notebook}.ipynb"
            assert path.is_file(), f"course.yml names {assignment}/{notebook}, but {path} is missing"
    assert checks_for_assignment(assignment), f"no checks registered for {assignment}"
    variants = [v for v in all_variants() if v.assignment == assignment]
    for task in TASKS[assignment]:
        kinds = {v.correct for v in variants if v.task == task}
        assert False in kinds, f"the catalogue has no typical mistake for {assignment} {task}"


@each_assignment
def test_points_in_course_yml_are_the_notebooks(assignment):
    spec = COURSE.assignment(assignment)
    points = sum(model.read(ROOT / "solutions" / assignment / f"{n}.ipynb").points for n in spec.notebooks)
    assert points == spec.points
    released = sum(model.read(ROOT / "assignments" / assignment / f"{n}.ipynb").points for n in spec.notebooks)
    assert released == spec.points


@pytest.mark.slow
@each_assignment
def test_generate_assignment_reproduces_the_committed_release(course, nbgrader_course, assignment):
    generated = nbgrader_course(assignment).release()
    committed = course.release(assignment)
    assert course.cell_summary(generated) == course.cell_summary(committed), \
        "assignments/ is stale: run `autograder generate` and commit"
    assert generated.metadata == committed.metadata
