"""Text shown to people: points as the reports print them, and student-derived text made safe for a terminal."""
from __future__ import annotations

import re

_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def points(x) -> str:
    """``17`` for a whole number of points, ``2.5`` otherwise, ``-`` for unknown (None)."""
    if x is None:
        return "-"
    return f"{x:g}" if float(x).is_integer() else f"{x:.1f}"


def terminal_safe(text) -> str:
    """``text`` without ANSI/OSC escape sequences or control characters (tabs and newlines kept)."""
    return _CONTROL.sub("", str(text))
