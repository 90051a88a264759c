"""Fixtures of the grading tests: a tiny nbgrader course (autograder.grading.minicourse) and its
class, graded once per session by serial stock ``nbgrader autograde`` for comparison.

Kernel runs cost one to three seconds each on two shared cores, so the class is small
(the four kinds of answer once each) and every expensive run is session-scoped.
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from autograder import api
from autograder.grading.minicourse import ASSIGNMENT, make_class, make_course

BIN = str(Path(sys.executable).parent)
ENV = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""))
ENV.pop("MPLBACKEND", None)  # as on a grading host: the kernels choose their own (inline) backend
N_STUDENTS = 4


def copy_course(src: Path, dst: Path) -> Path:
    """A copy of a course directory (with its gradebook and submissions)."""
    shutil.copytree(src, dst)
    return dst


def grades(course_dir: Path) -> dict:
    """{(student, grade_id): (auto_score, needs_manual_grade)} read straight from gradebook.db."""
    con = sqlite3.connect(course_dir / "gradebook.db")
    rows = con.execute("""
        SELECT sa.student_id, bc.name, g.auto_score, g.needs_manual_grade
        FROM grade g JOIN base_cell bc ON g.cell_id = bc.id
        JOIN submitted_notebook sn ON g.notebook_id = sn.id
        JOIN submitted_assignment sa ON sn.assignment_id = sa.id""").fetchall()
    con.close()
    return {(s, g): (a, bool(m)) for s, g, a, m in rows}


def comments(course_dir: Path) -> dict:
    """{(student, grade_id): auto_comment} from gradebook.db."""
    con = sqlite3.connect(course_dir / "gradebook.db")
    rows = con.execute("""
        SELECT sa.student_id, bc.name, c.auto_comment
        FROM comment c JOIN base_cell bc ON c.cell_id = bc.id
        JOIN submitted_notebook sn ON c.notebook_id = sn.id
        JOIN submitted_assignment sa ON sn.assignment_id = sa.id""").fetchall()
    con.close()
    return {(s, g): c for s, g, c in rows}


@pytest.fixture(scope="session")
def generated_course(tmp_path_factory) -> Path:
    """The mini course after ``autograder generate``, with a class of four honest submissions."""
    root = make_course(tmp_path_factory.mktemp("mini") / "course")
    api.generate(root)
    make_class(root, N_STUDENTS)
    return root


@pytest.fixture(scope="session")
def stock_graded(generated_course, tmp_path_factory) -> Path:
    """A copy of the course graded by serial stock ``nbgrader autograde`` (the reference)."""
    root = copy_course(generated_course, tmp_path_factory.mktemp("stock") / "course")
    proc = subprocess.run([os.path.join(BIN, "nbgrader"), "autograde", ASSIGNMENT], cwd=root, env=ENV,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return root


@pytest.fixture(scope="session")
def parallel_graded(generated_course, tmp_path_factory):
    """A copy of the course (plus a broken file and one stripped of its metadata) graded by ``api.grade`` with 2 workers."""
    root = copy_course(generated_course, tmp_path_factory.mktemp("parallel") / "course")
    for sid, data in {"z_text": b"just some text", "z_stripped": None}.items():
        path = root / "submitted" / sid / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        if data is None:  # the complete answer with every nbgrader metadata removed
            import json
            nb = json.loads((root / "submitted" / "s00" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text())
            for cell in nb["cells"]:
                cell["metadata"].pop("nbgrader", None)
            data = json.dumps(nb).encode()
        path.write_bytes(data)
    summary = api.grade(root, workers=2, progress=False, verify=False)
    return root, summary


def _pg_bin() -> Path | None:
    """Debian's PostgreSQL server binaries (``.ci/install-system-deps.sh`` installs the package)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return found[-1].parent if found else None


@pytest.fixture(scope="session")
def postgres(tmp_path_factory):
    """A throwaway PostgreSQL cluster (Unix socket only) for the session: ``make(name) -> SQLAlchemy URL``.

    Started as uid nobody when the tests run as root (postgres refuses root), stopped at the end.
    """
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed (.ci/install-system-deps.sh installs Debian's postgresql)")
    # Not under pytest's temporary root: it is mode 0700, and the server runs as nobody.
    base = Path(tempfile.mkdtemp(prefix="autograder-postgres-"))
    data, run = base / "data", base / "run"
    data.mkdir()
    run.mkdir()
    as_user = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
    if as_user:
        os.chmod(base, 0o755)
        for d in (data, run):
            os.chown(d, 65534, 65534)
    subprocess.run([*as_user, str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "pg"],
                   check=True, capture_output=True, timeout=120)
    subprocess.run([*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-w", "-l", str(run / "log"),
                    "-o", f"-k {run} -c listen_addresses= -c fsync=off", "start"],
                   check=True, capture_output=True, timeout=120)

    def make(name: str) -> str:
        subprocess.run([str(bindir / "createdb"), "-h", str(run), "-U", "pg", name], check=True,
                       capture_output=True, timeout=60)
        return f"postgresql+psycopg://pg@/{name}?host={run}"

    try:
        yield make
    finally:
        subprocess.run([*as_user, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True, timeout=60)
        shutil.rmtree(base, ignore_errors=True)
