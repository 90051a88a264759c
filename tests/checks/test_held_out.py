"""benchmarks/fairness.py --variants: a held-out set of answers (a python file defining ``VARIANTS``) is
graded alone, and its counts are its own (issue 24)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from autograder.catalogue.fairness import load_variants

ROOT = Path(__file__).resolve().parents[2]

HELD_OUT = '''
from autograder.catalogue import Variant

VARIANTS = [
    Variant("held_global_max", "01_scores_softmax", "softmax", {"softmax": """
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max())
    return e / e.sum(axis=axis, keepdims=True)
"""}, misconception="softmax.global_max"),
    Variant("held_no_max", "01_scores_softmax", "softmax", {"softmax": """
def softmax(x, axis=-1):
    e = np.exp(np.asarray(x, dtype=float))
    return e / e.sum(axis=axis, keepdims=True)
"""}, misconception="softmax.global_max"),
    Variant("held_right", "01_scores_softmax", "softmax", {"softmax": """
def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
"""}, correct=True),
]
'''


def test_a_held_out_file_is_measured_alone(tmp_path):
    held = tmp_path / "held_out.py"
    held.write_text(HELD_OUT)
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks/fairness.py"), "--variants", str(held), "--seeds", "2"],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert run.returncode == 0, run.stderr
    # the second answer is labelled with a mistake it does not make: the checks name its own, so it is "wrong"
    assert "3 variants (2 wrong): named 1 / vague 0 / wrong 1 / missed 0;" in run.stdout, run.stdout
    assert "stray failures 0" in run.stdout and "wrong: held_no_max" in run.stdout


UNLABELLED = '''
from autograder.catalogue import Variant

VARIANTS = [
    Variant("held_cosine", "01_scores_softmax", "dot_product", {"dot_product": """
def dot_product(q, k):
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    return float(q @ k / (np.linalg.norm(q) * np.linalg.norm(k)))
"""}, misconception=None),
    # the modification is observed, not inferred: its message names the mistake, a person judges it with the rest
    Variant("held_softmax_in_place", "01_scores_softmax", "softmax", {"softmax": """
def softmax(x, axis=-1):
    x -= x.max(axis=axis, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=axis, keepdims=True)
    return x
"""}, misconception="softmax.overwrites_its_scores"),
    # labelled with a generic verdict ("raises") where the checks name a specific mistake: for a person too
    Variant("held_fixed_transpose", "01_scores_softmax", "attention_scores", {"attention_scores": """
def attention_scores(Q, K):
    return np.matmul(Q, np.transpose(K, (0, 2, 1)))
"""}, misconception="raises"),
]
'''


def test_a_held_out_answer_labelled_none_is_reported_with_what_the_checks_named(tmp_path):
    """Also one labelled in its author's words whose modified input is observed, and one labelled \"raises\"
    that the checks name specifically: neither is counted wrong by the label alone."""
    held = tmp_path / "held_out.py"
    held.write_text(UNLABELLED)
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks/fairness.py"), "--variants", str(held), "--seeds", "2"],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "named 0 / vague 0 / wrong 0 / missed 0 / unlabelled 3;" in run.stdout, run.stdout
    assert "unlabelled: held_cosine (None)" in run.stdout and "dot_product.cosine:" in run.stdout
    assert "unlabelled: held_softmax_in_place (softmax.overwrites_its_scores)" in run.stdout
    assert "mutates_input:" in run.stdout
    assert "unlabelled: held_fixed_transpose (raises)" in run.stdout and "attention_scores.fixed_axes:" in run.stdout


@pytest.mark.parametrize("text, expected", [
    (None, "no such python file"),
    ("VARIANTS = []\n", "non-empty list VARIANTS"),
    ("VARIANTS = [('a', 'b')]\n", "expected Variant objects"),
    ("from autograder.catalogue import Variant\nVARIANTS = [Variant('x', '01_scores_softmax', 'nope', {})]\n",
     "task 'nope'"),
])
def test_a_bad_held_out_set_is_refused_naming_it(tmp_path, text, expected):
    held = tmp_path / "held.py"
    if text is not None:
        held.write_text(text)
    with pytest.raises(ValueError, match=expected) as error:
        load_variants(str(held))
    assert str(held) in str(error.value)


def test_a_module_name_that_is_not_importable_is_refused():
    with pytest.raises(ValueError, match="neither a .py file nor an importable module"):
        load_variants("no_such_package.held_out")
