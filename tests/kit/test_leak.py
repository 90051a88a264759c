"""Issue 12: nothing in the installed kit reveals what grades. Every file of the installed kit is
scanned for hidden-check source, answer-key values and the reference source of every graded name
not yet due; a hit fails with the file and line."""
from __future__ import annotations

import ast
import datetime as dt
import inspect
import io
import json
import math
import re
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest

import attention_ref
from autograder.checks import MODULES, TASKS
from autograder.checks import items
from autograder.checks import nb02_scaling as nb02
from autograder.checks import nb06_long_sequences as nb06
from tests.kit.conftest import ROOT, _third_party, installed_site

#: A date after 01's due date and before 02's: 02..06 are not due.
BETWEEN = dt.datetime(2027, 2, 10, tzinfo=dt.timezone.utc)


def _kit_files(site: Path) -> list[Path]:
    roots = [site / "autograder", site / "attention_ref"] + list(site.glob("attention_course_kit-*.dist-info"))
    return [p for root in roots for p in root.rglob("*") if p.is_file()]


def _distinctive_lines(source: str) -> set[str]:
    """Lines long enough to be a fingerprint of their module (not an import, a docstring line or a bracket)."""
    out = set()
    for line in source.splitlines():
        text = line.split("  # ")[0].strip()  # the generated modules of the kit carry no comments
        if len(text) >= 30 and not text.startswith(("import ", "from ", "#", '"""')) and "(" in text:
            out.add(text)
    return out


def _code_lines(func) -> set[str]:
    """The fingerprints of a function's code, its docstring left out (the given functions share the shapes' wording)."""
    source = textwrap.dedent(inspect.getsource(func))
    body = ast.parse(source).body[0].body
    lines = source.splitlines()
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        del lines[body[0].lineno - 1:body[0].end_lineno]
    return _distinctive_lines("\n".join(lines))


def _answer_keys() -> dict[str, np.ndarray]:
    lesson = items.LESSON_STOP_AND_TRY  # the shared numbers the released notebook still asks about
    raw = lesson.k @ lesson.q
    weights = attention_ref.softmax(raw / math.sqrt(2))
    return {"STOP_AND_TRY_SCORES": raw, "STOP_AND_TRY_WEIGHTS": weights,
            "TABLE_BYTES": np.array(nb06.TABLE_HEADS * nb06.TABLE_N ** 2 * nb06.TABLE_ITEMSIZE)}


def answer_texts() -> dict[str, str]:
    """Text that gives an answer key away, and what it gives away: the Stop-and-try weights and letter's name,
    06's table size, and every notebook's concept-question letters as a tuple would print them."""
    from autograder.checks.concepts import TASK_OF, questions

    keys = _answer_keys()
    texts = {"RIGHT_REASON": "the Stop-and-try letter", str(int(keys["TABLE_BYTES"])): "TABLE_BYTES",
             f"{int(keys['TABLE_BYTES']):,}": "TABLE_BYTES"}
    texts.update({f"{w:.4f}": "STOP_AND_TRY_WEIGHTS" for w in keys["STOP_AND_TRY_WEIGHTS"]})
    for assignment, task in TASK_OF.items():
        letters = tuple(q.right for q in questions(assignment))
        texts.update({repr(letters): task, repr(letters).replace("'", '"'): task})
        if len(letters) > 1:  # a single letter is in every word
            texts[", ".join(letters)] = task
    return texts


def scan(site: Path, withheld: list[str]) -> list[str]:
    """``file:line: what`` for every leak found in the kit installed at ``site``."""
    # A misconception's title (``"scale.by_d_k": "divides by d_k ..."``) is what Validate shows: not check logic.
    hidden = {line: m.__name__ for m in MODULES for line in _distinctive_lines(inspect.getsource(m))
              if not re.match(r'"[\w.]+": "', line)}
    # Lines of the grader's modules that the kit ships on purpose (core, expect, forms), and lines a
    # check shares with the reference (``mask = np.expand_dims(mask, -3)``): those are judged as reference.
    shipped = set()
    for name in ("core", "expect", "forms"):
        shipped |= _distinctive_lines((ROOT / "autograder/checks" / f"{name}.py").read_text())
    for module in (ROOT / "attention_ref").glob("*.py"):
        shipped |= _distinctive_lines(module.read_text())
    reference = {}
    for name in withheld:
        func = getattr(attention_ref, name, None)
        if func is not None:
            for line in _code_lines(func) | {f"def {name}("}:
                reference[line] = name
    keys, texts = _answer_keys(), answer_texts()
    hits = []
    for path in _kit_files(site):
        if path.suffix == ".npz":
            with np.load(path, allow_pickle=False) as npz:
                for key in npz.files:
                    for what, value in keys.items():
                        if npz[key].shape == value.shape and np.allclose(npz[key], value, atol=5e-3):
                            hits.append(f"{path}:{key}: an array equal to the answer key of {what}")
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            text = line.strip()
            if text in hidden and text not in shipped:
                hits.append(f"{path}:{number}: hidden-check source ({hidden[text]})")
            for fingerprint, name in reference.items():
                if fingerprint in text:
                    hits.append(f"{path}:{number}: reference source of {name}, graded and not due")
            for needle, what in texts.items():
                if needle in text:
                    hits.append(f"{path}:{number}: {what} ({needle})")
        if path.suffix == ".json" and path.parent.name == "data":
            for spec in json.loads(path.read_text())["checks"]:
                if spec["task"].isupper() and (spec["expected"] or spec["known"]):
                    hits.append(f"{path}: {spec['grade_id']} stores values of an answer-key task")
    return hits


@pytest.fixture(scope="module")
def staged_kit(tmp_path_factory):
    """The kit of 01 and 02 as of a date when only 01 is due, installed into a fresh environment."""
    from autograder.kit.build import build_kit

    out = tmp_path_factory.mktemp("staged")
    build_kit(ROOT, ["01_scores_softmax", "02_scaling"], out, now=BETWEEN)
    env = out / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(env / "bin/python"), "install", "--quiet",
                    "--no-index", "--no-deps", "--disable-pip-version-check", str(next(out.glob("*.whl")))],
                   check=True)
    site = installed_site(env / "bin/python")
    _third_party(out / "deps")  # numpy for the import test below; scanned: only the kit's own files
    (site / "kit_deps.pth").write_text(str(out / "deps") + "\n")
    return site


def test_the_scanner_finds_what_it_looks_for(tmp_path):
    """The scan is not vacuous: planted leaks of each kind are reported with their file and line."""
    (tmp_path / "autograder").mkdir()
    check_line = sorted(line for line in _distinctive_lines(inspect.getsource(nb02)) if "CheckFailed(" in line)[0]
    ref_line = sorted(_code_lines(attention_ref.scale_scores))[0]
    (tmp_path / "autograder/x.py").write_text(f"ok\n{check_line}\n{ref_line}\nRIGHT_REASON\n536870912\n")
    buf = io.BytesIO()
    np.savez(buf, a0=_answer_keys()["STOP_AND_TRY_WEIGHTS"])
    (tmp_path / "autograder/d.npz").write_bytes(buf.getvalue())
    hits = scan(tmp_path, ["scale_scores"])
    assert any(":2: hidden-check source" in h for h in hits)
    assert any(":3: reference source of scale_scores" in h for h in hits)
    assert any(":4: the Stop-and-try letter" in h for h in hits) and any(":5: TABLE_BYTES" in h for h in hits)
    assert any("d.npz:a0: an array equal to the answer key of STOP_AND_TRY_WEIGHTS" in h for h in hits)


def test_the_staged_kit_leaks_nothing(staged_kit):
    withheld = [n for a in TASKS if a != "01_scores_softmax" for n in TASKS[a]]
    assert scan(staged_kit, withheld) == []
    given = (staged_kit / "attention_ref/__init__.py").read_text()
    assert "softmax" in given and "def scale_scores" not in given  # 02 gives 01's softmax, now due


def test_the_full_release_leaks_no_check_and_no_key(kit_python):
    assert scan(installed_site(kit_python), []) == []


def test_the_wheel_holds_what_the_site_holds(kit):
    names = zipfile.ZipFile(next(kit.glob("*.whl"))).namelist()
    site = sorted(p.relative_to(kit / "site").as_posix() for p in (kit / "site").rglob("*") if p.is_file())
    assert sorted(n for n in names if ".dist-info/" not in n) == site


def test_the_staged_kit_gives_the_released_blocks_and_explains_the_rest(staged_kit, tmp_path):
    python = staged_kit.parents[2] / "bin" / "python"
    code = ("import attention_ref as r\nprint(sorted(r.__all__))\ntry:\n    from attention_ref import scale_scores\n"
            "except ImportError as exc:\n    print(exc)")
    out = subprocess.run([str(python), "-I", "-c", code], capture_output=True, text=True, cwd=tmp_path,
                         env={"PATH": "/usr/bin:/bin"}, check=True).stdout.splitlines()
    assert out[0] == str(sorted(["dot_product", "attention_scores", "softmax", "weighted_average"]))
    assert "the reference version of `scale_scores` cannot be used" in out[1]
