"""Task isolation in the verification sandbox (issue 14, item 2).

A composite task (04 ``multi_head_attention``, 02/03 ``scaled_dot_product_attention``) is verified
with the reference's helpers substituted for the student's, in the same runner as the helpers, in a
later phase: the grader gives the runner the reference's helpers only once every answer of the helpers
is back, and accepts none of them after. So a helper's bug costs the helper's task only, and a composite
cannot hand the reference's helper to the student's own helper.
"""
from __future__ import annotations

import pytest

from autograder.catalogue import all_variants
from autograder.checks import CHECKS, MODULES, Outcome
from autograder.sandbox import Limits, verify, verify_submission
from autograder.sandbox import launch
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
    """One sandbox session per verification: the names it calls are never in its given package, and each
    composite's helpers (the reference's, given in a later phase) are judged in an earlier phase than it."""
    runs = []

    def fake_run_session(cells, calls, *, given, graded, helpers=None, **kwargs):
        runs.append((set(given), calls, dict(helpers or {})))
        return SessionResult({i: Outcome(error="NotRun: fake") for i, _, _ in calls}, {}, [], 1, 0.0, "subprocess")

    monkeypatch.setattr(verify, "run_session", fake_run_session)
    source = ROOT / "solutions" / module.ASSIGNMENT / f"{module.ASSIGNMENT}.ipynb"
    verify_submission(module.ASSIGNMENT, source.read_bytes(), 7, LIMITS)
    assert len(runs) == 1
    given, calls, helpers = runs[0]
    tasks = {task for _, _, task in calls}
    assert not given & tasks and not given & {c.name for _, c, _ in calls}, (given, tasks)
    assert helpers == {task: hs for (a, task), hs in COMPOSITES.items() if a == module.ASSIGNMENT}
    phases, phase_of = launch.phases_of(sorted(tasks), helpers)
    assert phases[0] == ()
    for task, names in helpers.items():
        assert phases[phase_of[task]] == names and all(phase_of[h] < phase_of[task] for h in names), (task, phase_of)


def test_a_helper_given_before_its_own_task_is_judged_is_refused():
    assert launch.phases_of(["a", "b"], {"b": ("a",)}) == ([(), ("a",)], {"a": 0, "b": 1})
    with pytest.raises(ValueError, match="b would be given"):
        launch.phases_of(["a", "b", "c"], {"a": ("b",), "b": ("c",)})  # b's own calls come in a's phase or later


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


# The student's own split_heads looks, during its own calls, everywhere the reference's could be: any module of
# the process, any file of the job directory. It finds nothing, so it answers with its own (wrong) reshape.
SEEKING = {"split_heads": '''
def split_heads(X, num_heads):
    import os, sys
    for module in list(sys.modules.values()):
        try:
            found = getattr(module, "split_heads", None)
        except Exception:
            found = None
        if callable(found) and found is not split_heads:
            return found(X, num_heads)
    import importlib.util
    for root, _, files in os.walk("/job"):
        if "__init__.py" in files and "split_heads" in open(os.path.join(root, "__init__.py")).read():
            name = "seek_" + str(abs(hash(root)))
            spec = importlib.util.spec_from_file_location(name, os.path.join(root, "__init__.py"),
                                                          submodule_search_locations=[root])
            package = importlib.util.module_from_spec(spec)
            sys.modules[name] = package
            spec.loader.exec_module(package)
            if callable(getattr(package, "split_heads", None)):
                return package.split_heads(X, num_heads)
    X = np.asarray(X)
    return X.reshape(*X.shape[:-2], num_heads, X.shape[-2], X.shape[-1] // num_heads)  # wrong
'''}

# Once it holds the reference's split_heads (the composite's phase), the composite computes the right answers for
# every split_heads input in the job and sends them as that task's answers, on every pipe the process holds.
FORGING = {
    "split_heads": STASHING["split_heads"].replace('    if "KEPT" in globals():\n        return KEPT(X, num_heads)\n', ""),
    "multi_head_attention": '''
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    import io, json, os, stat
    job, inputs = json.load(open("/job/job.json")), np.load("/job/inputs.npz")
    decode = lambda n: inputs[n["array"]] if isinstance(n, dict) and "array" in n else n
    for spec in job["calls"]:
        if spec["name"] != "split_heads" or split_heads.__module__ == "__main__":  # not yet the reference's
            continue
        args = [decode(a) for a in spec["args"]]
        arrays = {f"after_{i}": a for i, a in enumerate(args) if isinstance(a, np.ndarray)}
        buffer = io.BytesIO()
        np.savez(buffer, v0=split_heads(*args), **arrays)
        for header, blob in (({"event": "call", "id": spec["id"]}, b""),
                             ({"event": "outcome", "id": spec["id"], "value": {"array": "v0"}, "error": None,
                               "after": {k[6:]: k for k in arrays}, "peak_bytes": None, "peak_resident_bytes": None},
                              buffer.getvalue())):
            data = json.dumps(header).encode()
            frame = len(data).to_bytes(8, "big") + data + len(blob).to_bytes(8, "big") + blob
            for fd in range(3, 256):
                try:
                    if stat.S_ISFIFO(os.fstat(fd).st_mode):
                        os.write(fd, frame)
                except OSError:
                    pass
''' + STASHING["multi_head_attention"].split(":\n", 1)[1].replace('    globals()["KEPT"] = split_heads  # the reference\'s split_heads, if it is handed over\n', "")}


@pytest.mark.slow
@pytest.mark.parametrize("attack", ["seeking", "forging"])
def test_a_helper_never_answers_with_the_reference(attack):
    """The reference's helpers reach the runner after every answer of the helper (searched for in the helper's own
    calls, they are nowhere); the grader accepts no answer of the helper after that (forged in the composite's
    phase, with the reference's helper at hand, they stop the run: the composite fails, the helper keeps its own)."""
    answers = SEEKING if attack == "seeking" else FORGING
    result = verify_submission("04_heads", _filled("04_heads", answers), 5, LIMITS)
    tasks = {}
    for verdict in result.verdicts.values():
        tasks[verdict.task] = tasks.get(verdict.task, True) and verdict.passed
    assert tasks["split_heads"] is False, (tasks, result.notes)
    assert tasks["multi_head_attention"] is (attack == "seeking"), (tasks, result.notes)
    if attack == "forging":
        assert any("unexpected message" in note for note in result.notes), result.notes


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
