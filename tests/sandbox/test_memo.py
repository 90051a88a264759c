"""The notebook's own heavy given call, served from the kit's ``_memo.json``, is exactly what the reference computes.

07's given cell calls ``compare_scorers(d=16, n_keys=8, seeds=(0, 1, 2), steps=300)`` (a
deterministic training run of several seconds). The kit and the verification sandbox answer that
call from a result computed once when the package was built (``autograder/sandbox/memo.py``).
Here the result served is compared, bit for bit and type for type, with a fresh computation of the
real ``attention_ref``; any other call is computed afresh; a cheap call is never kept.
"""
from __future__ import annotations

import importlib
import json
import shutil
import sys

import numpy as np
import pytest

import attention_ref
from autograder.checks import TASKS
from autograder.sandbox import memo
from autograder.sandbox.given import build_memo, literal_calls, write_given_package

from .conftest import ROOT

A07 = "07_scoring_functions"
CALL = {"d": 16, "n_keys": 8, "seeds": (0, 1, 2), "steps": 300}
NAME = "memo_test_attention_ref"


def _same(a, b, where="result") -> None:
    """``a`` and ``b`` are the same value: same types all the way down, floats and arrays bit for bit."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            _same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), where
    elif isinstance(a, float):
        assert a.hex() == b.hex(), f"{where}: {a!r} != {b!r}"
    else:
        assert a == b, where


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """07's given package as the kit holds it, with the memo built from the released notebook, importable."""
    release = (ROOT / "assignments" / A07 / f"{A07}.ipynb").read_bytes()
    assert literal_calls(release, {"compare_scorers"}) == [("compare_scorers", (), CALL)]
    kept = build_memo(["compare_scorers"], [release])
    assert kept is not None
    directory = tmp_path_factory.mktemp("given")
    write_given_package(directory, A07, ["compare_scorers"], TASKS[A07], kept)
    shutil.move(directory / "attention_ref", directory / NAME)  # beside the real attention_ref of this process
    sys.path.insert(0, str(directory))
    try:
        yield importlib.import_module(NAME)
    finally:
        sys.path.remove(str(directory))
        for name in [m for m in sys.modules if m == NAME or m.startswith(NAME + ".")]:
            del sys.modules[name]


def _hits(package) -> int:
    return len(sys.modules[f"{package.__name__}._memo"].hits)


def test_the_notebook_s_own_call_is_served_exactly_as_the_reference_computes_it(served):
    before = _hits(served)
    by_keyword = served.compare_scorers(**CALL)
    positional = served.compare_scorers(16, 8, (0, 1, 2), 300, train_size=512)  # the same call, bound to the signature
    assert _hits(served) == before + 2
    fresh = attention_ref.compare_scorers(**CALL)
    _same(by_keyword, fresh)
    _same(positional, fresh)


def test_each_call_gets_its_own_result(served):
    first = served.compare_scorers(**CALL)
    first["curves"]["dot"][:] = -1.0
    first["rows"].clear()
    second = served.compare_scorers(**CALL)
    assert second["rows"] and (second["curves"]["dot"] >= 0).all()


def test_any_other_call_is_computed_afresh(served):
    before = _hits(served)
    other = {"d": 8, "n_keys": 4, "seeds": (0,), "steps": 20}
    answer = served.compare_scorers(**other)
    assert _hits(served) == before  # not served
    _same(answer, attention_ref.compare_scorers(**other))
    assert memo.key(attention_ref.compare_scorers, (), dict(CALL, seeds=[0, 1, 2])) != \
        memo.key(attention_ref.compare_scorers, (), CALL)  # a list is not the tuple the notebook wrote


def test_what_is_kept_does_not_depend_on_what_it_cost():
    """Every literal call with plain data is kept, however cheap (a rule of seconds made two builds of one kit differ
    with the machine's load), and only literal calls: one whose argument is a name or an expression computes."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    cells = ["w = softmax([1.0, 2.0, 3.0])", "x = [1.0, 2.0]\nv = softmax(x)", "u = softmax(np.ones(3))"]
    notebook = nbformat.writes(new_notebook(cells=[new_code_cell(c) for c in cells])).encode()
    assert literal_calls(notebook, {"softmax"}) == [("softmax", ([1.0, 2.0, 3.0],), {})]
    kept = json.loads(build_memo(["softmax"], [notebook]))["entries"]
    assert [entry["key"] for entry in kept] == [memo.key(attention_ref.softmax, ([1.0, 2.0, 3.0],), {})]
