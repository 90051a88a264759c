"""Fixtures of the student-kit tests: the kit built once, installed into a fresh virtual environment.

``kit``: the kit of every assignment (as of a date after every due date), built once per session
(about 30 s: the catalogue's outcomes on the public inputs). ``kit_python``: a virtual
environment made with ``venv --without-pip`` (no system site-packages) into which the kit's wheel
is installed with ``pip install --no-index --no-deps``; its only other path is a directory of
links to the third-party packages a notebook imports (numpy, matplotlib and theirs), never to this
repository or to the project's editable install.
"""
from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from autograder.config import load_course

ROOT = Path(__file__).resolve().parents[2]
#: Every assignment of course.yml (the registry, not a list kept by hand: 07 was missing from it).
ALL = [a.id for a in load_course(ROOT).assignments]
AFTER_EVERY_DUE_DATE = dt.datetime(2027, 6, 1, tzinfo=dt.timezone.utc)
#: Top-level names of the third-party packages a notebook needs (numpy, matplotlib and its dependencies).
THIRD_PARTY = ["numpy", "numpy.libs", "matplotlib", "mpl_toolkits", "contourpy", "cycler", "fontTools", "kiwisolver",
               "packaging", "PIL", "pillow.libs", "pyparsing", "dateutil", "six.py"]
RUNNER = Path(__file__).with_name("runner.py")


@pytest.fixture(scope="session")
def kit(tmp_path_factory) -> Path:
    """The kit's output directory (``site/`` and the wheel), releasing every assignment."""
    from autograder.kit.build import build_kit

    out = tmp_path_factory.mktemp("kit")
    build_kit(ROOT, ALL, out, now=AFTER_EVERY_DUE_DATE)
    return out


def _third_party(target: Path) -> None:
    site = Path(sysconfig.get_paths()["purelib"])
    target.mkdir()
    for name in THIRD_PARTY:
        if (site / name).exists():
            (target / name).symlink_to(site / name)


@pytest.fixture(scope="session")
def kit_python(kit, tmp_path_factory) -> Path:
    """The Python of a fresh virtual environment holding the kit (see the module docstring)."""
    base = tmp_path_factory.mktemp("kitenv")
    env = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    python = env / "bin" / "python"
    wheel = next(kit.glob("*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-index",
                    "--no-deps", "--disable-pip-version-check", str(wheel)], check=True)
    _third_party(base / "deps")
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (Path(purelib) / "kit_deps.pth").write_text(str(base / "deps") + "\n")
    return python


def run_notebook(python: Path, path: Path, assignment: str, cwd: Path) -> dict:
    """:mod:`tests.kit.runner` on ``path`` under ``python`` (from ``cwd``, with a clean environment)."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "MPLBACKEND": "Agg", "MPLCONFIGDIR": str(cwd / ".mpl")}
    done = subprocess.run([str(python), "-I", str(RUNNER), str(path), assignment], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def installed_site(python: Path) -> Path:
    """The site-packages directory of the kit's environment."""
    return Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())


@pytest.fixture(scope="session")
def full_python() -> Path:
    """The grader's own Python (the whole package), for side-by-side runs."""
    return Path(sys.executable)


@pytest.fixture(autouse=True)
def _headless_plots(monkeypatch):
    """Plots of the kit's tests render off screen. Set per test and undone after it: a variable set on
    the whole pytest process reached the grading tests' kernels, whose plots then vanished (Agg
    shows nothing) while stock nbgrader, started with the environment of before, showed them."""
    monkeypatch.setenv("MPLBACKEND", "Agg")
