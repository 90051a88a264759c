"""How the suite is spread over pytest-xdist's workers (``dev.py test`` runs ``-n auto --dist loadgroup``).

A session fixture is made once per worker, and a module fixture once per worker that runs one of the
module's tests; the suite's expensive ones (a real nbgrader run of every notebook, the student kit's
fresh venv, a JupyterLab server, a stock-graded class, a PostgreSQL cluster) cost tens of seconds to
minutes each. So the tests are put in groups: two tests that share a module, or a session fixture of
ours, are one group, and a group runs on one worker, so that no expensive fixture is made twice; the
groups that take longest start first (:data:`FIRST`), so that the two workers end together.

xdist's own ``loadgroup`` cannot carry these groups under pytest 9 (it groups by a suffix it writes
into ``item._nodeid``, which pytest 9 no longer reads back: even a static ``xdist_group`` mark
spreads a module over both workers). So ``--dist loadgroup`` is scheduled here (:class:`GroupScheduling`):
each worker writes the groups it collected to a file the controller named, and the controller
hands out one group at a time, in the collected order.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

# One BLAS thread per process, as the grader gives its kernels (autograder/sandbox/kernel.py): the suite
# keeps every core busy with a worker each, so a second OpenBLAS thread finds no idle core and spins
# (04 and 06 of the catalogue graded over 20 seeds: 65.8 s of CPU with OpenBLAS's default, 48.6 s with
# one thread, under load 6.5). Set before any worker imports numpy (the workers, and the kernels and
# nbgrader processes they start, inherit the controller's environment); a value set outside is kept.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

#: Session fixtures that cost nothing to make twice: sharing one of them does not tie tests together.
CHEAP = {"course", "base", "full_python"}

#: The slowest groups, slowest first (``dev.py test``'s ``--durations`` list tells which they are):
#: a group holding one of these paths is started before every other group. Ordered by the whole-suite
#: run of 2026-12-03 (wall seconds under load 3): browser ~560, nbgrader ~550 (two nbgrader processes
#: at once), grading ~340, catalogue ~250, validate ~120, grading/test_semester ~90, then the sandbox's and
#: the views' classes (40-65 each). kit/ fell from ~545 to 125 (alone, two workers, load 0) once the kit's
#: public data judged through one sweep per assignment.
FIRST = [
    # first within its group too: xdist hands a worker its next group while the last two tests of the
    # current one are still to run, and this one (~200 s) would hold that group back behind it
    "browser/test_semester.py",
    "browser/",
    "hub/",
    "grading/test_nonroot.py",
    "grading/test_between_users.py",
    "course/test_nbgrader.py",
    "grading/test_pipeline.py",
    "course/test_catalogue.py",
    "course/test_validate.py",
    "kit/",
    "grading/test_semester.py",
    "sandbox/test_hostile_memory.py",
    "sandbox/test_isolation.py",
    "views/test_demo.py",
    "test_quickstarts.py",
    "sandbox/test_hostile.py",
    "sandbox/test_hostile_faults.py",
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
    # The slowest groups first, the rest in collection order.
    members: dict[str, list[str]] = {}
    for item in items:
        members.setdefault(groups[item], []).append(item.nodeid.split("::")[0])
    order = {g: (min(_rank(m) for m in mods), i) for i, (g, mods) in enumerate(members.items())}
    # Within a group the modules of FIRST come first, in its order (a module's tests stay together).
    items.sort(key=lambda item: (order[groups[item]], _rank(item.nodeid.split("::")[0])))
    where = getattr(config, "workerinput", {}).get(GROUPS_FILE)
    if where:
        Path(where).write_text(json.dumps({item.nodeid: groups[item] for item in items}))


#: The key of ``workerinput`` that names the file a worker writes its ``{nodeid: group}`` to.
GROUPS_FILE = "attention_course_groups_file"


_GROUPS_FOLDER = pytest.StashKey[Path]()


def pytest_configure(config):
    if config.getvalue("dist") == "loadgroup" and not hasattr(config, "workerinput"):
        config.stash[_GROUPS_FOLDER] = Path(tempfile.mkdtemp(prefix="test-groups-"))


def pytest_unconfigure(config):
    folder = config.stash.get(_GROUPS_FOLDER, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    folder = node.config.stash.get(_GROUPS_FOLDER, None)
    if folder is not None:
        node.workerinput[GROUPS_FILE] = str(folder / f"{node.gateway.id}.json")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        """xdist's scope scheduling, a scope being one of :func:`_groups`' groups, read from the file a
        worker wrote when it collected (the workers collect the same tests, so any one will do)."""

        def __init__(self, config, log=None):
            super().__init__(config, log)
            self._group_of: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self._group_of is None:
                files = [Path(n.workerinput[GROUPS_FILE]) for n in self.nodes]
                written = [f for f in files if f.exists()]
                if not written:
                    raise RuntimeError(f"no worker wrote its test groups to {files}")
                self._group_of = json.loads(written[0].read_text())
            return self._group_of[nodeid]

    return GroupScheduling(config, log)
