"""Automatic diagnosis: how a wrong answer relates to the reference, when no named misconception
matches.

From the returned values, the probes and the reference alone (in the trusted process), each
finder tests one relation on every probe the answer got wrong: a sign flip, a constant factor
(named when it is √d_k, d_k, 2, … — the sizes come from the probe's own arguments), the axes
in another order, entries reversed or permuted along an axis, a shift by one, the mask left
out or inverted (the reference re-run without, or with the inverse, mask), the softmax's
scores scaled or taken over another axis and LayerNorm over more axes (the reference re-run with
that primitive changed, ``variants``), the wrong entries all zero, or precision only. The first
relation that explains every failing probe is the diagnosis; its text names the cause and
never the expected value. Formula answers get a term-by-term comparison (``formula_terms``).
"""
from __future__ import annotations

import inspect
import itertools
import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from autograder.judging.compare import AllClose, Exact, Formula
from autograder.spec import Probe, Question, as_args, to_plain

ALIASES = {"q": "d_k", "k": "d_k", "query": "d_k", "key": "d_k", "v": "d_v", "x": "d", "x_q": "d_model"}


@dataclass(frozen=True)
class Diagnosis:
    kind: str  # factor | sign | axes | reversed | permuted | shift | mask_missing | mask_inverted |
    #            softmax_scale | softmax_axis | norm_axis | zeros | precision | formula_terms
    feedback: str


@dataclass
class Case:
    probe: Probe
    got: Any
    expected: Any


def _array(value: Any) -> np.ndarray | None:
    if isinstance(value, (bool, np.bool_)):
        return None
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        return None
    if arr.dtype.kind not in "fiub" or arr.size == 0:
        return None
    return arr.astype(np.float64)


def _like(candidate: np.ndarray, expected: Any) -> Any:
    """The candidate in the expected value's own form (a list of ints stays a list of ints)."""
    if isinstance(expected, np.ndarray):
        return candidate.astype(expected.dtype) if expected.dtype.kind == "b" else candidate
    if isinstance(expected, (list, int, float)) and not isinstance(expected, bool):
        if np.asarray(expected).dtype.kind in "iu":
            if not np.all(np.isfinite(candidate)) or not np.allclose(candidate, np.round(candidate)):
                return None
            candidate = np.round(candidate).astype(np.int64)
        return candidate.tolist()
    return candidate


class Context:
    def __init__(self, question: Question, cases: list[Case]):
        self.question, self.cases = question, cases
        try:
            self.params = list(inspect.signature(question.reference).parameters)
        except (TypeError, ValueError):
            self.params = []

    def fits(self, got: Any, candidate: Any, expected: Any) -> bool:
        if candidate is None:
            return False
        if isinstance(candidate, np.ndarray):
            candidate = _like(candidate, expected)
            if candidate is None:
                return False
        try:
            return bool(self.question.compare.matches(got, candidate))
        except Exception:  # noqa: BLE001 - a candidate the comparator cannot read explains nothing
            return False

    def all_fit(self, make: Callable[[Case], Any]) -> bool:
        """``make(case)`` builds the candidate for one failing probe; all must match."""
        for case in self.cases:
            try:
                candidate = make(case)
            except Exception:  # noqa: BLE001 - a variant that cannot be built explains nothing
                return False
            if not self.fits(case.got, candidate, case.expected):
                return False
        return True

    def reference(self, args: tuple, kwargs: dict, override=None) -> Any:
        from autograder.judging.variants import overridden

        q = self.question
        with overridden(override):
            return to_plain(q.reference(*as_args(args, q.args_as), **kwargs))

    def sizes(self, probe: Probe) -> list[tuple[str, float]]:
        """Named sizes a constant factor may be made of: the inputs' last axes, integer
        arguments, and their ratios (d_model / n_heads)."""
        found: list[tuple[str, float]] = []
        ints = []
        for name, arg in zip(self.params, probe.args):
            if isinstance(arg, np.ndarray) and arg.dtype.kind == "f" and arg.ndim >= 1:
                label = ALIASES.get(name, f"{name}.shape[-1]")
                found.append((label, float(arg.shape[-1])))
            elif isinstance(arg, (int, np.integer)) and not isinstance(arg, bool) and arg > 1:
                ints.append((name, int(arg)))
                found.append((name, float(arg)))
        for (label, size), (name, n) in itertools.product(list(found), ints):
            if label != name and size > n and size % n == 0:
                found.append((f"{label}/{name}", size / n))
        unique, seen = [], set()
        for label, size in found:
            if size > 1 and label not in seen:
                seen.add(label)
                unique.append((label, size))
        return unique

    def factor_names(self, probe: Probe) -> list[tuple[str, float]]:
        names = []
        for label, size in self.sizes(probe):
            root = f"√({label})" if "/" in label or "." in label else f"√{label}"
            names += [(root, math.sqrt(size)), (f"1/{root}", 1 / math.sqrt(size)),
                      (label if "/" not in label else f"({label})", size), (f"1/{label}" if "/" not in label
                                                                           else f"1/({label})", 1 / size)]
        return names + [("2", 2.0), ("1/2", 0.5), ("4", 4.0), ("1/4", 0.25), ("10", 10.0), ("1/10", 0.1)]


def _named_constant(ctx: Context, values: list[float]) -> str | None:
    """A name that gives, on every failing probe, that probe's constant."""
    common = None
    for case, value in zip(ctx.cases, values):
        names = [n for n, v in ctx.factor_names(case.probe) if math.isclose(v, value, rel_tol=1e-3)]
        common = names if common is None else [n for n in common if n in names]
        if not common:
            return None
    if not common:
        return None
    numbers = [n for n in common if n.replace("/", "").isdigit()]
    sizes = [n for n in common if n not in numbers]
    if numbers and sizes:  # the probes cannot tell them apart: say both
        return f"{numbers[0]} (= {sizes[0]} here)"
    return common[0]


# ---------------------------------------------------------------- relations of the values

def _scalar_value(ctx: Context) -> bool:
    """A single number asked for as a value: any relation to it would give the answer away."""
    return not ctx.question.call and all(np.size(c.expected) <= 1 for c in ctx.cases)


def find_zeros(ctx: Context) -> Diagnosis | None:
    for case in ctx.cases:
        got, exp = _array(case.got), _array(case.expected)
        if got is None or exp is None or got.shape != exp.shape or np.any(got != 0) or not np.any(exp != 0):
            return None
    return Diagnosis("zeros", "your output is all zeros: is the result computed but not returned, or "
                              "multiplied by an empty/zero tensor?")


def find_sign(ctx: Context) -> Diagnosis | None:
    if not _scalar_value(ctx) and ctx.all_fit(lambda c: -_array(c.expected)):
        return Diagnosis("sign", "your output is the reference with the opposite sign: look for a "
                                 "subtraction the wrong way round or a stray minus sign")
    return None


def find_factor(ctx: Context) -> Diagnosis | None:
    if _scalar_value(ctx):
        return None
    factors = []
    for case in ctx.cases:
        got, exp = _array(case.got), _array(case.expected)
        if got is None or exp is None or got.shape != exp.shape or not np.all(np.isfinite(got)):
            return None
        denominator = float((exp * exp).sum())
        if denominator == 0:
            return None
        c = float((got * exp).sum()) / denominator
        if c == 0 or not ctx.fits(case.got, c * exp, case.expected):
            return None
        factors.append(c)
    name = _named_constant(ctx, factors)
    if name is not None:
        return Diagnosis("factor", f"your output is the reference times {name}: a scaling factor is "
                                   "applied that should not be, or is missing, or is inverted")
    if all(math.isclose(c, factors[0], rel_tol=1e-4) for c in factors) and ctx.question.call:
        return Diagnosis("factor", f"your output is the reference times a constant (≈ {factors[0]:.3g}): "
                                   "look for a wrong constant factor")
    return Diagnosis("factor", "your output is proportional to the reference but off by a constant "
                                   "factor: look for a wrong scaling")


def _axes_text(perm: tuple[int, ...]) -> str:
    moved = [i for i, p in enumerate(perm) if p != i]
    n = len(perm)
    if len(moved) == 2:
        a, b = (m - n for m in moved)
        return f"axes {a} and {b} swapped"
    return f"the axes in the order {tuple(p - n for p in perm)}"


def find_axes(ctx: Context) -> Diagnosis | None:
    common = None
    for case in ctx.cases:
        got, exp = _array(case.got), _array(case.expected)
        if got is None or exp is None or exp.ndim < 2 or exp.ndim > 5:
            return None
        texts = {_axes_text(p) for p in itertools.permutations(range(exp.ndim))
                 if p != tuple(range(exp.ndim)) and exp.transpose(p).shape == got.shape
                 and ctx.fits(case.got, exp.transpose(p), case.expected)}
        common = texts if common is None else common & texts
        if not common:
            return None
    if common:
        return Diagnosis("axes", f"your output is the reference with {sorted(common)[0]} (a transpose): "
                                 "check the order of the axes")
    return None


def find_reversed_or_permuted(ctx: Context) -> Diagnosis | None:
    first = _array(ctx.cases[0].expected)
    if first is None:
        return None
    for axis in range(-first.ndim, 0):
        if ctx.all_fit(lambda c, a=axis: np.flip(_array(c.expected), a)):
            where = "" if first.ndim == 1 else f" along axis {axis}"
            return Diagnosis("reversed", f"your output is the reference in reverse order{where}: check "
                                         "which end the sequence starts from")
    for axis in range(-first.ndim, 0):
        if all(_permutation_along(ctx, c, axis) for c in ctx.cases):
            where = "entries" if first.ndim == 1 else f"slices along axis {axis}"
            return Diagnosis("permuted", f"your output holds the reference's {where} in another order: "
                                         "check how you index or order them")
    return None


def _permutation_along(ctx: Context, case: Case, axis: int) -> bool:
    got, exp = _array(case.got), _array(case.expected)
    if got is None or exp is None or got.shape != exp.shape or exp.ndim < -axis or exp.shape[axis] > 64:
        return False
    n = exp.shape[axis]
    order = []
    for i in range(n):
        row = np.take(got, i, axis=axis)
        match = [j for j in range(n) if j not in order and np.allclose(row, np.take(exp, j, axis=axis),
                                                                       rtol=1e-4, atol=1e-5)]
        if not match:
            return False
        order.append(match[0])
    return order != list(range(n)) and ctx.fits(case.got, np.take(exp, order, axis=axis), case.expected)


def find_shift(ctx: Context) -> Diagnosis | None:
    first = _array(ctx.cases[0].expected)
    if first is None:
        return None
    for axis, step in itertools.product(range(-first.ndim, 0), (1, -1)):
        if all(_shifted(c, axis, step) for c in ctx.cases):
            where = "" if first.ndim == 1 else f" along axis {axis}"
            direction = "later" if step == 1 else "earlier"
            return Diagnosis("shift", f"your output is the reference shifted by one position{where} "
                                      f"(each entry sits one place {direction}): an off-by-one in an index")
    return None


def _shifted(case: Case, axis: int, step: int) -> bool:
    got, exp = _array(case.got), _array(case.expected)
    if got is None or exp is None or exp.ndim < -axis:
        return False
    n = exp.shape[axis]
    if got.shape == exp.shape and n >= 3:
        mine = np.take(got, range(1, n) if step == 1 else range(0, n - 1), axis=axis)
        theirs = np.take(exp, range(0, n - 1) if step == 1 else range(1, n), axis=axis)
        return np.allclose(mine, theirs, rtol=1e-4, atol=1e-5) and not np.allclose(got, exp, rtol=1e-4, atol=1e-5)
    return False


def find_precision(ctx: Context) -> Diagnosis | None:
    worst = 0.0
    for case in ctx.cases:
        got, exp = _array(case.got), _array(case.expected)
        if got is None or exp is None or got.shape != exp.shape or not np.all(np.isfinite(got)):
            return None
        finite = np.isfinite(exp)
        scale = float(np.abs(exp[finite]).max()) if finite.any() else 1.0
        error = float(np.abs(got[finite] - exp[finite]).max()) if finite.any() else 0.0
        if np.any(got[~finite] != exp[~finite]) or error > 1e-2 * max(scale, 1e-3):
            return None
        worst = max(worst, error / max(scale, 1e-12))
    return Diagnosis("precision", f"only precision: your values agree with the reference to within "
                                  f"{worst:.1g} of their size, but not within the tolerance — look for "
                                  "float16/bfloat16, rounding, or an eps in the wrong place")


# ---------------------------------------------------------------- the reference re-run

def find_mask(ctx: Context) -> Diagnosis | None:
    def masks(probe: Probe) -> list[int]:
        return [i for i, a in enumerate(probe.args) if isinstance(a, np.ndarray) and a.dtype == bool]

    if not ctx.question.call or not all(masks(c.probe) for c in ctx.cases):
        return None

    def rerun(case: Case, change) -> Any:
        args = list(case.probe.args)
        for i in masks(case.probe):
            args[i] = change(args[i])
        return ctx.reference(tuple(args), case.probe.kwargs)

    if ctx.all_fit(lambda c: rerun(c, lambda m: ~m)):
        return Diagnosis("mask_inverted", "you apply the mask inverted: your output is the reference's for the "
                                          "opposite mask (allowed and blocked positions swapped)")
    for drop in (lambda m: None, lambda m: np.ones_like(m)):
        if ctx.all_fit(lambda c, d=drop: rerun(c, d)):
            return Diagnosis("mask_missing", "the mask has no effect in your answer: your output is the "
                                             "reference's without any mask — masked positions must be excluded")
    return None


def find_primitive_variants(ctx: Context) -> Diagnosis | None:
    from autograder.judging.variants import Override, primitives_used

    if not ctx.question.call:
        return None
    first = ctx.cases[0].probe
    try:
        used = primitives_used(lambda: ctx.reference(first.args, first.kwargs))
    except Exception:  # noqa: BLE001
        return None

    def with_override(make):
        return ctx.all_fit(lambda c: ctx.reference(c.probe.args, c.probe.kwargs, make(c)))

    if "softmax" in used:
        for label, _ in [n for n in ctx.factor_names(first) if n[0] not in ("10", "1/10")]:
            def make(case, label=label):
                return Override(scale=dict(ctx.factor_names(case.probe))[label])
            if with_override(make):
                return Diagnosis("softmax_scale", f"the scores going into your softmax are the reference's "
                                                  f"times {label}: check the scaling before the softmax")
        for dim in (-2, -3, 0):
            if with_override(lambda c, d=dim: Override(softmax_dim=d)):
                return Diagnosis("softmax_axis", f"your softmax normalises over axis {dim} of the scores: each "
                                                 "distribution must run over the keys (the last axis)")
    if "layer_norm" in used:
        for axes in (2, 3):
            if with_override(lambda c, n=axes: Override(norm_axes=n)):
                return Diagnosis("norm_axis", f"you normalise over the last {axes} axes together: normalise "
                                              "each position over its own features (the last axis) only")
    return None


def find_sums_axis(ctx: Context) -> Diagnosis | None:
    """Distributions summing to 1 along another axis than the reference's."""
    def unit_axes(arr):
        if arr is None or arr.ndim < 2 or np.any(arr < -1e-6):
            return set()
        return {a for a in range(-arr.ndim, 0) if np.allclose(arr.sum(a), 1.0, atol=1e-4)}

    found = None
    for case in ctx.cases:
        got, exp = _array(case.got), _array(case.expected)
        if got is None or exp is None or got.shape != exp.shape:
            return None
        mine, theirs = unit_axes(got), unit_axes(exp)
        if not theirs or not mine or mine & theirs:
            return None
        found = min(mine)
    return Diagnosis("softmax_axis", f"your values sum to 1 along axis {found}, the reference's along another "
                                     "axis: normalise over the right axis")


VALUE_FINDERS = (find_zeros, find_sign, find_factor, find_axes, find_reversed_or_permuted, find_shift,
                 find_sums_axis)
RERUN_FINDERS = (find_mask, find_primitive_variants)


def diagnose(question: Question, probes: list[Probe], values: list[Any]) -> Diagnosis | None:
    """The first relation that explains every probe the answer got wrong, or None. ``values`` are
    the returned values (plain data), one per probe."""
    if isinstance(question.compare, Formula):
        from autograder.judging.formula_terms import formula_diagnosis

        return formula_diagnosis(question, values[0] if values else None)
    if not isinstance(question.compare, (AllClose, Exact)):
        return None  # task accuracies and the like: their comparator's own message says it all
    cases = []
    for probe, got in zip(probes, values):
        try:
            expected = question.expected(probe)
            if not question.compare.matches(got, expected):
                cases.append(Case(probe, got, expected))
        except Exception:  # noqa: BLE001
            return None
    if not cases:
        return None
    ctx = Context(question, cases)
    for finder in (*VALUE_FINDERS, *RERUN_FINDERS, find_precision):
        try:
            found = finder(ctx)
        except Exception:  # noqa: BLE001 - a diagnosis that cannot be made is no diagnosis
            found = None
        if found is not None:
            return found
    return None
