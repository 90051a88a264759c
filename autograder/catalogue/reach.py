"""Which of a notebook's names a variant changed, and which names a check can reach.

A catalogue variant replaces one answer cell of the instructor's notebook. A check of another
task calls that task's function, which reads its module globals (the notebook's namespace) when it
runs: if none of the names it can reach was changed by the variant, its verdicts are the
solution's, and the sweep (:func:`.fairness.grade_over_seeds`) takes them from the solution's run
instead of running the same code again at every seed (02's ``score_variance`` check draws 20,000
pairs per seed: 71 s of the catalogue's CPU went to the instructor's own answer, once per variant).

Whether a mistake costs points on another task is still decided by running it wherever it can
act: a function that calls the variant's function (a helper the check does not replace with the
reference's) reaches the changed name, and the check runs. What is not followed is a cell that
changes a module's attributes (``np.exp = ...``): no catalogued mistake does.
"""
from __future__ import annotations

import marshal
import pickle
import types

import numpy as np

from ..sandbox.given import global_names

_MODULE_GLOBALS = frozenset({"__builtins__", "__name__", "__doc__", "__loader__", "__spec__", "__package__"})


def fingerprints(namespace: dict) -> dict[str, object]:
    """``{name: a key equal for two namespaces exactly when the value is the same}``; a value we cannot
    compare gets a key equal to nothing (it always counts as changed)."""
    return {name: _fingerprint(value) for name, value in namespace.items() if name not in _MODULE_GLOBALS}


def changed(namespace: dict, baseline: dict[str, object]) -> set[str]:
    """The names whose value differs from ``baseline``'s (:func:`fingerprints`), or that only one has."""
    mine = fingerprints(namespace)
    return {n for n in mine.keys() | baseline.keys() if n not in mine or n not in baseline or mine[n] != baseline[n]}


def reach(names, namespace: dict, skip=()) -> set[str]:
    """``names`` and every name of ``namespace`` their functions read, transitively (``skip``: names the
    check replaces with the reference's, whose own reads are the reference's)."""
    seen, todo = set(), [n for n in names if n not in skip]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        value = namespace.get(name)
        for code in _codes(value):
            todo += [n for n in global_names(code) if n in namespace and n not in skip and n not in seen]
    return seen


def _codes(value) -> list:
    function = getattr(value, "__func__", value)  # a bound method reads its function's globals
    code = getattr(function, "__code__", None)
    return [code] if isinstance(code, types.CodeType) else []


def _fingerprint(value):
    if isinstance(value, types.ModuleType):
        return ("module", value.__name__)
    if isinstance(value, types.FunctionType):
        cells = tuple(_fingerprint(c.cell_contents) if _filled(c) else None for c in value.__closure__ or ())
        return ("function", marshal.dumps(value.__code__), _fingerprint(value.__defaults__),
                _fingerprint(value.__kwdefaults__), cells, value.__globals__.get("__name__"))
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_fingerprint(v) for v in value))
    try:
        return ("pickle", pickle.dumps(value, protocol=5))
    except Exception:  # noqa: BLE001 - anything that cannot be compared is never the same
        return ("unique", object())


def _filled(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True
