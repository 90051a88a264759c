"""Telling "written for one sequence" apart (issue 24): the same call on the first entry of the batch axes.

A check of batched inputs adds, after its graded calls, one probe per batched call: the same call with
every leading batch axis of its batched arguments taken at index 0, one sequence of the batch. The probes are
never graded (the notebook's unbatched checks grade that case); they are read only when a batched call
fails. An answer that is right on every probe and raises on the batched calls was written for one fixed
number of axes (einsum subscripts without ``...``, a transpose or an unpacking of fixed axes): that is the
property the student can act on, and it names the task's ``fixed_axes``. So does an answer right on inputs
with one number of batch axes and raising on those with another (a transpose with the axis order
``(0, 2, 1)`` spelled out works with exactly one batch axis). A mistake named from a batched call's error
alone is checked against its probe the same way: one that would raise on one sequence too is not the
answer's when the answer is right there.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from . import expect
from .core import GENERIC_MISCONCEPTIONS, Call, CheckFailed, Outcome

#: What to do about a fixed number of axes, in the words of any task (no task's answer in it).
ADVICE = ("Count the axes from the end (-1, -2, ...) and swap only the last two, never with `.T` or a spelled-out "
          "axis order; in einsum, `...` stands for any leading axes, so that they pass through.")

#: The message of a task's ``fixed_axes`` misconception (the verdict's own failure follows in brackets).
FIXED_AXES = ("your answer is right on one sequence but not with batch axes in front: it is written for a fixed "
              "number of axes. " + ADVICE)

Core = int | Sequence  # trailing axes of one sequence of every array argument, or one entry per argument


def _cores(call: Call, core: Core) -> list:
    """One entry per positional argument: its trailing axes of one sequence, or None (not sliced)."""
    if isinstance(core, int):
        return [core if isinstance(arg, np.ndarray) else None for arg in call.args]
    return list(core) + [None] * (len(call.args) - len(core))


def _lead(arg, core: int | None) -> int:
    return arg.ndim - core if core is not None and isinstance(arg, np.ndarray) and arg.ndim > core else 0


def batch_axes(call: Call, core: Core) -> int:
    """How many leading batch axes ``call``'s batched arguments have (0 for one sequence)."""
    return max((_lead(arg, c) for arg, c in zip(call.args, _cores(call, core))), default=0)


def _keyword(value, core: int | None, lead: int):
    """A keyword argument of one sequence: its leading axes beyond ``core`` (at most the call's ``lead``) at 0."""
    axes = min(_lead(value, core), lead)
    return value[(0,) * axes].copy() if axes else value


def first_sequence(call: Call, core: Core, keywords: dict | None = None) -> Call | None:
    """``call`` with its batched arguments' leading axes taken at index 0 (None when none has any).

    ``core``: how many trailing axes one sequence has, for every array argument (one of ``core`` axes or
    fewer, a map shared by the batch, is left as it is); or one entry per positional argument (None for one
    left as it is). The arguments sliced share their leading axes (the course's shapes), so entry 0 of each
    is one sequence's. ``keywords``: the trailing axes of one sequence of keyword arguments sliced the same way
    (a mask with batch axes of its own); the others are left as they are."""
    lead = batch_axes(call, core)
    if not lead:
        return None
    return Call(call.name, tuple(arg[(0,) * _lead(arg, c)].copy() if _lead(arg, c) else arg
                                 for arg, c in zip(call.args, _cores(call, core))),
                {k: _keyword(v, (keywords or {}).get(k), lead) for k, v in call.kwargs.items()})


def with_first_sequences(calls: Sequence[Call], core: Core, keywords: dict | None = None) -> list[Call]:
    """The graded ``calls``, then one probe per batched call (:func:`first_sequence`)."""
    return list(calls) + [probe for probe in (first_sequence(c, core, keywords) for c in calls) if probe is not None]


def judge_with_first_sequences(calls: Sequence[Call], outcomes: Sequence[Outcome], graded: int, core: Core,
                               judge: Callable[[Call, Outcome], None], misconception: str, message: str = FIXED_AXES,
                               failures: frozenset = frozenset({"raises"}), batched_mistakes: frozenset = frozenset(),
                               keywords: dict | None = None) -> None:
    """``judge`` on the ``graded`` calls (a diagnosis as :func:`.expect.each` gives it); a generic failure of a
    batched call whose first-sequence probe ``judge`` accepts, with every unbatched call right too, fails
    naming ``misconception``: the answer is right on one sequence, not with batch axes in front.

    ``failures``: the generic verdicts that say so. By default an error only: wrong values or a wrong shape
    on a batch may also come from mixing the batch entries, a mistake of its own where a task has one
    (``merge_heads.moves_batch_axis``), so they name nothing unless the task has no such mistake.

    A specific mistake named from the *error* of a batched call is a guess where the probe is right: that
    mistake would raise on one sequence too (adding two tables row by row fails on any unequal lengths), so
    it counts as a raise, unless it is one of ``batched_mistakes``, the task's mistakes that are right on one
    sequence themselves (a `.T` that reverses the batch axes; named by their own signature)."""
    failed = {}
    probe_of = {}
    probes = iter(zip(calls[graded:], outcomes[graded:]))
    for index, call in enumerate(calls[:graded]):
        if first_sequence(call, core, keywords) is not None and (probe := next(probes, None)) is not None:
            probe_of[index] = probe
    right_alone = {}

    def alone(index: int) -> bool:
        if index not in right_alone:
            try:
                judge(*probe_of[index])
                right_alone[index] = True
            except CheckFailed:
                right_alone[index] = False
        return right_alone[index]

    for index, (call, outcome) in enumerate(zip(calls[:graded], outcomes[:graded])):
        try:
            judge(call, outcome)
        except CheckFailed as failure:
            if (failure.misconception not in GENERIC_MISCONCEPTIONS and outcome.error is not None
                    and failure.misconception not in batched_mistakes and index in probe_of and alone(index)):
                kind, _, detail = outcome.error.partition(": ")
                failure = CheckFailed(f"`{call.describe()}` raised {kind}: {detail}", "raises")
            failed[index] = failure
    if not failed:
        return
    if any(f.misconception not in GENERIC_MISCONCEPTIONS for f in failed.values()):
        raise expect.consistent([(calls[i], failed[i]) for i in sorted(failed)])
    first = failed[min(failed)]
    if all(index in probe_of and alone(index) and f.misconception in failures for index, f in failed.items()):
        raise CheckFailed(f"{message} ({first.message})", misconception)
    # right with one number of batch axes, raising with every other one it met: a fixed number of axes too
    right_at = {batch_axes(call, core) for i, call in enumerate(calls[:graded]) if i not in failed}
    right_at |= {0 for index in probe_of if alone(index)}
    raised_alone = any(not alone(index) and probe_of[index][1].error is not None for index in probe_of)
    failed_at = {batch_axes(calls[i], core) for i in failed} | ({0} if raised_alone else set())
    if right_at and not right_at & failed_at and all(f.misconception == "raises" for f in failed.values()):
        def axes(counts):
            return " or ".join(str(c) for c in sorted(counts)) + (" batch axis" if counts == {1} else " batch axes")
        raise CheckFailed(f"your answer is right on inputs with {axes(right_at)} in front and raises on those "
                          f"with {axes(failed_at)}: it is written for a fixed number of axes. {ADVICE} "
                          f"({first.message})", misconception)
    raise first

