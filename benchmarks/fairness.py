"""Fairness of the grader over the answer catalogue: seed-stable verdicts and named diagnoses.

Not a timing script: it grades every catalogue variant in-process over many seeds and prints

* **stability**: the (variant, check) pairs whose verdict changes with the seed;
* **diagnoses**: for each wrong answer, *named* (a failing check of its task names its
  misconception and no check names a different specific one), *vague* (only generic messages:
  wrong values, NaN, a raw error), *wrong* (some failing check names a different specific
  misconception) or *missed* (no check of its task fails); a held-out answer whose misconception is
  not one of the course's ids, or a generic one such as ``raises`` where the checks name a specific mistake, is
  *unlabelled*, with what the checks named printed for a person to judge;
* **stray**: wrong answers that lose points on another task (beyond ``also_fails``), and correct
  answers that lose points anywhere.

::

    .venv/bin/python benchmarks/fairness.py               # 20 seeds
    .venv/bin/python benchmarks/fairness.py --seeds 5 --assignment 03_masking
    .venv/bin/python benchmarks/fairness.py --variants held_out.py   # a held-out set, measured alone

``--variants`` takes a python file (or an importable module) defining ``VARIANTS = [Variant(...)]``
(:class:`autograder.catalogue.Variant`): a set of mistakes written without reading the checks, graded
instead of the catalogue, so that its named / vague / wrong / stray counts are its own.
"""
from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from autograder.catalogue import all_variants  # noqa: E402
from autograder.checks import GENERIC_MISCONCEPTIONS, MISCONCEPTIONS  # noqa: E402
from autograder.catalogue.fairness import classify, grade_over_seeds, load_variants, stray, unstable  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--assignment", default=None)
    parser.add_argument("--variants", default=None, metavar="MODULE_OR_FILE",
                        help="grade the VARIANTS of this python file or module instead of the catalogue")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error(f"--seeds: expected a positive number of seeds, got {args.seeds}")
    try:
        pool = load_variants(args.variants) if args.variants else all_variants()
    except ValueError as error:
        parser.error(str(error))
    seeds = [12345] + random.Random(1).sample(range(1, 2**31), args.seeds - 1)
    variants = [v for v in pool if args.assignment in (None, v.assignment)]
    counts, changing, strays, details = defaultdict(int), [], [], []
    for variant in variants:
        graded = grade_over_seeds(variant, seeds)
        changing += [(variant.name, g) for g in unstable(graded)]
        strays += [(variant.name, g) for g in sorted({g for vs in graded.values() for g in stray(variant, vs)})]
        if not variant.correct:
            kinds = {seed: classify(variant, vs) for seed, vs in graded.items()}
            worst = next(k for k in ("wrong", "missed", "vague", "named") if k in kinds.values())
            seed = next(s for s, k in kinds.items() if k == worst)  # before a relabelling to "unlabelled"
            if (variant.misconception not in MISCONCEPTIONS and worst in ("named", "wrong")) \
                    or (variant.misconception in GENERIC_MISCONCEPTIONS and worst == "wrong"):
                # a held-out answer labelled in words of its own, or with a generic verdict ("raises") where the
                # checks name a specific mistake: the names are printed for a person to judge
                worst = "unlabelled"
            counts[worst] += 1
            if worst != "named":
                details.append((variant.name, variant.misconception, worst,
                                sorted({(v.misconception, v.message) for v in graded[seed] if not v.passed})))
    wrong = sum(not v.correct for v in variants)
    print(f"fairness of {args.variants or 'the catalogue'} over {len(seeds)} seeds, {len(variants)} variants "
          f"({wrong} wrong): "
          f"named {counts['named']} / vague {counts['vague']} / wrong {counts['wrong']} / missed {counts['missed']}"
          + (f" / unlabelled {counts['unlabelled']}" if counts["unlabelled"] else "")
          + f"; seed-dependent (variant, check) pairs {len(changing)}; stray failures {len(strays)}")
    for name, check in changing:
        print(f"  unstable: {name} on {check}")
    for name, check in strays:
        print(f"  stray: {name} fails {check}")
    for name, misconception, kind, failed in details:
        print(f"  {kind}: {name} ({misconception})")
        if args.verbose or kind == "unlabelled":
            for m, message in failed:
                print(f"      {m}: {message[:160]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
