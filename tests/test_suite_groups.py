"""The suite's own scheduling (tests/conftest.py): under ``-n 2 --dist loadgroup`` a module's tests, and
every test sharing one of our session fixtures, run on one worker, and that fixture is made once.

Run on a small suite of its own with the real ``tests/conftest.py`` copied in: two modules share an
expensive session fixture, a third has many quick tests that would otherwise be spread over both workers.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

CONFTEST = Path(__file__).resolve().parent / "conftest.py"

SHARED_FIXTURE = '''
import os, pytest
from pathlib import Path

@pytest.fixture(scope="session")
def expensive():
    with open(Path(os.environ["MADE_LOG"]), "a") as log:
        log.write(os.environ.get("PYTEST_XDIST_WORKER", "-") + "\\n")
    return 42
'''

USES_FIXTURE = '''
import pytest

@pytest.mark.parametrize("i", range({n}))
def test_uses(expensive, i):
    assert expensive == 42
'''

QUICK = '''
import pytest

@pytest.mark.parametrize("i", range(12))
def test_quick(i):
    assert i >= 0
'''


def _suite(root: Path) -> None:
    tests = root / "tests"
    (tests / "shared").mkdir(parents=True)
    shutil.copy(CONFTEST, tests / "conftest.py")
    (tests / "shared" / "conftest.py").write_text(SHARED_FIXTURE)
    (tests / "shared" / "test_a.py").write_text(USES_FIXTURE.format(n=6))
    (tests / "shared" / "test_b.py").write_text(USES_FIXTURE.format(n=6))
    (tests / "test_c.py").write_text(QUICK)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')


def test_groups_keep_a_shared_session_fixture_on_one_worker(tmp_path):
    _suite(tmp_path)
    made = tmp_path / "made.log"
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup",
                           "--no-loadscope-reorder", "-v"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={"MADE_LOG": str(made), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    workers = defaultdict(set)
    for worker, module in re.findall(r"\[(gw\d)\].*?PASSED (tests/[\w/]+\.py)::", proc.stdout):
        workers[module].add(worker)
    assert set(workers) == {"tests/shared/test_a.py", "tests/shared/test_b.py", "tests/test_c.py"}, proc.stdout
    assert all(len(w) == 1 for w in workers.values()), dict(workers)
    assert workers["tests/shared/test_a.py"] == workers["tests/shared/test_b.py"], "they share a session fixture"
    assert len(made.read_text().split()) == 1, f"the session fixture was made on {made.read_text().split()}"
