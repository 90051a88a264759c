"""Whether the other users of the grading host can read the course: its submissions, gradebook and answers.

On a shared host (a JupyterHub whose students are Unix users) nothing in the course directory is for
students: ``submitted/`` and ``feedback/`` hold every student's work, ``gradebook.db`` the hidden
tests, ``solutions/`` the answer key. Yet nothing makes it private by default: Debian's ``useradd -m``
makes homes mode 0755, the instructor's umask makes folders 0755, and ``nbgrader collect`` copies
submissions with the mode the student gave them (0644). ``autograder grade`` warns (it does not
change the instructor's modes) and says the command that fixes it.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path


def exposed(path: str | Path) -> bool:
    """Whether a user other than the owner and group can open ``path``: every folder above it is searchable by
    others, and it is readable (a file) or searchable (a folder) by others."""
    p = Path(path).resolve()
    try:
        if any(not os.stat(parent).st_mode & stat.S_IXOTH for parent in p.parents):
            return False
        mode = os.stat(p).st_mode
    except OSError:
        return False
    return bool(mode & (stat.S_IXOTH if stat.S_ISDIR(mode) else stat.S_IROTH))


def warnings(course_dir: Path, submissions_dir: Path, db_path: Path | None) -> list[str]:
    """The warning ``autograder grade`` prints when another user of this host can read the course's files."""
    shown = []
    for path, what in ((course_dir, "the course directory (submissions, feedback, the gradebook with the hidden "
                                    "tests, the answer key)"),
                       (submissions_dir, "the submissions"), (db_path, "the gradebook (it holds the hidden tests)")):
        if path is not None and exposed(path) and not any(Path(path).resolve().is_relative_to(s) for s, _ in shown):
            shown.append((Path(path).resolve(), what))
    if not shown:
        return []
    fixes = " && ".join(f"chmod {'700' if p.is_dir() else '600'} {p}" for p, _ in shown)
    return ["other users of this host can read " + "; ".join(f"{what} at {p}" for p, what in shown)
            + f": make it private to you, `{fixes}` (nbgrader's collect keeps the students' file modes, and Debian "
              f"makes homes and folders readable by all)"]
