"""Each student their own numbers (issue 22): derived from a course secret, never stored.

The derivation
--------------
A student's numbers for one item are drawn from a numpy ``Generator`` whose seed is a keyed hash::

    message = json.dumps(["autograder-variants/1", course_id, item_id, student_id])   # UTF-8
    digest  = HMAC-SHA256(key=secret, msg=message)                                     # 32 bytes
    rng     = numpy.random.default_rng(<the digest as 8 little-endian uint32 words>)  # SeedSequence -> PCG64

The JSON list keeps the four fields apart whatever characters an id holds (``("a", "b c")`` and
``("a b", "c")`` are different messages). Without the secret, knowing every id, nobody can tell
which numbers a student gets; with it, the grader derives them again from the id of the submission's
folder, on any machine, in any run: the same ``(secret, course, item, student)`` gives the same
generator state (PCG64's stream for a seed is fixed across numpy versions; the ``Generator``
methods an item draws with are pinned by ``tests/grading/test_variants.py``).

The secret
----------
``course.yml``'s ``variants`` section names where it lives (:class:`autograder.config.Variants`):
an environment variable of the grading account, a file outside the course directory, or both (the
variable wins when set), and the secret's :func:`fingerprint`, so that a wrong secret is refused. :func:`course_secret` reads it. A classroom course without it refuses with
:class:`SecretMissing`, naming the setting; a self-study course uses :data:`PUBLIC_SECRET`, which is
printed here on purpose: self-study grades are not for credit, and anyone can derive anyone's numbers.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .config import COURSE_FILE, Course

#: The version tag of the derivation: changing the message format changes every student's numbers.
DERIVATION = "autograder-variants/1"
#: The secret of self-study courses: public by design (self-study grades are not for credit).
PUBLIC_SECRET = b"autograder self-study: a public secret, anyone can derive anyone's numbers"
#: A shorter secret is refused: 16 bytes of randomness is the least an HMAC key should hold.
MIN_SECRET_BYTES = 16


class SecretMissing(ValueError):
    """The course secret is not where ``course.yml`` says, or is unusable; the message names the setting."""


@dataclass(frozen=True)
class Secret:
    """The course secret and, for messages and reports, where it came from (never the value)."""

    key: bytes = PUBLIC_SECRET
    source: str = "the fixed public secret of self-study (anyone can derive anyone's numbers)"

    @property
    def public(self) -> bool:
        return self.key == PUBLIC_SECRET

    def __repr__(self) -> str:  # the key must not reach a log or a traceback
        return f"Secret(source={self.source!r})"


def seed_words(secret: bytes, course_id: str, item_id: str, student_id: str) -> np.ndarray:
    """The HMAC-SHA256 of the four fields (see the module docstring) as 8 little-endian uint32 words.

    Parameters
    ----------
    secret : bytes
        The course secret (:func:`course_secret`).
    course_id, item_id, student_id : str
        ``course.yml``'s ``course_id``, the item (``"02_scaling/stop_and_try"``) and the student's id
        as nbgrader files it (the submission's folder name, the JupyterHub login).
    """
    for name, value in (("course_id", course_id), ("item_id", item_id), ("student_id", student_id)):
        if not isinstance(value, str) or not value:
            raise ValueError(f"{name} must be a non-empty string, got {value!r}")
    if not isinstance(secret, bytes) or not secret:
        raise ValueError("secret must be non-empty bytes")
    message = json.dumps([DERIVATION, course_id, item_id, student_id]).encode("utf-8")
    return np.frombuffer(hmac.new(secret, message, hashlib.sha256).digest(), dtype="<u4").copy()


def student_rng(secret: bytes, course_id: str, item_id: str, student_id: str) -> np.random.Generator:
    """The generator a student's numbers for ``item_id`` are drawn from (deterministic; see the module docstring)."""
    return np.random.default_rng(seed_words(secret, course_id, item_id, student_id))


def course_secret(course: Course, course_dir: str | Path = ".", environ=None) -> Secret:
    """The course secret of ``course``: where ``variants`` says (classroom), or the public one (self-study).

    Parameters
    ----------
    course : Course
        The validated ``course.yml``; its ``variants`` section names the environment variable and/or file.
    course_dir : str or Path
        The course directory: a secret file inside it is refused (it would travel with the repository).
    environ : mapping, optional
        The environment to read (default ``os.environ``).

    Raises
    ------
    SecretMissing
        For a classroom course whose ``variants`` section is missing, whose variable is unset and file
        absent, whose file is inside the course directory, unreadable or readable by every user, whose secret
        is shorter than :data:`MIN_SECRET_BYTES`, or whose secret's :func:`fingerprint` is not
        ``variants.fingerprint`` (missing: the message gives the line to add). The message names the setting
        (``variants.secret_env`` ...).
    """
    if course.mode == "self-study":
        return Secret()
    settings = course.variants
    if settings is None:
        raise SecretMissing(f"variants ({COURSE_FILE}): classroom grading of per-student numbers needs the course "
                            f"secret; add a `variants:` section naming secret_env (an environment variable) and/or "
                            f"secret_file (an absolute path outside the course directory)")
    environ = os.environ if environ is None else environ
    tried = []
    if settings.secret_env is not None:
        value = environ.get(settings.secret_env, "")
        if value:
            return _checked(value.encode("utf-8"), f"variants.secret_env ({COURSE_FILE})",
                            f"environment variable {settings.secret_env}", settings.fingerprint)
        tried.append(f"variants.secret_env ({COURSE_FILE}) names the environment variable {settings.secret_env}, "
                     f"which is not set")
    if settings.secret_file is not None:
        path = Path(settings.secret_file)
        where = f"variants.secret_file ({COURSE_FILE})"
        if path.resolve().is_relative_to(Path(course_dir).resolve()):
            raise SecretMissing(f"{where}: {path} is inside the course directory, which travels with the "
                                f"repository and the student kit; keep the secret outside it")
        try:
            mode = path.stat().st_mode
            value = path.read_bytes().strip()
        except FileNotFoundError:
            tried.append(f"{where} names {path}, which does not exist")
        except OSError as exc:
            raise SecretMissing(f"{where}: {path} cannot be read ({type(exc).__name__}: {exc})") from None
        else:
            if mode & 0o004:  # on a hub the students are "other users": they could derive everyone's numbers
                raise SecretMissing(f"{where}: {path} is readable by every user of this host (mode "
                                    f"{mode & 0o777:04o}); make it the grading account's only: chmod 600 {path}")
            return _checked(value, where, f"file {path}", settings.fingerprint)
    raise SecretMissing("classroom grading needs the course secret of per-student numbers, and "
                        + "; ".join(tried) + ". Set it (e.g. `python3 -c 'import secrets; "
                        "print(secrets.token_hex(32))'`) and keep it: another secret gives every student "
                        "other numbers")


def fingerprint(secret: bytes) -> str:
    """16 hex digits that tell secrets apart without revealing them (an HMAC of a fixed message)."""
    return hmac.new(secret, f"{DERIVATION} fingerprint".encode(), hashlib.sha256).hexdigest()[:16]


def _checked(key: bytes, setting: str, source: str, expected: str | None) -> Secret:
    if len(key) < MIN_SECRET_BYTES:
        raise SecretMissing(f"{setting}: the secret in the {source} is {len(key)} bytes; use at least "
                            f"{MIN_SECRET_BYTES} random bytes (e.g. 64 hex digits)")
    if key == PUBLIC_SECRET:
        raise SecretMissing(f"{setting}: the {source} holds self-study's public secret; a classroom needs its own")
    # A wrong secret gives every student other numbers and grades them all on questions they were never
    # asked: refused, never guessed. The fingerprint in course.yml says which secret is the course's.
    got = fingerprint(key)
    if expected is None:
        raise SecretMissing(f"variants.fingerprint ({COURSE_FILE}): missing; if the secret in the {source} is the "
                            f"course's, add `fingerprint: {got}` under `variants:` (it identifies the secret without "
                            f"revealing it), so that grading with any other secret is refused")
    if got != expected:
        raise SecretMissing(f"variants.fingerprint ({COURSE_FILE}): the secret in the {source} is not this course's "
                            f"(its fingerprint is {got}, course.yml says {expected}): with it every student would "
                            f"be graded on numbers they were never given; set the course's secret")
    return Secret(key, source)


def items_of(assignment_id: str) -> list[str]:
    """The per-student items the checks of ``assignment_id`` judge (``Check.item``), in registry order."""
    from .checks import checks_for_assignment

    return list(dict.fromkeys(c.item for c in checks_for_assignment(assignment_id) if c.item))


def student_items(secret: bytes, course_id: str, student_id: str, item_ids) -> dict:
    """``{item id: the student's item}``, each drawn from :func:`student_rng` (``checks/items.DRAWS``)."""
    from .checks.items import DRAWS

    return {item: DRAWS[item](student_rng(secret, course_id, item, student_id)) for item in item_ids}


def class_numbers(secret: bytes, course_id: str, assignment_id: str, student_ids) -> dict[str, dict]:
    """Every listed student's items of ``assignment_id`` (empty when it has none): what a grading run's
    bundle carries, so that a worker judges each student on their own numbers and can tell whose
    numbers a copied answer carries, without ever holding the secret."""
    item_ids = items_of(assignment_id)
    if not item_ids:
        return {}
    return {sid: student_items(secret, course_id, sid, item_ids) for sid in sorted(set(student_ids))}
