"""Set up a virtual environment and run the course's main jobs.

    python3 dev.py demo   # set up, then grade a bundled synthetic class and print the report
    python3 dev.py test   # set up, then lint (ruff) and run the whole test suite

Needs only Python >= 3.11 and pip. The environment lives in ``.venv`` and is
reused when ``pyproject.toml`` has not changed since it was built. Where npm is
installed, JupyterHub's proxy (configurable-http-proxy, for tests/hub) goes
into ``.venv/hub-proxy``; without npm those tests skip, saying so.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".installed-from"
# JupyterHub's proxy for tests/hub (an npm package: configurable-http-proxy), installed beside the venv.
PROXY = VENV / "hub-proxy"
PROXY_BIN = PROXY / "node_modules" / ".bin" / "configurable-http-proxy"
PROXY_PACKAGE = "configurable-http-proxy@5"


# Installed beside jsonschema by jupyter-events, only to check the "iri" string format,
# and it builds a parser grammar when imported: 2.5 s added to every process that imports
# nbformat (each nbgrader command, each Jupyter server, each grading worker). Nothing in
# this project validates IRIs, so it is removed after the install.
SLOW_OPTIONAL_PACKAGES = ["rfc3987-syntax"]


def _fingerprint() -> str:
    recipe = (ROOT / "pyproject.toml").read_bytes() + repr(SLOW_OPTIONAL_PACKAGES).encode()
    return hashlib.sha256(recipe).hexdigest()


def ensure_venv() -> None:
    """Create ``.venv`` and install the project with its test extras, once."""
    if sys.version_info < (3, 11):
        sys.exit(f"dev.py needs Python >= 3.11, this is {sys.version.split()[0]}")
    if not (BIN / "python").exists():
        print(f"creating {VENV}", flush=True)
        venv.create(VENV, with_pip=True)
    if STAMP.exists() and STAMP.read_text() == _fingerprint():
        return
    pip = [str(BIN / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    subprocess.run([*pip, "-e", f"{ROOT}[test]"], check=True)
    subprocess.run([str(BIN / "python"), "-m", "pip", "uninstall", "-y", "-q", *SLOW_OPTIONAL_PACKAGES], check=True)
    STAMP.write_text(_fingerprint())


def ensure_proxy() -> None:
    """Install configurable-http-proxy with npm, once; without npm say what skips and go on."""
    if PROXY_BIN.exists():
        return
    npm = shutil.which("npm")
    if npm is None:
        print("dev.py: no npm here, so JupyterHub's configurable-http-proxy is not installed and tests/hub "
              "will skip (install Node.js and npm, e.g. `apt-get install nodejs npm`, then run dev.py setup)",
              file=sys.stderr)
        return
    print(f"installing {PROXY_PACKAGE} into {PROXY} (npm)", flush=True)
    subprocess.run([npm, "install", "--prefix", str(PROXY), "--no-audit", "--no-fund", "--loglevel=error",
                    PROXY_PACKAGE], check=True)


def run(*cmd: str) -> int:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    return subprocess.call(list(cmd), cwd=ROOT, env=env)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"demo", "test", "setup"}:
        print(__doc__)
        return 2
    ensure_venv()
    ensure_proxy()
    job, rest = argv[0], argv[1:]
    if job == "setup":
        return 0
    if job == "demo":
        return run(str(BIN / "autograder"), "demo", *rest)
    # The linter first (about a second): an undefined or unused name fails the suite like a test.
    lint = run(str(BIN / "ruff"), "check", "--quiet", ".")
    if lint != 0:
        print("ruff check found the problems above", file=sys.stderr)
        return lint
    # One worker per core and one more: a third of the suite's wall time is spent waiting (for a browser, a
    # JupyterHub, a kernel in its sandbox, a database lock), not computing (2-core whole-suite run of
    # 2026-12-04: 907 s of CPU in 717 s with two workers; three: 670 s). tests/conftest.py schedules
    # "loadgroup" itself, so that each expensive fixture is made on one worker only. The slowest tests are
    # listed at the end: where the suite's time goes, on every CI run.
    parallel = ["-n", str((os.cpu_count() or 1) + 1), "--dist", "loadgroup", "--no-loadscope-reorder"]
    return run(str(BIN / "python"), "-m", "pytest", *parallel, "--durations=25", *rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
