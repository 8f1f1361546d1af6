"""Comparators: decide, in the trusted process, whether a returned value matches the expected one.

Each comparator gets plain data only (ndarrays, numbers, strings, lists) — what the wire
decoder produced — and returns a :class:`Check` with a message written for a student.
Nothing here calls anything the student sent: no ``__eq__`` of a student object ever runs.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from autograder.i18n import Message
from autograder.i18n.message import clauses
from autograder.judging.compare.check_code import nested, structure_lines
from autograder.judging.compare.mismatches import dtype_mismatch, misplaced_nonfinite, shape_mismatch


@dataclass(frozen=True)
class Check:
    ok: bool
    message: str = ""


def _as_array(value: Any) -> np.ndarray | None:
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (bool, int, float)) and not isinstance(value, bool):
        return np.asarray(value, dtype=np.float64)
    if isinstance(value, list):
        try:
            arr = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            return None
        return arr
    return None


class Comparator:
    """Decides a verdict (``__call__``) and writes the released notebook's check of the same thing:
    ``example_lines`` checks ``_got`` from a worked example, ``value_lines`` an answer that is a
    value (no expected value shown: its structure only, unless a subclass can say more)."""

    def __call__(self, got: Any, expected: Any) -> Check:  # pragma: no cover - interface
        raise NotImplementedError

    def matches(self, got: Any, expected: Any) -> bool:
        return self(got, expected).ok

    def example_lines(self, expected: Any, label: str) -> list[str]:
        if hasattr(expected, "shape"):  # an array compared exactly (indices, token ids)
            return [f"assert np.array_equal(np.asarray(_got), {nested(np.asarray(expected))}), {label!r}"]
        return [f"assert _got == {expected!r}, {label!r}"]

    def value_lines(self, expr: str, value: Any, samples: list[Any] | None = None) -> list[str]:
        return structure_lines(expr, value, samples)


@dataclass(frozen=True)
class AllClose(Comparator):
    """Same shape (no broadcasting), finite, and |got − expected| ≤ atol + rtol·|expected|."""

    atol: float = 1e-5
    rtol: float = 1e-4
    # the returned array must have the reference's dtype (where the notebook asks for "the same
    # dtype as the input", or a bool mask): float64 for a float32 input, or a 0/1 int mask, fails
    same_dtype: bool = False

    def matches(self, got: Any, expected: Any) -> bool:
        """Recognising a known mistake is about values: its simulation's dtype may differ."""
        return AllClose.__call__(dataclasses.replace(self, same_dtype=False), got, expected).ok

    def example_lines(self, expected: Any, label: str) -> list[str]:
        return [
            "np.testing.assert_allclose(np.asarray(_got, dtype=np.float64),",
            f"    {nested(np.asarray(expected, dtype=np.float64))},",
            f"    rtol={self.rtol:g}, atol={self.atol:g}, err_msg={label!r})",
        ]

    def __call__(self, got: Any, expected: Any) -> Check:
        if self.same_dtype and isinstance(expected, np.ndarray):
            got_dtype = got.dtype if isinstance(got, np.ndarray) else None
            if got_dtype is not None and got_dtype != expected.dtype:
                return Check(False, dtype_mismatch(got_dtype, expected.dtype))
        exp = np.asarray(expected, dtype=np.float64)
        arr = _as_array(got)
        if arr is None:
            return Check(
                False,
                Message("expected an array of shape {shape}, got {got}", shape=list(exp.shape), got=type_name(got)),
            )
        if arr.dtype.kind not in "fiub":
            return Check(False, Message("expected numbers, got an array of dtype {dtype}", dtype=arr.dtype))
        if arr.shape != exp.shape:
            return Check(False, shape_mismatch(arr.shape, exp.shape))
        arr_dtype = arr.dtype
        arr = arr.astype(np.float64)
        misplaced = misplaced_nonfinite(arr, exp)
        if misplaced:
            return Check(False, misplaced)
        finite = np.isfinite(arr)
        if not finite.all():
            bad = "NaN" if np.isnan(arr).any() else "inf"
            if np.isfinite(exp).all():
                return Check(False, Message("the output contains {bad} ({n} entries)", bad=bad, n=int((~finite).sum())))
        with np.errstate(invalid="ignore"):  # −inf − (−inf) is NaN, then masked below
            err = np.abs(arr - exp)
        # two non-finite entries agree only when they are the same: −inf with −inf, NaN with NaN
        same_nonfinite = (arr == exp) | (np.isnan(arr) & np.isnan(exp))
        err = np.where(np.isfinite(exp) | finite, err, np.where(same_nonfinite, 0.0, np.inf))
        err = np.nan_to_num(err, nan=np.inf)
        bound = self.atol + self.rtol * np.abs(np.nan_to_num(exp))
        if (err <= bound).all():
            return Check(True)
        worst = float(err.max())
        hint = ""  # said after the finding, "; " first
        if arr_dtype.kind in "iub":
            hint = Message("; you returned {dtype} — the result should be floating point", dtype=arr_dtype)
        elif arr_dtype == np.float16:
            hint = Message("; you returned float16, which keeps only ~3 digits: compute in float32")
        if err.size == 1:  # one number: its error and the number give the answer away (issue 36)
            return Check(False, Message("not the expected value{hint}", hint=hint))
        return Check(
            False,
            Message(
                "values differ from the reference (largest error {error}, {n} of {size} entries off{hint})",
                error=format(worst, ".3g"),
                n=int((err > bound).sum()),
                size=err.size,
                hint=hint,
            ),
        )


@dataclass(frozen=True)
class Exact(Comparator):
    """Exact equality of plain numbers / strings / nested lists (ints compared as ints)."""

    integers: bool = False  # where an int is expected only an integer will do ("a list of ints")
    # the released check lets None through where the notebook offers it as an answer (refusing it
    # would tell the student it is wrong); the grader judges it
    none_allowed: bool = False
    # a dict whose every value is one of these: the released check says when one is not (structure
    # only: it cannot tell which one is right)
    values_in: tuple = ()

    def value_lines(self, expr: str, value: Any, samples: list[Any] | None = None) -> list[str]:
        lines = super().value_lines(expr, value, samples)
        if self.values_in:
            message = f"each value of {expr} should be one of " + ", ".join(map(repr, self.values_in))
            lines.append(f"assert all(v in {self.values_in!r} for v in {expr}.values()), {message!r}")
        if self.none_allowed:
            lines = [f"if {expr} is not None:", *(f"    {line}" for line in lines)]
        return lines

    def __call__(self, got: Any, expected: Any) -> Check:
        if self.integers:
            bad = _not_an_int(got, expected)
            if bad:
                return Check(False, Message("expected ints, got {got}: convert with int(...)", got=bad))
        got, expected = _as_lists(got), _as_lists(expected)
        if type_name(got) != type_name(expected) and not _both_numbers(got, expected):
            return Check(
                False, Message("expected {expected}, got {got}", expected=type_name(expected), got=type_name(got))
            )
        if got == expected:
            return Check(True)
        if isinstance(expected, dict):
            missing = [k for k in expected if k not in got]
            wrong = [k for k in expected if k in got and got[k] != expected[k]]
            parts = ([Message("missing entries: {keys}", keys=", ".join(map(str, missing)))] if missing else []) + (
                [Message("not right: {keys}", keys=", ".join(map(str, wrong)))] if wrong else []
            )
            return Check(False, clauses(parts) or Message("unexpected extra entries"))
        shown = repr(got)
        shown = shown[:80] + "…" if len(shown) > 80 else shown
        return Check(False, Message("{answer} is not the expected value", answer=shown))


def _as_lists(value: Any) -> Any:
    """Arrays, also inside lists and dicts ({"source": array, ...}), as nested lists: equality
    of plain data then never asks an array for its truth value."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, list):
        return [_as_lists(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_lists(v) for k, v in value.items()}
    return value


def _not_an_int(got: Any, expected: Any) -> str | None:
    """The first value returned where ``expected`` holds an int that is not an integer type
    (a float, a float tensor), described; None when every such place holds an integer."""
    if isinstance(expected, (list, tuple)) and isinstance(got, (list, tuple)):
        return next(filter(None, map(_not_an_int, got, expected)), None)
    if isinstance(expected, int) and not isinstance(expected, bool):
        if isinstance(got, (int, np.integer)) and not isinstance(got, bool):
            return None
        if isinstance(got, np.ndarray) and got.ndim == 0 and got.dtype.kind in "iu":
            return None  # a 0-d integer tensor, such as argmax(): an integer
        return Message("a {dtype} array", dtype=got.dtype) if isinstance(got, np.ndarray) else type(got).__name__
    return None


def _both_numbers(a: Any, b: Any) -> bool:
    return all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b))


def type_name(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array{list(value.shape)}"
    return type(value).__name__


# released beside the notebook; its source is autograder/judging/compare/formula_grammar.py
FORMULA_HELPER_MODULE = "formula_check"


@dataclass(frozen=True)
class Formula(Comparator):
    """A formula string, parsed by a restricted grammar (never eval) and compared with the
    reference SymPy expression for equivalence, with a time limit."""

    symbols: tuple[str, ...]
    timeout_s: float = 2.0  # CPU-seconds for the whole check, in a child process (symbolic.equivalent)
    # what a wrong answer of one or two terms is told to revisit (formula_terms): the idea, never
    # the step that fixes it ("count what each head contributes", not "too small")
    concept: str = ""

    def __call__(self, got: Any, expected: Any) -> Check:
        if not isinstance(got, str):
            return Check(
                False, Message("expected a formula as a string such as '4*d**2 + 4*d', got {got}", got=type_name(got))
            )
        return _formula_check(got, expected, self.symbols, self.timeout_s)

    def value_lines(self, expr: str, value: Any, samples: list[Any] | None = None) -> list[str]:
        """Parses with the grader's own grammar (shipped beside the notebook) and uses only the
        symbols the question offers."""
        return [
            f"from {FORMULA_HELPER_MODULE} import check_formula",
            f"check_formula({expr}, {tuple(self.symbols)!r})  # parses, and uses only these symbols",
        ]


@functools.lru_cache(maxsize=4096)  # a cohort hands in the same few formulas many times
def _formula_check(text: str, expected, symbols: tuple[str, ...], timeout_s: float) -> Check:
    from autograder.judging.compare.symbolic import FormulaError, equivalent, parse_formula

    if isinstance(expected, str):  # a known-wrong answer written as text, like a student's
        expected = parse_formula(expected, symbols)
    try:
        if equivalent(parse_formula(text, symbols), expected, symbols, timeout_s=timeout_s):
            return Check(True)
    except FormulaError as exc:
        return Check(False, exc.args[0] if exc.args else str(exc))  # a Message, when the grammar wrote one
    return Check(False, Message("{answer} is not equivalent to the expected formula", answer=repr(text)))


@dataclass(frozen=True)
class IntegerArray(AllClose):
    """Exact equality of integer arrays (indices, buckets, token ids). An AllClose with
    atol = rtol = 0, so the released check can use np.testing.assert_allclose, which also
    accepts tensors and lists; a float array holding whole numbers is accepted."""

    atol: float = 0.0
    rtol: float = 0.0
    # the answer is a selection (which heads, which positions): how many it holds is part of the
    # answer, so neither the released check nor the feedback states the expected length
    length_is_answer: bool = False

    def value_lines(self, expr: str, value: Any, samples: list[Any] | None = None) -> list[str]:
        lines = super().value_lines(expr, value, samples)
        if not self.length_is_answer:
            return lines
        return [line for line in lines if not line.startswith(f"assert len({expr}) ==")]

    def __call__(self, got: Any, expected: Any) -> Check:
        exp = np.asarray(expected)
        arr = _as_array(got)
        if self.length_is_answer and (arr is None or arr.shape != exp.shape):
            shown = repr(got)
            return Check(False, Message("{answer} is not the expected value", answer=shown[:80]))
        if arr is None or arr.dtype.kind not in "iuf":
            return Check(
                False,
                Message(
                    "expected an array of integers of shape {shape}, got {got}",
                    shape=list(exp.shape),
                    got=type_name(got),
                ),
            )
        if arr.shape != exp.shape:
            return Check(False, shape_mismatch(arr.shape, exp.shape))
        off = arr != exp
        if not off.any():
            return Check(True)
        first = tuple(int(t) for t in np.argwhere(off)[0])
        return Check(
            False,
            Message(
                "{n} of {size} entries differ (the first at index {index})",
                n=int(off.sum()),
                size=off.size,
                index=list(first),
            ),
        )


@dataclass(frozen=True)
class Scalar(AllClose):
    """One number: a Python float, a 0-d tensor or a 1-element array are all accepted (the
    wire turns 0-d arrays into shape (1,))."""

    def __call__(self, got: Any, expected: Any) -> Check:
        arr = np.asarray(got) if isinstance(got, (np.ndarray, list, int, float)) else None
        if arr is None or arr.size != 1:
            return Check(False, Message("expected one number (a float or a 0-d tensor)"))
        return super().__call__(arr.reshape(()), np.asarray(expected).reshape(()))

    def matches(self, got: Any, expected: Any) -> bool:
        """A known mistake's value is one number too: a 0-d tensor comes back from the sandbox as
        shape (1,), so recognising it goes through this comparator's own reshaping."""
        return dataclasses.replace(self, same_dtype=False)(got, expected).ok


def normalised_choice(text: str) -> str:
    """ "B", " b ", "(B)" and "b." are one answer; so are "Last  Row" and "last row"."""
    return " ".join(text.strip().strip("().").strip().lower().split())


@dataclass(frozen=True)
class Choice(Comparator):
    """One of a fixed set of answers, as a string: case, surrounding spaces, parentheses and a
    final full stop ignored. ``options``: the answers the question offers (a letter A-D, or
    words); an answer outside them is told so, not just wrong."""

    options: tuple[str, ...] = ()

    def __call__(self, got: Any, expected: Any) -> Check:
        offered = tuple(normalised_choice(o) for o in self.options)
        if not isinstance(got, str):
            return Check(
                False,
                Message("expected one of the strings {options}", options=", ".join(map(repr, self.options)))
                if self.options
                else Message("expected a string, got {got}", got=type_name(got)),
            )
        answer = normalised_choice(got)
        if offered and answer not in offered:
            return Check(
                False,
                Message(
                    "{answer} is not one of {options}",
                    answer=repr(got[:40]),
                    options=", ".join(map(repr, self.options)),
                ),
            )
        if answer == normalised_choice(str(expected)):
            return Check(True)
        return Check(False, Message("{answer} is not what happens", answer=repr(got[:40])))

    def value_lines(self, expr: str, value: Any, samples: list[Any] | None = None) -> list[str]:
        lines = structure_lines(expr, value, samples)
        if self.options:
            offered = tuple(normalised_choice(o) for o in self.options)
            message = f"{expr} should be one of " + ", ".join(self.options)
            lines.append(
                f"assert ' '.join({expr}.strip().strip('().').strip().lower().split()) in {offered!r}, {message!r}"
            )
        return lines
