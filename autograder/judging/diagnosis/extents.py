"""Diagnosis finders for an answer of the wrong extent, where ``locations.find_shape`` finds no one
relation that holds on every failing probe: along one axis the answer is short or long by the same
count on every input, empty, a single entry that is the reference's first or last, or every second
entry of the reference (a length that is not exactly half on some inputs); or it holds the
reference's entries in their order, in another shape (a flatten or a reshape missing or extra).

Each finder states what every failing probe shows (the shapes, the entries that agree) and a
likely place to look; it never names the reference's length or values."""

from __future__ import annotations

import numpy as np

from autograder.i18n import N_, Message
from autograder.judging.diagnosis.base import Context, Diagnosis
from autograder.judging.diagnosis.location_texts import LENGTH_TEXTS, along

# (fewer, more); {where}: " along axis …", or nothing for a 1-D output (location_texts.along)
BY_ONE = LENGTH_TEXTS["one"]
BY_COUNT = (
    N_(
        "your output has {count} entries too few{where} on every input: check its length — the bounds of a "
        "range or a slice, or a stopping condition"
    ),
    N_(
        "your output has {count} entries too many{where} on every input: check its length — the bounds of a "
        "range or a slice, or a stopping condition"
    ),
)
EVERY_SECOND = LENGTH_TEXTS["twice, every second"]
EMPTY = N_("your output is empty{where} on every input: a range or a slice selects nothing there — check its bounds")
SINGLE = N_(
    "your output has a single entry{where} where the reference has several, and it agrees with the reference's "
    "entry at one end: what should vary along that axis (an index, a position, a term) is missing from your "
    "computation, so it is never spread along it"
)


def _numbers(value) -> np.ndarray | None:
    """The value as a float array, empty arrays included (``numeric_array`` refuses those)."""
    if isinstance(value, (bool, np.bool_)):
        return None
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        return None
    if arr.dtype.kind not in "fiub" and not (arr.size == 0 and arr.dtype.kind == "O"):
        return None
    try:
        return arr.astype(np.float64)
    except (TypeError, ValueError):
        return None


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True))


def _relations(got: np.ndarray, exp: np.ndarray, axis: int) -> set[tuple]:
    """What holds along ``axis`` between an answer and the reference that differ only in its length."""
    mine, theirs = got.shape[axis], exp.shape[axis]
    more = mine > theirs
    short, long_ = (exp, got) if more else (got, exp)
    found = {("count", more, abs(mine - theirs))}
    if mine == 0:
        found.add(("empty", False))
    take = lambda idx: np.take(long_, list(idx), axis=axis)  # noqa: E731
    m = long_.shape[axis]
    if mine == 1 and theirs > 1 and (_same(got, take([0])) or _same(got, take([m - 1]))):
        found.add(("single", False))
    if short.shape[axis] >= 1 and (_same(short, take(range(0, m, 2))) or _same(short, take(range(1, m, 2)))):
        found.add(("every_second", more))
    return found


def find_length_offset(ctx: Context) -> Diagnosis | None:
    """Along one axis (the same on every failing probe) the answer's length differs from the
    reference's, every other axis agreeing; named by what holds on every probe: every second entry,
    empty, one entry at an end, or the same count too few (too many)."""
    common, axis, ndim = None, None, None
    for case in ctx.cases:
        got, exp = _numbers(case.got), _numbers(case.expected)
        if got is None or exp is None or got.ndim != exp.ndim or got.ndim == 0:
            return None
        differ = [i - got.ndim for i, (a, b) in enumerate(zip(got.shape, exp.shape)) if a != b]
        if len(differ) != 1 or (axis is not None and differ[0] != axis):
            return None
        axis, ndim = differ[0], got.ndim
        found = _relations(got, exp, axis)
        common = found if common is None else common & found
        if not common:
            return None
    where = along(ndim, axis)
    for kind in ("every_second", "empty", "single"):
        for key in common:
            if key[0] == kind:
                if kind == "every_second":
                    return Diagnosis("shape", Message(EVERY_SECOND[key[1]], where=where))
                return Diagnosis("shape", Message(EMPTY if kind == "empty" else SINGLE, where=where))
    (_, more, count) = next(iter(common))
    if count == 1:
        return Diagnosis("shape", Message(BY_ONE[more], where=where))
    return Diagnosis("shape", Message(BY_COUNT[more], count=count, where=where))


def find_reshaped(ctx: Context) -> Diagnosis | None:
    """The reference's entries, in their order, in another shape on every failing probe."""
    for case in ctx.cases:
        got, exp = _numbers(case.got), _numbers(case.expected)
        if got is None or exp is None or got.shape == exp.shape or got.size != exp.size or exp.size < 2:
            return None
        if not _same(got.reshape(-1), exp.reshape(-1)):
            return None
    return Diagnosis(
        "shape",
        Message(
            "your output holds the reference's entries in the reference's order, but in another shape: "
            "a flatten, a reshape or a view is missing or one too many"
        ),
    )
