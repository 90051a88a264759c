"""The machinery every check is built from.

A check is one graded property of one graded name (a *task*). It is split in
two halves so that the student's code and the judging can run in different
processes (see docs/ARCHITECTURE.md):

* ``make_calls(rng)`` says which functions to call with which inputs;
* an executor runs the calls against the student's namespace and returns
  plain-data :class:`Outcome` objects (``run_calls`` below does it in-process,
  the sandbox does it in a separate, locked-down process);
* ``judge(calls, outcomes)`` compares with :mod:`attention_ref` and raises
  :class:`CheckFailed` with a message written for the student.
"""
from __future__ import annotations

import ast
import contextlib
import io
import os
import tracemalloc
import types
import warnings
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

# Bound when this module loads, before any student code runs in the process: replacing
# ``tracemalloc.stop`` and friends afterwards does not change what the measurement calls.
_OPEN = io.open
_TRACE = types.MappingProxyType({
    "start": tracemalloc.start, "stop": tracemalloc.stop, "reset_peak": tracemalloc.reset_peak,
    "is_tracing": tracemalloc.is_tracing, "traced": tracemalloc.get_traced_memory,
    "traceback_of": tracemalloc.get_object_traceback})

PUBLIC_SEED = 0
"""Seed of the visible checks: the student sees these inputs' verdicts."""
HIDDEN_DEFAULT_SEED = 20_241_105
"""Seed of the hidden tests when the grader did not set ``AUTOGRADER_SEED``."""
SEED_ENV = "AUTOGRADER_SEED"

# Tolerances against the reference. float64: a loop, einsum or log-sum-exp answer differs by rounding in the
# order of summation, about n * 1e-16 relative; every catalogued misconception is off by more than 1e-3.
# float32 inputs: the reference stays in float32 (eps 1.2e-7), a student may compute in either: a few hundred ulps.
DEFAULT_TOLERANCES = {"float64": (1e-7, 1e-10), "float32": (1e-4, 1e-6)}


def tolerances(dtype) -> tuple[float, float]:
    """``(rtol, atol)`` for results computed from inputs of ``dtype`` (:data:`DEFAULT_TOLERANCES`)."""
    return DEFAULT_TOLERANCES["float32" if np.dtype(dtype) == np.float32 else "float64"]


#: Misconceptions that say *what* is wrong but not *why* (no specific mistake recognised).
GENERIC_MISCONCEPTIONS = {
    "not_implemented": "not attempted (the stub still raises NotImplementedError)",
    "not_defined": "the function is not defined (its cell was not run or was deleted)",
    "raises": "the answer raises an error",
    "returns_none": "returns None (missing return)",
    "wrong_type": "returns something that is not numbers",
    "wrong_return": "returns the wrong number of values",
    "wrong_shape": "wrong output shape",
    "wrong_values": "wrong values (no specific misconception recognised)",
    "mistakes_coincide": "the answer is what more than one known mistake gives on these inputs (each is said, none "
                         "named)",
    "nan": "NaN in the output",
    "python.array_truth": "asks Python for one True/False of a whole array (`if mask:`, `and`/`or` on arrays)",
    "mutates_input": "modifies its input in place",
    "grader.incomplete": "the grader got no answer for some inputs",
    "grader.unreadable_answer": "the answer could not be read by the grader",
    "variants.lesson_numbers": "answered the lesson's worked example instead of the student's own numbers",
    "variants.others_numbers": "the answer fits another student's numbers, not the student's own (flagged)",
    "helper_fails_first": "a function it calls fails its own visible checks (visible checks wait for it)",
    "grader.verification_failed": "verification failed (a grader fault): the points are withheld until a regrade",
    "grader.memory_unmeasured": "the grading host could not bound the call's memory from outside the notebook: "
                                "withheld until a regrade on a host with writable memory control groups",
}


# ---------------------------------------------------------------- data types
@dataclass(frozen=True)
class Call:
    """One request to the student's namespace.

    ``value_only`` reads the variable ``name`` instead of calling it (for
    answers such as ``STOP_AND_TRY_WEIGHTS``). ``measure_peak`` asks the
    in-process executor for tracemalloc's peak during the call (the kernel's
    check, which the student's code can reach). ``memory_room`` asks the
    verification sandbox to bound the call from outside instead: it runs the
    call in a process and control group of its own, where the notebook may hold
    at most ``memory_held`` bytes more than the bare runner when the call starts
    and the call may then use ``memory_room`` bytes more than that
    (``autograder/sandbox/measure.py``).
    """

    name: str
    args: tuple = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    value_only: bool = False
    measure_peak: bool = False
    memory_held: int | None = None
    memory_room: int | None = None
    #: Seed numpy's legacy global generator (``np.random.seed``) just before the call, in the process that runs it,
    #: and put its state back after: two calls with one seed agree where the answer draws from that global state
    #: (``np.random.randn``...) and not from a generator it was given (``score_variance``'s probes).
    legacy_seed: int | None = None

    def describe(self) -> str:
        """A short, shape-only description (never the input values)."""
        if self.value_only:
            return self.name
        parts = [_describe_value(a) for a in self.args]
        parts += [f"{k}={_describe_value(v)}" for k, v in self.kwargs.items()]
        return f"{self.name}({', '.join(parts)})"


def _describe_value(v) -> str:
    if isinstance(v, np.ndarray):
        return f"<{v.dtype} array of shape {v.shape}>"
    if isinstance(v, tuple):
        return "(" + ", ".join(_describe_value(x) for x in v) + ")"
    if isinstance(v, np.generic):  # numpy 2 writes np.float64(1.0): the student reads the number
        return repr(v.item())
    return repr(v)


@dataclass
class Outcome:
    """What a call produced, as plain data (arrays, numbers, tuples, None)."""

    value: Any = None
    error: str | None = None  # "TypeName: message" when the call raised
    mutated: tuple[str, ...] = ()  # arguments the call modified ("0", "1", "mask", ...)
    peak_bytes: int | None = None
    peak_resident_bytes: int | None = None  # growth of the process's resident memory during the call
    # Set by the grader only (never decoded from the sandbox): the call ran under a memory limit of
    # this many bytes above what the notebook held when it started, and was not killed for memory.
    memory_limit_bytes: int | None = None


class CheckFailed(AssertionError):
    """A failed check; the message is for the student, ``misconception`` for the report.

    ``vague``: what the check says of this input where the diagnosis does not hold after all (another input of
    the check contradicts it): the property that fails, naming nothing (:func:`.expect.each`)."""

    def __init__(self, message: str, misconception: str | None = None, vague: "CheckFailed | None" = None):
        super().__init__(message)
        self.message = message
        self.misconception = misconception
        self.vague = vague

    def _render_traceback_(self):
        # IPython calls this instead of printing a traceback: the student sees the
        # verdict, not the grader's internals.
        return [f"CheckFailed: {self.message}"]


@dataclass(frozen=True)
class Check:
    """One graded property of one task; ``grade_id`` starts with the task name."""

    grade_id: str
    task: str
    title: str
    make_calls: Callable[[np.random.Generator], Sequence[Call]]
    judge: Callable[[Sequence[Call], Sequence[Outcome]], None]
    public: bool = True  # also run by the visible check in the student notebook
    #: Other tasks of the notebook that this (composite) task calls: it is judged with the reference's
    #: versions of them substituted in the student's namespace, so a helper's bug costs the helper's points only.
    helpers: tuple[str, ...] = ()
    #: The per-student item whose numbers this check judges (``checks/items.py``): its judge is called as
    #: ``judge(calls, outcomes, item)``, with the student's own item, or the lesson's when grading has none.
    item: str | None = None

    def __post_init__(self):
        if not self.grade_id.startswith(self.task):
            raise ValueError(f"grade_id {self.grade_id!r} must begin with its task name {self.task!r}")


@dataclass
class Verdict:
    grade_id: str
    task: str
    title: str
    passed: bool
    message: str | None = None
    misconception: str | None = None


# ---------------------------------------------------------------- running checks
def check_rng(seed: int, grade_id: str) -> np.random.Generator:
    """The generator of one check: independent of the order checks run in."""
    return np.random.default_rng([int(seed), zlib.crc32(grade_id.encode())])


def hidden_seed() -> int:
    """The seed of this grading run (set by the grader), or the fixed default."""
    value = os.environ.get(SEED_ENV)
    return int(value) if value else HIDDEN_DEFAULT_SEED


def evaluate(check: Check, executor: Callable[[Sequence[Call]], Sequence[Outcome]], seed: int,
             items: Mapping[str, Any] | None = None) -> Verdict:
    """Make the check's calls, run them with ``executor`` and judge the outcomes.

    ``items`` (item id -> the student's item, ``checks/items.py``) are the numbers a check with an
    ``item`` is judged on; without them such a check judges the lesson's example (shared numbers).
    """
    calls = list(check.make_calls(check_rng(seed, check.grade_id)))
    outcomes = list(executor(calls))
    return judge_outcomes(check, calls, outcomes, items)


def judge_outcomes(check: Check, calls: Sequence[Call], outcomes: Sequence[Outcome],
                   items: Mapping[str, Any] | None = None) -> Verdict:
    """The verdict of ``check`` on outcomes already computed (see :func:`evaluate`)."""
    base = dict(grade_id=check.grade_id, task=check.task, title=check.title)
    if len(outcomes) != len(calls):
        return Verdict(**base, passed=False, message="your code did not return an answer for every input",
                       misconception="grader.incomplete")
    try:
        if check.item is None:
            check.judge(calls, outcomes)
        else:
            from .items import LESSON  # the kit's core has no items yet: imported only where an item is judged
            check.judge(calls, outcomes, (items or {}).get(check.item, LESSON[check.item]))
    except CheckFailed as failure:
        return Verdict(**base, passed=False, message=failure.message, misconception=failure.misconception)
    except Exception as exc:  # a judge that cannot read an odd answer must not crash the grading
        return Verdict(**base, passed=False,
                       message=f"your answer could not be checked ({type(exc).__name__}: {exc})",
                       misconception="grader.unreadable_answer")
    return Verdict(**base, passed=True)


@contextlib.contextmanager
def quiet():
    """Swallow prints, stderr and warnings from the student's code while a check runs.

    nbgrader scores a test cell with any stderr output as a failure, so a
    harmless warning inside a correct answer must not reach the cell's output.
    """
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
            warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


class NotPlainData(TypeError):
    pass


def to_plain(obj):
    """Convert a result to plain data, refusing objects that could fake a comparison.

    An object whose ``__eq__`` always answers True (nbgrader issue 1379) or an
    ndarray subclass is turned into a base ndarray or refused, so the judge only
    ever compares numbers.
    """
    if obj is None or type(obj) in (bool, int, float, str):
        return obj
    if isinstance(obj, np.generic) and obj.dtype.kind in "biuf":
        return obj.item()
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in "biuf":
            raise NotPlainData(f"an array of dtype {obj.dtype}")
        return np.array(obj, copy=True, subok=False)
    # Subclasses of the builtins (which may override __eq__): keep the number only.
    if isinstance(obj, bool):
        return bool(obj)
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return float(obj)
    if type(obj) in (list, tuple):
        return tuple(to_plain(x) for x in obj)
    raise NotPlainData(f"a {type(obj).__name__}")


def _copy_arg(a):
    return np.array(a, copy=True) if isinstance(a, np.ndarray) else a


#: What the cells of a namespace raised, by the names their top level assigns: ``id(namespace) -> (namespace,
#: {name: "Type: message"})``. A name that is missing because its own cell raised before assigning it is said as
#: that error (an answer written and run), not as "not defined yet" (a stub, or a cell never run).
_RAISED: dict[int, tuple[Any, dict[str, str]]] = {}


def _assigned_names(source: str) -> set[str]:
    """The names a cell's top level binds (assignments, functions, classes); none where it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return set()
    names = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def note_cell(namespace, source: str, error: str | None) -> None:
    """Record that a cell of ``namespace`` ran (``error`` None) or raised ``error`` ("Type: message"), against the
    names its top level assigns (:func:`call_student` reads it for a name that is missing)."""
    names = _assigned_names(source)
    if not names:
        return
    entry = _RAISED.get(id(namespace))
    if entry is None or entry[0] is not namespace:
        if len(_RAISED) >= 4:  # one namespace per notebook run: the older ones are let go
            _RAISED.clear()
        entry = _RAISED[id(namespace)] = (namespace, {})
    for name in names:
        if error is None:
            entry[1].pop(name, None)
        else:
            entry[1][name] = error


def _cell_error(namespace, name: str) -> str | None:
    entry = _RAISED.get(id(namespace))
    return entry[1].get(name) if entry is not None and entry[0] is namespace else None


def call_student(namespace: Mapping[str, Any], call: Call) -> tuple[Outcome, dict[str, np.ndarray]]:
    """Run one call against ``namespace``, without judging whether it modified its inputs.

    Returns the outcome and the array arguments as the call left them, by position (``"0"``)
    or keyword name. The sandbox's runner sends those back so that the grading process, not
    the student's process (which could patch ``np.array_equal``), decides about mutation.
    """
    if call.name not in namespace:
        raised = _cell_error(namespace, call.name)
        return Outcome(error=f"NameError: name '{call.name}' is not defined"
                             + (f"; its cell raised {raised}" if raised else "")), {}
    target = namespace[call.name]
    if call.value_only:
        try:
            return Outcome(value=to_plain(target)), {}
        except NotPlainData as exc:
            return Outcome(error=f"TypeError: {call.name} is {exc}, expected numbers or an array"), {}
    if not callable(target):
        return Outcome(error=f"TypeError: {call.name} is not a function"), {}
    args = tuple(_copy_arg(a) for a in call.args)
    kwargs = {k: _copy_arg(v) for k, v in call.kwargs.items()}
    peak = resident = None
    try:
        with quiet():
            if call.measure_peak:
                resident = _resident_reset()
                _TRACE["start"]()
                _TRACE["reset_peak"]()
                marker = bytearray(64)  # traced from here on: gone if tracing is stopped or cleared
            legacy = np.random.get_state() if call.legacy_seed is not None else None
            try:
                if legacy is not None:
                    np.random.seed(call.legacy_seed)
                result = target(*args, **kwargs)
            finally:
                if legacy is not None:
                    np.random.set_state(legacy)
                if call.measure_peak:
                    intact = _TRACE["is_tracing"]() and _TRACE["traceback_of"](marker) is not None
                    peak = _TRACE["traced"]()[1] if intact else None
                    _TRACE["stop"]()
                    high = _status_bytes("VmHWM") if resident is not None else None
                    resident = max(0, high - resident) if high is not None else None
            if call.measure_peak and peak is None:
                return Outcome(error="MeasurementTampered: the memory measurement (tracemalloc) was stopped "
                                     "or cleared during the call"), {}
    except (Exception, SystemExit) as exc:
        return Outcome(error=f"{type(exc).__name__}: {exc}", peak_bytes=peak, peak_resident_bytes=resident), {}
    after = {str(i): a for i, a in enumerate(args) if isinstance(a, np.ndarray)}
    after.update({k: v for k, v in kwargs.items() if isinstance(v, np.ndarray)})
    try:
        value = to_plain(result)
    except NotPlainData as exc:
        return Outcome(error=f"TypeError: {call.name} returned {exc}, expected numbers or an array",
                       peak_bytes=peak, peak_resident_bytes=resident), after
    return Outcome(value=value, peak_bytes=peak, peak_resident_bytes=resident), after


def _status_bytes(key: str) -> int | None:
    """A ``kB`` line of ``/proc/self/status`` (``VmRSS``, ``VmHWM``) in bytes; None where it cannot be read."""
    try:
        with _OPEN("/proc/self/status", "rb") as fh:
            for line in fh:
                if line.startswith(key.encode() + b":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _resident_reset() -> int | None:
    """Reset the process's resident high-water mark (``clear_refs`` 5); the resident bytes now, or None.

    Memory that tracemalloc does not see (an ``mmap``, a C extension's buffer) still becomes
    resident when it is used, so the memory checks also judge the growth of ``VmHWM``.
    """
    try:
        with _OPEN("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        return None
    return _status_bytes("VmRSS")


def mutated_arguments(call: Call, after: Mapping[str, np.ndarray]) -> tuple[str, ...]:
    """The array arguments of ``call`` whose values differ in ``after`` (see :func:`call_student`)."""
    before = {str(i): a for i, a in enumerate(call.args)}
    before.update(call.kwargs)
    return tuple(key for key, changed in after.items()
                 if isinstance(before.get(key), np.ndarray)
                 and not np.array_equal(before[key], changed, equal_nan=True))


def _run_one(namespace: Mapping[str, Any], call: Call) -> Outcome:
    outcome, after = call_student(namespace, call)
    outcome.mutated = mutated_arguments(call, after)
    return outcome


def run_calls(namespace: Mapping[str, Any], calls: Sequence[Call],
              substitutes: Mapping[str, Callable] | None = None) -> list[Outcome]:
    """The in-process executor: run each call against ``namespace`` (the notebook's globals).

    ``substitutes`` (name -> function) replace the student's helpers in ``namespace`` during the
    calls only (task isolation, see :attr:`Check.helpers`); the student's own are put back after.
    """
    with substituted(namespace, substitutes or {}):
        return [_run_one(namespace, call) for call in calls]


@contextlib.contextmanager
def substituted(namespace, substitutes: Mapping[str, Callable]):
    """``namespace`` with ``substitutes`` bound in place of the student's names, restored on exit.

    The student's functions read their helpers from their module globals (``namespace`` itself),
    so the names are swapped in place rather than in a copy.
    """
    missing = object()
    saved = {name: namespace.get(name, missing) for name in substitutes}
    namespace.update(substitutes)
    try:
        yield namespace
    finally:
        for name, value in saved.items():
            if value is missing:
                namespace.pop(name, None)
            else:
                namespace[name] = value


class CheckList(list):
    """A module's checks, registered with a decorator on the judge::

        checks = CheckList()

        @checks.add("softmax", "rows_sum_to_one", "each row of weights sums to 1",
                    calls=lambda rng: [Call("softmax", (rng.standard_normal((3, 5)),))])
        def _(calls, outcomes):
            ...

    The grade_id is ``task + "_" + suffix``, so it always begins with the task.
    """

    def __init__(self, composites: Mapping[str, Sequence[str]] | None = None):
        super().__init__()
        #: task -> the other tasks it calls (see :attr:`Check.helpers`)
        self.composites = {task: tuple(helpers) for task, helpers in (composites or {}).items()}

    def add(self, task: str, suffix: str, title: str, *, calls, public: bool = True, item: str | None = None):
        def register(judge):
            self.append(Check(f"{task}_{suffix}", task, title, calls, judge, public,
                              self.composites.get(task, ()), item))
            return judge
        return register
