"""Diagnosis finders that relate the returned values to the expected ones directly: zeros, a
sign flip, a constant factor, axes in another order, reversed or permuted entries, a shift by
one, distributions over another axis, errors confined to fully masked rows or to one edge,
NaN, precision only. Each explains every failing probe of its ``Context`` or returns None."""

from __future__ import annotations

import itertools
import math

import numpy as np

from autograder.i18n import Message
from autograder.judging.diagnosis.base import Case, Context, Diagnosis, named_constant, numeric_array


def _scalar_value(ctx: Context) -> bool:
    """A single number asked for as a value: any relation to it would give the answer away."""
    return not ctx.question.call and all(np.size(c.expected) <= 1 for c in ctx.cases)


def find_zeros(ctx: Context) -> Diagnosis | None:
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or got.shape != exp.shape or np.any(got != 0) or not np.any(exp != 0):
            return None
    return Diagnosis(
        "zeros",
        Message(
            "your output is all zeros: is the result computed but not returned, or multiplied by an empty/zero tensor?"
        ),
    )


def find_sign(ctx: Context) -> Diagnosis | None:
    if not _scalar_value(ctx) and ctx.all_fit(lambda c: -numeric_array(c.expected)):
        return Diagnosis(
            "sign",
            Message(
                "your output is the reference with the opposite sign: look for a "
                "subtraction the wrong way round or a stray minus sign"
            ),
        )
    return None


def find_factor(ctx: Context) -> Diagnosis | None:
    if _scalar_value(ctx):
        return None
    factors = []
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if (
            got is None
            or exp is None
            or got.shape != exp.shape
            or not np.all(np.isfinite(got))
            or not np.all(np.isfinite(exp))
        ):
            return None
        denominator = float((exp * exp).sum())
        if denominator == 0:
            return None
        c = float((got * exp).sum()) / denominator
        if c == 0 or not ctx.fits(case.got, c * exp, case.expected):
            return None
        factors.append(c)
    name = named_constant(ctx, factors)
    if name is not None:
        return Diagnosis(
            "factor",
            Message(
                "your output is the reference times {factor}: a scaling factor is "
                "applied that should not be, or is missing, or is inverted",
                factor=name,
            ),
        )
    if all(math.isclose(c, factors[0], rel_tol=1e-4) for c in factors) and ctx.question.call:
        return Diagnosis(
            "factor",
            Message(
                "your output is the reference times a constant (≈ {factor}): look for a wrong constant factor",
                factor=format(factors[0], ".3g"),
            ),
        )
    return Diagnosis(
        "factor",
        Message("your output is proportional to the reference but off by a constant factor: look for a wrong scaling"),
    )


def _axes_text(perm: tuple[int, ...]) -> Message:
    moved = [i for i, p in enumerate(perm) if p != i]
    n = len(perm)
    if len(moved) == 2:
        a, b = (m - n for m in moved)
        return Message("axes {a} and {b} swapped", a=a, b=b)
    return Message("the axes in the order {order}", order=tuple(p - n for p in perm))


def find_axes(ctx: Context) -> Diagnosis | None:
    common = None
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or exp.ndim < 2 or exp.ndim > 5:
            return None
        texts = {
            _axes_text(p)
            for p in itertools.permutations(range(exp.ndim))
            if p != tuple(range(exp.ndim))
            and exp.transpose(p).shape == got.shape
            and ctx.fits(case.got, exp.transpose(p), case.expected)
        }
        common = texts if common is None else common & texts
        if not common:
            return None
    if common:
        return Diagnosis(
            "axes",
            Message(
                "your output is the reference with {axes} (a transpose): check the order of the axes",
                axes=sorted(common)[0],
            ),
        )
    return None


def find_reversed_or_permuted(ctx: Context) -> Diagnosis | None:
    first = numeric_array(ctx.cases[0].expected)
    if first is None:
        return None
    for axis in range(-first.ndim, 0):
        if ctx.all_fit(lambda c, a=axis: np.flip(numeric_array(c.expected), a)):
            if first.ndim == 1:
                text = Message(
                    "your output is the reference in reverse order: check which end the sequence starts from"
                )
            else:
                text = Message(
                    "your output is the reference in reverse order along axis {axis}: check which end the sequence "
                    "starts from",
                    axis=axis,
                )
            return Diagnosis("reversed", text)
    for axis in range(-first.ndim, 0):
        if all(_permutation_along(ctx, c, axis) for c in ctx.cases):
            if first.ndim == 1:
                text = Message(
                    "your output holds the reference's entries in another order: check how you index or order them"
                )
            else:
                text = Message(
                    "your output holds the reference's slices along axis {axis} in another order: check how you "
                    "index or order them",
                    axis=axis,
                )
            return Diagnosis("permuted", text)
    return None


def _permutation_along(ctx: Context, case: Case, axis: int) -> bool:
    got, exp = numeric_array(case.got), numeric_array(case.expected)
    if got is None or exp is None or got.shape != exp.shape or exp.ndim < -axis or exp.shape[axis] > 64:
        return False
    n = exp.shape[axis]
    order = []
    for i in range(n):
        row = np.take(got, i, axis=axis)
        match = [
            j for j in range(n) if j not in order and np.allclose(row, np.take(exp, j, axis=axis), rtol=1e-4, atol=1e-5)
        ]
        if not match:
            return False
        order.append(match[0])
    return order != list(range(n)) and ctx.fits(case.got, np.take(exp, order, axis=axis), case.expected)


def find_shift(ctx: Context) -> Diagnosis | None:
    first = numeric_array(ctx.cases[0].expected)
    if first is None:
        return None
    for axis, step in itertools.product(range(-first.ndim, 0), (1, -1)):
        if all(_shifted(c, axis, step) for c in ctx.cases):
            return Diagnosis("shift", SHIFTS[step == 1] if first.ndim == 1 else _shift(axis, step))
    return None


SHIFTS = {
    True: Message(
        "your output is the reference shifted by one position (each entry sits one place later): an off-by-one in "
        "an index"
    ),
    False: Message(
        "your output is the reference shifted by one position (each entry sits one place earlier): an off-by-one "
        "in an index"
    ),
}


def _shift(axis: int, step: int) -> Message:
    if step == 1:
        return Message(
            "your output is the reference shifted by one position along axis {axis} (each entry sits one place "
            "later): an off-by-one in an index",
            axis=axis,
        )
    return Message(
        "your output is the reference shifted by one position along axis {axis} (each entry sits one place "
        "earlier): an off-by-one in an index",
        axis=axis,
    )


def _shifted(case: Case, axis: int, step: int) -> bool:
    got, exp = numeric_array(case.got), numeric_array(case.expected)
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
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or got.shape != exp.shape or not np.all(np.isfinite(got)):
            return None
        finite = np.isfinite(exp)
        scale = float(np.abs(exp[finite]).max()) if finite.any() else 1.0
        error = float(np.abs(got[finite] - exp[finite]).max()) if finite.any() else 0.0
        if np.any(got[~finite] != exp[~finite]) or error > 1e-2 * max(scale, 1e-3):
            return None
        worst = max(worst, error / max(scale, 1e-12))
    return Diagnosis(
        "precision",
        Message(
            "only precision: your values agree with the reference to within "
            "{error} of their size, but not within the tolerance — look for "
            "float16/bfloat16, rounding, or an eps in the wrong place",
            error=format(worst, ".1g"),
        ),
    )


def find_sums_axis(ctx: Context) -> Diagnosis | None:
    """Distributions summing to 1 along another axis than the reference's."""

    def unit_axes(arr):
        if arr is None or arr.ndim < 2 or np.any(arr < -1e-6):
            return set()
        return {a for a in range(-arr.ndim, 0) if np.allclose(arr.sum(a), 1.0, atol=1e-4)}

    found = None
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or got.shape != exp.shape:
            return None
        mine, theirs = unit_axes(got), unit_axes(exp)
        if not theirs or not mine or mine & theirs:
            return None
        found = min(mine)
    return Diagnosis(
        "softmax_axis",
        Message(
            "your values sum to 1 along axis {axis}, the reference's along another axis: normalise over the right axis",
            axis=found,
        ),
    )


def find_lengths(ctx: Context) -> Diagnosis | None:
    """The reference only turns each vector of an input (it keeps every row's length along the last
    axis — a rotation, an orthogonal map): either the answer changes those lengths, or it keeps them
    and turns by other angles."""
    kept = []
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or got.shape != exp.shape or exp.ndim < 1 or exp.shape[-1] < 2:
            return None
        inputs = [
            np.asarray(a, dtype=np.float64)
            for a in case.probe.args
            if isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.shape == exp.shape
        ]
        norm = lambda a: np.linalg.norm(a, axis=-1)  # noqa: E731
        if not inputs or not any(np.allclose(norm(exp), norm(a), rtol=1e-4, atol=1e-5) for a in inputs):
            return None
        if not np.all(np.isfinite(got)):
            return None
        kept.append(bool(np.allclose(norm(got), norm(exp), rtol=1e-3, atol=1e-4)))
    if all(kept):
        return Diagnosis(
            "lengths",
            Message(
                "your output keeps the length of every vector (along the last axis) as the "
                "reference's rotation does, but turns it by other angles: the angles — the "
                "frequencies, the positions, which coordinates are paired — are off"
            ),
        )
    if not any(kept):
        return Diagnosis(
            "lengths",
            Message(
                "the reference only turns each vector (along the last axis) — a rotation keeps "
                "its length — but yours changes the lengths: check that both parts of the "
                "rotation are there, that cos and sin are not swapped, and that each "
                "coordinate is combined with the partner it is paired with, at the same angle"
            ),
        )
    return None


def find_power(ctx: Context) -> Diagnosis | None:
    """Positive values that are the reference's raised to one constant power (2^(−16h/n) for
    2^(−8h/n), 3^x for 2^x): the base or the exponent's scale is off, the shape of the sequence is
    right."""
    if _scalar_value(ctx):
        return None
    powers = []
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or got.shape != exp.shape or exp.size < 2:
            return None
        if np.any(exp <= 0) or np.any(got <= 0) or not np.all(np.isfinite(got)) or np.allclose(exp, 1.0):
            return None
        le, lg = np.log(exp), np.log(got)
        c = float((lg * le).sum() / (le * le).sum())
        if (
            not math.isfinite(c)
            or abs(c - 1.0) < 1e-3
            or abs(c) < 1e-6
            or not ctx.fits(case.got, exp**c, case.expected)
        ):
            return None
        powers.append(c)
    name = named_constant(ctx, powers)
    if name is not None:
        return Diagnosis(
            "power",
            Message(
                "your values are the reference's raised to the power {power}: the base or the "
                "scale of the exponent is off (the sequence's shape is right)",
                power=name,
            ),
        )
    if all(math.isclose(c, powers[0], rel_tol=1e-3) for c in powers):
        return Diagnosis(
            "power",
            Message(
                "your values are the reference's raised to one constant power (≈ {power}): "
                "the base or the scale of the exponent is off (the sequence's shape is right)",
                power=format(powers[0], ".3g"),
            ),
        )
    return None
