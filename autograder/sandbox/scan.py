"""Static scan of a submission: flag, with cell and line, what a plain answer never needs.

The scan parses every code cell with :mod:`ast` after the one IPython rule of ``cells.py``
(``%``/``!`` lines become ``pass``, so line numbers stay those of the cell and indented magics
still parse), walks it without recursion, and reports what a course answer has no reason to contain: IPython hooks,
patches of numpy or of the grader's modules, ``sys.modules``/``builtins`` edits, process killers,
low-level or introspective modules, objects that can fake a comparison, reading notebooks or the
course directory, dynamic imports and importing the reference version of a graded name.

Flags go to the instructor; they never change a score by themselves. Each flag is a dict::

    {"kind": "static scan", "rule": "numpy-patch", "grade_id": "softmax" | None,
     "cell": "cell id or #index", "cell_index": 4, "line": 3, "evidence": "line 3: ..."}
"""
from __future__ import annotations

import ast
import re
from typing import Iterable, Sequence

from ..notebook.model import Cell, neutralise_ipython, parse_python

IPYTHON_ATTRS = {
    "input_transformers_post", "input_transformers_cleanup", "input_splitter", "ast_transformers",
    "showtraceback", "_showtraceback", "showsyntaxerror", "set_custom_exc", "CustomTB", "custom_exceptions",
    "run_cell", "run_cell_async", "events", "register_magic_function", "set_hook", "kernel", "display_pub",
}
#: Modules whose attributes a plain answer never assigns (root names).
PROTECTED_MODULES = {"numpy", "autograder", "attention_ref", "nbgrader", "IPython", "ipykernel", "sys",
                     "builtins", "os", "math", "warnings", "io", "contextlib", "traceback", "json",
                     "unittest", "pytest"}
#: Modules a plain answer never imports, and why.
SUSPECT_MODULES = {
    "ctypes": "low-level memory access", "cffi": "low-level memory access", "subprocess": "runs other programs",
    "signal": "signal handlers", "multiprocessing": "other processes", "gc": "reaches any live object",
    "inspect": "reads the caller's frames", "importlib": "dynamic imports", "builtins": "edits the builtins",
    "socket": "network access", "shutil": "file operations", "glob": "lists files", "pickle": "pickles",
    "marshal": "code objects", "faulthandler": "crash handling", "IPython": "the IPython kernel",
    "ipykernel": "the IPython kernel", "nbgrader": "the grader", "nbformat": "reads notebooks",
    "nbclient": "runs notebooks", "jupyter_client": "talks to kernels", "sqlite3": "reads databases",
    "sqlalchemy": "reads databases", "threading": "background threads", "atexit": "exit hooks",
    "_tracemalloc": "the memory measurement of the checks",
    "resource": "resource limits", "_thread": "background threads", "posix": "low-level system calls",
    "sys": None, "os": None,  # common enough: only specific attributes are flagged
}
OS_CALLS = {"_exit": "ends the process", "kill": "sends signals", "killpg": "sends signals",
            "abort": "ends the process", "fork": "starts processes", "forkpty": "starts processes",
            "system": "runs a shell command", "popen": "runs a shell command", "execv": "replaces the process",
            "execve": "replaces the process", "execl": "replaces the process", "execvp": "replaces the process",
            "listdir": "lists files", "scandir": "lists files", "walk": "lists files", "chdir": "changes directory",
            "remove": "deletes files", "unlink": "deletes files", "rmdir": "deletes directories",
            "setrlimit": "changes resource limits", "write": "writes to a raw file descriptor",
            "dup2": "redirects file descriptors", "close": "closes file descriptors"}
SYS_ATTRS = {"modules": "the table of imported modules", "meta_path": "the import machinery",
             "path_hooks": "the import machinery", "settrace": "tracing hooks", "setprofile": "tracing hooks",
             "_getframe": "the caller's frames", "excepthook": "the traceback hook", "exit": "ends the process",
             "displayhook": "output hook",
             "addaudithook": "audit hooks", "path": "the import search path", "setrecursionlimit": None}
#: tracemalloc calls that change what the memory checks measure (see checks/core.call_student).
MEASUREMENT_CALLS = {"stop", "start", "reset_peak", "clear_traces"}
DUNDER_ATTRS = {"__globals__", "__code__", "__closure__", "__builtins__", "__subclasses__", "__bases__", "__mro__",
                "__dict__", "f_back", "f_globals", "f_locals", "f_builtins", "tb_frame", "gi_frame", "cr_frame",
                "__loader__", "__spec__"}
FAKE_COMPARISON_METHODS = {"__eq__", "__ne__", "__bool__", "__array_ufunc__", "__array_function__",
                           "__array_priority__", "__array__", "__float__", "__array_interface__"}
SUSPECT_PATH = re.compile(r"\.ipynb\b|gradebook|(^|[/\\])(source|solutions|autograded|submitted|release|feedback)"
                          r"([/\\]|$)|course\.yml|nbgrader_config|(^|[/\\])\.\.([/\\]|$)|^/(work|root|home|etc|proc)\b|"
                          r"\.git\b|attention_ref[/\\]")
#: Flags kept per notebook; the rest are counted in one last flag.
MAX_FLAGS = 50
DYNAMIC_CALLS = {"__import__": "a dynamic import", "exec": "runs code from a string", "eval": "runs code from a string",
                 "compile": "compiles code from a string", "globals": None, "vars": None, "breakpoint": None}


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif isinstance(node, ast.Call):
        parts.append(_dotted(node.func) + "()")
    else:
        parts.append("…")
    return ".".join(reversed(parts))


def _value_chain_names(node: ast.AST) -> list[ast.Name]:
    """The names an attribute/subscript target is reached through (``[np][0].x`` -> ``np``), slices excluded."""
    found, todo = [], [node]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name):
            found.append(node)
        elif isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
            todo.append(node.value)
        elif isinstance(node, ast.Call):
            todo.append(node.func)
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            todo.extend(node.elts)
        elif isinstance(node, ast.Dict):
            todo.extend(v for v in node.values if v is not None)
        elif isinstance(node, (ast.BoolOp,)):
            todo.extend(node.values)
        elif isinstance(node, ast.IfExp):
            todo.extend([node.body, node.orelse])
        elif isinstance(node, ast.NamedExpr):
            todo.append(node.value)
    return found


class _Scanner:
    def __init__(self, aliases: dict[str, str], graded: set[str], assignment: str, lines: list[str]):
        self.aliases = aliases  # name bound in the notebook -> module it refers to ("np" -> "numpy")
        self.graded = graded
        self.assignment = assignment
        self.lines = lines
        self.found: list[tuple[int, str, str]] = []  # (line, rule, message)
        self.graded_defs: list[ast.FunctionDef] = []

    def scan(self, tree: ast.AST) -> None:
        """Visit every node in source order, without recursion (a deep expression cannot crash it)."""
        stack = [tree]
        while stack:
            node = stack.pop()
            method = getattr(self, "visit_" + type(node).__name__, None)
            if method is not None:
                method(node)
            stack.extend(reversed(list(ast.iter_child_nodes(node))))

    # -- helpers
    def flag(self, node: ast.AST, rule: str, message: str) -> None:
        self.found.append((getattr(node, "lineno", 1), rule, message))

    def module_of(self, node: ast.AST) -> str | None:
        """The module an expression is reached from, as far as the notebook's imports and aliases tell.

        Follows the value chain through attributes, subscripts, calls and literal containers, so
        ``m.x`` after ``m = np`` and ``[np][0].x`` both reach numpy.
        """
        root = _root_name(node)
        if root in self.aliases:
            return self.aliases[root]
        for name in _value_chain_names(node):
            if name.id in self.aliases:
                return self.aliases[name.id]
        return None

    def _track_alias(self, node: ast.Assign) -> None:
        """``m = np`` / ``lin = np.linalg`` / ``a, b = np, sys``: the new names refer to the module too."""
        pairs = []
        for target in node.targets:
            if isinstance(target, ast.Name):
                pairs.append((target, node.value))
            elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(node.value, (ast.Tuple, ast.List)):
                pairs += list(zip(target.elts, node.value.elts))
        for target, value in pairs:
            if not isinstance(target, ast.Name):
                continue
            module = self.module_of(value) if isinstance(value, (ast.Name, ast.Attribute, ast.Subscript,
                                                                  ast.List, ast.Tuple)) else None
            if module:
                self.aliases[target.id] = module

    # -- imports
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            top = alias.name.split(".")[0]
            self.aliases[alias.asname or top] = alias.name if alias.asname else top
            self._check_import(node, alias.name, None)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        for alias in node.names:
            self.aliases[alias.asname or alias.name] = f"{module}.{alias.name}"
            self._check_import(node, module, alias.name)

    def _check_import(self, node, module: str, name: str | None) -> None:
        top = module.split(".")[0]
        if top == "attention_ref":
            if module != "attention_ref":
                self.flag(node, "reference-internals", f"imports `{module}`, the reference's internals")
            elif name in self.graded:
                self.flag(node, "reference-import",
                          f"imports the reference version of `{name}`, which {self.assignment} grades")
        elif top == "autograder" and module not in ("autograder.hidden", "autograder.notebook"):
            self.flag(node, "grader-import", f"imports `{module}{'.' + name if name else ''}` from the grader")
        elif top in SUSPECT_MODULES and SUSPECT_MODULES[top]:
            self.flag(node, "suspect-import", f"imports `{module}` ({SUSPECT_MODULES[top]})")
        elif module in ("os", "sys") and name:
            table = OS_CALLS if module == "os" else SYS_ATTRS
            if name in table and table[name]:
                self.flag(node, f"{module}-{name.strip('_')}", f"imports `{module}.{name}` ({table[name]})")

    # -- assignments to module attributes
    def _check_target(self, target: ast.AST, verb: str) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._check_target(element, verb)
            return
        if isinstance(target, ast.Starred):
            self._check_target(target.value, verb)
            return
        if isinstance(target, (ast.Attribute, ast.Subscript)):
            module = self.module_of(target)
            root = module.split(".")[0] if module else None
            if root in PROTECTED_MODULES:
                rule = {"numpy": "numpy-patch", "autograder": "grader-patch", "attention_ref": "grader-patch",
                        "sys": "sys-edit", "builtins": "builtins-edit"}.get(root, "module-patch")
                self.flag(target, rule, f"{verb} `{_dotted(target) if isinstance(target, ast.Attribute) else _dotted(target.value) + '[…]'}`,"
                                        f" part of the module `{module}`")
            elif isinstance(target, ast.Attribute) and target.attr in IPYTHON_ATTRS | {"__class__", "__code__", "__globals__"}:
                self.flag(target, "ipython-hook" if target.attr in IPYTHON_ATTRS else "dunder",
                          f"{verb} `{_dotted(target)}`")
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute) \
                    and target.value.attr in ("__dict__", "__builtins__"):
                self.flag(target, "module-patch", f"{verb} an entry of `{_dotted(target.value)}`")

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._check_target(target, "assigns")
        value_module = self.module_of(node.value.func) if isinstance(node.value, ast.Call) else None
        for target in node.targets:
            if not isinstance(target, ast.Name):
                continue
            if (value_module or "").split(".")[0] == "autograder":  # the given cell's `grader = Grader(...)`
                self.aliases[target.id] = value_module + "()"
            else:
                self._check_rebind(target, target.id)
        self._track_alias(node)

    def _check_rebind(self, node: ast.AST, name: str) -> None:
        """A name the given cell bound to the grader's (``check``, ``grader``) bound again to something else."""
        if (self.aliases.get(name) or "").split(".")[0] == "autograder":
            self.flag(node, "grader-rebind", f"binds `{name}` again, a name the notebook's given cell binds to "
                                             f"the grader's own")

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._check_target(node.target, "changes")

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._check_target(node.target, "assigns")

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self._check_target(target, "deletes")

    # -- names, attributes, calls
    def visit_Name(self, node: ast.Name) -> None:
        if node.id == "get_ipython":
            self.flag(node, "ipython-hook", "uses `get_ipython`, the running IPython shell")
        elif node.id == "__builtins__":
            self.flag(node, "builtins-edit", "uses `__builtins__`")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        module = self.module_of(node.value)
        if module == "sys" and node.attr in SYS_ATTRS and SYS_ATTRS[node.attr]:
            self.flag(node, f"sys-{node.attr.strip('_')}", f"uses `sys.{node.attr}` ({SYS_ATTRS[node.attr]})")
        elif module == "os" and node.attr in OS_CALLS:
            self.flag(node, f"os-{node.attr.strip('_')}", f"uses `os.{node.attr}` ({OS_CALLS[node.attr]})")
        elif node.attr in IPYTHON_ATTRS and (module is None or module.split(".")[0] not in ("numpy", "os")):
            if node.attr not in ("events", "kernel", "run_cell") or _root_name(node) == "get_ipython":
                self.flag(node, "ipython-hook", f"uses `{_dotted(node)}`, an IPython hook")
        elif node.attr in DUNDER_ATTRS:
            self.flag(node, "introspection", f"uses `{_dotted(node)}` (reaches the interpreter's internals)")
        elif module and module.split(".")[0] == "attention_ref" and node.attr in self.graded:
            self.flag(node, "reference-import",
                      f"uses `{_dotted(node)}`, the reference version of a name {self.assignment} grades")

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else None
        if name in ("setattr", "delattr") and node.args:
            module = self.module_of(node.args[0])
            if module or isinstance(node.args[0], ast.Call):
                self.flag(node, "module-patch", f"calls `{name}` on `{_dotted(node.args[0])}`"
                                                + (f" (the module `{module}`)" if module else ""))
        elif name in DYNAMIC_CALLS and DYNAMIC_CALLS[name]:
            self.flag(node, "dynamic-code", f"calls `{name}` ({DYNAMIC_CALLS[name]})")
        elif name == "vars" and node.args and self.module_of(node.args[0]):
            self.flag(node, "module-patch", f"reads `vars({_dotted(node.args[0])})`, a module's namespace")
        elif isinstance(func, ast.Attribute) and func.attr == "import_module":
            self.flag(node, "dynamic-code", f"calls `{_dotted(func)}` (a dynamic import)")
        elif name in ("getattr", "hasattr") and len(node.args) >= 2:
            attr = node.args[1]
            if not (isinstance(attr, ast.Constant) and isinstance(attr.value, str)) or attr.value.startswith("__"):
                self.flag(node, "introspection", f"calls `{name}` with a computed or special attribute name "
                                                 f"(reaches names the code does not spell out)")
        if isinstance(func, ast.Attribute) and name is None and isinstance(func.value, ast.Call) \
                and isinstance(func.value.func, ast.Name) and func.value.func.id in ("globals", "locals", "vars"):
            self.flag(node, "introspection", f"calls `{_dotted(func)}` (edits a namespace through reflection)")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._check_rebind(node, node.name)
        if node.name in self.graded:
            self.graded_defs.append(node)  # checked by finish(), once every import of the cell is known

    visit_AsyncFunctionDef = visit_FunctionDef

    def finish(self) -> None:
        """A graded function that switches the memory measurement off or resets its peak."""
        for node in self.graded_defs:
            for inner in ast.walk(node):
                if isinstance(inner, ast.Attribute):
                    target = f"{self.module_of(inner.value) or ''}.{inner.attr}"
                elif isinstance(inner, ast.Name):
                    target = self.aliases.get(inner.id, "")
                else:
                    continue
                module, _, attr = target.rpartition(".")
                if module.split(".")[0] == "tracemalloc" and attr in MEASUREMENT_CALLS:
                    self.flag(inner, "measurement-tamper", f"`{node.name}` uses `{target}`: it would change "
                                                           f"the memory measurement of its own check")

    def visit_Subscript(self, node: ast.Subscript) -> None:
        value = node.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
                and value.func.id in ("globals", "locals", "vars"):
            self.flag(node, "introspection", f"indexes `{value.func.id}()` (reaches names through reflection)")

    # -- objects that can fake a comparison (nbgrader issue 1379)
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._check_rebind(node, node.name)
        for base in node.bases:
            dotted = _dotted(base)
            module = self.module_of(base)
            if dotted.split(".")[-1] in ("ndarray", "float", "int", "bool", "complex", "generic", "float64") and \
                    (module is None or module.split(".")[0] == "numpy"):
                self.flag(node, "fake-result", f"class `{node.name}` subclasses `{dotted}` (an answer that is not plain numbers)")
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in FAKE_COMPARISON_METHODS:
                self.flag(item, "fake-result", f"class `{node.name}` defines `{item.name}`: an object that can "
                                               f"fake a comparison (nbgrader issue 1379)")
            elif isinstance(item, ast.Assign) and any(isinstance(t, ast.Name) and t.id in FAKE_COMPARISON_METHODS
                                                      for t in item.targets):
                self.flag(item, "fake-result", f"class `{node.name}` sets a comparison method: an object that can "
                                               f"fake a comparison (nbgrader issue 1379)")

    # -- paths to notebooks or the course directory
    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and len(node.value) < 500 and SUSPECT_PATH.search(node.value):
            self.flag(node, "course-files", f"mentions the path {node.value!r} (notebooks, the gradebook or the "
                                            f"course directory)")


def scan_cells(cells: Sequence[Cell], graded: Iterable[str] = (), assignment: str = "this notebook") -> list[dict]:
    """Flags of every code cell, in notebook order (imports carry over from cell to cell)."""
    aliases = {"np": "numpy", "numpy": "numpy"}
    graded = set(graded)
    flags = []
    for cell in cells:
        python = cell.python if cell.python is not None else neutralise_ipython(cell.source)
        if python is None:
            continue  # a cell magic verification does not run (%%bash, %%writefile, ...)
        scanner = _Scanner(aliases, graded, assignment, cell.source.split("\n"))
        try:
            tree = parse_python(python)
        except SyntaxError:
            continue  # an ordinary mistake: the cell does not run in verification either
        except (ValueError, RecursionError, MemoryError) as exc:
            scanner.flag(ast.Pass(lineno=1), "unscannable", f"the cell could not be parsed for the scan "
                                                            f"({type(exc).__name__}: nested too deeply or too large)")
        else:
            scanner.scan(tree)
            scanner.finish()
        seen = set()
        for line, rule, message in scanner.found:
            if (line, rule, message) in seen:
                continue
            seen.add((line, rule, message))
            text = scanner.lines[line - 1].strip() if 0 < line <= len(scanner.lines) else ""
            flags.append({"kind": "static scan", "rule": rule, "grade_id": cell.grade_id, "cell": cell.label,
                          "cell_index": cell.index, "line": line,
                          "evidence": f"cell {cell.label}, line {line}: {message}: `{text[:160]}`",
                          "advice": f"line {line} of cell {cell.label} {message}: an answer never needs that, and the "
                                    f"grader scores only what the answer computes; remove it"})
    if len(flags) > MAX_FLAGS:  # a cell of 150,000 imports made 40 MB of reports (red team)
        more = len(flags) - MAX_FLAGS
        flags = flags[:MAX_FLAGS] + [{"kind": "static scan", "rule": "more", "grade_id": None, "cell": None,
                                      "cell_index": None, "line": None,
                                      "evidence": f"... and {more} more flags of this notebook, not listed"}]
    return flags
