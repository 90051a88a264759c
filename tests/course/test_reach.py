"""The catalogue sweep takes a check's verdicts from the solution's run only when the variant cannot act
on them (autograder/catalogue/reach.py): what counts as changed, and what a check reaches."""
from __future__ import annotations

import numpy as np

from autograder.catalogue import reach

CELLS = """
import numpy as np
SCALE = 2.0
def helper(x):
    return x * SCALE
def task(x):
    return [helper(v) for v in x]
def other(x):
    return np.asarray(x) + 1
"""


def _namespace(source: str) -> dict:
    namespace: dict = {"__name__": "__main__"}
    exec(compile(source, "<cell 1>", "exec"), namespace)
    return namespace


def test_the_same_cells_run_twice_change_nothing():
    assert reach.changed(_namespace(CELLS), reach.fingerprints(_namespace(CELLS))) == set()


def test_a_rewritten_function_a_new_constant_and_a_new_name_are_changed():
    baseline = reach.fingerprints(_namespace(CELLS))
    edited = CELLS.replace("x * SCALE", "x * SCALE + 0").replace("SCALE = 2.0", "SCALE = 2.5") + "extra = np.ones(2)\n"
    assert reach.changed(_namespace(edited), baseline) == {"helper", "SCALE", "extra"}
    # a default argument is part of the function
    assert reach.changed(_namespace(CELLS.replace("def other(x):", "def other(x, y=1):")), baseline) == {"other"}


def test_a_check_reaches_what_its_function_reads_through_comprehensions_but_not_the_replaced_helpers():
    namespace = _namespace(CELLS)
    assert reach.reach({"task"}, namespace) >= {"task", "helper", "SCALE"}
    assert "helper" not in reach.reach({"task"}, namespace, skip=("helper",))
    assert reach.reach({"other"}, namespace) == {"other", "np"}


def test_what_cannot_be_compared_is_never_the_same():
    class Opaque:
        def __reduce__(self):
            raise TypeError("no")

    namespace = _namespace(CELLS)
    namespace["state"] = Opaque()
    assert "state" in reach.changed(namespace, reach.fingerprints(namespace))
    namespace = _namespace(CELLS)
    namespace["table"] = np.zeros(3)
    baseline = reach.fingerprints(namespace)
    namespace["table"][1] = 1.0  # the same object, edited: its bytes differ
    assert reach.changed(namespace, baseline) == {"table"}
