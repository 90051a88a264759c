"""The hostile catalogue of issue 10: every way the verified score was forged, through ``autograder grade``.

One class, graded once (two workers, bubblewrap, verification on), holds an honest student and
one student per attack; each test reads its student's row. Every attack must score 0 on the
tasks it attacks and carry a named flag (or be recorded as failed with a reason), the honest
student keeps full marks, and nothing the attacker's kernel did reaches the gradebook, the
state log, another student's files or a grading process.
"""
from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import nbformat
import numpy as np
import pytest

from autograder import api, demo, submissions
from autograder.sandbox import Limits, cgroup, command, launch, read_cells, scan_cells, verify_submission
from autograder.sandbox.command import SandboxError

from tests.sandbox.conftest import flag_kinds, named_flags, unflagged

ROOT = Path(__file__).resolve().parents[2]
A01, A05, A06 = "01_scores_softmax", "05_cross_attention", "06_long_sequences"
needs_bwrap = pytest.mark.skipif(command._detect() != "bubblewrap",
                                 reason="bubblewrap is not installed (.ci/install-system-deps.sh installs it)")


def _release(aid):
    return submissions.read(ROOT / "assignments" / aid / f"{aid}.ipynb")


def _solutions(aid):
    return submissions.solution_answers(submissions.read(ROOT / "solutions" / aid / f"{aid}.ipynb"))


def _with_cells(nb, *sources, after=None):
    """``nb`` with code cells added just before the final summary cell (or at the end)."""
    nb = nbformat.from_dict(json.loads(nbformat.writes(nb)))
    cells = [nbformat.v4.new_code_cell(s) for s in sources]
    nb.cells[-1:-1] = cells
    return nb


def _without_test_cells(nb):
    nb = nbformat.from_dict(json.loads(nbformat.writes(nb)))
    nb.cells = [c for c in nb.cells if not (c.metadata.get("nbgrader", {}).get("grade")
                                            and not c.metadata["nbgrader"].get("solution"))]
    return nb


def _stubs(aid):
    return _release(aid)


def _solved(aid, **overrides):
    return submissions.fill(_release(aid), {**_solutions(aid), **overrides})


DEEP = "_deep = " + "+".join(["1"] * 600)
TRANSFORMER = "get_ipython().input_transformers_post.append(lambda lines: ['pass\\n'])"

KERNEL_PROBE = """
import os, json
def attempt(fn):
    try:
        fn()
        return 'done'
    except Exception as exc:
        return type(exc).__name__
COURSE = {course!r}
SITE = os.path.dirname(os.path.dirname(np.__file__))
MARK = '-'.join(['FORGED', 'BY', 'KERNEL'])  # built at run time: the scan's evidence quotes the source
PROBE = {{
    'uid': os.getuid(),
    'seed': os.environ.get('AUTOGRADER_SEED'),
    'course_visible': os.path.exists(COURSE + '/course.yml'),
    'gradebook': attempt(lambda: open(COURSE + '/gradebook.db', 'ab').write(MARK.encode())),
    'state': attempt(lambda: open(COURSE + '/reports/.grading-state.jsonl', 'a').write(MARK + '\\n')),
    'victim': attempt(lambda: open(COURSE + '/submitted/honest/{a01}/{a01}.ipynb', 'w').write('FORGED')),
    'plant': attempt(lambda: open(SITE + '/planted_by_kernel.py', 'w').write('x = 1')),
    'ipc_fill': attempt(lambda: open('/ipc/fill', 'wb').write(bytes(5 << 20))),
    'connection': attempt(lambda: open('/ipc-conf/kernel.json', 'a').write('x')),
    'processes': sorted(int(p) for p in os.listdir('/proc') if p.isdigit()),
}}
print('PROBE=' + json.dumps(PROBE))
"""

KILLER = """
import os, signal
for pid in [os.getppid()] + [int(p) for p in os.listdir('/proc') if p.isdigit()]:
    if pid not in (os.getpid(), 1):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
"""

FORKS = """
import os, time
children = []
try:
    for _ in range(300):
        pid = os.fork()
        if pid == 0:
            time.sleep(1)
            os._exit(0)
        children.append(pid)
except OSError:
    pass
for pid in children:
    os.waitpid(pid, 0)
print('CHILDREN', len(children))
"""
#: Six fresh processes of 300 MB each: every one is under the 1024 MB per-process limit, the tree is not.
#: (A child that cannot allocate exits 3, which the test tells apart from one the limit killed.)
HOGS = """
import subprocess, sys
hog = ("import time\\ntry:\\n    block = bytearray(300 << 20)\\n    for i in range(0, len(block), 4096):\\n"
       "        block[i] = 1\\n    time.sleep(2)\\nexcept MemoryError:\\n    raise SystemExit(3)")
children = [subprocess.Popen([sys.executable, "-c", hog]) for _ in range(6)]
codes = [child.wait() for child in children]
print("KILLED", sum(code < 0 for code in codes), "OF", len(codes), "REFUSED", codes.count(3))
"""
PRINT = "print('x' * 3_000_000)"
# Red team 2: outputs updated through their display_id were rewritten before the cap saw them.
DISPLAY_UPDATE = ("from IPython.display import display\nfor i in range(100):\n"
                  "    display({'text/plain': 'x'}, raw=True, display_id='d')\n"
                  "display({'text/plain': 'A' * (4 << 20)}, raw=True, display_id='d', update=True)")

MAGIC_BLIND = "def _():\n    %time\n    pass\nnp.allclose = lambda *a, **k: True"
ALIASES = "m = np\nm.allclose = lambda *a, **k: True\n[np][0].isclose = lambda *a, **k: True"
GRADER_REF = ("import sys\nsys.path.insert(0, '/')\nimport grader.attention_ref as G\n"
              "cross_attention = G.cross_attention\nself_attention = G.self_attention")
GLOBALS_REACH = ("cross_attention = getattr(multi_head_attention, '__glo' + 'bals__')['cross_attention']\n"
                 "self_attention = getattr(multi_head_attention, '__glo' + 'bals__')['self_attention']")

# Issue 12 / issue 10's leftover: the kernel's /kit held the whole reference and every hidden check,
# which a notebook could print into its own autograded notebook.
READER = """
import os, json
def attempt(fn):
    try:
        return repr(fn())[:80]
    except Exception as exc:
        return type(exc).__name__
found = {
    'checks_module': attempt(lambda: __import__('autograder.checks.nb05_cross_attention')),
    'registry': attempt(lambda: __import__('autograder.checks', fromlist=['CHECKS']).CHECKS),
    'reference': attempt(lambda: __import__('attention_ref').cross_attention),
    'hidden': attempt(lambda: __import__('autograder.hidden', fromlist=['check']).check('cross_attention_shapes', {})),
}
files = [os.path.join(b, n) for b, _, names in os.walk('/kit') for n in names]
found['files'] = sorted(f[len('/kit/'):] for f in files)
found['hits'] = [f for f in files if any(s.encode() in open(f, 'rb').read()
                 for s in ('def cross_attention', 'def self_attention', 'RIGHT' + '_REASON', 'def _judge'))]
print('READER=' + json.dumps(found))
"""


#: Issue 25: the reference imported after each stub, the refusal swallowed by a `try` (scored 0 with no flag).
STAR = "try:\n    from attention_ref import *\nexcept ImportError:\n    pass"


def _after_each_stub(nb, source):
    """``nb`` with ``source`` appended to every answer cell (after the stub's ``def``)."""
    nb = nbformat.from_dict(json.loads(nbformat.writes(nb)))
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source += "\n" + source
    return nb


def _class(root: Path) -> dict[tuple[str, str], object]:
    course = str(root)
    return {
        ("honest", A01): _solved(A01),
        ("honest", A05): _solved(A05),
        ("transformer", A01): _with_cells(_stubs(A01), TRANSFORMER, DEEP),
        ("magic_blind", A01): _with_cells(_stubs(A01), MAGIC_BLIND),
        ("aliases", A01): _with_cells(_stubs(A01), ALIASES),
        ("grader_ref", A05): _with_cells(_stubs(A05), GRADER_REF),
        ("globals_reach", A05): _with_cells(_stubs(A05), GLOBALS_REACH),
        ("reader", A05): _with_cells(_solved(A05), READER),
        ("kernel", A01): _with_cells(_solved(A01), KERNEL_PROBE.format(course=course, a01=A01)),
        ("killer", A01): _with_cells(_solved(A01), KILLER),
        ("forker", A01): _with_cells(_solved(A01), FORKS),
        ("printer", A01): _with_cells(_solved(A01), PRINT),
        ("hogs", A01): _with_cells(_solved(A01), HOGS),
        ("display_update", A01): _with_cells(_solved(A01), DISPLAY_UPDATE),
        ("no_placeholders", A01): _without_test_cells(_solved(A01)),
        ("star_import", A01): _after_each_stub(_stubs(A01), STAR),
    }


#: The students of the class who are not honest: every one must carry a named flag (issue 25).
HONEST = {("honest", A01), ("honest", A05), ("no_placeholders", A01)}


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory):
    if command._detect() != "bubblewrap":
        pytest.skip("bubblewrap is not installed (.ci/install-system-deps.sh installs it)")
    root = demo.prepare_course(tmp_path_factory.mktemp("hostile") / "course")
    yml = root / "course.yml"
    yml.write_text(yml.read_text().replace("    output_bytes: 1000000\n",
                                           "    output_bytes: 1000000\n    kernel_output_bytes: 200000\n"))
    api.generate(root, [A01, A05])
    for (sid, aid), nb in _class(root).items():
        path = root / "submitted" / sid / aid / f"{aid}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(nbformat.writes(nb))
    link = root / "submitted" / "symlink" / A01 / f"{A01}.ipynb"
    link.parent.mkdir(parents=True)
    link.symlink_to(Path("../../../solutions") / A01 / f"{A01}.ipynb")
    victim = (root / "submitted" / "honest" / A01 / f"{A01}.ipynb").read_bytes()
    site = Path(np.__file__).resolve().parent.parent
    summary = api.grade(root, root / "submitted", [A01, A05], workers=2, progress=False)
    results = json.loads((root / "reports" / "results.json").read_text())
    rows = {(r["student_id"], r["assignment_id"]): r for r in results["submissions"]}
    return {"root": root, "summary": summary, "rows": rows, "victim": victim, "site": site}


def _auto_points(row) -> float:
    return sum(c["score"] for c in row["cells"] if not c.get("manual"))


def _flags(row, kind=None) -> list[dict]:
    return [f for f in row["flags"] if kind is None or f["kind"] == kind]


def _rules(row) -> set[str]:
    return {f.get("rule") for f in _flags(row, "static scan")}


def _max_auto(row) -> float:
    return sum(c["max_score"] for c in row["cells"] if not c.get("manual"))


@pytest.mark.parametrize("student", ["honest", "no_placeholders"])
def test_honest_student_keeps_full_marks(hostile_class, student):
    """The solution, also with every "# Hidden test" placeholder deleted (issue 13, item 4)."""
    for aid in (A01, A05) if student == "honest" else (A01,):
        row = hostile_class["rows"][(student, aid)]
        assert row["status"] == "graded" and row["verified"]
        assert _auto_points(row) == _max_auto(row) > 0
        assert _flags(row) == []
    assert hostile_class["summary"].errors == []


def test_input_transformer_with_a_crashing_scan_gets_nothing(hostile_class):
    """Issue 10 (1): the deep expression no longer crashes the scan; the transformer is flagged."""
    row = hostile_class["rows"][("transformer", A01)]
    assert _auto_points(row) == 0
    assert "ipython-hook" in _rules(row)


def test_indented_magic_no_longer_blinds_the_scan(hostile_class):
    """Issue 10 (6): ``%time`` inside a def parses (it becomes ``pass``), so the patch below it is flagged."""
    row = hostile_class["rows"][("magic_blind", A01)]
    assert _auto_points(row) == 0
    assert "numpy-patch" in _rules(row)


def test_aliases_of_numpy_are_followed(hostile_class):
    row = hostile_class["rows"][("aliases", A01)]
    assert _auto_points(row) == 0
    lines = sorted(f["line"] for f in _flags(row, "static scan") if f["rule"] == "numpy-patch")
    assert lines == [2, 3]


def test_the_real_reference_is_not_in_the_sandbox(hostile_class):
    """Issue 10 (2): ``grader.attention_ref`` does not exist there; sys.path edits are flagged."""
    row = hostile_class["rows"][("grader_ref", A05)]
    assert _auto_points(row) == 0
    assert "sys-path" in _rules(row)
    assert ("refused import", "grader internals") in flag_kinds(row)  # `import grader.attention_ref`, as it ran


def test_a_given_functions_globals_hold_no_graded_name(hostile_class):
    """Issue 10 (2): ``multi_head_attention.__globals__`` is the generated module, without cross_attention."""
    row = hostile_class["rows"][("globals_reach", A05)]
    assert _auto_points(row) == 0
    assert "introspection" in _rules(row)


def test_the_kernel_runs_sandboxed(hostile_class):
    """Issue 10 (3): uid nobody, no seed, no course directory; every write fails; no grader process in view."""
    root = hostile_class["root"]
    nb = nbformat.read(root / "autograded" / "kernel" / A01 / f"{A01}.ipynb", as_version=4)
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    probe = json.loads(text.split("PROBE=", 1)[1].splitlines()[0])
    assert probe["uid"] == 65534 and probe["seed"] is None and probe["course_visible"] is False
    assert {probe[k] for k in ("gradebook", "state", "victim", "plant")} <= {"FileNotFoundError", "OSError",
                                                                            "PermissionError"}
    # Red team F2: the socket directory is the sandbox's own 1 MiB tmpfs, the connection file read-only.
    assert probe["ipc_fill"] == "OSError" and probe["connection"] == "OSError"
    assert len(probe["processes"]) <= 3  # bwrap's init, the kernel and prlimit's exec: nothing of the grader
    row = hostile_class["rows"][("kernel", A01)]
    assert row["status"] == "graded" and _auto_points(row) == _max_auto(row)  # correct answers keep their points


def test_the_kernel_holds_no_reference_and_no_check(hostile_class):
    """Issue 12: the kernel imports the student kit: a notebook that looks for the reference or the hidden
    checks from inside the kernel finds the kit's files only, none of which holds a graded name or a judge."""
    root = hostile_class["root"]
    nb = nbformat.read(root / "autograded" / "reader" / A05 / f"{A05}.ipynb", as_version=4)
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    found = json.loads(text.split("READER=", 1)[1].splitlines()[0])
    assert found["checks_module"] == "ModuleNotFoundError" and found["registry"] == "AttributeError"
    assert found["reference"] == "ImportError"  # the generated attention_ref explains why it is missing
    assert found["hidden"] == "None"  # the hidden-test call is the kit's stand-in
    assert found["hits"] == [] and found["files"]
    assert {f.split("/")[0] for f in found["files"]} == {"autograder", "attention_ref"}
    assert {f for f in found["files"] if f.startswith("autograder/checks/")} == {
        f"autograder/checks/{n}.py" for n in ("__init__", "core", "expect", "forms")}
    row = hostile_class["rows"][("reader", A05)]
    assert row["status"] == "graded" and _auto_points(row) == _max_auto(row)  # the verified scores
    # what it asked for, though every refusal was caught: the grader's checks and the reference's answer
    assert {("refused import", "grader internals"), ("refused import", "attention_ref: graded names")} <= \
        flag_kinds(row)


def test_nothing_the_kernel_did_reached_the_grader(hostile_class):
    root = hostile_class["root"]
    assert b"FORGED-BY-KERNEL" not in (root / "gradebook.db").read_bytes()
    assert "FORGED-BY-KERNEL" not in (root / "reports" / ".grading-state.jsonl").read_text()
    assert (root / "submitted" / "honest" / A01 / f"{A01}.ipynb").read_bytes() == hostile_class["victim"]
    assert not (hostile_class["site"] / "planted_by_kernel.py").exists()
    con = sqlite3.connect(root / "gradebook.db")
    students = {s for (s,) in con.execute("SELECT student_id FROM submitted_assignment")}
    con.close()
    assert students == {sid for sid, _ in hostile_class["rows"]}  # everyone recorded


def test_a_kernel_that_kills_what_it_sees_kills_no_grader(hostile_class):
    summary = hostile_class["summary"]
    assert summary.errors == []  # no worker died: every submission was recorded
    assert ("static scan", "os-kill") in flag_kinds(hostile_class["rows"][("killer", A01)])


def test_forks_in_the_kernel_are_bounded(hostile_class):
    """Issue 10 (8): the sandbox's pids limit stops a fork storm in the kernel; the answers keep their points."""
    root = hostile_class["root"]
    nb = nbformat.read(root / "autograded" / "forker" / A01 / f"{A01}.ipynb", as_version=4)
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    children = int(text.split("CHILDREN ", 1)[1].split()[0])
    assert 0 < children < Limits().pids
    row = hostile_class["rows"][("forker", A01)]
    assert row["status"] == "graded" and _auto_points(row) == _max_auto(row)
    assert ("static scan", "os-fork") in flag_kinds(row)


def test_memory_of_the_kernel_s_whole_tree_is_bounded(hostile_class):
    """Issue 10 (8): the kernel's memory limit holds for its process tree, not per process: of six children of
    300 MB (1.8 GB, each under the 1024 MB per-process limit) some are killed; the answers keep their points."""
    if "memory" not in cgroup.available():
        pytest.skip("no writable memory control group here: `autograder grade` warns that trees are unbounded")
    row = hostile_class["rows"][("hogs", A01)]
    assert row["status"] == "graded" and _auto_points(row) == _max_auto(row), (row["status"], row["reason"])
    assert ("static scan", "suspect-import") in flag_kinds(row)
    nb = nbformat.read(hostile_class["root"] / "autograded" / "hogs" / A01 / f"{A01}.ipynb", as_version=4)
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    words = text.split("KILLED ", 1)[1].split()
    killed, total, refused = int(words[0]), int(words[2]), int(words[4])
    assert total == 6 and killed >= 1 and refused == 0, text


@pytest.mark.parametrize("student", ["printer", "display_update"])
def test_kernel_output_is_capped(hostile_class, student):
    """Issue 10 (8): a 3 MB print, or 100 outputs updated with 4 MB each through their display_id,
    leave an autograded notebook of about the cap (200 kB here), not 3 or 400 MB."""
    path = hostile_class["root"] / "autograded" / student / A01 / f"{A01}.ipynb"
    assert path.stat().st_size < 1_500_000
    row = hostile_class["rows"][(student, A01)]
    assert row["status"] == "graded" and _auto_points(row) == _max_auto(row)
    flag = next(f for f in row["flags"] if f["kind"] == "limit")  # issue 25: the cut is named, with the setting
    assert flag["rule"] == "grading.sandbox.kernel_output_bytes" and "200,000" in flag["advice"]


def test_a_symlink_submission_is_never_followed(hostile_class):
    """Issue 10 (5): a link to the solutions is recorded as failed with the reason, not graded."""
    row = hostile_class["rows"][("symlink", A01)]
    assert row["status"] == "failed" and "symbolic link" in row["reason"]
    assert _auto_points(row) == 0
    assert flag_kinds(row) == {("not graded", "not a regular file")}


def test_a_star_import_of_the_reference_after_each_stub_is_explained(hostile_class):
    """Issue 25: `from attention_ref import *` in a `try` after each stub scored 0 with no flag, and the student read
    "not written yet"; now every task carries a "refused import" flag whose advice says the names are not given by
    this notebook, and the student kit's visible check says the same in the kernel."""
    row = hostile_class["rows"][("star_import", A01)]
    assert _auto_points(row) == 0
    refused = [f for f in row["flags"] if f["kind"] == "refused import"]
    assert {f["grade_id"] for f in refused} == {"dot_product", "attention_scores", "softmax", "weighted_average"}
    assert all("not given by this notebook" in f["advice"] and f["cell"] for f in refused)
    nb = nbformat.read(hostile_class["root"] / "autograded" / "star_import" / A01 / f"{A01}.ipynb", as_version=4)
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    assert "`softmax` is not given by this notebook" in text


@pytest.mark.parametrize("where", ["grades.csv", "report", "feedback"])
def test_the_flag_reaches_every_output(hostile_class, where):
    """The rule of a flag is in grades.csv and the class report; its advice (never its evidence) on the page."""
    root = hostile_class["root"]
    if where == "grades.csv":
        text = (root / "reports" / "grades.csv").read_text()
        assert "refused import (attention_ref: graded names): 01_scores_softmax/softmax" in text
        assert "not graded (not a regular file): 01_scores_softmax/-" in text
    elif where == "report":
        from autograder.report import load_results, render_text, summarise

        text = render_text(summarise(load_results(root / "reports" / "results.json"), root), max_flags=100,
                           width=400)
        assert "star_import/01_scores_softmax  [refused import ×4: attention_ref: graded names]" in text
    else:
        from autograder.feedback import render_feedback

        html = render_feedback(hostile_class["rows"][("star_import", A01)])
        assert "Notes from the grader" in html and "not given by this notebook" in html
        assert "gives only the building blocks 01_scores_softmax gives" not in html  # the evidence is the instructor's


def test_every_hostile_case_carries_a_named_flag(hostile_class):
    """Issue 25: not only the zeros: every attack of the class names the rule that caught it (before: printer,
    symlink and star_import had none); the honest students carry none."""
    rows = hostile_class["rows"]
    assert unflagged(rows, set(rows) - HONEST) == []
    assert all(named_flags(rows[case]) == [] for case in HONEST)


# ------------------------------------------------------------------ without the whole class
def test_a_crashing_verifier_fails_closed(monkeypatch):
    """Issue 10 (1): any error inside verification withholds the points, with a flag that says what to do."""
    from autograder.grading import verification

    def broken(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(verification, "load_verifier", lambda: broken)
    cells = [{"grade_id": "softmax_rows_sum_to_one", "max_score": 2.0, "nbgrader_score": 2.0, "manual": False,
              "message": None},
             {"grade_id": "why", "max_score": 3.0, "nbgrader_score": None, "manual": True, "message": None}]
    verdicts, flags = verification.verify(A01, b"{}", 1, {}, cells)
    rows, flags = verification.merge(cells, verdicts, flags)
    assert rows[0]["score"] == 0.0 and rows[0]["verified_score"] == 0.0
    assert rows[0]["misconception"] == "grader.verification_failed"
    assert rows[1]["verified_score"] is None  # a manual cell is left to the human grader
    assert [f["kind"] for f in flags] == ["verification failed"]
    assert "RecursionError" in flags[0]["evidence"] and "autograder grade --force" in flags[0]["evidence"]


def test_the_scan_survives_deep_expressions_and_flags_what_it_cannot_parse():
    nb = _with_cells(_stubs(A01), DEEP, "x = " + "+".join(["1"] * 100_000))
    flags = scan_cells(read_cells(nbformat.writes(nb).encode()), [], A01)
    assert [f["rule"] for f in flags] == ["unscannable"]


@needs_bwrap
def test_stopping_tracemalloc_does_not_earn_the_memory_points():
    """Issue 10 (7): a full-table answer that stops the measurement fails the memory check, and is flagged."""
    full_table = ("def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):\n"
                  "    import tracemalloc\n    tracemalloc.stop()\n"
                  "    return scaled_dot_product_attention(Q, K, V, mask=mask, scale=scale)")
    nb = _solved(A06, blockwise_attention=full_table)
    result = verify_submission(A06, nbformat.writes(nb).encode(), 5, Limits())
    memory = result.verdicts["blockwise_attention_memory"]
    assert memory.passed is False
    assert "measurement-tamper" in {f["rule"] for f in result.flags}
    honest = verify_submission(A06, nbformat.writes(_solved(A06)).encode(), 5, Limits())
    assert honest.verdicts["blockwise_attention_memory"].passed is True


MMAP_TABLE = """import mmap
def blockwise_attention(Q, K, V, block_size=128, mask=None, scale=None):
    Q = np.asarray(Q); K = np.asarray(K); V = np.asarray(V)
    shape = Q.shape[:-1] + (K.shape[-2],)
    S = np.ndarray(shape, np.float64, buffer=mmap.mmap(-1, max(int(np.prod(shape)) * 8, 8)))
    np.matmul(Q, np.swapaxes(K, -1, -2), out=S)
    S *= (1.0 / np.sqrt(Q.shape[-1])) if scale is None else scale
    if mask is not None:
        m = np.asarray(mask)
        if m.dtype == bool:
            np.copyto(S, -np.inf, where=~m)
        else:
            S += m
    mx = S.max(axis=-1, keepdims=True); mx[~np.isfinite(mx)] = 0
    S -= mx; np.exp(S, out=S)
    tot = S.sum(axis=-1, keepdims=True); tot[tot == 0] = 1
    S /= tot
    return (S @ V).astype(np.result_type(Q, K, V))"""


@needs_bwrap
def test_a_table_outside_the_python_heap_is_still_measured():
    """Red team F3: an mmap'd full table is invisible to tracemalloc but not to the resident high-water mark."""
    nb = _solved(A06, blockwise_attention=MMAP_TABLE)
    result = verify_submission(A06, nbformat.writes(nb).encode(), 5, Limits())
    memory = result.verdicts["blockwise_attention_memory"]
    assert memory.passed is False and memory.misconception == "blockwise_attention.full_matrix"
    others = [v for g, v in result.verdicts.items() if v.task == "blockwise_attention" and g != memory.grade_id]
    assert others and all(v.passed for v in others)  # the values are right: only the memory check fails


@needs_bwrap
def test_memory_and_processes_are_limited_for_the_whole_sandbox():
    """Issue 10 (8): three children of 400 MB each exceed a 1,024 MB sandbox; 300 forks stop at the pids limit."""
    source = ("import os, time\nkids = []\nfor _ in range(3):\n    pid = os.fork()\n    if pid == 0:\n"
              "        b = bytearray(400 << 20)\n        for i in range(0, len(b), 4096):\n            b[i] = 1\n"
              "        time.sleep(1)\n        os._exit(0)\n    kids.append(pid)\n"
              "STATUSES = tuple(sorted(os.waitpid(p, 0)[1] for p in kids))\nn = 0\ntry:\n"
              "    for _ in range(300):\n        if os.fork() == 0:\n            time.sleep(2)\n            os._exit(0)\n"
              "        n += 1\nexcept OSError:\n    pass\nFORKS = n\n")
    from autograder.checks.core import Call

    calls = [(0, Call("STATUSES", value_only=True), "STATUSES"), (1, Call("FORKS", value_only=True), "FORKS")]
    session = launch.run_session([(0, source)], calls, given=(), graded=(), assignment=A01,
                                 limits=Limits(memory_mb=1024, pids=32, cell_seconds=20), kind="bubblewrap")
    statuses, forks = session.outcomes[0].value, session.outcomes[1].value
    assert any(s != 0 for s in statuses), statuses  # at least one child was killed for memory
    assert forks < 32


def test_grading_refuses_without_bubblewrap_unless_forced(tmp_path, monkeypatch):
    """Issue 10: no fallback weaker than the guarantee, unless the instructor asks, and never as root."""
    monkeypatch.setenv("AUTOGRADER_SANDBOX", "subprocess")
    root = demo.prepare_course(tmp_path / "course")
    with pytest.raises(SandboxError, match="--unsafe-no-sandbox"):
        api.grade(root, progress=False)
    if os.geteuid() == 0:
        with pytest.raises(SandboxError, match="never runs student code as root"):
            api.grade(root, progress=False, unsafe_no_sandbox=True)
    from autograder import cli

    assert cli.main(["grade", "--course", str(root), "--no-progress"]) == 2
