"""Registry of every graded check, by grade_id, task and assignment.

Each ``nbNN_*`` module defines ``ASSIGNMENT`` (its assignment id), ``TASKS``
(the graded names in notebook order), ``CHECKS`` (a list of
:class:`~autograder.checks.core.Check`) and ``MISCONCEPTIONS`` (id -> title). A module whose
checks are a ``CheckList(composites=...)`` declares which tasks call which other tasks: those
checks are judged with the reference's helpers (:func:`executor`).
"""
from __future__ import annotations

import importlib
import pkgutil
import re

from . import concepts
from .core import GENERIC_MISCONCEPTIONS, Call, Check, CheckFailed, Outcome, Verdict, evaluate, run_calls  # noqa: F401

#: Every ``nbNN_<name>`` module of this package, in notebook order: a new notebook's checks are
#: registered by adding the file (tests/course/test_registry.py checks it matches course.yml).
MODULES = tuple(importlib.import_module(f"{__name__}.{info.name}")
                for info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name)
                if re.fullmatch(r"nb\d\d_\w+", info.name))


def _attach_concepts(module) -> None:
    """Append the notebook's conceptual items (:mod:`.concepts`) to its module, once: every reader
    of ``module.TASKS`` / ``CHECKS`` / ``MISCONCEPTIONS`` (the sandbox, the tests) then sees them."""
    if getattr(module, "_CONCEPTS_ATTACHED", False):
        return
    module.TASKS = [*module.TASKS, *concepts.TASKS.get(module.ASSIGNMENT, [])]
    module.CHECKS.extend(concepts.CHECKS.get(module.ASSIGNMENT, []))  # the same CheckList: its composites stay
    module.MISCONCEPTIONS = {**module.MISCONCEPTIONS,
                             **{k: v for k, v in concepts.MISCONCEPTIONS.items()
                                if k.split(".")[0] in concepts.TASKS.get(module.ASSIGNMENT, [])}}
    module._CONCEPTS_ATTACHED = True


for _module in MODULES:
    _attach_concepts(_module)


#: Misconceptions that mean "not attempted yet" (a stub that raises, a constant never assigned):
#: the visible checks, the summary, ``autograder check``, the report and feedback say "not started".
NOT_ATTEMPTED = frozenset({"not_implemented", "not_defined"})

CHECKS = {}
TASKS = {}
ASSIGNMENT_CHECKS = {}  # assignment -> its checks (a task such as scaled_dot_product_attention is graded in 02 and 03)
MISCONCEPTIONS = dict(GENERIC_MISCONCEPTIONS)
#: Misconception -> the tests that prove it, for those only the grader's measurement in the
#: verification sandbox can diagnose (a module's ``GRADER_MEASURED``; the catalogue cannot write them).
GRADER_MEASURED = {}
for _module in MODULES:
    _measured = getattr(_module, "GRADER_MEASURED", {})
    if set(_measured) - set(_module.MISCONCEPTIONS):
        raise RuntimeError(f"{_module.ASSIGNMENT}: GRADER_MEASURED names undeclared misconceptions "
                           f"{sorted(set(_measured) - set(_module.MISCONCEPTIONS))}")
    GRADER_MEASURED.update(_measured)
    TASKS[_module.ASSIGNMENT] = list(_module.TASKS)
    ASSIGNMENT_CHECKS[_module.ASSIGNMENT] = list(_module.CHECKS)
    MISCONCEPTIONS.update(_module.MISCONCEPTIONS)
    for _check in _module.CHECKS:
        if _check.grade_id in CHECKS:
            raise RuntimeError(f"duplicate grade_id {_check.grade_id!r}")
        if _check.task not in _module.TASKS:
            raise RuntimeError(f"check {_check.grade_id!r} grades {_check.task!r}, which is not a task of {_module.ASSIGNMENT}")
        _late = [h for h in _check.helpers if h not in _module.TASKS[:_module.TASKS.index(_check.task)]]
        if _late:  # the helpers' own checks must be done before a reference version is handed out
            raise RuntimeError(f"{_check.grade_id!r} substitutes {_late}, which are not tasks before {_check.task!r}")
        CHECKS[_check.grade_id] = _check


def checks_for_task(task: str, assignment: str | None = None) -> list[Check]:
    """The checks of one graded name, in definition order (only those of ``assignment`` if given:
    a name can be graded in two notebooks, e.g. ``scaled_dot_product_attention`` in 02 and 03)."""
    pool = CHECKS.values() if assignment is None else ASSIGNMENT_CHECKS[assignment]
    return [c for c in pool if c.task == task]


def checks_for_assignment(assignment: str) -> list[Check]:
    """The checks of every task of one assignment, in notebook order."""
    if assignment not in TASKS:
        raise KeyError(f"unknown assignment {assignment!r}; known: {', '.join(TASKS)}")
    return [c for task in TASKS[assignment] for c in checks_for_task(task, assignment)]


def executor(check: Check, namespace: dict):
    """The in-process executor of ``check``: its calls against ``namespace``, with the reference's
    version of each of its :attr:`~autograder.checks.core.Check.helpers` in place of the student's
    during the calls (task isolation: a helper's bug costs points on the helper's task only)."""
    import attention_ref

    substitutes = {name: getattr(attention_ref, name) for name in check.helpers}
    return lambda calls: run_calls(namespace, calls, substitutes)
