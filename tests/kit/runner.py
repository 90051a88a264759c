"""Run a notebook's code cells as Run All would, in whatever Python runs this file, and print JSON.

``python runner.py NOTEBOOK ASSIGNMENT``: every code cell (IPython magics become ``pass``; a cell
that raises is recorded and the next one runs), stdout captured per cell; then
``grader.validate(grade_id)`` for every test cell's grade_id. Prints
``{"cells": [{"index", "output", "error"}], "validate": {grade_id: error or null}, "modules": {...}}``.
No import of this repository: the kit's tests run it in a virtual environment that holds only
the kit, and the same file under the grader's environment gives the full package's outputs.
"""
import contextlib
import io
import json
import re
import sys

_MAGIC = re.compile(r"^(\s*)[%!].*$", re.M)


def main(path, assignment):
    import matplotlib
    matplotlib.use("Agg")
    nb = json.load(open(path, encoding="utf-8"))
    namespace = {"__name__": "__main__"}
    cells, test_ids = [], []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade") and not meta.get("solution"):
            test_ids.append(meta["grade_id"])
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        out, error = io.StringIO(), None
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            try:
                exec(compile(_MAGIC.sub(r"\1pass", source), f"<cell {index}>", "exec"), namespace)
            except BaseException as exc:  # noqa: BLE001
                error = f"{type(exc).__name__}: {exc}"
        cells.append({"index": index, "output": out.getvalue(), "error": error})
    validate = {}
    for grade_id in test_ids:
        try:
            namespace["grader"].validate(grade_id)
            validate[grade_id] = None
        except AssertionError as exc:
            validate[grade_id] = str(exc)
    import attention_ref
    import autograder
    modules = {"autograder": autograder.__file__, "attention_ref": attention_ref.__file__}
    print(json.dumps({"cells": cells, "validate": validate, "modules": modules}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
