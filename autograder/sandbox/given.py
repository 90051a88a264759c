"""The building blocks a notebook gives, as an ``attention_ref`` package that contains nothing else.

A notebook may import from ``attention_ref`` the functions it gives (``GIVEN`` of its checks
module) but none that it grades. Handing student code the real package would hand it every
graded function too: through ``import grader.attention_ref``, through a given function's
``__globals__``, through ``sys.modules``. So the sandbox gets a generated package instead: the
modules of ``attention_ref`` that the given functions need, each cut down (with :mod:`ast`) to its
imports, its module-level assignments and the functions the given ones reach, and an
``__init__`` that exports the given names only and explains, on import, why any other name is not
there.

What a function reaches is read from its code objects (every global name it or a nested
function uses), followed through the module it is defined in, transitively. A graded name that
is reached is an error naming both (the given function needs the graded one: the notebook
cannot give it), never a silent leak.

Every package that gives something also holds ``_memo.py`` (:mod:`.memo`, verbatim): the notebook's own heavy calls of a
given function are answered from ``_memo.json`` when the package has one (:func:`build_memo`).
"""
from __future__ import annotations

import ast
import functools
import importlib
import inspect
import json
import types
from pathlib import Path

from ..notebook.model import parse_python, read_cells
from . import memo

PACKAGE = "attention_ref"


class GivenError(ValueError):
    """A given building block cannot be provided without a graded name."""


def global_names(code: types.CodeType) -> set[str]:
    """Every global a code object (and the functions, lambdas and comprehensions nested in it) may read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= global_names(const)
    return names


def _reachable(given: list[str]) -> dict[str, set[str]]:
    """``{module name: {function names defined there}}`` that the given functions need."""
    package = importlib.import_module(PACKAGE)
    todo = [getattr(package, name) for name in given]
    seen: dict[str, set[str]] = {}
    while todo:
        func = todo.pop()
        module, name = func.__module__, func.__name__
        if name in seen.setdefault(module, set()):
            continue
        seen[module].add(name)
        namespace = vars(importlib.import_module(module))
        for ref in global_names(func.__code__):
            value = namespace.get(ref)
            if isinstance(value, types.FunctionType) and value.__module__.startswith(PACKAGE + "."):
                todo.append(value)
    return seen


def _relative_source(module_name: str, node: ast.ImportFrom) -> str:
    return (module_name.rsplit(".", node.level)[0] + "." + (node.module or "")).rstrip(".")


def _keeps(source: str, name: str, needed: dict[str, set[str]]) -> bool:
    """Whether ``from .source import name`` stays: a needed function, or any value that is not a function."""
    value = getattr(importlib.import_module(source), name, None)
    return name in needed.get(source, set()) if isinstance(value, types.FunctionType) else True


def _add_constant_sources(needed: dict[str, set[str]]) -> None:
    """Modules imported only for a constant are emitted too, without functions."""
    todo = list(needed)
    while todo:
        module = todo.pop()
        for node in parse_python(inspect.getsource(importlib.import_module(module))).body:
            if isinstance(node, ast.ImportFrom) and node.level:
                source = _relative_source(module, node)
                if source not in needed and any(_keeps(source, a.name, needed) for a in node.names):
                    needed[source] = set()
                    todo.append(source)


def _prune(module_name: str, needed: dict[str, set[str]]) -> str:
    """The source of ``module_name`` with only its needed functions (and the imports they use)."""
    keep = needed[module_name]
    tree = parse_python(inspect.getsource(importlib.import_module(module_name)))
    body = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name in keep:
                body.append(node)
        elif isinstance(node, ast.ImportFrom) and node.level:
            source = _relative_source(module_name, node)
            node.names = [a for a in node.names if _keeps(source, a.name, needed)]
            if node.names:
                body.append(node)
        else:
            body.append(node)
    tree.body = body
    return ast.unparse(tree) + "\n"


_INIT = '''"""attention_ref as {assignment} may use it: the building blocks it gives, nothing else."""
{imports}{served}
_GIVEN = {given!r}
_GRADED = {graded!r}
#: Names asked of this package that it does not give, in order ("*": a star import). The sandbox's runner
#: reports them after each cell (a refusal a `try` swallowed is still explained), the student kit's checks name them.
_REFUSED = []


def __getattr__(name):
    if name == "__all__":  # `from attention_ref import *` gives the building blocks only: say so
        _REFUSED.append("*")
        return list(_GIVEN)
    if name.startswith("__"):
        raise AttributeError(name)
    _REFUSED.append(name)
    if name in _GRADED:
        raise ImportError(f"the reference version of `{{name}}` cannot be used in {assignment}: `{{name}}` is not "
                          f"given by this notebook, it is what the notebook asks you to write")
    raise ImportError(f"`{{name}}` is not one of the building blocks {assignment} gives "
                      f"({given_list}): it is not given by this notebook, so it cannot be imported from attention_ref")
'''


@functools.lru_cache(maxsize=None)
def given_package(assignment: str, given: tuple[str, ...], graded: tuple[str, ...]) -> dict[str, str]:
    """``{relative path: source}`` of the ``attention_ref`` package the sandbox of ``assignment`` gets.

    Parameters
    ----------
    assignment : str
        The assignment id (quoted in the messages of the generated package).
    given, graded : tuple of str
        The names the notebook gives and the names it grades.

    Raises
    ------
    GivenError
        When a given function reaches a graded one, or a generated module still defines a graded name.
    """
    overlap = sorted(set(given) & set(graded))
    if overlap:
        raise GivenError(f"{assignment} both gives and grades {', '.join(overlap)}")
    needed = _reachable(list(given))
    for module, names in needed.items():
        leaked = sorted(names & set(graded))
        if leaked:
            raise GivenError(f"{assignment} gives {', '.join(given)}, which need(s) {', '.join(leaked)} "
                             f"(from {module}), a name {assignment} grades")
    _add_constant_sources(needed)
    files = {}
    for module in needed:
        source = _prune(module, needed)
        defined = {n.name for n in parse_python(source).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        if defined & set(graded):
            raise GivenError(f"the generated {module} would define {sorted(defined & set(graded))}, graded in {assignment}")
        files[module.split(".", 1)[1].replace(".", "/") + ".py"] = source
    package = importlib.import_module(PACKAGE)
    imports = "\n".join(f"from .{getattr(package, n).__module__.split('.', 1)[1]} import {n}" for n in given)
    served = ""
    if given:  # nothing given, nothing to serve: the package then holds no code of the grader's at all
        served = "\nfrom ._memo import serve as _serve\n" + "\n".join(f"{n} = _serve({n!r}, {n})" for n in given)
        files["_memo.py"] = Path(memo.__file__).read_text()
    files["__init__.py"] = _INIT.format(assignment=assignment, imports=imports, served=served, given=list(given),
                                        graded=sorted(graded), given_list=", ".join(given) or "none")
    return files


def write_given_package(directory: Path, assignment: str, given, graded, kept: bytes | None = None) -> Path:
    """Write the package into ``directory / "attention_ref"``, with ``kept`` as its ``_memo.json`` (the
    kit's, :func:`build_memo`) if given; returns ``directory`` (for ``sys.path``)."""
    root = Path(directory) / PACKAGE
    for rel, source in given_package(assignment, tuple(given), tuple(graded)).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(source)
    if kept:
        (root / memo.FILE).write_bytes(kept)
    return Path(directory)


def literal_calls(notebook: bytes, given) -> list[tuple[str, tuple, dict]]:
    """``(name, args, kwargs)`` of each call of a ``given`` function in the notebook's code cells whose
    arguments are all literals (``compare_scorers(d=16, seeds=(0, 1, 2))``), in notebook order."""
    found = []
    for cell in read_cells(notebook):
        try:
            tree = parse_python(cell.python) if cell.python else None
        except (SyntaxError, ValueError, RecursionError):
            continue
        for node in ast.walk(tree) if tree is not None else ():
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in given):
                continue
            if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
                continue
            try:
                args = tuple(ast.literal_eval(a) for a in node.args)
                kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
            except (ValueError, TypeError, SyntaxError, RecursionError):
                continue
            found.append((node.func.id, args, kwargs))
    return found


def build_memo(given, notebooks) -> bytes | None:
    """The ``_memo.json`` of a package that gives ``given`` to the notebooks ``notebooks`` (their bytes), or None.

    Each literal call of a given function (:func:`literal_calls`) is computed once with the
    reference; one that returned plain data is kept.
    """
    package = importlib.import_module(PACKAGE)
    entries, seen = [], set()
    for notebook in notebooks:
        for name, args, kwargs in literal_calls(notebook, set(given)):
            func = getattr(package, name)
            key = memo.key(func, args, kwargs)
            if key is None or key in seen:
                continue
            seen.add(key)
            value = func(*args, **kwargs)
            try:
                entries.append({"key": key, "value": memo.encode(value)})
            except ValueError:
                continue
    return json.dumps({"entries": entries}).encode() if entries else None
