"""Results of a notebook's own heavy calls of a given building block, computed once and served exactly.

07's given cell trains three scorers for ``compare_scorers(d=16, n_keys=8, seeds=(0, 1, 2),
steps=300)``: about 1 s of deterministic work (6-18 s before its matrix products), the same for every
student, run in the kernel and again in verification, for every submission. When a student kit or a
given package is built (:func:`build`), every call of a given function that the released notebook
makes with literal arguments only is computed once with the reference; a call whose result is plain
data (numbers, strings, lists, tuples, dicts, numeric arrays) is kept in ``attention_ref/_memo.json``
whatever it cost (a rule of seconds made the kit depend on how busy the machine that built it was:
compare_scorers took 0.95-1.2 s against a threshold of 1 s), the kit's cached in
``<course>/.autograder/kit/``. The package's ``__init__`` wraps such a function (:func:`serve`): a
call whose arguments, bound to the signature with its defaults, equal the kept call's is answered
from the file, decoded afresh each time (the caller may modify what it gets), bit for bit what
the reference returned (floats and arrays are stored exactly); any other call computes afresh.
A function without a kept call is not wrapped at all.

This file is copied verbatim into every generated ``attention_ref`` as ``_memo.py`` (standard
library and numpy only), so the key and the decoding are the same code at build time and in the
sandbox.
"""
import base64
import functools
import inspect
import json
import os

import numpy as np

FILE = "_memo.json"
#: Calls answered from the file in this process (the tests read it).
hits = []


def _plain(value):
    """``value`` as a hashable, typed description, or None when it is not plain data (then nothing is kept)."""
    if value is None or type(value) in (bool, int, str):
        return [type(value).__name__, value]
    if type(value) is float:
        return ["float", value.hex()]
    if type(value) in (tuple, list):
        items = [_plain(v) for v in value]
        return None if any(i is None for i in items) else [type(value).__name__, items]
    return None


def key(func, args, kwargs):
    """The call's arguments bound to ``func``'s signature with its defaults, as text; None if not plain."""
    try:
        bound = inspect.signature(func).bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    described = [[name, _plain(value)] for name, value in bound.arguments.items()]
    if any(d[1] is None for d in described):
        return None
    return json.dumps([func.__name__, described])


def encode(value):
    """``value`` as JSON-able data that :func:`decode` turns back into an equal value, bit for bit; ValueError if not plain."""
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        return {"float": value.hex()}
    if type(value) is list:
        return [encode(v) for v in value]
    if type(value) is tuple:
        return {"tuple": [encode(v) for v in value]}
    if type(value) is dict and all(type(k) is str for k in value):
        return {"dict": [[k, encode(v)] for k, v in value.items()]}
    if type(value) is np.ndarray and value.dtype.kind in "biufc":
        return {"array": value.dtype.str, "shape": list(value.shape),
                "data": base64.b64encode(np.ascontiguousarray(value).tobytes()).decode()}
    raise ValueError(f"a {type(value).__name__} cannot be kept")


def decode(node):
    """The value :func:`encode` described (fresh objects every time)."""
    if type(node) is list:
        return [decode(v) for v in node]
    if type(node) is dict:
        if "float" in node:
            return float.fromhex(node["float"])
        if "tuple" in node:
            return tuple(decode(v) for v in node["tuple"])
        if "dict" in node:
            return {k: decode(v) for k, v in node["dict"]}
        if "array" in node:
            data = base64.b64decode(node["data"])
            return np.frombuffer(data, dtype=np.dtype(node["array"])).reshape(node["shape"]).copy()
    return node


@functools.lru_cache(maxsize=None)
def _kept():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), FILE)
    try:
        with open(path) as f:
            return {entry["key"]: entry["value"] for entry in json.load(f)["entries"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def serve(name, func):
    """``func``, answering its kept calls from the file (see the module docstring); ``func`` itself if none is kept."""
    kept = _kept()
    if not any(json.loads(k)[0] == name for k in kept):
        return func

    @functools.wraps(func)
    def served(*args, **kwargs):
        found = kept.get(key(func, args, kwargs))
        if found is None:
            return func(*args, **kwargs)
        hits.append(name)
        return decode(found)

    return served
