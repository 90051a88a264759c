"""How the suite is meant to be spread over pytest-xdist's workers (``dev.py test`` runs ``-n auto --dist loadgroup``).

A session fixture is made once per worker, and the suite's expensive ones (a real nbgrader run of
every notebook, the student kit's fresh venv, a JupyterLab server, a stock-graded class, a
PostgreSQL cluster) cost tens of seconds each. So the tests are marked in groups: two tests that
share a module, or a session fixture of ours, get one ``xdist_group``, meant to run on one worker
so that no expensive fixture is made twice, and the groups that take longest come first (:data:`FIRST`).

**Not in effect yet** (measured 2026-12-02, pytest 9.2 with pytest-xdist 3.8.0): xdist's loadgroup
groups by a suffix it writes into ``item._nodeid``, which pytest 9 no longer reads back, so even a
static ``@pytest.mark.xdist_group`` sends a module's tests to both workers; the suite runs as
``--dist load`` and some session fixtures are made on both workers. The fix is a scheduler of our
own (``pytest_xdist_make_scheduler``) that reads these groups; until then the marks are harmless.
"""
from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

#: Session fixtures that cost nothing to make twice: sharing one of them does not tie tests together.
CHEAP = {"course", "base", "full_python"}

#: The slowest groups, slowest first (``dev.py test``'s ``--durations`` list tells which they are):
#: a group holding one of these paths is started before every other group.
FIRST = [
    "browser/",
    "course/test_nbgrader.py",
    "kit/",
    "grading/test_pipeline.py",
    "course/test_catalogue.py",
    "course/test_validate.py",
    "test_quickstarts.py",
    "sandbox/test_hostile.py",
    "sandbox/test_hostile_memory.py",
    "grading/test_semester.py",
    "views/test_demo.py",
    "sandbox/test_matplotlib_standin.py",
    "sandbox/test_catalogue.py",
]


def _session_fixtures(item) -> set[str]:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return set()
    names = set()
    for name, defs in info.name2fixturedefs.items():
        if name in CHEAP:
            continue
        for d in defs:
            if d.scope == "session" and str(d.baseid).startswith("tests"):
                names.add(name)
    return names


def _groups(items) -> dict:
    """``{item: group}``: the connected parts of the graph joining each test to its module and its
    expensive session fixtures (union-find)."""
    parent: dict = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for item in items:
        module = ("module", item.nodeid.split("::")[0])
        for name in _session_fixtures(item):
            parent[find(("fixture", name))] = find(module)
        find(module)
    return {item: find(("module", item.nodeid.split("::")[0]))[1] for item in items}


def _rank(group: str) -> int:
    relative = group.removeprefix("tests/")
    return next((i for i, path in enumerate(FIRST) if relative.startswith(path)), len(FIRST))


def pytest_collection_modifyitems(config, items):
    groups = _groups(items)
    # One group's tests keep their order; the slowest groups first, the rest in collection order.
    members: dict[str, list[str]] = {}
    for item in items:
        members.setdefault(groups[item], []).append(item.nodeid.split("::")[0])
    order = {g: (min(_rank(m) for m in mods), i) for i, (g, mods) in enumerate(members.items())}
    items.sort(key=lambda item: order[groups[item]])
    for item in items:
        item.add_marker(pytest.mark.xdist_group(groups[item]))
