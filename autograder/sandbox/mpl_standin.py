"""A stand-in for matplotlib inside the verification sandbox, so a notebook's plots cost nothing there.

Verification only needs the functions a notebook defines, but every course notebook imports
``matplotlib.pyplot`` and draws a few figures. In a fresh sandboxed Python that import alone costs
about 0.8 s of the 1.05 s a verification took (``python -X importtime``, 2026-11-29), and the
figures are thrown away. The runner therefore installs this module first: ``import matplotlib``
and every ``matplotlib.*`` / ``mpl_toolkits.*`` submodule become stand-ins whose attributes and
calls return inert :class:`Figment` objects; ``subplots`` returns a figure and an object array of
axes shaped as matplotlib's (so ``fig, axes = plt.subplots(1, 4)`` and ``for ax in axes`` work).

It must never change a grade, so it counts every use (:data:`touches`). The runner reports which
cells raised after using it and which graded calls used it at all; the grader then runs the whole
verification again with the real matplotlib (``launch.run_session``). A grading job also verifies
again with the real matplotlib whenever a verdict disagrees with nbgrader's in-kernel result
(``autograder.grading.verification.verify``). So the stand-in can only make verification faster:
whatever it cannot imitate (arithmetic on a Figment, unpacking ``ax.get_xlim()``, a graded
function that plots) sends the submission down the ordinary path.

Loaded by the runner by path, like ``checks/core.py``: standard library only.
"""
import importlib.abc
import importlib.machinery
import sys
import types

#: Uses of the stand-in so far (attribute reads and writes, calls, indexing, iteration, imports).
touches = 0
ROOTS = ("matplotlib", "mpl_toolkits")


def _touch():
    global touches
    touches += 1


def _attribute(name):
    """Any attribute of a stand-in object or module: ``subplots``, or a Figment."""
    _touch()  # first: a probe that fails (``matplotlib.__version__``) still counts as a use
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)  # protocols (copy, pickle, numpy's) must not think it supports them
    return {"subplots": subplots, "imshow": imshow}.get(name) or Figment()


def imshow(X=None, *args, **kwargs):
    """``imshow``'s one check that a cell can trip on: an array of a shape that is no image raises as there.

    Raising more often than matplotlib is harmless (a cell that fails after using the stand-in is
    run again with the real one); raising less would let the rest of the cell run here only.
    """
    _touch()
    shape = getattr(X, "shape", None)
    if isinstance(shape, tuple) and not (len(shape) == 2 or (len(shape) == 3 and shape[-1] in (1, 3, 4))):
        raise TypeError(f"Invalid shape {shape} for image data")
    return Figment()


class Figment:
    """Whatever matplotlib would have returned: accepts any attribute, call, index or ``with``."""

    __slots__ = ()

    def __getattr__(self, name):
        return _attribute(name)

    def __setattr__(self, name, value):
        _touch()

    def __call__(self, *args, **kwargs):
        _touch()
        return Figment()

    def __getitem__(self, key):
        _touch()
        return Figment()

    def __setitem__(self, key, value):
        _touch()

    def __iter__(self):
        _touch()
        return iter(())

    def __enter__(self):
        _touch()
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return "<matplotlib stand-in>"


def subplots(nrows=1, ncols=1, *args, squeeze=True, **kwargs):
    """``(figure, axes)`` as ``plt.subplots`` returns them: one Figment, or an object array of them."""
    _touch()
    if not (type(nrows) is int and type(ncols) is int and nrows > 0 and ncols > 0):
        raise TypeError("the matplotlib stand-in only imitates subplots(nrows, ncols) with positive int sizes")
    if nrows == ncols == 1 and squeeze:
        return Figment(), Figment()
    import numpy as np

    axes = np.empty((nrows, ncols), dtype=object)
    for index in np.ndindex(axes.shape):
        axes[index] = Figment()
    return Figment(), axes.squeeze() if squeeze else axes


class StandInModule(types.ModuleType):
    """``matplotlib`` or one of its submodules: every attribute a Figment, except ``subplots``."""

    def __getattr__(self, name):
        return _attribute(name)


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] not in ROOTS:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        _touch()
        module = StandInModule(spec.name, "a stand-in for matplotlib in the verification sandbox")
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


def install():
    """Put the stand-in in front of the real matplotlib (before anything imported it)."""
    for name in [m for m in sys.modules if m.split(".")[0] in ROOTS]:
        del sys.modules[name]
    sys.meta_path.insert(0, _Finder())
