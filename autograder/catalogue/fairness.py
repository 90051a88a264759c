"""Grading the catalogue for fairness: seed-stable verdicts, one task per mistake, named diagnoses.

Used by the catalogue tests (tests/course/test_catalogue.py) and by ``benchmarks/fairness.py``.
"""
from __future__ import annotations

import copy
import dataclasses
import importlib
import importlib.util
from collections import defaultdict
from pathlib import Path

from .. import submissions
from ..checks import GENERIC_MISCONCEPTIONS, MISCONCEPTIONS, checks_for_assignment, executor
from ..checks.core import Verdict, evaluate
from ..inprocess import execute_answers
from ..notebook import model
from . import Variant, reach
from .sweep import Sweep

ROOT = Path(__file__).resolve().parents[2]


def _notebook(assignment: str, answers: dict[str, str]):
    """The released notebook with the instructor's answers, ``answers`` over them, given and answer cells only."""
    def path(folder):
        return ROOT / folder / assignment / f"{assignment}.ipynb"
    base = submissions.solution_answers(submissions.read(path("solutions")))
    base.update({k: src.strip("\n") for k, src in answers.items()})
    nb = copy.deepcopy(submissions.fill(submissions.read(path("assignments")), base))
    nb.cells = [c for c in nb.cells if c.cell_type == "code" and model.nbgrader_meta(c)]
    return nb


_SWEEP: list[Sweep] = []  # the current assignment's (the catalogue lists variants by assignment)


def _sweep(assignment: str) -> Sweep:
    if not _SWEEP or _SWEEP[0].assignment != assignment:
        _SWEEP[:] = [Sweep(assignment)]  # the previous assignment's calls are let go
    return _SWEEP[0]


def grade_over_seeds(variant: Variant, seeds) -> dict[int, list[Verdict]]:
    """``{seed: verdicts of every check of the variant's assignment}``; the cells run once.

    The student's code runs once per check and distinct set of calls (seeds at which a check
    makes the very same calls share that run) and every outcome is judged; the calls, and the
    reference's answers about them, are shared by the variants of the assignment (:mod:`.sweep`).
    A check that can reach none of the names the variant changed is the solution's: its verdicts
    are the solution's run's (:mod:`.reach`).
    """
    seeds = tuple(seeds)
    namespace, _ = execute_answers(_notebook(variant.assignment, variant.answers))
    solution = _solution(variant.assignment, seeds) if variant.answers else None
    changed = reach.changed(namespace, solution[0]) if solution else None
    return _graded(variant.assignment, namespace, seeds, changed, solution[1] if solution else None)


_SOLUTION: dict[tuple, tuple[dict, dict]] = {}  # (assignment, seeds) -> (fingerprints, {seed: verdicts})


def _solution(assignment: str, seeds: tuple) -> tuple[dict, dict[int, list[Verdict]]]:
    """The instructor's notebook: its namespace's fingerprints and its verdicts over ``seeds``."""
    if (assignment, seeds) not in _SOLUTION:
        namespace, _ = execute_answers(_notebook(assignment, {}))
        _SOLUTION.clear()  # the catalogue lists variants by assignment: the previous one's is let go
        _SOLUTION[(assignment, seeds)] = reach.fingerprints(namespace), _graded(assignment, namespace, seeds)
    return _SOLUTION[(assignment, seeds)]


def _graded(assignment: str, namespace: dict, seeds: tuple, changed: set[str] | None = None,
            solution: dict[int, list[Verdict]] | None = None) -> dict[int, list[Verdict]]:
    sweep = _sweep(assignment)
    graded: dict[int, list[Verdict]] = {seed: [] for seed in seeds}
    with sweep.reference():
        for index, check in enumerate(checks_for_assignment(assignment)):
            if solution is not None:
                names = {call.name for seed in seeds for call in sweep.calls(check, seed)}
                if not reach.reach(names, namespace, skip=check.helpers) & changed:
                    for seed in seeds:
                        graded[seed].append(dataclasses.replace(solution[seed][index]))
                    continue
            done: dict[bytes, Verdict] = {}
            for seed in seeds:
                key = sweep.same_calls(check, seed)
                if key not in done:
                    calls = sweep.calls(check, seed)
                    drawn = dataclasses.replace(check, make_calls=lambda rng, calls=calls: calls)
                    done[key] = evaluate(drawn, executor(check, namespace), seed)
                graded[seed].append(dataclasses.replace(done[key]))
    return graded


#: Generic ids whose verdict is an observation, not an inference (the input changed, None or a wrong number of
#: values came back), so the message names the mistake itself. A held-out answer labelled in its author's words (an id the course
#: does not know) whose task fails with one of them is *named*, for a person to judge with the rest.
OBSERVED = frozenset({"mutates_input", "returns_none", "wrong_return"})


def classify(variant: Variant, verdicts: list[Verdict]) -> str:
    """A wrong answer's diagnosis on one seed: ``named`` (a failing check of its task names its
    misconception, none names another), ``vague`` (generic messages only), ``wrong`` (some failing
    check names a different specific misconception) or ``missed`` (no check of its task fails)."""
    failed = [v for v in verdicts if not v.passed]
    own = {v.misconception for v in failed if v.task == variant.task}
    if not own:
        return "missed"
    if {v.misconception for v in failed} - set(GENERIC_MISCONCEPTIONS) - {variant.misconception}:
        return "wrong"
    if variant.misconception not in MISCONCEPTIONS and own & OBSERVED:
        return "named"
    return "named" if variant.misconception in own else "vague"


def stray(variant: Variant, verdicts: list[Verdict]) -> list[str]:
    """Checks the variant should not fail: any, for a correct one; another task's, for a wrong one."""
    return [v.grade_id for v in verdicts if not v.passed
            and (variant.correct or (v.task != variant.task and v.task not in variant.also_fails))]


def unstable(graded: dict[int, list[Verdict]]) -> list[str]:
    """The checks whose verdict is not the same for every seed."""
    seen = defaultdict(set)
    for verdicts in graded.values():
        for v in verdicts:
            seen[v.grade_id].add(v.passed)
    return sorted(g for g, passed in seen.items() if len(passed) > 1)


def load_variants(spec: str) -> list[Variant]:
    """The ``VARIANTS`` list of a python file (``held_out.py``) or of an importable module
    (``package.held_out``): a set of answers measured alone, such as one written without reading the checks.

    Raises ``ValueError`` naming ``spec`` when it is neither, defines no ``VARIANTS`` list, or holds
    something else than :class:`Variant` objects of assignments the course grades.
    """
    from ..checks import TASKS

    path = Path(spec)
    if path.suffix == ".py":
        if not path.is_file():
            raise ValueError(f"--variants {spec}: no such python file")
        module_spec = importlib.util.spec_from_file_location(f"_variants_{path.stem}", path)
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(spec)
        except ImportError as error:
            raise ValueError(f"--variants {spec}: neither a .py file nor an importable module ({error})") from None
    variants = getattr(module, "VARIANTS", None)
    if not isinstance(variants, list) or not variants:
        raise ValueError(f"--variants {spec}: expected a non-empty list VARIANTS = [Variant(...), ...]")
    for variant in variants:
        if not isinstance(variant, Variant):
            raise ValueError(f"--variants {spec}: expected Variant objects (autograder.catalogue.Variant), "
                             f"got {type(variant).__name__}")
        if variant.task not in TASKS.get(variant.assignment, ()):
            raise ValueError(f"--variants {spec}: variant {variant.name!r} names task {variant.task!r} of "
                             f"{variant.assignment!r}, which the course does not grade")
    return variants
