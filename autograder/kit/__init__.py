"""The student kit (issue 12): what students install in a classroom course, built from this source.

``autograder kit --release 01_scores_softmax,02_scaling --out DIR`` (:func:`main`) calls
:func:`autograder.kit.build.build_kit`. See ``build.py`` for what the kit holds, ``publicdata.py``
for the public data its visible checks judge from and ``public.py`` for how they judge.
"""
from __future__ import annotations

import datetime as dt
import sys


def add_arguments(parser) -> None:
    """The options of ``autograder kit``."""
    parser.add_argument("--release", required=True,
                        help="comma-separated assignment ids the kit releases (e.g. 01_scores_softmax,02_scaling)")
    parser.add_argument("--out", required=True, help="output directory (site/ and the wheel)")
    parser.add_argument("--course", default=".", help="course directory (default: .)")
    parser.add_argument("--as-of", dest="as_of",
                        help="the date the release is for, ISO 8601 with a time zone (default: now); an assignment "
                             "is due once its course.yml due date has passed")


def main(args) -> int:
    """Build the kit from parsed arguments; exit status 0, or 2 with the reason on stderr."""
    from ..config import CourseConfigError
    from .build import build_kit
    from .publicdata import KitBuildError

    try:
        now = dt.datetime.fromisoformat(args.as_of) if args.as_of else dt.datetime.now(dt.timezone.utc)
        release = [a.strip() for a in args.release.split(",") if a.strip()]
        site = build_kit(args.course, release, args.out, now=now)
    except (KitBuildError, CourseConfigError, ValueError) as exc:
        print(f"autograder kit: {exc}", file=sys.stderr)
        return 2
    wheels = sorted(site.parent.glob("*.whl"))
    print(f"student kit of {', '.join(release)}: {site} (PYTHONPATH) and {wheels[-1] if wheels else 'no wheel'} "
          f"(pip install --no-index)")
    return 0
