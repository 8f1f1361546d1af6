"""Diagnosis finders that say *where* a wrong answer is wrong, when no relation explains it:
only in the rows whose mask allows nothing, only at one edge, only at even or odd indices, only
in one half of an axis; NaN where the reference has numbers."""
from __future__ import annotations

import itertools

import numpy as np

from autograder.judging.diagnosis_base import Case, Context, Diagnosis, _array


def _off_entries(ctx: Context, case: Case) -> np.ndarray | None:
    """Where the answer is off (same shape as the expected value), or None."""
    got, exp = _array(case.got), _array(case.expected)
    if got is None or exp is None or got.shape != exp.shape:
        return None
    with np.errstate(invalid="ignore"):
        same = np.isclose(got, exp, rtol=1e-4, atol=1e-5, equal_nan=True)
    return ~same


def find_nan(ctx: Context) -> Diagnosis | None:
    for case in ctx.cases:
        got, exp = _array(case.got), _array(case.expected)
        if got is None or exp is None or got.shape != exp.shape:
            return None
        if not np.any(np.isnan(got) & ~np.isnan(exp)):
            return None
    return Diagnosis("nan", "your output contains NaN where the reference has numbers: look for 0/0, or a "
                            "softmax over a row whose entries are all −inf")


def find_masked_rows(ctx: Context) -> Diagnosis | None:
    """Wrong only in the rows whose mask allows nothing (a query that may attend to no key)."""
    for case in ctx.cases:
        off = _off_entries(ctx, case)
        masks = [a for a in case.probe.args if isinstance(a, np.ndarray) and a.dtype == bool]
        if off is None or not masks or off.ndim < 2:
            return None
        try:
            empty = ~np.broadcast_to(masks[0], (*off.shape[:-1], masks[0].shape[-1])).any(-1)
        except ValueError:
            return None
        if not empty.any() or np.any(off.any(-1) & ~empty):
            return None
    return Diagnosis("masked_rows", "only the rows whose mask allows no position at all are wrong: such a "
                                    "row must come out as the specification says (a zero row here), not NaN "
                                    "or an average")


def find_edge(ctx: Context) -> Diagnosis | None:
    """Wrong only at the first or the last index along one axis."""
    first = _array(ctx.cases[0].expected)
    if first is None:
        return None
    for axis, (index, word) in itertools.product(range(-first.ndim, 0), ((0, "first"), (-1, "last"))):
        ok = True
        for case in ctx.cases:
            off = _off_entries(ctx, case)
            if off is None or off.ndim < -axis or off.shape[axis] < 3:
                ok = False
                break
            rest = np.delete(off, index % off.shape[axis], axis=axis)
            if rest.any() or not off.any():
                ok = False
                break
        if ok:
            where = "entry" if first.ndim == 1 else f"position along axis {axis}"
            return Diagnosis("edge", f"only the {word} {where} is wrong, the others agree with the "
                                     "reference: check the boundary case (an off-by-one or a special case)")
    return None


