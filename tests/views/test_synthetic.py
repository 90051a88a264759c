"""The synthetic class: kinds in the planned proportions, deterministic, nbgrader's layout."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_markdown_cell

from autograder import synthetic
from autograder.catalogue import Variant

from .conftest import tiny_notebook

A = "01_scores_softmax"
ANSWERS = {
    "dot_product": "def dot_product(q, k):\n    ### BEGIN SOLUTION\n    return float(np.dot(q, k))\n    ### END SOLUTION",
    "attention_scores": "def attention_scores(Q, K):\n    ### BEGIN SOLUTION\n    return Q @ K.T\n    ### END SOLUTION",
    "softmax": "def softmax(x, axis=-1):\n    ### BEGIN SOLUTION\n    e = np.exp(x - x.max(axis=axis, keepdims=True))\n"
               "    return e / e.sum(axis=axis, keepdims=True)\n    ### END SOLUTION",
}
VARIANTS = [
    Variant("dot_elementwise", A, "dot_product", {"dot_product": "def dot_product(q, k):\n    return q * k"},
            misconception="dot_product.elementwise"),
    Variant("softmax_axis0", A, "softmax", {"softmax": "def softmax(x, axis=-1):\n    e = np.exp(x)\n    return e / e.sum(axis=0, keepdims=True)"},
            misconception="softmax.wrong_axis"),
    Variant("softmax_global", A, "softmax", {"softmax": "def softmax(x, axis=-1):\n    e = np.exp(x)\n    return e / e.sum()"},
            misconception="softmax.global_normalisation"),
    Variant("dot_sum", A, "dot_product", {"dot_product": "def dot_product(q, k):\n    return sum(a * b for a, b in zip(q, k))"},
            correct=True),
    Variant("other_assignment", "02_scaling", "scaled_scores", {"scaled_scores": "x = 1"}, misconception="x"),
]


@pytest.fixture
def course(tmp_path) -> Path:
    """A course folder with one source notebook (3 tasks, one written answer) and its release."""
    nb = tiny_notebook(ANSWERS, hidden=False)
    meta = {"nbgrader": {"grade": True, "grade_id": "WHY", "locked": False, "points": 2, "schema_version": 3,
                         "solution": True, "task": False}}
    nb.cells.append(new_markdown_cell("### BEGIN SOLUTION\nBecause.\n### END SOLUTION", metadata=meta))
    for folder, notebook in (("solutions", nb), ("assignments", synthetic.release_from_source(nb))):
        path = tmp_path / "course" / folder / A / f"{A}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(notebook, str(path))
    return tmp_path / "course"


def _solution_sources(nb) -> dict:
    return {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("solution")}


def test_kind_counts():
    assert synthetic.kind_counts(30) == {"complete": 8, "blank": 3, "partial": 6, "misconception": 9,
                                         "two_misconceptions": 4}
    for n in (5, 7, 12, 100):
        counts = synthetic.kind_counts(n)
        assert sum(counts.values()) == n and min(counts.values()) >= 1
    assert sum(synthetic.kind_counts(2).values()) == 2


def test_layout_and_kinds(course, tmp_path):
    out = tmp_path / "class"
    klass = synthetic.generate_class(out, 30, seed=1, course_dir=course, variants=VARIANTS)
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert files == [f"s{i:02d}/{A}/{A}.ipynb" for i in range(1, 31)]
    assert klass.kinds() == Counter(synthetic.kind_counts(30))
    stub = "raise NotImplementedError()"
    release = nbformat.read(str(course / "assignments" / A / f"{A}.ipynb"), as_version=4)
    for student in klass.students:
        nb = nbformat.read(str(out / student.student_id / A / f"{A}.ipynb"), as_version=4)
        cells = _solution_sources(nb)
        work = student.work[A]
        assert "BEGIN SOLUTION" not in "".join(cells.values())
        if student.kind == "blank":
            assert nb.cells == release.cells and work.tasks_done == []
        elif student.kind == "partial":
            done = work.tasks_done
            assert 1 <= len(done) < 3 and done == ["dot_product", "attention_scores", "softmax"][:len(done)]
            assert all(stub in cells[g] for g in ANSWERS if g not in done)
            assert all(stub not in cells[g] for g in done)
        else:
            assert all(stub not in src for src in cells.values())
            assert cells["WHY"] == synthetic.WRITTEN_ANSWER
        if student.kind == "misconception":
            assert len(work.misconceptions) == 1
        if student.kind == "two_misconceptions":
            assert len(work.misconceptions) == 2
            tasks = {v.task for v in VARIANTS if v.name in work.variants}
            assert tasks == {"dot_product", "softmax"}
        for name in work.variants:
            variant = next(v for v in VARIANTS if v.name == name)
            assert variant.assignment == A
            assert all(cells[g] == src for g, src in variant.answers.items())
        if student.kind == "complete":
            assert not work.misconceptions
            assert all(v.correct for v in VARIANTS if v.name in work.variants)


def test_mistakes_are_spread(course, tmp_path):
    klass = synthetic.generate_class(tmp_path / "c", 30, seed=3, course_dir=course, variants=VARIANTS)
    dealt = Counter(s.work[A].misconceptions[0] for s in klass.students if s.work[A].misconceptions)
    # 13 mistaken students, 3 wrong variants dealt round-robin from reshuffled decks: 4 or 5 each
    assert set(dealt) == {"dot_product.elementwise", "softmax.wrong_axis", "softmax.global_normalisation"}
    assert sum(dealt.values()) == 13 and max(dealt.values()) - min(dealt.values()) <= 1


def test_deterministic(course, tmp_path):
    a = synthetic.generate_class(tmp_path / "a", 12, seed=7, course_dir=course, variants=VARIANTS)
    b = synthetic.generate_class(tmp_path / "b", 12, seed=7, course_dir=course, variants=VARIANTS)
    c = synthetic.generate_class(tmp_path / "c", 12, seed=8, course_dir=course, variants=VARIANTS)
    as_json = lambda k: json.dumps({**k.to_json(), "out_dir": None}, sort_keys=True)  # noqa: E731
    assert as_json(a) == as_json(b) != as_json(c)
    for p in (tmp_path / "a").rglob("*.ipynb"):
        assert p.read_bytes() == (tmp_path / "b" / p.relative_to(tmp_path / "a")).read_bytes()


def test_cli_and_manifest(course, tmp_path, capsys):
    manifest = tmp_path / "class.json"
    assert synthetic.main([str(tmp_path / "out"), "--students", "6", "--course", str(course),
                           "--manifest", str(manifest)]) == 0
    assert "wrote 6 students x 1 assignments" in capsys.readouterr().out
    data = json.loads(manifest.read_text())
    assert len(data["students"]) == 6 and data["assignments"] == [A]


def test_realistic_mix():
    """Two thirds right, the rest with one or two mistakes, no blank or partial notebook."""
    assert synthetic.kind_counts(30, synthetic.REALISTIC) == {"complete": 20, "blank": 0, "partial": 0,
                                                              "misconception": 6, "two_misconceptions": 4}
    assert min(v for v in synthetic.kind_counts(3, synthetic.REALISTIC).values() if v) == 1
    with pytest.raises(ValueError, match="unknown kind"):
        synthetic.kind_counts(10, {"complete": 0.5, "lazy": 0.5})
    with pytest.raises(ValueError, match="sum to 1"):
        synthetic.kind_counts(10, {"complete": 0.5})


def test_unsubmitted_and_broken(course, tmp_path):
    out = tmp_path / "class"
    klass = synthetic.generate_class(out, 12, seed=2, course_dir=course, variants=VARIANTS, mix=synthetic.REALISTIC,
                                     unsubmitted=3, broken=1)
    handed = Counter(s.work[A].handed_in for s in klass.students)
    assert handed == {"notebook": 8, "nothing": 3, "broken file": 1}
    for student in klass.students:
        path = out / student.student_id / A / f"{A}.ipynb"
        state = student.work[A].handed_in
        assert path.exists() == (state != "nothing")
        if state == "broken file":
            assert path.read_bytes() == synthetic.BROKEN_BYTES
            with pytest.raises(Exception):
                nbformat.reads(path.read_text(), as_version=4)
        elif state == "notebook":
            nbformat.read(str(path), as_version=4)
    with pytest.raises(ValueError, match="more than the 12 notebooks"):
        synthetic.generate_class(tmp_path / "x", 12, course_dir=course, variants=VARIANTS, unsubmitted=12, broken=1)
    with pytest.raises(ValueError, match="unsubmitted must be a non-negative integer"):
        synthetic.generate_class(tmp_path / "y", 12, course_dir=course, variants=VARIANTS, unsubmitted=-1)
