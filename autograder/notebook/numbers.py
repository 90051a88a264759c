"""Whose numbers a notebook shows (issue 22): the student's id and their own per-student items.

A notebook asks ``STOP_Q, STOP_K = grader.numbers("02_scaling/stop_and_try")``; the answer
depends on who runs it, decided by the code that runs it, never by the notebook:

* **graded** (the kernel's kit and the verification runner): the numbers of the student whose
  folder the submission was collected from, written by the grading job beside the code
  (:data:`GRADED_FILE` in the kernel's read-only ``/kit``, ``job.json`` in the runner); no id is
  looked up, so no environment variable a student sets can choose them;
* **the student kit** (classroom): the student's own entry of its ``numbers.json``, written by
  ``autograder kit`` for the roster (the numbers are questions, not answers), by :func:`student_id`;
  an id the kit has no numbers for is an error that says so, never the lesson's numbers;
* **the whole package** (self-study, the instructor, the catalogue): :mod:`autograder.variants`
  derives them (the public secret in self-study, and it says so), or the lesson's numbers when the
  course has no ``variants`` section; under stock ``nbgrader autograde`` (the instructor's kernel), for
  the student whose folder nbgrader grades (:func:`autograded_submission`), never by any other id.

An entry is plain data, ``{"values": {"query": [...], "keys": [[...], ...]}, "text": "..."}``
(:func:`entry`), so this module ships in the kit without ``checks/items.py``, which computes answers.
"""
from __future__ import annotations

import ast
import dataclasses
import getpass
import json
import os
import sys
from pathlib import Path

import numpy as np

#: In the kernel's kit: the graded submission's own numbers (written by the grading job, read-only there).
GRADED_FILE = "graded.json"
#: In the student kit: the roster's numbers (``autograder kit``), and whether the course has per-student numbers.
KIT_FILE = "numbers.json"


#: Where stock ``nbgrader autograde`` starts a submission's kernel (measured with nbgrader 0.9.6): in the folder
#: ``<course>/autograded/<student>/<assignment>`` (``CourseDirectory.directory_structure``'s default), with
#: ``NBGRADER_EXECUTION=autograde`` in its environment.
AUTOGRADED = "autograded"
#: The working directory and nbgrader step of this process when this module was first imported: in a notebook,
#: by its given cell, before the answer cells run (one of them could change directory).
STARTED = (Path.cwd(), os.environ.get("NBGRADER_EXECUTION"))


class NumbersMissing(LookupError):
    """The notebook asks for numbers that this installation does not hold for this student (the message says why)."""


def entry(item) -> dict:
    """An item (a dataclass of ``checks/items.py``) as plain data: its shown fields (lists, numbers, strings; a
    field with ``metadata={"shown": False}`` is left out), and how it reads."""
    values = {f.name: np.asarray(getattr(item, f.name)).tolist() for f in dataclasses.fields(item)
              if f.metadata.get("shown", True)}
    return {"values": values, "text": item.describe()}


def arrays(item_entry: dict):
    """The fields of an :func:`entry`, in order (``STOP_Q, STOP_K``): a list as an array, a number or a string as
    it is; an item of one field gives that field alone (``CONCEPT_ORDER``)."""
    fields = tuple(np.array(v) if isinstance(v, list) else v for v in item_entry["values"].values())
    return fields[0] if len(fields) == 1 else fields


def show(item_id: str, item_entry: dict, whose: str):
    """Print the item as the student reads it, saying whose numbers these are; return :func:`arrays`."""
    print(f"{item_id}: {whose}\n  {item_entry['text']}")
    return arrays(item_entry)


def student_id(environ=None, cwd: str | Path | None = None) -> tuple[str, str]:
    """``(id, where it came from)`` of the student running this notebook.

    JupyterHub's ``JUPYTERHUB_USER`` (its spawner sets it), else ``CourseDirectory.student_id`` of
    the student's ``nbgrader_config.py`` (the working directory's, then Jupyter's config path),
    else the login (``getpass.getuser()``). Only for the student's own copy: grading never asks.
    """
    environ = os.environ if environ is None else environ
    user = environ.get("JUPYTERHUB_USER", "").strip()
    if user:
        return user, "JUPYTERHUB_USER"
    found = _nbgrader_student_id(Path.cwd() if cwd is None else Path(cwd))
    if found:
        return found
    return getpass.getuser(), "the login (getpass.getuser())"


def autograded_submission(item_ids, started: tuple | None = None) -> tuple[Path, str] | None:
    """``(course directory, student id)`` of the submission that stock ``nbgrader autograde`` grades in this
    process, read from the folder nbgrader started it in (:data:`STARTED`); None when it is not that.

    Only the folder decides: no environment variable, configuration or ``course.yml`` inside the submission
    (a submission's extra files are copied beside the notebook) chooses the id or the course.

    Raises
    ------
    NumbersMissing
        Under ``nbgrader autograde`` in a folder that is not ``<course>/autograded/<student>/<assignment>``
        of the items' assignment: the numbers of nobody in particular would be graded.
    """
    cwd, step = STARTED if started is None else started
    if step != "autograde":
        return None
    cwd = Path(cwd)
    assignments = {str(i).split("/")[0] for i in item_ids}
    if len(cwd.parts) < 4 or cwd.parent.parent.name != AUTOGRADED or assignments != {cwd.name}:
        raise NumbersMissing(f"nbgrader autograde runs this notebook in {cwd}, not in <course>/{AUTOGRADED}/<student>/"
                             f"{'|'.join(sorted(assignments))}: whose numbers to grade cannot be told, so none are "
                             f"given (grade with `autograder grade`)")
    return cwd.parents[2], cwd.parent.name


def _config_dirs(cwd: Path) -> list[Path]:
    """Where Jupyter reads a config from, the most specific first (the working directory, the user's, the system's)."""
    try:
        from jupyter_core.paths import jupyter_config_path
        return [cwd, *map(Path, jupyter_config_path())]
    except ImportError:  # a kit without Jupyter: its usual places
        return [cwd, Path.home() / ".jupyter", Path(sys.prefix) / "etc/jupyter", Path("/usr/local/etc/jupyter"),
                Path("/etc/jupyter")]


def _assigned_student_id(tree: ast.AST) -> str | None:
    """The last string assigned to ``<config>.CourseDirectory.student_id`` in a config file, read, never run
    (an instructor's ``nbgrader_config.py`` runs the grader's setup)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and target.attr == "student_id" \
                        and isinstance(target.value, ast.Attribute) and target.value.attr == "CourseDirectory":
                    found.append((node.lineno, node.value.value))
    return max(found)[1] if found else None


def _nbgrader_student_id(cwd: Path) -> tuple[str, str] | None:
    for directory in _config_dirs(cwd):
        path = directory / "nbgrader_config.py"
        if not path.is_file():
            continue
        try:
            value = _assigned_student_id(ast.parse(path.read_text()))
        except (SyntaxError, ValueError, OSError):
            continue
        if isinstance(value, str) and value.strip() and value.strip() != "*":  # "*": nbgrader's "every student"
            return value.strip(), f"CourseDirectory.student_id of {path}"
    return None


def graded_numbers(directory: Path, item_id: str):
    """The graded submission's numbers from ``directory/graded.json`` (the grading job's), or None without it."""
    path = Path(directory) / GRADED_FILE
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    if item_id not in data["items"]:
        raise NumbersMissing(f"{item_id!r} is not a per-student item of this assignment "
                             f"(items: {', '.join(data['items']) or 'none'})")
    return show(item_id, data["items"][item_id], f"the numbers of student {data['student']} (graded)")


def kit_numbers(directory: Path, item_id: str, environ=None):
    """The student kit's numbers of ``item_id`` for this student (:func:`student_id`), from ``directory/numbers.json``.

    Raises
    ------
    NumbersMissing
        When the item is unknown, or the course has per-student numbers and the kit holds none for
        this id (a student who joined after the kit was built, or an id read from the wrong place).
    """
    data = json.loads((Path(directory) / KIT_FILE).read_text())
    if item_id not in data["lesson"]:
        raise NumbersMissing(f"{item_id!r} is not a per-student item of this kit (items: {', '.join(data['lesson'])})")
    if not data["variants"]:
        return show(item_id, data["lesson"][item_id], "the lesson's numbers (the same for everyone)")
    sid, source = student_id(environ)
    mine = data["students"].get(sid, {}).get(item_id)
    if mine is None:
        raise NumbersMissing(f"this kit has no numbers of {item_id} for student {sid!r} (the id comes from "
                             f"{source}); each student works on their own numbers: if {sid!r} is not your course "
                             f"id, open the notebook from JupyterHub (JUPYTERHUB_USER) or set CourseDirectory."
                             f"student_id in your nbgrader_config.py; if it is, ask your instructor for a kit "
                             f"built with you on the roster")
    return show(item_id, mine, f"your own numbers (student {sid}, from {source})")
