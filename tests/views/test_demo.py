"""autograder demo: a small synthetic class graded end to end (slow: real nbgrader kernels)."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from autograder import cli, demo
from tests.kit.test_leak import answer_texts


def test_prepare_refuses_foreign_folder(tmp_path):
    (tmp_path / "precious.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="not a demo folder"):
        demo.prepare_course(tmp_path)
    assert (tmp_path / "precious.txt").exists()


def test_prepare_replaces_previous_demo(tmp_path):
    out = demo.prepare_course(tmp_path / "d")
    (out / "reports").mkdir()
    (out / "reports" / "old.json").write_text("{}")
    demo.prepare_course(out)
    assert not (out / "reports").exists()
    assert (out / "course.yml").is_file() and (out / "solutions").is_dir()


def test_unknown_assignment(tmp_path, capsys):
    assert cli.main(["demo", "--out", str(tmp_path / "d"), "--assignments", "99_nope"]) == 2
    assert "no source notebook for 99_nope" in capsys.readouterr().err


@pytest.mark.slow
def test_demo_end_to_end(tmp_path):
    stream = io.StringIO()
    result = demo.run_demo(tmp_path / "demo", n_students=5, seed=0, assignments=["01_scores_softmax", "02_scaling"],
                           workers=2, progress=False, stream=stream)
    text = stream.getvalue()
    assert "Class report" in text and "Most frequent misconceptions" in text and "Demo done in" in text
    results = json.loads((tmp_path / "demo" / "reports" / "results.json").read_text())
    assert len(results["submissions"]) == 10
    assert all(s["status"] == "graded" for s in results["submissions"])
    kinds = {s.student_id: s.kind for s in result["class"].students}
    scores = {s["student_id"]: s["score"] for s in results["submissions"] if s["assignment_id"] == "01_scores_softmax"}
    for sid, kind in kinds.items():
        if kind == "complete":
            assert scores[sid] == 20
        if kind == "blank":
            assert scores[sid] == 0
    assert (tmp_path / "demo" / "reports" / "report.html").read_text().count("<svg") >= 2
    assert len(result["feedback"]) == 10
    answers = answer_texts()
    for page in result["feedback"]:  # built from the real autograded notebooks, hidden tests included
        text = Path(page).read_text(encoding="utf-8")
        assert not re.search(r"BEGIN HIDDEN TESTS|END HIDDEN TESTS|BEGIN SOLUTION|\bcheck\(", text), page
        # nor any answer key (02's Stop-and-try weights, the concept questions' letters), wrong answers included
        assert [what for needle, what in answers.items() if needle in text] == [], page


def test_cli_dispatches_to_the_views(tmp_path, capsys):
    """`autograder check|report|feedback|demo` reach these modules' main() with their options."""
    results = tmp_path / "course" / "reports"
    results.mkdir(parents=True)
    (results / "results.json").write_text('{"submissions": []}')
    assert cli.main(["report", "--course", str(tmp_path / "course"), "--no-html"]) == 0
    assert "Class report" in capsys.readouterr().out
