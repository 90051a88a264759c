"""Telling "written for one sequence" apart (issue 24): the same call on the first entry of the batch axes.

A check of batched inputs adds, after its graded calls, one probe per batched call: the same call with
every leading batch axis of its first argument taken at index 0, one sequence of the batch. The probes are
never graded (the notebook's unbatched checks grade that case); they are read only when a batched call
fails with a generic verdict. An answer that is right on every probe and raises on the batched calls was
written for one fixed number of axes (einsum subscripts without ``...``, a transpose or an unpacking of
fixed axes): that is the property the student can act on, and it names the task's ``fixed_axes``.
"""
from __future__ import annotations

from typing import Callable, Sequence

from .core import GENERIC_MISCONCEPTIONS, Call, CheckFailed, Outcome


def first_sequence(call: Call, core: int) -> Call | None:
    """``call`` with its first argument's leading batch axes taken at index 0 (None when it has none);
    ``core``: how many trailing axes one sequence of that argument has."""
    first = call.args[0]
    lead = first.ndim - core
    if lead <= 0:
        return None
    return Call(call.name, (first[(0,) * lead].copy(), *call.args[1:]), dict(call.kwargs))


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
    right_alone = {}
    for index, call in enumerate(calls[:graded]):
        if call.args[0].ndim > core:
            probe, outcome = next(probes)
            try:
                judge(probe, outcome)
                right_alone[index] = True
            except CheckFailed:
                right_alone[index] = False
    if all(right_alone.get(i, False) and f.misconception in failures for i, f in failed.items()):
        raise CheckFailed(f"{message} ({first.message})", misconception)
    raise first
