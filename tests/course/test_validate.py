"""Validate means something (issue 15, item 1): every test cell's visible line runs its check on the public example.

Driven by the registry (course.yml and the catalogue): a new notebook is covered without editing this file.

* structure: every test cell of every notebook course.yml lists carries ``grader.validate("<grade_id>")`` above
  its hidden block in ``solutions/``, and keeps it in the student version (the build adds it);
* in-process, like nbgrader's Validate without a kernel: the untouched student version fails on every test cell,
  the solved one passes, every catalogue wrong answer with a public symptom (a public check of its task fails on
  the hidden inputs) fails naming its task and no other, and a wrong answer-key value of the right form passes
  exactly as the right one does (Validate never tells whether it is right);
* ``nbgrader validate`` itself (slow): every solved notebook passes; for two notebooks (:data:`FAILING`) the
  untouched one fails on every test cell and one wrong answer fails naming its task. How nbgrader reports a
  failing visible line does not depend on the notebook, and which cells fail is proven for every notebook and
  every catalogue mistake in-process above; a solved notebook that fails only under nbgrader (a cell writing to
  stderr, say) would be notebook-specific, so every one is validated.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from tests.course.conftest import TEST_SEED

from autograder.catalogue import all_variants
from autograder.checks import CHECKS, TASKS, checks_for_assignment, checks_for_task
from autograder.checks.core import evaluate, run_calls
from autograder.config import load_course
from autograder.inprocess import execute_answers
from autograder.notebook import Grader, ValidationFailed, model, sources

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = [(a.id, n) for a in load_course(ROOT).assignments for n in a.notebooks]
ASSIGNMENTS = sorted({a for a, _ in NOTEBOOKS} & set(TASKS))
WRONG = [v for v in all_variants() if not v.correct and v.assignment in ASSIGNMENTS]
#: The notebooks whose untouched and wrong versions also go through ``nbgrader validate`` itself.
FAILING = [a for a in ("01_scores_softmax", "02_scaling") if a in ASSIGNMENTS]


def _answers(variant) -> dict[str, str]:
    return {k: src.strip("\n") for k, src in variant.answers.items()}


def validate_in_process(nb, course, namespace: dict | None = None) -> dict[str, str]:
    """``{grade_id: message}`` of the test cells whose visible lines fail, as nbgrader's Validate would run them:
    the given and answer cells in order (or ``namespace``, what they defined), then each test cell as the
    notebook has it."""
    if namespace is None:
        namespace, _ = execute_answers(course.answers_only(nb))
    failed = {}
    for cell in nb.cells:
        if cell.cell_type != "code" or not model.is_test_cell(cell):
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                exec(compile(cell.source, "<test cell>", "exec"), namespace)
        except AssertionError as exc:
            failed[model.nbgrader_meta(cell)["grade_id"]] = str(exc)
    return failed


# ---------------------------------------------------------------- structure
@pytest.mark.parametrize("assignment, notebook", NOTEBOOKS)
def test_every_test_cell_has_its_visible_line(assignment, notebook):
    for folder in ("solutions", "assignments"):
        nb = model.read(ROOT / folder / assignment / f"{notebook}.ipynb")
        tests = [c for c in nb.cells if c.is_test and c.meta.get("grade")]
        assert tests, f"{folder}/{assignment} has no test cells"
        raw = {c.get("id"): c for c in nb.raw["cells"]}
        for cell in tests:
            # a failing visible line must not stop Run All (JupyterLab stops after an untagged cell that raises)
            assert sources.RAISES in raw[cell.cell_id]["metadata"].get("tags", []), cell.grade_id
            lines = cell.source.split("\n")
            visible = sources.visible_line(cell.grade_id)
            assert visible in lines, f"{folder}/{assignment}: test cell {cell.grade_id} has no visible line"
            if folder == "solutions":  # right above the hidden block, which still decides the grade
                assert lines[lines.index(visible) + 1] == sources.HIDDEN_BEGIN
                assert f'check("{cell.grade_id}", globals())' in lines
            else:
                assert lines[-1] == visible and "HIDDEN TESTS" not in cell.source


def test_the_build_adds_the_line_and_the_source_keeps_its_format():
    source = ('# Hidden test: softmax, each row of weights sums to 1 (2 points)\n### BEGIN HIDDEN TESTS\n'
              'check("softmax_rows_sum_to_one", globals())\n### END HIDDEN TESTS')
    built = sources.add_visible_line(source, "softmax_rows_sum_to_one")
    assert built == ('# Test: softmax, each row of weights sums to 1 (2 points)\n'
                     '# The visible line checks the public example; hidden tests decide the grade.\n'
                     'grader.validate("softmax_rows_sum_to_one")\n### BEGIN HIDDEN TESTS\n'
                     'check("softmax_rows_sum_to_one", globals())\n### END HIDDEN TESTS')
    assert sources.strip_visible_line(built, "softmax_rows_sum_to_one") == source
    key = sources.add_visible_line(source.replace("softmax_rows_sum_to_one", "STOP_AND_TRY_SCORES_values"),
                                   "STOP_AND_TRY_SCORES_values")
    assert "checks only the form of your answer" in key  # an answer key: Validate does not judge its value
    with pytest.raises(ValueError, match="already has the visible line"):
        sources.add_visible_line(built, "softmax_rows_sum_to_one")
    percent = ('# %% nbgrader={"grade": true, "grade_id": "softmax_rows_sum_to_one", "locked": true, "points": 2, '
               '"schema_version": 3, "solution": false, "task": false} cell_id="t1"\n' + source + "\n")
    nb = sources.from_percent(percent)
    assert nb.cells[0].source == built and nb.cells[0].metadata["tags"] == [sources.RAISES]
    assert source in sources.to_percent(nb) and sources.RAISES not in sources.to_percent(nb)


def test_a_stripped_visible_only_cell_is_grader_code():
    """A student version whose nbgrader metadata was stripped: its test cells are still not the student's code."""
    visible = {"cell_type": "code", "metadata": {},
               "source": '# Test: softmax, rows (2 points)\n# The visible line ...\ngrader.validate("softmax_rows")'}
    assert model.is_test_cell(visible)
    for source in ('grader.validate("softmax_rows")\nx = 1', 'grader.validate(name)', 'g.validate("softmax_rows")'):
        assert not model.is_test_cell({"cell_type": "code", "metadata": {}, "source": source}), source


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_scan_and_verification_treat_the_visible_line_as_grader_code(assignment):
    """The static scan flags nothing in a student version, with its nbgrader metadata or stripped of it, and
    verification (which runs only what ``Cell.python`` gives) runs none of its test cells."""
    from autograder.sandbox.scan import scan_cells

    raw = (ROOT / "assignments" / assignment / f"{assignment}.ipynb").read_bytes()
    stripped = model.loads(raw).raw
    for cell in stripped["cells"]:
        cell.get("metadata", {}).pop("nbgrader", None)
    for nb in (model.loads(raw), model.from_json(stripped)):
        assert scan_cells(nb.code_cells, TASKS[assignment], assignment) == []
        visible = [c for c in nb.code_cells if "grader.validate(" in c.source]
        assert len(visible) == len(checks_for_assignment(assignment))
        assert all(c.is_test and c.python is None for c in visible)


# ---------------------------------------------------------------- Grader.validate, in-process
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_untouched_fails_every_test_cell_solved_passes_silently(course, assignment, capfd):
    untouched = validate_in_process(course.release(assignment), course)
    assert set(untouched) == {c.grade_id for c in checks_for_assignment(assignment)}
    assert all(" not done yet." in message for message in untouched.values()), untouched
    capfd.readouterr()
    namespace, _ = execute_answers(course.answers_only(course.solved(assignment)))
    grader = Grader(assignment, namespace)
    assert [grader.validate(c.grade_id) for c in checks_for_assignment(assignment)] == \
        [None] * len(checks_for_assignment(assignment))
    assert capfd.readouterr() == ("", "")  # nbgrader scores a cell with any stderr as failed


_SYMPTOMS: dict[str, bool] = {}


def _public_symptom(course, variant, namespace: dict | None = None) -> bool:
    """Whether a public check of the variant's task fails on the hidden inputs (the seed the tests grade with).

    ``namespace``: what the variant's notebook defines, when already executed."""
    if variant.name not in _SYMPTOMS:
        if namespace is None:
            namespace, _ = execute_answers(course.answers_only(course.fill(variant.assignment, _answers(variant))))
        executor = lambda calls: run_calls(namespace, calls)  # noqa: E731
        _SYMPTOMS[variant.name] = any(not evaluate(c, executor, TEST_SEED).passed
                                      for c in checks_for_task(variant.task, variant.assignment) if c.public)
    return _SYMPTOMS[variant.name]


@pytest.mark.parametrize("variant", WRONG, ids=lambda v: v.name)
def test_a_wrong_answer_fails_validate_on_its_own_task(course, variant):
    nb = course.fill(variant.assignment, _answers(variant))
    namespace, _ = execute_answers(course.answers_only(nb))
    symptom = _public_symptom(course, variant, namespace)
    failed = validate_in_process(nb, course, namespace)
    tasks = {CHECKS[g].task for g in failed}
    assert tasks <= {variant.task, *variant.also_fails}, f"Validate blames other tasks: {failed}"
    if not symptom:  # e.g. a wrong Stop-and-try value of the right form
        assert not failed, f"Validate must not tell whether an answer-key value is right: {failed}"
        return
    own = {g: m for g, m in failed.items() if CHECKS[g].task == variant.task}
    assert own, f"{variant.name} has a public symptom but passes Validate"
    for message in own.values():
        assert message.startswith(f"{variant.task}: ") and "array(" not in message and "[[" not in message
        assert "Traceback" not in message


def test_most_wrong_answers_have_a_public_symptom(course):
    """The catalogue's mistakes are mostly visible on the public example (66 of 70 today; the others are
    answer-key values of the right form)."""
    visible = [v.name for v in WRONG if _public_symptom(course, v)]
    assert len(visible) >= 60, f"only {len(visible)} of {len(WRONG)} wrong answers fail on the public example"


def test_validate_names_property_and_misconception_and_stays_quiet(course, capfd):
    assignment = "01_scores_softmax"
    softmax = ('def softmax(x, axis=-1):\n    import sys, warnings\n    print("debug", file=sys.stderr)\n'
               '    warnings.warn("noisy")\n    x = np.asarray(x, dtype=float)\n'
               '    e = np.exp(x - x.max(axis=axis, keepdims=True))\n    return e / e.sum(axis=axis, keepdims=True)')
    namespace, _ = execute_answers(course.answers_only(course.fill(assignment, {"softmax": softmax})))
    capfd.readouterr()
    assert Grader(assignment, namespace).validate("softmax_rows_sum_to_one") is None  # a noisy right answer
    assert capfd.readouterr() == ("", "")
    wrong = next(v for v in WRONG if v.name == "softmax_wrong_axis")
    namespace, _ = execute_answers(course.answers_only(course.fill(assignment, _answers(wrong))))
    with pytest.raises(ValidationFailed) as failure:
        Grader(assignment, namespace).validate("softmax_rows_sum_to_one")
    assert isinstance(failure.value, AssertionError)
    message = str(failure.value)
    assert message.startswith("softmax: fails on the public example: each row of weights")
    assert "Likely misconception: softmax normalised along the wrong axis." in message
    rendered = failure.value._render_traceback_()  # what nbgrader validate shows (it cuts lines at 87)
    assert rendered[0] == "ValidationFailed:" and max(map(len, rendered)) <= 80
    with pytest.raises(ValueError, match="not a test of 01_scores_softmax"):
        Grader(assignment, namespace).validate("scale_scores_seed_example")


def test_under_autograde_the_hidden_test_alone_decides(course, monkeypatch):
    wrong = next(v for v in WRONG if v.name == "softmax_wrong_axis")
    namespace, _ = execute_answers(course.answers_only(course.fill(wrong.assignment, _answers(wrong))))
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert Grader(wrong.assignment, namespace).validate("softmax_rows_sum_to_one") is None


# ---------------------------------------------------------------- nbgrader validate itself
_HEADLINE = re.compile(r"^(?=Success! |VALIDATION FAILED ON |THE CONTENTS OF |THE TYPES OF )", re.M)
_FAILED_CELL = re.compile(r'grader\.validate\("(\w+)"\)\n\nThe error was:\n\n(.*?)(?=\n={20,}|\Z)', re.S)


def _one_wrong_answer(course, assignment):
    """A catalogue wrong answer of ``assignment`` with a public symptom (one that blames no other task first)."""
    candidates = sorted((v for v in WRONG if v.assignment == assignment and _public_symptom(course, v)),
                        key=lambda v: bool(v.also_fails))
    assert candidates, f"{assignment}'s catalogue has no wrong answer that fails on the public example"
    return candidates[0]


@pytest.fixture(scope="module")
def validated(course, tmp_path_factory) -> dict[tuple[str, str], str]:
    """``{(assignment, kind): nbgrader validate's report}`` for kind solved (every notebook), untouched and wrong
    (:data:`FAILING`), from two ``nbgrader validate`` processes side by side (two cores), each over half the
    notebooks (a kernel each)."""
    folder = tmp_path_factory.mktemp("validate")
    files = {}
    for assignment in ASSIGNMENTS:
        kinds = [("solved", course.solved(assignment))]
        if assignment in FAILING:
            wrong = _one_wrong_answer(course, assignment)
            kinds += [("untouched", course.release(assignment)),
                      ("wrong", course.answers_only(course.fill(assignment, _answers(wrong))))]
        for kind, nb in kinds:
            files[(assignment, kind)] = folder / f"{assignment}-{kind}.ipynb"
            nbformat.write(nb, str(files[(assignment, kind)]))
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT),
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    env.pop("NBGRADER_EXECUTION", None)
    paths = [str(path) for path in files.values()]
    halves = [paths[:len(paths) // 2], paths[len(paths) // 2:]]
    procs = [subprocess.Popen([sys.executable, "-m", "nbgrader", "validate", *half], cwd=folder, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for half in halves]
    reports = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-3000:]
        reports += [r for r in _HEADLINE.split(out) if r.strip()]
    assert len(reports) == len(files), reports[-3:]
    return dict(zip(files, reports))


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_nbgrader_validate_means_something(course, validated, assignment):
    solved = validated[(assignment, "solved")]
    assert solved.startswith("Success! Your notebook passes all the tests."), solved[:3000]
    if assignment not in FAILING:
        return
    untouched, wrong = validated[(assignment, "untouched")], validated[(assignment, "wrong")]
    assert untouched.startswith("VALIDATION FAILED ON "), untouched[:300]
    failed = dict(_FAILED_CELL.findall(untouched))  # and a written answer's "You did not provide a response."
    assert set(failed) == {c.grade_id for c in checks_for_assignment(assignment)}, untouched[:3000]
    assert all(" not done yet." in error for error in failed.values()), untouched[:3000]
    variant = _one_wrong_answer(course, assignment)
    assert wrong.startswith("VALIDATION FAILED ON "), wrong[:300]
    failed = _FAILED_CELL.findall(wrong)
    tasks = {CHECKS[g].task for g, _ in failed}
    assert variant.task in tasks and tasks <= {variant.task, *variant.also_fails}, wrong[:3000]
    assert all(error.startswith(f"    ValidationFailed:\n    {CHECKS[g].task}: ") for g, error in failed), wrong[:3000]
