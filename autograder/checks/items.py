"""The per-student items (issue 22): what a student's own numbers are, and the rule every draw must pass.

An item is drawn from the student's generator (:func:`autograder.variants.student_rng`). This
module holds no secret, but it is grader-side: the acceptance rule computes each
item's answers (``StopAndTry.scores``, ``weights``), so the student kit must never ship it (a
classroom kit gets each student's query and keys as data; docs/ARCHITECTURE.md, "Per-student numbers").

Stop and try (02)
-----------------
The lesson's example (seed 000): the query ``(1, 0)`` and the keys ``(1, 0)``, ``(0, 1)``,
``(-1, 0)``, with ``d_k = 2``. A student's item is of the same kind: a 2-vector query and three
2-vector keys with small entries (halves from -3 to 3), so the dot products can be done by hand.
Halves rather than whole numbers: with whole numbers 300 students shared 47 weight vectors
(15 the same), with halves 225 (at most 4 the same), so a copied answer tells whose it is. A draw is
kept only when it passes :func:`stop_and_try_problems` (the acceptance rule):

* the query and the keys are not zero, and no two keys are equal;
* the three raw scores differ, so there is one largest weight;
* one key clearly wins: its weight is at least :data:`WIN_RATIO` times the runner-up's;
* the weights are not one-hot: every weight is at least :data:`MIN_WEIGHT` and none above :data:`MAX_WEIGHT`;
* the winner is also the key most nearly in the query's direction (largest cosine), so "it points
  most nearly the query's way, so its dot product is the largest" explains it;
* the catalogued mistakes stay apart from the right answer by more than :data:`APART` in some
  weight: the weights of the unscaled scores, and of the scores divided by ``d_k``;
* it is not the lesson's own example (that one is worked in the prose), and neither its scores nor its
  weights are the example's: the worked answer copied from the prose must not be right.

The table size (06)
------------------
The lesson's example (the field notes' measurement, worked in 06's prose): 8 heads at ``n = 4096`` in
float32. A student's item keeps the 8 heads and draws another ``n`` (a multiple of :data:`TABLE_STEP`
from :data:`TABLE_MIN` to :data:`TABLE_MAX`, ``rng.integers``) and another dtype (one of :data:`DTYPES`,
``rng.integers``), drawn again while it is the lesson's (31 x 3 - 1 = 92 items; the lesson's byte count
is then no student's answer).

The order of the options (01, 02, 04, 05: "Check your understanding")
----------------------------------------------------------------------
Each question's four options (``checks/concepts.Question.options``, under the lesson's letters a to d)
are shown to a student in an order of their own, one permutation per question drawn with
``rng.permutation(4)``; the lesson's order (every question a, b, c, d) is never a student's. A
classmate's letters are then no answer: the grader maps each letter back through the student's own
order (:meth:`OptionOrder.lesson_letter`) before judging it. The order says nothing about which option
is right, so the student kit may hold it (and the printed options) for every student.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .concepts import LETTERS, TASK_OF, item_of, questions  # the option texts live beside their misconceptions

ITEM = "02_scaling/stop_and_try"
D_K = 2
ENTRIES, STEP = 3, 0.5  # entries are multiples of STEP in [-ENTRIES, ENTRIES]
WIN_RATIO = 2.0
MIN_WEIGHT = 0.02
MAX_WEIGHT = 0.9
APART = 0.05  # ten times the hand-rounding tolerance (forms.HAND_ATOL)
MAX_DRAWS = 10_000


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum()


@dataclass(frozen=True)
class StopAndTry:
    """A query and three keys (``d_k = 2``) and the arithmetic the lesson asks of them."""

    query: tuple[float, float]
    keys: tuple[tuple[float, float], tuple[float, float], tuple[float, float]]

    @property
    def q(self) -> np.ndarray:
        return np.array(self.query, dtype=float)

    @property
    def k(self) -> np.ndarray:
        return np.array(self.keys, dtype=float)

    def scores(self) -> np.ndarray:
        """The raw dot products of the query with each key."""
        return self.k @ self.q

    def weights(self, divisor: float = math.sqrt(D_K)) -> np.ndarray:
        """The softmax of the scores divided by ``divisor`` (the lesson's: ``sqrt(d_k)``)."""
        return _softmax(self.scores() / divisor)

    def largest(self) -> int:
        """The key (numbered from 1) that receives the largest weight."""
        return 1 + int(np.argmax(self.scores()))

    def describe(self) -> str:
        """The item as the student reads it."""
        def vec(v):
            return "(" + ", ".join(f"{x:g}" for x in v) + ")"
        return (f"query q = {vec(self.query)}; keys k1 = {vec(self.keys[0])}, k2 = {vec(self.keys[1])}, "
                f"k3 = {vec(self.keys[2])}; d_k = {D_K}")


#: The lesson's example (seed 000, "Stop and try"): worked in the prose, never a student's item.
LESSON_STOP_AND_TRY = StopAndTry((1.0, 0.0), ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)))


def stop_and_try_problems(item: StopAndTry) -> list[str]:
    """Why ``item`` breaks the acceptance rule (the module docstring); empty when it passes."""
    q, k = item.q, item.k
    problems = []
    if not q.any() or not k.any(axis=1).all():
        return ["a zero query or key"]
    if len({tuple(row) for row in k}) < 3:
        problems.append("two equal keys")
    scores = item.scores()
    if len(set(scores.tolist())) < 3:
        return problems + ["two equal scores"]
    w = item.weights()
    top, second = np.sort(w)[::-1][:2]
    if top < WIN_RATIO * second:
        problems.append(f"no clear winner ({top:.3f} against {second:.3f})")
    if w.min() < MIN_WEIGHT or w.max() > MAX_WEIGHT:
        problems.append(f"nearly one-hot weights {np.round(w, 3).tolist()}")
    cosines = scores / (np.linalg.norm(k, axis=1) * np.linalg.norm(q))
    if int(np.argmax(cosines)) != int(np.argmax(scores)) or np.isclose(np.sort(cosines)[-1], np.sort(cosines)[-2]):
        problems.append("the winner is not the key most nearly in the query's direction")
    for what, other in (("unscaled", item.weights(1.0)), ("divided by d_k", item.weights(float(D_K)))):
        if np.abs(other - w).max() <= APART:
            problems.append(f"the weights {what} are within {APART} of the right ones")
    if item == LESSON_STOP_AND_TRY:
        problems.append("the lesson's own example")
    elif np.abs(scores - LESSON_STOP_AND_TRY.scores()).max() <= APART \
            or np.abs(w - LESSON_STOP_AND_TRY.weights()).max() <= APART:
        problems.append("the lesson's scores or weights (its worked answer would be right)")
    return problems


def draw_stop_and_try(rng: np.random.Generator) -> StopAndTry:
    """A student's Stop-and-try item: the first draw from ``rng`` that passes :func:`stop_and_try_problems`.

    Each draw takes 8 multiples of ``STEP`` in ``[-ENTRIES, ENTRIES]`` with ``rng.integers`` (the query,
    then the keys row by row).
    """
    for _ in range(MAX_DRAWS):
        v = [float(x) * STEP for x in rng.integers(-round(ENTRIES / STEP), round(ENTRIES / STEP) + 1, size=8)]
        item = StopAndTry((v[0], v[1]), ((v[2], v[3]), (v[4], v[5]), (v[6], v[7])))
        if not stop_and_try_problems(item):
            return item
    raise RuntimeError(f"no acceptable Stop-and-try item in {MAX_DRAWS} draws")  # about 1 draw in 7 passes (measured)


@dataclass(frozen=True)
class OptionOrder:
    """The order a student sees each understanding question's options in: ``order[i][j]`` is the lesson's letter
    of the option shown under letter ``"abcd"[j]`` in question ``i + 1`` (``"cadb"``: the lesson's c is shown as a)."""

    order: tuple[str, ...]
    assignment: str = field(default="", metadata={"shown": False})  # the questions' notebook (not part of the data)

    def lesson_letter(self, question: int, shown: str) -> str:
        """The lesson's letter of the option shown as ``shown`` in question ``question`` (numbered from 0)."""
        return self.order[question][LETTERS.index(shown)]

    def describe(self) -> str:
        """The options of every question, lettered as this student sees them."""
        lines = []
        for number, (question, order) in enumerate(zip(questions(self.assignment), self.order), 1):
            lines.append(f"Question {number}:")
            lines += [f"  {shown}) {question.options[LETTERS.index(lesson)]}" for shown, lesson in zip(LETTERS, order)]
        return "\n".join(lines)


def lesson_order(assignment: str) -> OptionOrder:
    """The lesson's order (every question a, b, c, d): what the catalogue and the kit's visible checks judge."""
    return OptionOrder((LETTERS,) * len(questions(assignment)), assignment)


def draw_option_order(rng: np.random.Generator, assignment: str) -> OptionOrder:
    """A student's order of ``assignment``'s options: one ``rng.permutation(4)`` per question, in order, drawn
    again while every question keeps the lesson's order."""
    lesson = lesson_order(assignment)
    for _ in range(MAX_DRAWS):
        item = OptionOrder(tuple("".join(LETTERS[i] for i in rng.permutation(4)) for _ in lesson.order), assignment)
        if item != lesson:
            return item
    raise RuntimeError(f"no option order other than the lesson's in {MAX_DRAWS} draws")


TABLE_ITEM = "06_long_sequences/table"
TABLE_HEADS = 8
TABLE_MIN, TABLE_MAX, TABLE_STEP = 1024, 16384, 512
DTYPES = {"float16": 2, "float32": 4, "float64": 8}  # bytes per number


@dataclass(frozen=True)
class TableSize:
    """The sequence length and dtype of 06's table of weights (8 heads, queries and keys of one sequence)."""

    n: int
    dtype: str

    @property
    def itemsize(self) -> int:
        return DTYPES[self.dtype]

    def bytes(self) -> int:
        """The bytes of the weights of the 8 heads: heads x n x n numbers of ``itemsize`` bytes."""
        return TABLE_HEADS * self.n * self.n * self.itemsize

    def describe(self) -> str:
        return (f"{TABLE_HEADS} heads, a sequence of n = {self.n} positions (queries and keys), in {self.dtype} "
                f"({self.itemsize} bytes per number)")


#: The lesson's example (the field notes: 8 heads at n = 4096 in float32, 537 MB), worked in 06's prose.
LESSON_TABLE = TableSize(4096, "float32")


def draw_table(rng: np.random.Generator) -> TableSize:
    """A student's table: ``n`` then the dtype, each with one ``rng.integers``, drawn again while it is the lesson's."""
    names = list(DTYPES)
    for _ in range(MAX_DRAWS):
        n = int(rng.integers(TABLE_MIN // TABLE_STEP, TABLE_MAX // TABLE_STEP + 1)) * TABLE_STEP
        item = TableSize(n, names[int(rng.integers(len(names)))])
        if item != LESSON_TABLE:
            return item
    raise RuntimeError(f"no table other than the lesson's in {MAX_DRAWS} draws")


#: item id -> how a student's item is drawn from their generator.
DRAWS = {ITEM: draw_stop_and_try, TABLE_ITEM: draw_table,
         **{item_of(a): (lambda rng, a=a: draw_option_order(rng, a)) for a in TASK_OF}}
#: item id -> the lesson's example: what a check of the item judges when grading has no student's numbers.
LESSON = {ITEM: LESSON_STOP_AND_TRY, TABLE_ITEM: LESSON_TABLE, **{item_of(a): lesson_order(a) for a in TASK_OF}}
