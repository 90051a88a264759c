"""Who submitted a notebook collected from nbgrader's exchange, and the grader's refusal of one submitted as someone else.

nbgrader's exchange names a submission's inbound folder ``<student_id>+<assignment>+<time>+<random>``
from the id the *submitter* configures (``nbgrader submit --student bob``, or
``c.CourseDirectory.student_id = "bob"``), and ``nbgrader collect`` files it under that id; stock
collect only logs a warning when the folder's owner differs, and its copy (made by the instructor)
keeps neither owner nor anything else the student did not write. What cannot be forged is the
owner of the files in the inbound folder: the kernel sets it to the account that wrote them.

So the course's collect (:class:`.nbconfig.RecordingCollect`, which ``nbgrader_config.py`` installs
for the stock ``nbgrader collect``) records, for every submission it copies, the owner of the inbound
folder and of each file, with the hash of each file as copied, in ``reports/collected.jsonl``
(the course directory: students cannot write it). ``autograder grade`` then refuses a
submission whose recorded submitter is not the student it is filed under (:func:`refusal`):
it is recorded as failed with a ``not graded`` flag of rule ``submitter``, nothing is credited
to the student it names, and it gets no feedback page (the student it names never made it, and the
one who did is not that student).

The limit: the recorded submitter is a Unix account. Where every student's server runs as one
account (a container hub's ``jovyan``), the owner says nothing about who submitted:
``exchange.accounts: shared`` in ``course.yml`` turns the refusal off, and then nothing tells a
submission from one made under another student's id. A notebook collected without this record
(stock collect outside the course's configuration, an LMS download) has no recorded submitter
and is graded as filed.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import pwd
from pathlib import Path

#: Where collect records who submitted what, under the course directory.
LOG = Path("reports") / "collected.jsonl"
#: The rule of the flag of a refused submission (``grades.csv``: ``not graded (submitter)``).
RULE = "submitter"
#: How the refusal's reason starts (``explain.failure_flag`` tells the rule by it).
REASON = "submitted from another account"
#: What the student the submission names reads on their feedback page.
ADVICE = ("this notebook was submitted under your name from another account, so it was not graded. If you "
          "submitted your own work, tell your instructor; your own submission is still in the exchange")
#: An owner that could not be read, or a file that changed while it was copied: never a student's login.
UNKNOWN = "?"


def _login(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _sha256(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def record_of(inbound: Path, copied: Path, student_id: str, assignment_id: str) -> dict:
    """What is recorded of one collected submission: the owner of ``inbound`` and, for each file
    ``copied`` from it, the file's owner in the exchange and the hash of the copy.

    A file whose bytes in the exchange differ from the copy's (changed while it was copied) gets the
    owner :data:`UNKNOWN`: whoever changed it is not known.
    """
    files = {}
    for path in sorted(p for p in copied.rglob("*") if p.is_file()):
        rel = path.relative_to(copied).as_posix()
        sha = _sha256(path)
        try:
            source = inbound / rel
            owner = _login(os.lstat(source).st_uid)
            if source.is_symlink() or _sha256(source) != sha:
                owner = UNKNOWN
        except OSError:
            owner = UNKNOWN
        files[rel] = {"owner": owner, "sha256": sha}
    try:
        folder_owner = _login(os.lstat(inbound).st_uid)
    except OSError:
        folder_owner = UNKNOWN
    return {"student_id": student_id, "assignment_id": assignment_id, "inbound": inbound.name,
            "owner": folder_owner, "files": files,
            "collected_at": dt.datetime.now(dt.timezone.utc).isoformat()}


def append(course_dir: str | Path, record: dict) -> None:
    """Add ``record`` to the course's collect log (flushed to disk before collect goes on)."""
    path = Path(course_dir) / LOG
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, sort_keys=True) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def load(course_dir: str | Path) -> dict[tuple[str, str], list[dict]]:
    """The collect log: ``{(student_id, assignment_id): records, oldest first}`` (a torn line is skipped)."""
    out: dict[tuple[str, str], list[dict]] = {}
    try:
        lines = (Path(course_dir) / LOG).read_text(encoding="utf-8").splitlines()
    except OSError:
        return out
    for line in lines:
        try:
            record = json.loads(line)
            out.setdefault((record["student_id"], record["assignment_id"]), []).append(record)
        except (ValueError, KeyError, TypeError):
            continue
    return out


def submitters(records: list[dict], notebook: str, sha256: str) -> tuple[set[str], dict] | None:
    """The accounts that wrote the collected submission whose ``notebook`` has these bytes, and its record;
    None when no collect recorded it."""
    for record in reversed(records):
        entry = record.get("files", {}).get(notebook)
        if isinstance(entry, dict) and entry.get("sha256") == sha256:
            return {record.get("owner", UNKNOWN), *(f.get("owner", UNKNOWN) for f in record["files"].values())}, record
    return None


def refusal(log: dict, student_id: str, assignment_id: str, notebook: str, data: bytes) -> str | None:
    """Why the submission ``data`` filed under ``student_id`` is not graded: it was submitted from another
    account (see the module docstring); None when its recorded submitter is the student, or none is recorded."""
    found = submitters(log.get((student_id, assignment_id), []), notebook, hashlib.sha256(data).hexdigest())
    if found is None:
        return None
    accounts, record = found
    others = sorted(accounts - {student_id})
    if not others:
        return None
    return (f"{REASON}: collected from the exchange as {student_id}'s ({record.get('inbound')}), but its files "
            f"were written by the account(s) {', '.join(others)}. nbgrader names a submission by the id its "
            f"submitter configures, so this is not {student_id}'s work: not graded, nothing credited to "
            f"{student_id} (exchange.accounts: per-student; `shared` where every student's server runs as one "
            f"account)")
