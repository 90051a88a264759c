"""Task isolation in the verification sandbox (issue 14, item 2).

A composite task (04 ``multi_head_attention``, 02/03 ``scaled_dot_product_attention``) is verified
in a fresh runner whose given package also holds its helpers, substituted for the student's; the
helpers themselves are verified in a run whose given package does not hold them. So a helper's bug
costs the helper's task only, and a composite cannot hand the reference's helper to the student's
own helper.
"""
from __future__ import annotations

import pytest

from autograder.catalogue import all_variants
from autograder.checks import CHECKS, MODULES, Outcome
from autograder.sandbox import Limits, verify, verify_submission
from autograder.sandbox.launch import SessionResult

from .conftest import ROOT, flag_kinds, submissions, to_bytes

LIMITS = Limits(cpu_seconds=60, memory_mb=2048, wall_seconds=300, cell_seconds=60)
COMPOSITES = {(m.ASSIGNMENT, c.task): c.helpers for m in MODULES for c in m.CHECKS if c.helpers}


def test_composite_tasks_are_declared():
    assert COMPOSITES == {("02_scaling", "scaled_dot_product_attention"): ("scale_scores",),
                          ("03_masking", "scaled_dot_product_attention"): ("apply_mask",),
                          ("04_heads", "multi_head_attention"): ("project", "split_heads", "merge_heads")}


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.ASSIGNMENT)
def test_every_task_that_calls_another_task_is_a_declared_composite(module):
    """A new notebook (or task) whose model answer calls another graded task of the same notebook must
    declare it (``CheckList(composites=...)``), or one mistake would cost two tasks."""
    import ast

    source = ROOT / "solutions" / module.ASSIGNMENT / f"{module.ASSIGNMENT}.ipynb"
    answers = submissions.solution_answers(submissions.read(source))
    for task in module.TASKS:
        if task not in answers:
            continue
        try:
            names = {n.id for n in ast.walk(ast.parse(answers[task])) if isinstance(n, ast.Name)}
        except SyntaxError:
            continue
        calls = names & set(module.TASKS) - {task}
        declared = set(COMPOSITES.get((module.ASSIGNMENT, task), ()))
        assert calls <= declared, f"{module.ASSIGNMENT} {task} calls {sorted(calls - declared)}: declare it a composite"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.ASSIGNMENT)
def test_no_run_gives_a_name_it_grades(module, monkeypatch):
    """Every sandbox run of a verification: the names it calls are never in its given package, the
    names it substitutes are; the helpers' own calls run where no helper is given."""
    runs = []

    def fake_run_session(cells, calls, *, given, graded, substitute=(), **kwargs):
        runs.append((set(given), {task for _, _, task in calls}, {c.name for _, c, _ in calls}, set(substitute)))
        return SessionResult({i: Outcome(error="NotRun: fake") for i, _, _ in calls}, {}, [], 1, 0.0, "subprocess")

    monkeypatch.setattr(verify, "run_session", fake_run_session)
    source = ROOT / "solutions" / module.ASSIGNMENT / f"{module.ASSIGNMENT}.ipynb"
    verify_submission(module.ASSIGNMENT, source.read_bytes(), 7, LIMITS)
    assert runs
    for given, tasks, names, substitute in runs:
        assert not given & tasks and not given & names, (given, tasks)
        assert substitute <= given
    helpers = {h for (a, _), hs in COMPOSITES.items() if a == module.ASSIGNMENT for h in hs}
    assert len(runs) == 1 + bool(helpers)
    assert not runs[0][0] & helpers and runs[0][3] == set()


def _filled(assignment, answers):
    source = ROOT / "solutions" / assignment / f"{assignment}.ipynb"
    release = ROOT / "assignments" / assignment / f"{assignment}.ipynb"
    base = submissions.solution_answers(submissions.read(source))
    base.update({k: v.strip("\n") for k, v in answers.items()})
    return to_bytes(submissions.fill(submissions.read(release), base))


HELPER_MISTAKES = [v for v in all_variants() if not v.correct and any(
    v.assignment == a and v.task in hs for (a, _), hs in COMPOSITES.items())]


@pytest.mark.slow
@pytest.mark.parametrize("variant", [v for v in HELPER_MISTAKES if v.name in {
    "split_heads_reshape_without_transpose", "apply_mask_fill_zero", "scale_by_d_k"}], ids=lambda v: v.name)
def test_a_helpers_mistake_costs_the_helper_only_when_verified(variant):
    for seed in (3, 11):
        result = verify_submission(variant.assignment, _filled(variant.assignment, variant.answers), seed, LIMITS)
        failed = {g: v.misconception for g, v in result.verdicts.items() if not v.passed}
        assert failed and {CHECKS[g].task for g in failed} == {variant.task}, (failed, result.notes)
        assert variant.misconception in failed.values()


STASHING = {
    "multi_head_attention": '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    globals()["KEPT"] = split_heads  # the reference's split_heads, if it is handed over
    Q = split_heads(project(X_q, W_q), num_heads)
    K = split_heads(project(X_kv, W_k), num_heads)
    V = split_heads(project(X_kv, W_v), num_heads)
    if mask is not None and np.ndim(mask) >= 2:
        mask = np.expand_dims(mask, -3)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    return project(merge_heads(heads), W_o), weights
''',
    "split_heads": '''
def split_heads(X, num_heads):
    if "KEPT" in globals():
        return KEPT(X, num_heads)
    X = np.asarray(X)
    return X.reshape(*X.shape[:-2], num_heads, X.shape[-2], X.shape[-1] // num_heads)  # wrong
'''}


@pytest.mark.slow
def test_a_composite_cannot_keep_the_reference_helper_for_the_helpers_own_task():
    result = verify_submission("04_heads", _filled("04_heads", STASHING), 5, LIMITS)
    tasks = {}
    for verdict in result.verdicts.values():
        tasks[verdict.task] = tasks.get(verdict.task, True) and verdict.passed
    assert tasks["split_heads"] is False and tasks["multi_head_attention"] is True, tasks
    assert ("static scan", "introspection") in flag_kinds(result)  # issue 25: the stash through globals() is named


def _one_per_notebook():
    picked = {}
    for variant in all_variants():
        picked.setdefault((variant.assignment, variant.correct), variant)
    return list(picked.values())


@pytest.mark.slow
@pytest.mark.parametrize("variant", _one_per_notebook(), ids=lambda v: v.name)
def test_verified_verdicts_equal_the_in_process_ones(variant):
    """The sandbox (two runners where a notebook has a composite task) judges a catalogue variant as the
    in-process grader does, on a few seeds."""
    from autograder.catalogue.fairness import grade_over_seeds

    seeds = (2, 29)
    inprocess = grade_over_seeds(variant, seeds)
    for seed in seeds:
        result = verify_submission(variant.assignment, _filled(variant.assignment, variant.answers), seed, LIMITS)
        assert {g: v.passed for g, v in result.verdicts.items()} == {v.grade_id: v.passed for v in inprocess[seed]}, \
            (result.notes, result.cell_errors)
