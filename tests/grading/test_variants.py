"""Per-student numbers (issue 22): the derivation (HMAC-SHA256 -> numpy seed) and where the course secret lives."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from autograder import variants
from autograder.checks.items import ITEM, StopAndTry, draw_stop_and_try
from autograder.config import CourseConfigError, parse_course
from autograder.grading.minicourse import COURSE_YML

SECRET = b"a test secret of the course, 0123456789"


def _hmac_sha256(key: bytes, message: bytes) -> bytes:
    """RFC 2104 by hand (not the ``hmac`` module the code uses): H((K ^ opad) || H((K ^ ipad) || m))."""
    key = key.ljust(64, b"\0") if len(key) <= 64 else hashlib.sha256(key).digest().ljust(64, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in key) + message).digest()
    return hashlib.sha256(bytes(b ^ 0x5C for b in key) + inner).digest()


def test_the_hand_written_hmac_is_rfc_4231s():
    # RFC 4231, test case 2: the reference this test's own HMAC is checked against
    assert _hmac_sha256(b"Jefe", b"what do ya want for nothing?").hex() == \
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"


def test_the_seed_is_the_documented_hmac_of_the_four_fields():
    message = json.dumps(["autograder-variants/1", "attention-arithmetic", ITEM, "alice"]).encode()
    digest = _hmac_sha256(SECRET, message)
    words = variants.seed_words(SECRET, "attention-arithmetic", ITEM, "alice")
    assert words.dtype == np.uint32 and words.tolist() == [int.from_bytes(digest[i:i + 4], "little")
                                                          for i in range(0, 32, 4)]
    rng = variants.student_rng(SECRET, "attention-arithmetic", ITEM, "alice")
    assert rng.bit_generator.state == np.random.default_rng(words).bit_generator.state


@pytest.mark.parametrize("change", [dict(secret=b"another secret of the course, 98765"), dict(course_id="other"),
                                    dict(item_id="06_long_sequences/table"), dict(student_id="alice2")])
def test_every_field_changes_the_seed(change):
    base = dict(secret=SECRET, course_id="attention-arithmetic", item_id=ITEM, student_id="alice")
    assert variants.seed_words(**base).tolist() != variants.seed_words(**{**base, **change}).tolist()


def test_fields_cannot_run_into_each_other():
    # "a" + "b c" and "a b" + "c" are different messages: the fields are a JSON list, not a concatenation
    assert variants.seed_words(SECRET, "a", "b c", "d").tolist() != variants.seed_words(SECRET, "a b", "c", "d").tolist()


@pytest.mark.parametrize("bad", [dict(student_id=""), dict(student_id=None), dict(course_id=""), dict(secret=b"")])
def test_empty_fields_are_refused_naming_the_argument(bad):
    args = {**dict(secret=SECRET, course_id="c", item_id=ITEM, student_id="s"), **bad}
    with pytest.raises(ValueError, match=next(iter(bad))):
        variants.seed_words(**args)


def test_the_same_inputs_give_the_same_item_in_another_process():
    """Reproducible on any machine and in any run: no process state (hash seed, import order) enters."""
    code = ("from autograder import variants; from autograder.checks.items import ITEM, draw_stop_and_try;"
            f"print(repr(draw_stop_and_try(variants.student_rng({SECRET!r}, 'attention-arithmetic', ITEM, 'bob'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONHASHSEED": "12345"}).stdout.strip()
    here = draw_stop_and_try(variants.student_rng(SECRET, "attention-arithmetic", ITEM, "bob"))
    assert out == repr(here)


def test_a_numpy_that_changes_the_drawn_numbers_is_noticed():
    """A pin, not a computed value: if numpy's ``Generator.integers`` stream for a fixed seed ever changes,
    every student's numbers change between the release and the grading; this fails first."""
    item = draw_stop_and_try(np.random.default_rng(np.arange(8, dtype=np.uint32)))
    assert item == StopAndTry((1.0, 0.0), ((-1.0, 0.5), (2.5, 1.5), (0.5, -2.0)))


# ---------------------------------------------------------------- the secret: course.yml and where it lives
def _fp(secret: bytes) -> str:
    return _hmac_sha256(secret, b"autograder-variants/1 fingerprint").hex()[:16]


def _course(mode="classroom", variants_yaml=""):
    # a classroom course needs due dates (config.calendar_problems)
    text = COURSE_YML.replace("    points: 4\n", "    points: 4\n    due: 2027-02-01T23:59:00Z\n")
    return parse_course(text + f"mode: {mode}\n" + variants_yaml)


def test_the_settings_are_validated_and_unknown_keys_quote_path_and_line():
    text = COURSE_YML + "variants:\n  secret_env: COURSE_SECRET\n  secrt_file: /etc/x\n"
    line = text.splitlines().index("  secrt_file: /etc/x") + 1
    with pytest.raises(CourseConfigError, match=rf"variants\.secrt_file \(course.yml line {line}\): unknown key"):
        parse_course(text)
    with pytest.raises(CourseConfigError, match=r"variants\.secret_file .*absolute path outside the course"):
        parse_course(COURSE_YML + "variants:\n  secret_file: secret.txt\n")
    with pytest.raises(CourseConfigError, match=r"variants\.secret_env .*should match pattern"):
        parse_course(COURSE_YML + "variants:\n  secret_env: 'NOT A NAME'\n")
    with pytest.raises(CourseConfigError, match=r"variants .*name where the course secret lives"):
        parse_course(COURSE_YML + "variants: {}\n")
    course = parse_course(COURSE_YML + "variants:\n  secret_env: COURSE_SECRET\n")
    assert course.variants.secret_env == "COURSE_SECRET" and course.variants.secret_file is None


def test_self_study_uses_the_public_secret_and_says_so(tmp_path):
    course = _course("self-study", "variants:\n  secret_env: COURSE_SECRET\n")
    secret = variants.course_secret(course, tmp_path, environ={"COURSE_SECRET": "x" * 40})
    assert secret.key == variants.PUBLIC_SECRET and secret.public and "public" in secret.source


def test_classroom_without_the_secret_refuses_naming_the_setting(tmp_path):
    classroom = _course("classroom")
    with pytest.raises(variants.SecretMissing, match=r"^variants \(course.yml\): .*add a `variants:` section"):
        variants.course_secret(classroom, tmp_path, environ={})
    named = _course("classroom", "variants:\n  secret_env: COURSE_SECRET\n  secret_file: /nonexistent/s\n")
    with pytest.raises(variants.SecretMissing) as err:
        variants.course_secret(named, tmp_path, environ={})
    assert "variants.secret_env (course.yml) names the environment variable COURSE_SECRET, which is not set" in \
        str(err.value) and "variants.secret_file (course.yml) names /nonexistent/s, which does not exist" in str(err.value)
    with pytest.raises(variants.SecretMissing, match=r"variants\.secret_env .* 5 bytes; use at least 16"):
        variants.course_secret(named, tmp_path, environ={"COURSE_SECRET": "short"})
    with pytest.raises(variants.SecretMissing, match="public secret"):
        variants.course_secret(named, tmp_path, environ={"COURSE_SECRET": variants.PUBLIC_SECRET.decode()})


def test_classroom_reads_the_variable_first_then_the_file(tmp_path):
    course_dir, outside = tmp_path / "course", tmp_path / "private"
    course_dir.mkdir(), outside.mkdir()
    (outside / "secret").write_text("f" * 64 + "\n")
    (outside / "secret").chmod(0o640)  # the grading account's (and its group's) only
    settings = f"variants:\n  secret_env: COURSE_SECRET\n  secret_file: {outside / 'secret'}\n"
    course = _course("classroom", settings + f"  fingerprint: {_fp(b'e' * 64)}\n")
    from_env = variants.course_secret(course, course_dir, environ={"COURSE_SECRET": "e" * 64})
    assert from_env.key == b"e" * 64 and from_env.source == "environment variable COURSE_SECRET"
    course = _course("classroom", settings + f"  fingerprint: {_fp(b'f' * 64)}\n")
    from_file = variants.course_secret(course, course_dir, environ={})
    assert from_file.key == b"f" * 64 and from_file.source == f"file {outside / 'secret'}"  # the newline stripped
    assert "f" * 16 not in repr(from_file) and "e" * 16 not in repr(from_env)  # never in a log or a traceback


def test_a_secret_file_every_user_can_read_is_refused(tmp_path):
    (tmp_path / "private").mkdir()
    secret = tmp_path / "private" / "secret"
    secret.write_text("s" * 64)
    secret.chmod(0o644)
    course = _course("classroom", f"variants:\n  secret_file: {secret}\n  fingerprint: {_fp(b's' * 64)}\n")
    with pytest.raises(variants.SecretMissing, match=r"variants\.secret_file .* readable by every user .*0644.*chmod 600"):
        variants.course_secret(course, tmp_path / "course", environ={})
    secret.chmod(0o600)
    assert variants.course_secret(course, tmp_path / "course", environ={}).key == b"s" * 64


def test_a_secret_file_inside_the_course_directory_is_refused(tmp_path):
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "secret").write_text("s" * 64)
    course = _course("classroom", f"variants:\n  secret_file: {tmp_path / 'keys' / 'secret'}\n")
    with pytest.raises(variants.SecretMissing, match=r"variants\.secret_file .* inside the course directory"):
        variants.course_secret(course, tmp_path, environ={})


def test_a_wrong_secret_is_refused_and_a_missing_fingerprint_says_what_to_add(tmp_path):
    right, wrong = b"r" * 40, b"w" * 40
    named = "variants:\n  secret_env: COURSE_SECRET\n"
    course = _course("classroom", named + f"  fingerprint: {_fp(right)}\n")
    assert variants.course_secret(course, tmp_path, environ={"COURSE_SECRET": right.decode()}).key == right
    with pytest.raises(variants.SecretMissing) as err:
        variants.course_secret(course, tmp_path, environ={"COURSE_SECRET": wrong.decode()})
    assert str(err.value).startswith("variants.fingerprint (course.yml): the secret in the environment variable "
                                     f"COURSE_SECRET is not this course's (its fingerprint is {_fp(wrong)}, "
                                     f"course.yml says {_fp(right)})")
    with pytest.raises(variants.SecretMissing, match=rf"variants\.fingerprint .*missing.*add `fingerprint: {_fp(right)}`"):
        variants.course_secret(_course("classroom", named), tmp_path, environ={"COURSE_SECRET": right.decode()})
    with pytest.raises(CourseConfigError, match=r"variants\.fingerprint .*should match pattern"):
        _course("classroom", named + "  fingerprint: not-hex\n")


def test_the_job_shows_the_kernel_and_the_runner_the_numbers_of_the_submissions_folder():
    """What ``grader.numbers`` gives a submission when graded (the kernel's graded.json, the runner's job.json):
    the folder's student's own items, the lesson's without ``variants``; a submitter without numbers is the
    grader's fault, never the lesson's numbers."""
    from types import SimpleNamespace

    from autograder.checks import checks_for_assignment
    from autograder.checks.items import ITEM, LESSON
    from autograder.grading.faults import GraderFault
    from autograder.grading.job import graded_numbers
    from autograder.notebook.numbers import entry
    from autograder.sandbox.verify import shown_numbers

    secret = b"a test secret of the course, 0123456789abcdef"
    numbers = variants.class_numbers(secret, "c", "02_scaling", ["alice", "eve"])
    bundle = SimpleNamespace(assignment_id="02_scaling", numbers=numbers)
    eve = graded_numbers(bundle, SimpleNamespace(student_id="eve"))
    both = (ITEM, "02_scaling/concepts")  # the Stop-and-try numbers and the understanding question's option order
    assert eve == {"student": "eve", "items": {i: entry(numbers["eve"][i]) for i in both}}
    assert numbers["eve"][ITEM] != numbers["alice"][ITEM] and eve["items"][ITEM]["values"]["query"] == \
        list(variants.student_items(secret, "c", "eve", [ITEM])[ITEM].query)
    plain = graded_numbers(SimpleNamespace(assignment_id="02_scaling", numbers={}), SimpleNamespace(student_id="eve"))
    assert plain["items"] == {i: entry(LESSON[i]) for i in both}
    with pytest.raises(GraderFault):
        graded_numbers(bundle, SimpleNamespace(student_id="mallory"))
    from autograder.checks.numbers import StudentNumbers
    checks = checks_for_assignment("02_scaling")
    assert shown_numbers(checks, StudentNumbers("eve", numbers["eve"], numbers)) == eve["items"]
    assert shown_numbers(checks, None) == plain["items"]


def test_under_stock_autograde_the_kernel_takes_the_student_and_the_course_from_the_graded_folder(tmp_path):
    """Measured with nbgrader 0.9.6: stock ``nbgrader autograde`` starts each kernel in
    ``<course>/autograded/<student>/<assignment>`` with NBGRADER_EXECUTION=autograde. The whole package's
    ``grader.numbers`` and hidden checks then use that folder's student and course: no id variable, and no
    ``course.yml`` a student handed in beside the notebook (nbgrader copies it into that folder)."""
    from pathlib import Path

    from autograder.notebook import own_items
    from autograder.notebook.numbers import NumbersMissing

    repo = Path(__file__).resolve().parents[2]
    course = tmp_path / "course"
    folder = course / "autograded" / "bob" / "02_scaling"
    folder.mkdir(parents=True)
    env_name = "AUTOGRADER_TEST_STOCK_SECRET"
    (course / "course.yml").write_text((repo / "course.yml").read_text() + (
        f"variants:\n  secret_env: {env_name}\n  fingerprint: {variants.fingerprint(SECRET)}\n"))
    (folder / "course.yml").write_text((repo / "course.yml").read_text().replace("mode: classroom", "mode: self-study"))
    environ = {env_name: SECRET.decode(), "JUPYTERHUB_USER": "alice", "USER": "alice"}
    items, whose = own_items([ITEM], environ=environ, started=(folder, "autograde"))
    bob = variants.student_items(SECRET, "attention-arithmetic", "bob", [ITEM])[ITEM]
    assert items[ITEM] == bob != variants.student_items(SECRET, "attention-arithmetic", "alice", [ITEM])[ITEM]
    assert "student bob, from the folder nbgrader autograde grades" in whose
    # another layout, or another assignment's folder: no numbers rather than somebody's
    for elsewhere in (tmp_path / "bob" / "02_scaling", course / "autograded" / "bob" / "03_masking"):
        elsewhere.mkdir(parents=True)
        with pytest.raises(NumbersMissing, match="whose numbers to grade cannot be told"):
            own_items([ITEM], environ=environ, started=(elsewhere, "autograde"))
    # a course without variants: the lesson's numbers, under autograde as anywhere
    plain = tmp_path / "plain" / "autograded" / "bob" / "02_scaling"
    plain.mkdir(parents=True)
    (tmp_path / "plain" / "course.yml").write_text((repo / "course.yml").read_text())
    assert own_items([ITEM], started=(plain, "autograde"))[0][ITEM] == StopAndTry(
        (1.0, 0.0), ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)))  # seed 000's example
