"""The README's quick-starts (student, instructor, self-study; and turning per-student numbers on, issue 22) run
as written, in a temporary copy of the repository (issue 6, "For the three kinds of user").

README format: an HTML comment names the quick-start, and the next fenced block holds its
commands::

    <!-- quickstart:student -->
    ```bash
    python3 dev.py setup
    .venv/bin/jupyter lab assignments/01_scores_softmax/01_scores_softmax.ipynb
    ```

The block runs as one bash script (``set -euo pipefail``, so ``cd`` and ``source`` carry over
from line to line) in a copy of the repository's tracked and unignored files. Rules:

* ``jupyter lab`` / ``jupyter notebook`` / ``jupyter server`` (also behind ``.venv/bin/``) start
  a server for a person to use; here each is started in the background on a free loopback port
  with a random token, must answer ``/api/status`` (and every ``.ipynb`` named on the line must
  exist), and is then stopped.
* A command whose line ends with the comment ``# exits N`` must exit with status N (e.g. a
  self-check of an unanswered notebook that reports failures with status 1).
* By default the copy reuses this checkout's ``.venv`` (a symlink; ``dev.py`` sees the same
  ``pyproject.toml`` and installs nothing), so ``pip install`` lines are reported and skipped
  rather than re-pointing the shared environment. ``AUTOGRADER_QUICKSTART_FRESH=1`` runs
  everything as on a fresh machine instead: no ``.venv`` in the copy, installs included
  (needs the package index; minutes).
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
KINDS = ("student", "instructor", "self-study", "variants")
TIMEOUT = int(os.environ.get("AUTOGRADER_QUICKSTART_TIMEOUT", "1200"))
FRESH = os.environ.get("AUTOGRADER_QUICKSTART_FRESH") == "1"

_BLOCK = re.compile(
    r"<!--\s*quickstart:(?P<name>[\w-]+)\s*-->\s*\n"  # the marker
    r"(?:[ \t]*\n)*"  # blank lines
    r"(?P<fence>```|~~~)[ \t]*(?P<lang>[\w-]*)[^\n]*\n"  # opening fence
    r"(?P<body>.*?)"  # the commands
    r"^(?P=fence)[ \t]*$",  # closing fence
    re.S | re.M)
_SERVER = re.compile(r"^(?:\S*/)?(?:jupyter(?:-|\s+)(?:lab|notebook|server)\b|python3?\s+-m\s+jupyterlab\b)")
_PIP_INSTALL = re.compile(r"(?:^|\s)(?:\S*/)?(?:pip3?|python3?\s+-m\s+pip)\s+install\b")
_EXITS = re.compile(r"\s+#\s*exits\s+(\d+)\s*$")


def parse_quickstarts(text: str) -> dict[str, str]:
    """The quick-start blocks of a README: name -> the commands (text of the fenced block).

    >>> parse_quickstarts("x\\n<!-- quickstart:student -->\\n```bash\\necho hi\\n```\\n")
    {'student': 'echo hi\\n'}
    >>> parse_quickstarts("no blocks here")
    {}
    """
    return {m.group("name"): m.group("body") for m in _BLOCK.finditer(text)}


def commands(block: str) -> list[str]:
    """The commands of a block: comment and blank lines dropped, ``\\`` continuations joined,
    a leading ``$ `` prompt removed.

    >>> commands("# set up\\n$ python3 dev.py setup\\nautograder check \\\\\\n  nb.ipynb  # exits 1\\n")
    ['python3 dev.py setup', 'autograder check nb.ipynb  # exits 1']
    """
    out, pending = [], ""
    for raw in block.splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("$ "):
            line = line[2:]
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        out.append(pending + line)
        pending = ""
    if pending:
        out.append(pending.strip())
    return out


PRELUDE = r'''
set -euo pipefail
_qs_server() {  # start a Jupyter server for a moment: it must answer, then it is stopped
  local port token log pid i
  port=$("$QS_PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  token=$("$QS_PYTHON" -c 'import secrets; print(secrets.token_hex(16))')
  log=$(mktemp)
  for a in "$@"; do
    case "$a" in *.ipynb) [ -e "$a" ] || { echo "quickstart: $a does not exist" >&2; return 1; } ;; esac
  done
  "$@" --no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port="$port" --ServerApp.port_retries=0 \
       --IdentityProvider.token="$token" --ServerApp.allow_root=True >"$log" 2>&1 &
  pid=$!
  for i in $(seq 1 240); do
    if "$QS_PYTHON" -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$port/api/status?token=$token', timeout=2)" 2>/dev/null; then
      echo "quickstart: server answered on port $port: $*"
      kill "$pid"; wait "$pid" 2>/dev/null || true
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  echo "quickstart: server did not answer: $*" >&2; tail -n 30 "$log" >&2
  kill "$pid" 2>/dev/null || true
  return 1
}
_qs_expect() {  # _qs_expect N command... : the command must exit with status N
  local want=$1; shift
  set +e; "$@"; local got=$?; set -e
  if [ "$got" != "$want" ]; then echo "quickstart: '$*' exited $got, expected $want" >&2; return 1; fi
}
_qs_skip() { echo "quickstart: skipped (reusing this checkout's .venv): $*"; }
'''


def to_script(block: str, fresh: bool = FRESH) -> str:
    """The bash script that runs a block under the rules above.

    >>> script = to_script("jupyter lab a.ipynb\\npip install -e .\\nautograder check x  # exits 1", fresh=False)
    >>> script.splitlines()[-3:]
    ['_qs_server jupyter lab a.ipynb', "_qs_skip 'pip install -e .'", '_qs_expect 1 autograder check x']
    """
    lines = [PRELUDE.rstrip("\n")]
    for cmd in commands(block):
        m = _EXITS.search(cmd)
        if m:
            cmd = cmd[:m.start()]
        if _SERVER.match(cmd):
            cmd = "_qs_server " + cmd
        elif _PIP_INSTALL.search(cmd) and not fresh:
            cmd = "_qs_skip " + shlex.quote(cmd)
        if m:
            cmd = f"_qs_expect {m.group(1)} {cmd}"
        lines.append(cmd)
    return "\n".join(lines) + "\n"


def _repo_copy(dest: Path) -> Path:
    """Copy the repository's tracked and unignored files (what a fresh clone would have, plus
    work in progress) to ``dest``."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO, capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = REPO / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


def _venv_is_current(venv: Path) -> bool:
    """Whether ``dev.py setup`` would leave ``venv`` as it is (its stamp matches this checkout)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("_dev", REPO / "dev.py")
    dev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dev)
    stamp = venv / ".installed-from"
    return stamp.exists() and stamp.read_text() == dev._fingerprint()


_FOUND = parse_quickstarts(README.read_text(encoding="utf-8")) if README.exists() else {}


def test_readme_has_every_quickstart():
    missing = [k for k in KINDS if k not in _FOUND]
    assert not missing, f"README.md lacks the quick-start blocks {missing}"


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_quickstart_runs_as_written(kind, tmp_path):
    assert kind in _FOUND, f"README.md has no <!-- quickstart:{kind} --> block"
    if not shutil.which("git") or not (REPO / ".git").exists():
        pytest.skip("needs a git checkout to copy")
    venv = REPO / ".venv"
    if not FRESH and venv.exists() and not _venv_is_current(venv):
        # dev.py in the copy would reinstall into the shared .venv, pointing it at the copy.
        pytest.skip(".venv was built from another pyproject.toml: run `python3 dev.py setup` first")
    work = _repo_copy(tmp_path / "repo")
    if not FRESH and venv.exists():
        (work / ".venv").symlink_to(venv, target_is_directory=True)
    script = tmp_path / f"quickstart-{kind}.sh"
    script.write_text(to_script(_FOUND[kind]))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "VIRTUAL_ENV"))}
    env.update(QS_PYTHON=sys.executable, HOME=str(tmp_path / "home"), MPLBACKEND="Agg",
               JUPYTER_CONFIG_DIR=str(tmp_path / "jupyter-config"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "jupyter-runtime"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "jupyter-workspaces"))
    (tmp_path / "home").mkdir()
    try:
        done = subprocess.run(["bash", str(script)], cwd=work, env=env, capture_output=True,
                              text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"quick-start {kind} ran past {TIMEOUT} s:\n{(exc.stdout or '')[-3000:]}")
    assert done.returncode == 0, (
        f"quick-start {kind} failed ({done.returncode}):\n--- script\n{script.read_text()}"
        f"\n--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}")
