"""What every variant of one assignment shares over a sweep of seeds: the calls, and the reference's answers.

The catalogue tests grade every variant over 20 seeds. A check's calls depend only on the
check and the seed, and the reference's answer to them only on the calls, yet the plain sweep
drew both again for every variant (06's memory check walks 32,768 keys in blocks of 64 for the
reference alone). A :class:`Sweep` draws the calls of each (check, seed) once, tells which seeds
give a check the very same calls (a check whose ``make_calls`` ignores the rng, or draws only
what does not change), and answers attention_ref's functions from a cache when they are asked
about exactly those call arguments (and so do the diagnosis candidates a check module declares
pure functions of a call's inputs, ``PURE_OF_CALLS``). What stays per variant is what the verdict depends on: the
student's code runs on every distinct set of calls and the judge reads every outcome.

The student kit's build uses one too (``autograder/kit/publicdata.py``): there the seed is the public
one and it is the probes of a judge (a hundred-odd verdicts per check) that share the calls.
"""
from __future__ import annotations

import contextlib
import copy
import functools
import pickle

import numpy as np

from ..checks.core import Check, check_rng

_SCALARS = (int, float, complex, str, bool, bytes, type(None), np.generic)


class Sweep:
    """The calls of every (check, seed) of one assignment, and the reference's answers about them."""

    def __init__(self, assignment: str):
        self.assignment = assignment
        self._calls: dict[tuple[str, int], list] = {}
        self._keys: dict[tuple[str, int], bytes] = {}
        self._arrays: dict[int, np.ndarray] = {}  # id -> the call's own array, held so its id stays its own
        self._answers: dict[tuple, object] = {}

    def calls(self, check: Check, seed: int) -> list:
        """The calls ``check`` makes at ``seed`` (drawn once; the executor hands the student copies)."""
        key = (check.grade_id, seed)
        if key not in self._calls:
            calls = list(check.make_calls(check_rng(seed, check.grade_id)))
            self._calls[key] = calls
            self._keys[key] = _fingerprint(calls)
            for call in calls:
                for value in (*call.args, *call.kwargs.values()):
                    if isinstance(value, np.ndarray):
                        self._arrays[id(value)] = value
        return self._calls[key]

    def same_calls(self, check: Check, seed: int) -> bytes:
        """A key equal for two seeds exactly when ``check`` makes the same calls at both."""
        self.calls(check, seed)
        return self._keys[(check.grade_id, seed)]

    def _key(self, name: str, args: tuple, kwargs: dict):
        """The cache key of a reference call about this sweep's own arguments, or None (not cached)."""
        parts = []
        for value in (*args, *(kwargs[k] for k in sorted(kwargs))):
            if isinstance(value, np.ndarray):
                if self._arrays.get(id(value)) is not value:
                    return None  # an array the judge made itself, or the student's copy: computed afresh
                parts.append(("array", id(value)))
            elif isinstance(value, _SCALARS):
                parts.append((type(value).__name__, value))
            else:
                return None  # a generator or anything else with state: never answered from a cache
        return (name, tuple(sorted(kwargs)), tuple(parts))

    @contextlib.contextmanager
    def reference(self):
        """attention_ref's public functions, and the diagnosis candidates a check module lists in
        ``PURE_OF_CALLS``, answering this sweep's calls from the cache (a deep copy each time, so a
        judge that edits its reference edits its own); restored on exit."""
        import attention_ref

        from ..checks import MODULES

        targets = [(attention_ref, name) for name in attention_ref.__all__
                   if callable(getattr(attention_ref, name)) and not isinstance(getattr(attention_ref, name), type)]
        targets += [(module, name) for module in MODULES for name in getattr(module, "PURE_OF_CALLS", ())]
        originals = [(owner, name, getattr(owner, name)) for owner, name in targets]
        for owner, name, function in originals:
            setattr(owner, name, self._memoised(f"{owner.__name__}.{name}", function))
        try:
            yield
        finally:
            for owner, name, function in originals:
                setattr(owner, name, function)

    def _memoised(self, name, function):
        @functools.wraps(function)
        def memoised(*args, **kwargs):
            key = self._key(name, args, kwargs)
            if key is None:
                return function(*args, **kwargs)
            if key not in self._answers:
                self._answers[key] = function(*args, **kwargs)
            return copy.deepcopy(self._answers[key])
        return memoised


def _fingerprint(calls: list) -> bytes:
    try:
        return pickle.dumps(calls, protocol=5)
    except Exception:  # noqa: BLE001 - a call that cannot be pickled is never shared between seeds
        return repr(object()).encode()
