"""Telling "written for one sequence" apart (issue 24): the same call on the first entry of the batch axes.

A check of batched inputs adds, after its graded calls, one probe per batched call: the same call with
every leading batch axis of its batched arguments taken at index 0, one sequence of the batch. The probes
are never graded (the notebook's unbatched checks grade that case); they are read only when a batched call
fails with a generic verdict. An answer that is right on every probe and raises on the batched calls was
written for one fixed number of axes (einsum subscripts without ``...``, a transpose or an unpacking of
fixed axes): that is the property the student can act on, and it names the task's ``fixed_axes``. So does
an answer right on inputs with one number of batch axes and raising on those with another (a transpose
with the axis order ``(0, 2, 1)`` spelled out works with exactly one batch axis).
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .core import GENERIC_MISCONCEPTIONS, Call, CheckFailed, Outcome


def _lead(arg, core: int) -> int:
    return arg.ndim - core if isinstance(arg, np.ndarray) and arg.ndim > core else 0


def batch_axes(call: Call, core: int) -> int:
    """How many leading batch axes ``call``'s batched arguments have (0 for one sequence)."""
    return max((_lead(a, core) for a in call.args), default=0)


def first_sequence(call: Call, core: int) -> Call | None:
    """``call`` with the leading batch axes of each array argument of more than ``core`` axes taken at
    index 0 (None when it has none): one sequence of every batched input (queries and keys alike, the
    maps, of ``core`` axes or fewer, as they are); ``core``: how many trailing axes one sequence has."""
    if not batch_axes(call, core):
        return None
    return Call(call.name, tuple(a[(0,) * _lead(a, core)].copy() if _lead(a, core) else a for a in call.args),
                dict(call.kwargs))


def with_first_sequences(calls: Sequence[Call], core: int) -> list[Call]:
    """The graded ``calls``, then one probe per batched call (:func:`first_sequence`)."""
    return list(calls) + [probe for probe in (first_sequence(c, core) for c in calls) if probe is not None]


def judge_with_first_sequences(calls: Sequence[Call], outcomes: Sequence[Outcome], graded: int, core: int,
                               judge: Callable[[Call, Outcome], None], misconception: str, message: str,
                               failures: frozenset = frozenset({"raises"})) -> None:
    """``judge`` on the ``graded`` calls (each: the first specific diagnosis wins); a generic failure of a
    batched call whose first-sequence probe ``judge`` accepts, with every unbatched call right too, fails
    naming ``misconception``: the answer is right on one sequence, not with batch axes in front.

    ``failures``: the generic verdicts that say so. By default an error only: wrong values or a wrong shape
    on a batch may also come from mixing the batch entries, a mistake of its own where a task has one
    (``merge_heads.moves_batch_axis``), so they name nothing unless the task has no such mistake."""
    failed = {}
    for index, (call, outcome) in enumerate(zip(calls[:graded], outcomes[:graded])):
        try:
            judge(call, outcome)
        except CheckFailed as failure:
            if failure.misconception not in GENERIC_MISCONCEPTIONS:
                raise
            failed[index] = failure
    if not failed:
        return
    first = failed[min(failed)]
    probes = iter(zip(calls[graded:], outcomes[graded:]))
    right_alone, raised_alone = {}, False
    for index, call in enumerate(calls[:graded]):
        if batch_axes(call, core):
            probe, outcome = next(probes)
            try:
                judge(probe, outcome)
                right_alone[index] = True
            except CheckFailed:
                right_alone[index] = False
                raised_alone |= outcome.error is not None
    if all(right_alone.get(i, False) and f.misconception in failures for i, f in failed.items()):
        raise CheckFailed(f"{message} ({first.message})", misconception)
    # right with one number of batch axes, raising with every other one it met: a fixed number of axes too
    right_at = {batch_axes(call, core) for i, call in enumerate(calls[:graded]) if i not in failed}
    right_at |= {0 for i, right in right_alone.items() if right}
    failed_at = {batch_axes(calls[i], core) for i in failed} | ({0} if raised_alone else set())
    if right_at and not right_at & failed_at and all(f.misconception == "raises" for f in failed.values()):
        def axes(counts):
            return " or ".join(str(c) for c in sorted(counts)) + (" batch axis" if counts == {1} else " batch axes")
        raise CheckFailed(f"your answer is right on inputs with {axes(right_at)} in front and raises on those "
                          f"with {axes(failed_at)}: it is written for a fixed number of axes. {ADVICE} "
                          f"({first.message})", misconception)
    raise first


#: What to do about a fixed number of axes, in the words of any task.
ADVICE = ("Count the axes from the end (-1, -2, ...) and swap only the last two (`np.swapaxes(K, -1, -2)`, "
          "never `.T` or a spelled-out axis order), or use `...` in einsum, so that any leading axes pass through.")
