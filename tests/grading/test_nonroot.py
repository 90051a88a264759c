"""The instructor is not root (issue 21): ``autograder grade`` as a real non-root account, without and
with a control-group subtree delegated to it.

Without one, nothing bounds a submission's process tree and 06's memory check cannot be measured: the
run must say so, name what is lost and the exact step that gives it, and withhold the check with a
flag. With one (made as root makes it: a group whose directory and control files are chowned to the
instructor; on cgroup v1 one per controller, which the instructor's shell joins, the README's step), the
sandboxes' groups are made inside it: trees are bounded (shown below with a fork loop and an
allocation past the limit) and 06's memory check runs and gives the honest answer every point.
Every control group here is the kernel's own.
"""
from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest

from autograder.sandbox import cgroup
from autograder.submissions import fill, read, solution_answers
from tests.multiuser import BIN, as_user, ensure_user, with_suite_threads

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
TEACHER = "ag-teacher"
AID = "06_long_sequences"
MEMORY = "blockwise_attention_memory"
HONEST = "honest"

#: Run as the instructor inside the delegated groups: the bounds hold for a whole tree.
TREE = r'''
import json, subprocess, sys
from autograder.sandbox import cgroup
out = {"layout": {k: str(v) for k, v in cgroup._layout().items()}}
group = cgroup.Group(pids=8, memory_bytes=96 << 20)
try:
    out["dirs"] = [str(d) for d in group.dirs]
    forks = subprocess.run(group.wrap(["/bin/sh", "-c", "for i in $(seq 30); do sleep 2 & done; wait"]),
                           capture_output=True, text=True)
    out["forks"] = forks.stderr[-400:]
    big = subprocess.run(group.wrap([sys.executable, "-c", "b = bytearray(400 << 20); print('survived')"]),
                         capture_output=True, text=True)
    out["allocation"] = [big.returncode, big.stdout.strip()]
    out["oom_kills"] = group.oom_kills()
finally:
    group.close()
print(json.dumps(out))
'''


def _env() -> dict:
    return with_suite_threads({"PATH": f"{BIN}:/usr/bin:/bin", "LANG": "C.UTF-8"})


def _results(course: Path) -> dict:
    data = json.loads((course / "reports" / "results.json").read_text())
    return {s["student_id"]: s for s in data["submissions"]}


@pytest.fixture(scope="module")
def course06():
    """A course of the instructor's (mode 0700) with 06 and one honest submission (the answer key's answers)."""
    if os.geteuid() != 0:
        pytest.skip("makes a Unix user and delegates control groups: needs root (as here and in CI)")
    if not shutil.which("bwrap"):
        pytest.skip("grading students' code needs bubblewrap (apt-get install bubblewrap)")
    if not {"pids", "memory"} <= cgroup.available():
        pytest.skip("root has no writable pids and memory control groups to delegate here (a read-only /sys)")
    user = ensure_user(TEACHER)
    probe = as_user(TEACHER, [sys.executable, "-c", "import autograder"], cwd="/", env=_env())
    if probe.returncode != 0:
        pytest.skip(f"this checkout's virtual environment is not readable by other users: {probe.stderr[-300:]}")
    base = Path(tempfile.mkdtemp(prefix="ag-nonroot-", dir="/tmp"))
    base.chmod(0o755)
    course = base / "course"
    try:
        for rel in ("course.yml", "nbgrader_config.py", f"solutions/{AID}", f"assignments/{AID}"):
            (course / rel).parent.mkdir(parents=True, exist_ok=True)
            (shutil.copytree if (REPO / rel).is_dir() else shutil.copyfile)(REPO / rel, course / rel)
        answers = solution_answers(read(course / "solutions" / AID / f"{AID}.ipynb"))
        out = course / "submitted" / HONEST / AID / f"{AID}.ipynb"
        out.parent.mkdir(parents=True)
        nbformat.write(fill(read(course / "assignments" / AID / f"{AID}.ipynb"), answers), out)
        subprocess.run(["chown", "-R", f"{TEACHER}:{TEACHER}", str(base)], check=True)
        course.chmod(0o700)
        yield {"course": course, "user": user}
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _v2() -> bool:
    return any(h.v2 for h in cgroup.hierarchies().values())


def _in_groups(groups, argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    """``argv`` as the instructor, from a shell that first joins ``groups``: on v1 the instructor's own shell
    (the README's step); on v2 root's, which then drops to the instructor (v2 lets only the owner of the common
    ancestor move a process, as systemd does when it starts a ``Delegate=yes`` unit)."""
    join = "".join(f"echo $$ > {g / 'cgroup.procs'} || exit 97; " for g in groups)
    if not _v2() or not groups:
        return as_user(TEACHER, ["/bin/sh", "-c", f'{join}exec "$@"', "sh", *argv], env=_env(), **kwargs)
    user = pwd.getpwnam(TEACHER)
    return subprocess.run(["/bin/sh", "-c", f'{join}exec setpriv --reuid={user.pw_uid} --regid={user.pw_gid} '
                           f'--init-groups "$@"', "sh", *argv], capture_output=True, text=True,
                          env={**_env(), "HOME": user.pw_dir, "USER": TEACHER, "LOGNAME": TEACHER}, **kwargs)


def _grade(course: Path, groups=()) -> subprocess.CompletedProcess:
    """``autograder grade 06`` as the instructor, in ``groups`` (none: as the account starts)."""
    return _in_groups(groups, ["autograder", "grade", AID, "--force", "--workers", "1", "--no-progress"],
                      cwd=course, timeout=900)


@pytest.fixture(scope="module")
def delegated():
    """``{controller: group}``: a group in root's own (one per v1 hierarchy, one for v2), its directory and control
    files chowned to the instructor, as root delegates a subtree; removed afterwards."""
    layout = cgroup._layout()
    made = {parent: parent / f"grading-{TEACHER}-{os.getpid()}" for parent in set(layout.values())}
    try:
        for g in made.values():
            g.mkdir()
            subprocess.run(["chown", "-R", TEACHER, str(g)], check=True)
        yield {c: made[parent] for c, parent in layout.items()}
    finally:
        for g in made.values():  # once the instructor's last process is gone
            for _ in range(100):
                try:
                    for child in [p for p in g.iterdir() if p.is_dir()]:
                        child.rmdir()
                    g.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.1)


def test_without_a_delegated_subtree_the_run_names_what_is_lost_and_the_step(course06):
    done = _grade(course06["course"])
    assert done.returncode == 0, done.stderr[-3000:]
    warning = next(line for line in done.stderr.splitlines() if line.startswith("warning: no writable"))
    assert f"for {TEACHER} (not root), which has no delegated subtree" in warning
    assert "the bound on a submission's process tree (64 processes)" in warning
    assert "06's memory check is withheld and flagged" in warning
    if _v2():
        step = "systemd-run --user --scope -p Delegate=yes"
        assert step in warning
    else:  # the v1 step for this host, with its own paths
        step = f"chown -R {TEACHER}"
        for c in ("memory", "pids"):
            assert f"{cgroup.hierarchies()[c].mount / ('grading-' + TEACHER)}" in warning and step in warning
        assert "echo $$ > $g/cgroup.procs" in warning
    honest = _results(course06["course"])[HONEST]
    cells = {c["grade_id"]: c for c in honest["cells"]}
    assert cells[MEMORY]["score"] == 0 and cells[MEMORY]["max_score"] > 0
    withheld = [f for f in honest["flags"] if f.get("grade_id") == MEMORY]
    assert [f["kind"] for f in withheld] == ["verification failed"] and step in withheld[0]["evidence"]
    assert all(c["score"] == c["max_score"] for g, c in cells.items() if g != MEMORY and not c.get("manual"))


def test_a_delegated_subtree_bounds_trees_and_runs_the_memory_check(course06, delegated):
    course = course06["course"]
    done = _grade(course, set(delegated.values()))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "warning: no writable" not in done.stderr, done.stderr
    note = next(line for line in done.stdout.splitlines() if line.startswith("note: process trees are bounded"))
    assert all(f"{c} in {g}" in note for c, g in delegated.items()) and f"(delegated to {TEACHER})" in note
    honest = _results(course)[HONEST]
    cells = {c["grade_id"]: c for c in honest["cells"]}
    assert cells[MEMORY]["score"] == cells[MEMORY]["max_score"] > 0, (cells[MEMORY], honest["flags"])
    assert all(c["score"] == c["max_score"] for c in cells.values() if not c.get("manual")), cells
    assert honest["flags"] == []


def test_in_a_delegated_subtree_a_tree_is_bounded_as_a_whole(course06, delegated):
    done = _in_groups(set(delegated.values()), [sys.executable, "-c", TREE], cwd="/", timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert out["layout"] == {c: str(g) for c, g in delegated.items()}
    assert all(Path(d).parent in delegated.values() for d in out["dirs"])
    assert "fork" in out["forks"].lower() or "resource temporarily unavailable" in out["forks"].lower(), out
    assert out["allocation"][1] != "survived" and out["oom_kills"] >= 1, out


#: As the instructor, in a v2 group root delegated: the v2 path of cgroup.py for one controller, end to end.
V2 = r'''
import json, subprocess, sys, time
from pathlib import Path
from autograder.sandbox import cgroup
mount, ctrl = Path(sys.argv[1]), sys.argv[2]
parent = cgroup._first_writable(ctrl, cgroup.Hierarchy(mount, "/", True))
unified = lambda text: next(line for line in text.splitlines() if line.startswith("0::"))
out = {"parent": str(parent), "own": unified(Path("/proc/self/cgroup").read_text()),
       "subtree_control": (parent / "cgroup.subtree_control").read_text().split() if parent else None}
cgroup._layout = lambda: {ctrl: parent}
group = cgroup.Group(pids=0, memory_bytes=0)
made = group.dirs[0]
out["child"] = unified(subprocess.run(group.wrap(["cat", "/proc/self/cgroup"]), capture_output=True, text=True).stdout)
sleeper = subprocess.Popen(group.wrap(["sleep", "60"]))
time.sleep(0.3)
out["held"] = (made / "cgroup.procs").read_text().split() == [str(sleeper.pid)]
group.close()
out["killed"] = sleeper.wait(10)
out["removed"] = not made.exists()
print(json.dumps(out))
'''


def _v2_mount() -> tuple[Path, str] | None:
    """This host's cgroup2 mount and a controller its root can give (hugetlb here: memory and pids are v1)."""
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        head, _, tail = line.partition(" - ")
        if tail.split()[:1] == ["cgroup2"]:
            mount = Path(head.split()[4])
            controllers = (mount / "cgroup.controllers").read_text().split()
            own = Path("/proc/self/cgroup").read_text()
            if controllers and "0::/\n" in own + "\n":
                return mount, controllers[0]
    return None


def test_the_v2_path_runs_on_this_hosts_cgroup2_hierarchy_as_the_instructor():
    """No memory or pids controller can be had on v2 here (the host binds them to v1 hierarchies, which other
    tests use), so cgroup.py's v2 path runs with the controller this host's cgroup2 root does have: as the
    instructor in a group root delegated (a directory and control files chowned, as systemd's Delegate=yes
    does), the grader moves itself into its leaf, enables the controller for the subtree, makes a group, starts
    a process in it (v2's rule: the instructor may move it because the delegated group is their common
    ancestor), and kills and removes it."""
    found = _v2_mount() if os.geteuid() == 0 else None
    if found is None:
        pytest.skip("needs root and a cgroup2 mount whose root gives a controller, with this process in its root")
    mount, ctrl = found
    user = ensure_user(TEACHER)
    root_control = mount / "cgroup.subtree_control"
    enabled_here = ctrl not in root_control.read_text().split()
    delegated = mount / f"grading-{TEACHER}-{os.getpid()}"
    try:
        if enabled_here:
            root_control.write_text(f"+{ctrl}")
        delegated.mkdir()
        subprocess.run(["chown", "-R", TEACHER, str(delegated)], check=True)
        # root moves the shell into the delegated group (a v2 user may not: its own group is root's), then drops to
        # the instructor, as systemd starts a Delegate=yes unit
        done = subprocess.run(["/bin/sh", "-c", f'echo $$ > {delegated / "cgroup.procs"} && exec setpriv '
                               f'--reuid={user.pw_uid} --regid={user.pw_gid} --init-groups "$@"', "sh",
                               sys.executable, "-c", V2, str(mount), ctrl],
                              capture_output=True, text=True, timeout=120, cwd="/",
                              env={**_env(), "HOME": user.pw_dir, "USER": TEACHER, "LOGNAME": TEACHER})
        assert done.returncode == 0, done.stderr[-2000:]
        out = json.loads(done.stdout)
    finally:
        for g in (delegated / cgroup.GRADER_LEAF, delegated):
            for _ in range(50):
                try:
                    g.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.1)
        if enabled_here:
            root_control.write_text(f"-{ctrl}")
    assert out["parent"] == str(delegated)
    assert out["own"] == f"0::/{delegated.name}/{cgroup.GRADER_LEAF}"  # it moved itself into its leaf
    assert ctrl in out["subtree_control"]  # and gave the controller to its subtree
    assert out["child"].startswith(f"0::/{delegated.name}/autograder-") and out["held"]
    assert out["killed"] == -9 and out["removed"]
