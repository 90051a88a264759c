"""Plain data across the sandbox boundary: calls out (JSON + .npz), outcomes back (validated strictly).

Nothing that comes back from the sandbox is trusted: an outcome is accepted only if it has exactly
the expected form (a known call id, sent once; an error string or a value made of None, bools,
ints, floats, strings, tuples and numeric numpy arrays loaded with ``allow_pickle=False``).
Anything else turns that call into an error, never into a pass.
"""
from __future__ import annotations

import io
import zipfile
from typing import Any, Mapping, Sequence

import numpy as np

from ..checks.core import Call, Outcome

MAX_DEPTH = 8
MAX_NODES = 10_000
MAX_NDIM = 8
MAX_ERROR_CHARS = 1000
MAX_STR_CHARS = 10_000


class WireError(ValueError):
    """An outcome that does not have the expected form."""


# ---------------------------------------------------------------- calls (grader -> sandbox)
def encode_calls(calls: Sequence[tuple[int, Call]]) -> tuple[list[dict], dict[str, np.ndarray]]:
    """``[(id, Call)]`` -> (JSON-ready call specs, arrays for ``np.savez``)."""
    arrays: dict[str, np.ndarray] = {}

    def enc(value):
        if value is None or type(value) in (bool, int):
            return value
        if isinstance(value, bool):
            return bool(value)
        if isinstance(value, float):
            return {"float": float(value).hex()}
        if isinstance(value, int):
            return int(value)
        if isinstance(value, str):
            return {"str": str(value)}
        if isinstance(value, np.ndarray):
            key = f"a{len(arrays)}"
            arrays[key] = np.array(value, copy=True, subok=False)
            return {"array": key}
        if isinstance(value, np.generic):
            key = f"a{len(arrays)}"
            arrays[key] = np.asarray(value)
            return {"scalar": key}
        if isinstance(value, tuple):
            return {"tuple": [enc(v) for v in value]}
        raise TypeError(f"a check's call argument must be plain data, got {type(value).__name__}")

    specs = [{"id": call_id, "name": call.name, "args": [enc(a) for a in call.args],
              "kwargs": {str(k): enc(v) for k, v in call.kwargs.items()},
              "value_only": bool(call.value_only), "measure_peak": bool(call.measure_peak),
              "legacy_seed": call.legacy_seed}
             for call_id, call in calls]
    for array in arrays.values():
        if array.dtype.hasobject:
            raise TypeError("a check's call argument is an object array")
    return specs, arrays


def savez_bytes(arrays: Mapping[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


# ---------------------------------------------------------------- outcomes (sandbox -> grader)
def load_npz(blob: bytes, limit: int) -> dict[str, np.ndarray]:
    """The arrays of an .npz sent back by the sandbox (no pickles, numeric dtypes, bounded size)."""
    if not blob:
        return {}
    try:
        archive = zipfile.ZipFile(io.BytesIO(blob))
        declared = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise WireError(f"the arrays sent back are not a valid .npz ({exc})") from None
    if declared > limit:
        raise WireError(f"the answer is larger than the output limit ({declared} > {limit} bytes)")
    arrays = {}
    try:
        with np.load(io.BytesIO(blob), allow_pickle=False) as z:
            for key in z.files:
                arrays[key] = z[key]
    except Exception as exc:  # noqa: BLE001 - whatever a malformed archive raises
        raise WireError(f"the arrays sent back could not be read ({type(exc).__name__}: {exc})") from None
    for key, array in arrays.items():
        if type(array) is not np.ndarray or array.dtype.kind not in "biuf" or array.dtype.fields is not None \
                or array.ndim > MAX_NDIM:
            raise WireError(f"an array sent back has an unexpected type ({array.dtype}, {array.ndim} dims)")
    return arrays


def decode_value(node: Any, arrays: Mapping[str, np.ndarray]):
    """Rebuild a value from its wire form, refusing anything but plain data."""
    used: set[str] = set()
    count = [0]

    def dec(node, depth):
        count[0] += 1
        if depth > MAX_DEPTH or count[0] > MAX_NODES:
            raise WireError("the answer is nested too deeply")
        if node is None or type(node) is bool:
            return node
        if type(node) is int:
            return node
        if type(node) is dict and len(node) == 1:
            (kind, payload), = node.items()
            if kind == "float" and type(payload) is str:
                try:
                    return float.fromhex(payload)
                except (ValueError, OverflowError):
                    raise WireError("a number sent back is malformed") from None
            if kind == "str" and type(payload) is str and len(payload) <= MAX_STR_CHARS:
                return payload
            if kind == "array" and type(payload) is str and payload in arrays and payload not in used:
                used.add(payload)
                return arrays[payload]
            if kind == "tuple" and type(payload) is list:
                return tuple(dec(x, depth + 1) for x in payload)
        raise WireError("the answer came back in an unexpected form")

    return dec(node, 0)


def decode_outcome(header: Any, blob: bytes, call: Call, limit: int) -> Outcome:
    """Validate one ``outcome`` frame against the call it answers; raises WireError if malformed.

    ``mutated`` is decided here: the frame carries every array argument as the call left it, and
    it is compared with the input the grader generated (``np.array_equal``, NaN equal to NaN, as
    :func:`autograder.checks.core.run_calls` does in the kernel).
    """
    optional = {"peak_resident_bytes"}
    if type(header) is not dict or set(header) - optional != {"event", "id", "value", "error", "after", "peak_bytes"}:
        raise WireError("the outcome sent back has unexpected fields")
    error, after, peak = header["error"], header["after"], header["peak_bytes"]
    resident = header.get("peak_resident_bytes")
    if error is not None and type(error) is not str:
        raise WireError("the outcome's error is not text")
    inputs = {str(i): a for i, a in enumerate(call.args) if isinstance(a, np.ndarray)}
    inputs.update({k: v for k, v in call.kwargs.items() if isinstance(v, np.ndarray)})
    if type(after) is not dict or any(type(k) is not str or k not in inputs or type(v) is not str
                                      for k, v in after.items()):
        raise WireError("the outcome's arguments after the call are malformed")
    for measured in (peak, resident):
        if measured is not None and (type(measured) is not int or measured < 0):
            raise WireError("the outcome's peak memory is malformed")
        if not call.measure_peak and measured is not None:
            raise WireError("the outcome has a peak memory that was not asked for")
    arrays = load_npz(blob, limit)
    if any(v not in arrays for v in after.values()) or len(set(after.values())) != len(after):
        raise WireError("the outcome's arguments after the call are missing")
    if error is not None:
        return Outcome(error=error[:MAX_ERROR_CHARS], peak_bytes=peak, peak_resident_bytes=resident)
    if set(after) != set(inputs):
        raise WireError("the outcome does not send back every array argument")
    value = decode_value(header["value"], {k: v for k, v in arrays.items() if k not in set(after.values())})
    mutated = []
    for name, before in inputs.items():
        left = arrays[after[name]]
        if left.shape != before.shape or not np.array_equal(before, left, equal_nan=before.dtype.kind == "f"):
            mutated.append(name)
    order = [str(i) for i in range(len(call.args))] + list(call.kwargs)
    return Outcome(value=value, error=None, mutated=tuple(sorted(mutated, key=order.index)), peak_bytes=peak,
                   peak_resident_bytes=resident)
