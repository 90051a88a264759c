"""The sandbox runner: a fresh Python process that runs a submission's code and the checks' calls.

Run as a script (``python -I -S runner.py JOB_DIR EVENT_FD CONTROL_FD``), or forked warm by the
verification sandbox's fork server (``grading/zygote.py --runner``, which calls :func:`run`); never
imported by the grader. It
imports only the standard library, numpy, ``autograder/checks/core.py`` (loaded by path under a
private name, so the rest of ``autograder`` is never imported) and, when the notebook has
building blocks, the job's generated ``attention_ref`` (those building blocks and nothing else). Everything it sends
back goes through the event pipe ``EVENT_FD`` as frames::

    8-byte big-endian length, JSON header, 8-byte big-endian length, .npz bytes (maybe empty)

Headers: ``{"event": "ready"}``, ``{"event": "cell", "index": i}``, ``{"event": "cell_end",
"index": i, "error": str|None, "refused": [name]}`` (the names and modules the cell
asked for that the sandbox does not give, see ``_given_reference``), ``{"event": "call", "id": k}``, ``{"event":
"outcome", "id": k, "value": ..., "error": ..., "after": {arg: key}, "peak_bytes": ...,
"peak_resident_bytes": ...}``, ``{"event": "phase", "phase": k}`` (the calls of phase ``k`` may come once the grader
has given the reference's helpers of that phase: task isolation, see :func:`_reference_helpers`),
``{"event": "measure_ready"}`` (a measured run: the cells have run, the measured call may come; see ``measure.py``) (the arrays of ``value`` and the array arguments as the call left them are in the frame's
.npz, saved with ``allow_pickle=False``; the grader decides from the latter whether the call
modified its input), ``{"event": "done", "cpu_seconds": float}`` (for timing reports only).

Nothing here is trusted: the student's code runs in this process and can change anything in it.
The grading process re-validates every frame (see ``autograder/sandbox/wire.py``).
"""
import importlib.util
import json
import os
import sys
import types


def _send(fd, header, blob=b""):
    data = json.dumps(header).encode()
    frame = len(data).to_bytes(8, "big") + data + len(blob).to_bytes(8, "big") + blob
    view = memoryview(frame)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _load_by_path(name, path, package_dir=None):
    spec = importlib.util.spec_from_file_location(
        name, path, submodule_search_locations=[package_dir] if package_dir else None)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class _Inert:
    """What ``get_ipython()`` returns here: accepts any attribute, call or assignment, does nothing."""

    def __getattr__(self, name):
        return _Inert()

    def __setattr__(self, name, value):
        pass

    def __call__(self, *args, **kwargs):
        return _Inert()

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False


def _stub_modules(assignment, numbers):
    """``autograder``, ``autograder.hidden`` and ``autograder.notebook`` whose checks do nothing.

    ``Grader.numbers(item)`` gives the numbers the job names (the submission's own, chosen by the
    grader from its folder's id: ``job.json``'s ``numbers``), bound now, before any student code runs.
    """
    np = _BOUND["numpy"]
    # notebook/numbers.arrays' rule (that module is not importable here): a list an array, a number or a string
    # as it is, a one-field item its field alone
    shown = {item: [np.array(v) if isinstance(v, list) else v for v in e["values"].values()]
             for item, e in numbers.items()}
    package = types.ModuleType("autograder")
    package.__path__ = []  # nothing else of the grader can be imported
    hidden = types.ModuleType("autograder.hidden")
    hidden.check = lambda grade_id, namespace=None: None

    class Grader:
        def __init__(self, assignment=None, namespace=None):
            pass

        def check(self, *args, **kwargs):
            return None

        def validate(self, *args, **kwargs):  # a test cell's visible line, run if its metadata was stripped
            return None

        def summary(self, *args, **kwargs):
            return None

        def verdicts(self, *args, **kwargs):
            return []

        def numbers(self, item):
            if item not in shown:
                raise LookupError(f"{item!r} is not a per-student item of this assignment")
            fields = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in shown[item])
            return fields[0] if len(fields) == 1 else fields

    notebook = types.ModuleType("autograder.notebook")
    notebook.Grader = Grader
    package.hidden, package.notebook = hidden, notebook
    sys.modules.update({"autograder": package, "autograder.hidden": hidden, "autograder.notebook": notebook})


def _given_reference(job_dir):
    """Put the job's generated ``attention_ref`` (the notebook's building blocks only, see
    ``given.py``) first on ``sys.path``; no other copy of the reference exists in the sandbox.

    Its record of the names it refused, and a finder that records the modules a cell imports that
    the sandbox does not have (``grader.attention_ref``, ``autograder.checks``), are kept for
    :func:`_refused_since`: a refusal that a ``try`` swallowed is still reported to the grader.
    """
    sys.path.insert(0, os.path.join(job_dir, "given"))
    import attention_ref
    _BOUND["refused"] = attention_ref._REFUSED
    sys.meta_path.append(_Missing())


class _Missing:
    """The last finder: a module no finder has, imported by a notebook cell's own code, is recorded."""

    _frame = staticmethod(sys._getframe)  # bound before student code runs (it may replace sys._getframe)

    def find_spec(self, name, path=None, target=None):
        try:
            frame = self._frame(1)
            while frame is not None and frame.f_code.co_filename.startswith("<frozen"):
                frame = frame.f_back  # the import machinery's own frames
            if frame is not None and frame.f_code.co_filename.startswith("<cell "):
                _BOUND["refused"].append("import " + name)
        except Exception:  # noqa: BLE001 - a record lost, never an import broken
            pass
        return None


def _refused_since(count):
    """The names refused since the record held ``count`` of them (at most 20, as plain short text)."""
    found = _BOUND["refused"][count:]
    return [str(name)[:100] for name in found[:20]]


def _reference_helpers(job_dir, phase, names):
    """The reference's versions of ``names`` (``split_heads``, ...), given for phase ``phase``'s calls.

    Task isolation: a composite task (``multi_head_attention``) is judged with correct helpers, and no helper is
    judged on an answer that could use the reference's. So the calls run in phases: the helpers' own calls
    first; then the runner says ``phase`` and waits, and the grader, once every answer of the earlier phases is
    back (it accepts none of them after this), writes the package ``helpers-<phase>/attention_ref`` (the given
    package with these helpers too) into the job directory; the runner loads it under a private name and binds
    the helpers in the notebook's namespace for the composite's calls.
    """
    package_dir = os.path.join(job_dir, f"helpers-{phase}", "attention_ref")
    name = f"_reference_helpers_{phase}"
    module = _load_by_path(name, os.path.join(package_dir, "__init__.py"), package_dir)
    return {helper: getattr(module, helper) for helper in names}


def _decode(node, arrays):
    if node is None or isinstance(node, (bool, int)):
        return node
    if isinstance(node, dict):
        if "float" in node:
            return float.fromhex(node["float"])
        if "str" in node:
            return node["str"]
        if "array" in node:
            return arrays[node["array"]]
        if "scalar" in node:
            return arrays[node["scalar"]][()]
        if "tuple" in node:
            return tuple(_decode(x, arrays) for x in node["tuple"])
    raise ValueError(f"cannot decode {node!r}")


def _encode(value, arrays):
    import numpy as np
    if value is None or type(value) in (bool, int):
        return value
    if type(value) is float:
        return {"float": value.hex()}
    if type(value) is str:
        return {"str": value}
    if type(value) is np.ndarray:
        key = f"v{len(arrays)}"
        arrays[key] = value
        return {"array": key}
    if type(value) is tuple:
        return {"tuple": [_encode(v, arrays) for v in value]}
    raise TypeError(f"cannot send a {type(value).__name__}")


def _run_call(core, namespace, call):
    """``core.call_student``, with the array arguments copied as the call left them.

    The submission runs in this process and could patch ``np.array_equal``, so whether an
    answer modified its input is decided by the grader from the arrays sent back.
    """
    import numpy as np
    outcome, after = core.call_student(namespace, call)
    return outcome, {k: np.array(v, copy=True, subok=False) for k, v in after.items() if type(v) is np.ndarray}


_BOUND = {}  # modules the runner uses after student code has run, bound before it ran


def main(job_dir, fd, control_fd):
    """Set up (limits, the stubs, the calls), say ready, run the cells like Run All, then the calls, phase by phase.

    ``control_fd`` is the pipe the runner waits on for the grader: before each phase of calls that needs the
    reference's helpers (:func:`_reference_helpers`), and in a run of the grader's memory measurement (``measure.py``)
    after ``ready``, until the grader has read what the bare process holds, and before the measured call, whose inputs
    exist only once the grader has bounded the group's memory.
    """
    core, skip, cells, calls, phases, measured = _prepare(job_dir)
    _send(fd, {"event": "ready"})
    if measured:
        _await_grader(control_fd)
    namespace = {"__name__": "__main__", "get_ipython": lambda: _Inert(), "display": lambda *a, **k: None}
    for cell in cells:
        if cell["index"] not in skip:
            _run_cell(fd, cell, namespace, core)
    for phase, names in enumerate(phases):
        todo = [(call_id, call) for call_id, call, of in calls if of == phase]
        if not todo:
            continue
        if names:
            _send(fd, {"event": "phase", "phase": phase})
            _await_grader(control_fd)
            namespace.update(_reference_helpers(job_dir, phase, names))
        for call_id, call in todo:
            _send(fd, {"event": "call", "id": call_id})
            outcome, after = _run_call(core, namespace, call)
            _send_outcome(fd, call_id, outcome, after)
    if measured:
        _run_measured_call(fd, control_fd, job_dir, core, namespace)
    import resource
    usage = resource.getrusage(resource.RUSAGE_SELF)
    _send(fd, {"event": "done", "cpu_seconds": usage.ru_utime + usage.ru_stime})


def _await_grader(control_fd):
    """Block until the grader writes its one byte (or closes the pipe: then stop)."""
    if os.read(control_fd, 1) != b"g":
        raise RuntimeError("the grader stopped the run")


def _run_measured_call(fd, control_fd, job_dir, core, namespace):
    """Say the notebook has run, wait for the grader to bound the memory, then load the call and run it.

    Its array arguments are not sent back (the memory check judges the answer only), so that
    copying them does not count against the call's memory.
    """
    _send(fd, {"event": "measure_ready"})
    _await_grader(control_fd)
    np = _BOUND["numpy"]
    with open(os.path.join(job_dir, "measured.json")) as f:
        spec = json.load(f)
    with np.load(os.path.join(job_dir, "measured.npz"), allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    call = core.Call(spec["name"], tuple(_decode(a, arrays) for a in spec["args"]),
                     {k: _decode(v, arrays) for k, v in spec["kwargs"].items()})
    del arrays
    _send(fd, {"event": "call", "id": spec["id"]})
    outcome, _ = core.call_student(namespace, call)
    _send_outcome(fd, spec["id"], outcome, {})


def _prepare(job_dir):
    """Everything before the first line of student code runs: limits, imports, the calls' inputs."""
    with open(os.path.join(job_dir, "job.json")) as f:
        job = json.load(f)
    import resource
    for name, (soft, hard) in job["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (soft, hard))
    sys.path[:] = [p for p in sys.path if p] + list(job["site_paths"])
    import io

    import numpy as np
    _BOUND.update(numpy=np, io=io)
    core = _load_by_path("_autograder_core", job["core_path"])
    del sys.modules["_autograder_core"]  # the runner keeps it; `import _autograder_core` finds nothing
    if job.get("preload_pyplot"):
        _preload_pyplot()
    if job.get("mallopt"):  # a measured run: freed large blocks go back to the kernel (measure.py)
        import ctypes
        libc = ctypes.CDLL(None)
        for param, value in job["mallopt"].items():
            libc.mallopt(int(param), int(value))
    _stub_modules(job["assignment"], job.get("numbers", {}))
    _given_reference(job_dir)
    with np.load(os.path.join(job_dir, "inputs.npz"), allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    calls = []
    for spec in job["calls"]:
        call = core.Call(spec["name"], tuple(_decode(a, arrays) for a in spec["args"]),
                         {k: _decode(v, arrays) for k, v in spec["kwargs"].items()},
                         value_only=spec["value_only"], measure_peak=spec["measure_peak"],
                         legacy_seed=spec.get("legacy_seed"))
        calls.append((spec["id"], call, spec["phase"]))
    if job.get("own_pages"):
        _own_shared_pages()
    return core, set(job["skip_cells"]), job["cells"], calls, job["phases"], bool(job.get("measured"))


def _own_shared_pages():
    """A measured run forked from the warm sandbox: take its own copy now of every page it still shares with
    the zygote, before the grader reads what the bare process holds.

    A fork shares the zygote's pages until either writes one; each page the notebook's cells would write
    (reference counts of the modules' objects, above all) is copied then, and charged to the run's group as
    memory the notebook holds (about 5 MiB in 06's cells). Copied here, it is part of the bare process.
    ``madvise(MADV_POPULATE_WRITE)`` copies without writing, over the resident spans (``mincore``: a page never
    touched stays untouched) of the private writable mappings. The grader asks for this only where the kernel
    has it (Linux 5.14).
    """
    import ctypes

    page = os.sysconf("SC_PAGE_SIZE")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p)
    with open("/proc/self/maps") as f:
        private = [line.split()[0] for line in f if line.split()[1][:2] == "rw" and line.split()[1][3] == "p"]
    for span in private:
        start, end = (int(x, 16) for x in span.split("-"))
        resident = ctypes.create_string_buffer((end - start) // page)
        if libc.mincore(start, end - start, resident) != 0:
            continue
        run = None
        for i, flag in enumerate([*resident.raw, 0]):
            if flag & 1 and run is None:
                run = i
            elif not flag & 1 and run is not None:
                # a span the kernel will not populate stays shared: only the notebook's allowance is less
                libc.madvise(start + run * page, (i - run) * page, _MADV_POPULATE_WRITE)
                run = None


_MADV_POPULATE_WRITE = 23  # <linux/mman.h>


def _preload_pyplot():
    """Import the real pyplot before the grader reads what the bare runner holds (a measured run)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401
    except ImportError:
        pass


def _run_cell(fd, cell, namespace, core=None):
    _send(fd, {"event": "cell", "index": cell["index"]})
    error, refused = None, len(_BOUND["refused"])
    try:
        exec(compile(cell["source"], f"<cell {cell['index']}>", "exec"), namespace)
    except BaseException as exc:  # noqa: BLE001 - a cell may raise anything, SystemExit included
        error = f"{type(exc).__name__}: {exc}"[:1000]
    try:  # what a missing answer's own cell raised, for its message (core.note_cell); a message only
        if core is not None:
            core.note_cell(namespace, cell["source"], error and error[:300])
    except Exception:  # noqa: BLE001 - the cell's code may have broken what this needs: the plain message stays
        pass
    _send(fd, {"event": "cell_end", "index": cell["index"], "error": error, "refused": _refused_since(refused)})


def _send_outcome(fd, call_id, outcome, after):
    """The answer and the array arguments as the call left them, as plain data (never a pickle).

    numpy and io are the modules bound before any student code ran (``_BOUND``), not whatever
    ``sys.modules`` holds by now.
    """
    np, io = _BOUND["numpy"], _BOUND["io"]
    out_arrays = {}
    try:
        value = _encode(outcome.value, out_arrays)
    except Exception as exc:  # noqa: BLE001
        value, out_arrays = None, {}
        outcome.error = outcome.error or f"TypeError: the answer could not be sent back ({exc})"
    after_keys = {}
    for name, array in after.items():
        after_keys[name] = key = f"after_{name}"
        out_arrays[key] = array
    blob = b""
    if out_arrays:
        buffer = io.BytesIO()
        np.savez(buffer, **out_arrays)
        blob = buffer.getvalue()
    _send(fd, {"event": "outcome", "id": call_id, "value": value, "error": outcome.error,
               "after": after_keys, "peak_bytes": outcome.peak_bytes,
               "peak_resident_bytes": outcome.peak_resident_bytes}, blob)


def run(job_dir, event_fd, control_fd):
    """:func:`main`, then end the process (never returns): status 0, or 3 after a ``runner_error`` frame."""
    try:
        main(job_dir, event_fd, control_fd)
    except BaseException as exc:  # noqa: BLE001
        try:
            _send(event_fd, {"event": "runner_error", "error": f"{type(exc).__name__}: {exc}"[:2000]})
        except OSError:
            pass
        os._exit(3)
    # Threads or atexit handlers the submission left behind must not keep the process alive.
    os._exit(0)


if __name__ == "__main__":
    run(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
