"""A kernel that dies before it is ready is replaced, not charged to the submission.

Kernels started side by side can race for a ZMQ port and die before replying to
``kernel_info`` (field notes). Here the first kernel is killed right after it is launched, which
is what that race looks like from nbclient's side.
"""
from __future__ import annotations

import inspect

import jupyter_client
import pytest
from jupyter_client.manager import AsyncKernelManager
from nbformat.v4 import new_code_cell, new_notebook

from autograder.grading.timing import TimedExecute


class DiesFirstTime(AsyncKernelManager):
    launched = 0

    async def start_kernel(self, **kwargs):
        await super().start_kernel(**kwargs)
        type(self).launched += 1
        if type(self).launched == 1:
            await self.provisioner.kill()


def _execute(tmp_path, attempts: int):
    DiesFirstTime.launched = 0
    nb = new_notebook(cells=[new_code_cell("print(6 * 7)")],
                      metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    executor = TimedExecute(kernel_manager_class=DiesFirstTime, kernel_start_attempts=attempts, timeout=60,
                            startup_timeout=60)
    nb, _ = executor.preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    return nb


def test_a_kernel_that_dies_before_it_is_ready_is_started_again(tmp_path):
    nb = _execute(tmp_path, attempts=3)
    assert DiesFirstTime.launched == 2
    assert [o.get("text") for o in nb.cells[0].outputs] == ["42\n"]


def test_without_retries_the_dead_kernel_fails_the_run(tmp_path):
    with pytest.raises(RuntimeError, match="died"):
        _execute(tmp_path, attempts=1)
    assert DiesFirstTime.launched == 1


#: jupyter_client's private hook as the overrides were written against it (8.10.0: name, kind, default
#: of each parameter): ``(self, *, transport_encryption=None, **kw)``.
HOOK_SIGNATURE = [("self", inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty),
                  ("transport_encryption", inspect.Parameter.KEYWORD_ONLY, None),
                  ("kw", inspect.Parameter.VAR_KEYWORD, inspect.Parameter.empty)]


def test_the_private_hook_our_kernel_managers_override_is_unchanged():
    """sandbox.kernel.SandboxKernelManager overrides jupyter_client's
    private ``_async_pre_start_kernel`` (pyproject bounds jupyter_client to the version tested): if a
    release renames it, changes its parameters, or starts the kernel without calling it, this fails
    with what changed, instead of the managers silently starting plain kernels."""
    from autograder.sandbox.kernel import SandboxKernelManager

    hook = AsyncKernelManager._async_pre_start_kernel
    assert inspect.iscoroutinefunction(hook), f"jupyter_client {jupyter_client.__version__}: the hook is not async"
    got = [(p.name, p.kind, p.default) for p in inspect.signature(hook).parameters.values()]
    assert got == HOOK_SIGNATURE, (
        f"jupyter_client {jupyter_client.__version__} changed the private hook our kernel managers override: "
        f"_async_pre_start_kernel{inspect.signature(hook)}, written against (self, *, transport_encryption=None, "
        f"**kw) of 8.10.0. Read its new source, check sandbox.kernel."
        f"SandboxKernelManager, then update HOOK_SIGNATURE and pyproject's bound")
    starter = inspect.getsource(AsyncKernelManager.start_kernel)
    assert "self._async_pre_start_kernel(**kw)" in starter, (
        f"jupyter_client {jupyter_client.__version__}: start_kernel no longer calls self._async_pre_start_kernel"
        f"(**kw), so the overrides would never run (plain kernels, unsandboxed)")
    assert "if self.provisioner is None" in inspect.getsource(hook)  # it sets it before calling the hook
    assert "_async_pre_start_kernel" in vars(SandboxKernelManager)
    own = [(p.name, p.kind) for p in inspect.signature(SandboxKernelManager._async_pre_start_kernel).parameters.values()]
    assert own == [("self", inspect.Parameter.POSITIONAL_OR_KEYWORD), ("kw", inspect.Parameter.VAR_KEYWORD)]


#: The cell's reply comes, then the kernel's "idle" comes ``seconds`` late: what a loaded host can do too.
LATE_IDLE = ("import time\nk = get_ipython().kernel\n_publish = k._publish_status\n"
             "def _late(status, *a, **kw):\n    if status == 'idle':\n        time.sleep({seconds})\n"
             "    return _publish(status, *a, **kw)\nk._publish_status = _late")
#: A loop that swallows the interrupt of the cell timeout: nbclient gives up on it.
INTERRUPT_PROOF = "import time\nwhile True:\n    try:\n        time.sleep(60)\n    except KeyboardInterrupt:\n        pass"


def _run(tmp_path, *sources, timeout=60):
    from autograder.grading.timing import StudentKernelError

    nb = new_notebook(cells=[new_code_cell(s) for s in sources],
                      metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    executor = TimedExecute(timeout=timeout, startup_timeout=60, iopub_timeout=1)
    try:
        executor.preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    except StudentKernelError as exc:
        return "student", exc
    except Exception as exc:  # noqa: BLE001 - what faults.of_nbgrader classifies: the grader's unless named
        return "unclassified", exc
    return "ran", None


def test_late_output_after_a_reply_is_not_charged_to_the_student(tmp_path):
    """Red team 3 made any nbclient error in a ready kernel the student's; an IOPub timeout after the kernel
    replied to a cell that did not time out is as much the loaded host's doing: left to faults (the grader's)."""
    whose, exc = _run(tmp_path, LATE_IDLE.format(seconds=3), "1 + 1")
    assert whose == "unclassified" and "Timeout waiting for IOPub output" in str(exc)


def test_a_kernel_that_ignores_the_cell_timeout_is_the_student_s(tmp_path):
    whose, exc = _run(tmp_path, INTERRUPT_PROOF, timeout=2)
    assert whose == "student" and "IOPub" in str(exc)
