"""Static scan of a submission: flag, with cell and line, what a plain answer never needs.

The scan parses every code cell with :mod:`ast` (IPython ``%``/``!`` lines blanked, so line numbers
stay those of the cell) and reports what a course answer has no reason to contain: IPython hooks,
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

from .cells import Cell

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
             "addaudithook": "audit hooks", "setrecursionlimit": None}
DUNDER_ATTRS = {"__globals__", "__code__", "__closure__", "__builtins__", "__subclasses__", "__bases__", "__mro__",
                "__dict__", "f_back", "f_globals", "f_locals", "f_builtins", "tb_frame", "gi_frame", "cr_frame",
                "__loader__", "__spec__"}
FAKE_COMPARISON_METHODS = {"__eq__", "__ne__", "__bool__", "__array_ufunc__", "__array_function__",
                           "__array_priority__", "__array__", "__float__", "__array_interface__"}
SUSPECT_PATH = re.compile(r"\.ipynb\b|gradebook|(^|[/\\])(source|solutions|autograded|submitted|release|feedback)"
                          r"([/\\]|$)|course\.yml|nbgrader_config|(^|[/\\])\.\.([/\\]|$)|^/(work|root|home|etc|proc)\b|"
                          r"\.git\b|attention_ref[/\\]")
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


class _Scanner(ast.NodeVisitor):
    def __init__(self, aliases: dict[str, str], graded: set[str], assignment: str, lines: list[str]):
        self.aliases = aliases  # name bound in the notebook -> module it refers to ("np" -> "numpy")
        self.graded = graded
        self.assignment = assignment
        self.lines = lines
        self.found: list[tuple[int, str, str]] = []  # (line, rule, message)

    # -- helpers
    def flag(self, node: ast.AST, rule: str, message: str) -> None:
        self.found.append((getattr(node, "lineno", 1), rule, message))

    def module_of(self, node: ast.AST) -> str | None:
        """The module an expression's root name refers to, as far as the notebook's imports tell."""
        root = _root_name(node)
        return self.aliases.get(root) if root else None

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
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._check_target(node.target, "changes")
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._check_target(node.target, "assigns")
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self._check_target(target, "deletes")
        self.generic_visit(node)

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
        self.generic_visit(node)

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
        self.generic_visit(node)

    # -- objects that can fake a comparison (nbgrader issue 1379)
    def visit_ClassDef(self, node: ast.ClassDef) -> None:
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
        self.generic_visit(node)

    # -- paths to notebooks or the course directory
    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and len(node.value) < 500 and SUSPECT_PATH.search(node.value):
            self.flag(node, "course-files", f"mentions the path {node.value!r} (notebooks, the gradebook or the "
                                            f"course directory)")


def _blank_magics(source: str) -> str:
    out = []
    for line in source.split("\n"):
        out.append("" if line.lstrip().startswith(("%", "!")) else line)
    return "\n".join(out)


def scan_cells(cells: Sequence[Cell], graded: Iterable[str] = (), assignment: str = "this notebook") -> list[dict]:
    """Flags of every code cell, in notebook order (imports carry over from cell to cell)."""
    aliases = {"np": "numpy", "numpy": "numpy"}
    graded = set(graded)
    flags = []
    for cell in cells:
        try:
            tree = ast.parse(_blank_magics(cell.source))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # a cell that does not parse cannot hide anything: it does not run either
        scanner = _Scanner(aliases, graded, assignment, cell.source.split("\n"))
        scanner.visit(tree)
        seen = set()
        for line, rule, message in scanner.found:
            if (line, rule, message) in seen:
                continue
            seen.add((line, rule, message))
            text = scanner.lines[line - 1].strip() if 0 < line <= len(scanner.lines) else ""
            flags.append({"kind": "static scan", "rule": rule, "grade_id": cell.grade_id, "cell": cell.label,
                          "cell_index": cell.index, "line": line,
                          "evidence": f"cell {cell.label}, line {line}: {message}: `{text[:160]}`"})
    return flags
