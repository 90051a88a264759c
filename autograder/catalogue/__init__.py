"""Catalogue of answer variants: typical mistakes and correct answers written differently.

Each ``nbNN`` module lists :class:`Variant` objects for its assignment. The
tests grade every variant (a wrong one must lose points on its own task with
its misconception named; a right one must get full marks), and the synthetic
demo class draws its students' mistakes from here.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Variant:
    """An answer to one or more solution cells of one assignment.

    ``answers`` maps solution-cell grade_ids to the cell source that replaces
    the instructor's solution. ``correct`` variants must score full marks;
    wrong ones must fail at least one check of ``task`` with ``misconception``
    and must not fail checks of other tasks (unless listed in ``also_fails``,
    for a task that calls the wrong function). ``source`` says where the
    mistake is documented publicly.
    """

    name: str
    assignment: str
    task: str
    answers: dict = field(hash=False)
    correct: bool = False
    misconception: str | None = None
    also_fails: tuple = ()
    source: str = ""


def all_variants() -> list[Variant]:
    """The variants of every ``nbNN`` module of this package, in notebook order, then those of the
    conceptual items (``concepts``, which span several notebooks)."""
    modules = [importlib.import_module(f"{__name__}.{info.name}")
               for info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name)
               if re.fullmatch(r"nb\d\d", info.name)]
    modules.append(importlib.import_module(f"{__name__}.concepts"))
    return [v for m in modules for v in m.VARIANTS]
