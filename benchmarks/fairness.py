"""Fairness of the grader over the answer catalogue: seed-stable verdicts and named diagnoses.

Not a timing script: it grades every catalogue variant in-process over many seeds and prints

* **stability**: the (variant, check) pairs whose verdict changes with the seed;
* **diagnoses**: for each wrong answer, *named* (a failing check of its task names its
  misconception and no check names a different specific one), *vague* (only generic messages:
  wrong values, NaN, a raw error) or *wrong* (some failing check names a different specific
  misconception);
* **stray**: wrong answers that lose points on another task (beyond ``also_fails``), and correct
  answers that lose points anywhere.

::

    .venv/bin/python benchmarks/fairness.py               # 20 seeds
    .venv/bin/python benchmarks/fairness.py --seeds 5 --assignment 03_masking
"""
from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from autograder.catalogue import all_variants  # noqa: E402
from autograder.checks import GENERIC_MISCONCEPTIONS, checks_for_assignment, executor  # noqa: E402
from autograder.checks.core import evaluate  # noqa: E402
from autograder.inprocess import execute_answers  # noqa: E402


def _namespace(variant):
    from tests.course.conftest import Course

    course = Course()
    nb = Course.answers_only(course.fill(variant.assignment, {k: s.strip("\n") for k, s in variant.answers.items()}))
    return execute_answers(nb)[0]


def grade_over_seeds(variant, seeds):
    """``{seed: [Verdict]}`` of every check of the variant's assignment."""
    namespace = _namespace(variant)
    checks = checks_for_assignment(variant.assignment)
    return {seed: [evaluate(c, executor(c, namespace), seed) for c in checks] for seed in seeds}


def classify(variant, verdicts) -> str:
    """``named``, ``vague`` or ``wrong`` for one wrong answer's verdicts on one seed."""
    failed = [v for v in verdicts if not v.passed]
    specific = {v.misconception for v in failed if v.misconception not in GENERIC_MISCONCEPTIONS}
    if specific - {variant.misconception}:
        return "wrong"
    own = {v.misconception for v in failed if v.task == variant.task}
    return "named" if variant.misconception in own else "vague"


def stray(variant, verdicts) -> list[str]:
    """Checks of other tasks that the variant fails (a correct variant: every failing check)."""
    if variant.correct:
        return [v.grade_id for v in verdicts if not v.passed]
    return [v.grade_id for v in verdicts if not v.passed and v.task != variant.task
            and v.task not in variant.also_fails]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--assignment", default=None)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    seeds = [12345] + random.Random(1).sample(range(1, 2**31), args.seeds - 1)
    variants = [v for v in all_variants() if args.assignment in (None, v.assignment)]
    counts, unstable, strays, details = defaultdict(int), [], [], []
    for variant in variants:
        graded = grade_over_seeds(variant, seeds)
        by_check = defaultdict(set)
        for verdicts in graded.values():
            for v in verdicts:
                by_check[v.grade_id].add(v.passed)
        unstable += [(variant.name, g) for g, seen in by_check.items() if len(seen) > 1]
        strays += [(variant.name, g) for g in sorted({g for vs in graded.values() for g in stray(variant, vs)})]
        if not variant.correct:
            kinds = {seed: classify(variant, vs) for seed, vs in graded.items()}
            worst = "wrong" if "wrong" in kinds.values() else "vague" if "vague" in kinds.values() else "named"
            counts[worst] += 1
            if worst != "named":
                seed = next(s for s, k in kinds.items() if k == worst)
                details.append((variant.name, variant.misconception, worst,
                                sorted({(v.misconception, v.message) for v in graded[seed] if not v.passed})))
    wrong = sum(not v.correct for v in variants)
    print(f"fairness over {len(seeds)} seeds, {len(variants)} variants ({wrong} wrong): "
          f"named {counts['named']} / vague {counts['vague']} / wrong {counts['wrong']}; "
          f"seed-dependent (variant, check) pairs {len(unstable)}; stray failures {len(strays)}")
    for name, check in unstable:
        print(f"  unstable: {name} on {check}")
    for name, check in strays:
        print(f"  stray: {name} fails {check}")
    for name, misconception, kind, failed in details:
        print(f"  {kind}: {name} ({misconception})")
        if args.verbose:
            for m, message in failed:
                print(f"      {m}: {message[:160]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
