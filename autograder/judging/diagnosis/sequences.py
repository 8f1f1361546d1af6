"""Diagnosis finder for a reference whose values form a geometric sequence along the last axis
(frequencies base^(−2i/d), their wavelengths, ALiBi's slopes for a power of two): the answer's are
geometric too, with another ratio, or arithmetic (a constant difference: the index enters linearly
where the reference's sits in an exponent). Runs after ``relations.find_power`` (a ratio that is a
constant power of the reference's is said there, with the power).

The answer's sequence may run out of floating point — its tail 0 past an underflow, or inf past an
overflow, when its ratio is far off — and may have another number of entries than the
reference's (the index stepping by another amount): the ratio is read from the leading entries,
and the other length is said too."""

from __future__ import annotations

import numpy as np

from autograder.i18n import Message
from autograder.judging.diagnosis.base import Context, Diagnosis, numeric_array

GEOMETRIC = Message(
    "your values form a geometric sequence along the last axis (one constant ratio between neighbours), "
    "as the reference's do, but with another ratio: how fast they shrink or grow with the index — the "
    "scale of the exponent — is off"
)
GEOMETRIC_OTHER_LENGTH = Message(
    "your values form a geometric sequence along the last axis (one constant ratio between neighbours), "
    "as the reference's do, but with another ratio and another number of entries: how the index steps, and "
    "the scale of the exponent it enters, are off"
)
ARITHMETIC = Message(
    "your values change by one constant difference from each entry to the next along the last axis, the "
    "reference's by one constant ratio (a geometric sequence): the index enters your computation linearly, "
    "where in the reference's it sits in an exponent"
)


def _rows(value) -> np.ndarray | None:
    arr = numeric_array(value)
    if arr is None or arr.ndim == 0 or arr.shape[-1] < 2 or not np.all(np.isfinite(arr)):
        return None
    return arr.reshape(-1, arr.shape[-1])


def _constant_steps(steps: np.ndarray, scale: float) -> bool:
    return bool(np.allclose(steps, steps[:, :1], rtol=1e-6, atol=1e-9 * max(scale, 1.0)))


def _geometric_ratio(rows: np.ndarray) -> np.ndarray | None:
    """Each row's log-ratio between neighbours, when every row is positive and geometric; else None."""
    if np.any(rows <= 0):
        return None
    steps = np.diff(np.log(rows), axis=-1)
    return steps[:, 0] if _constant_steps(steps, float(np.abs(np.log(rows)).max())) else None


# where float32 runs out: the next entry of a sequence whose tail is 0 (inf) must lie below (above)
UNDERFLOW, OVERFLOW = np.log(1e-37), np.log(1e38)


def _leading_ratio(rows: np.ndarray) -> tuple[np.ndarray, int] | None:
    """Each row's log-ratio between neighbours over its leading run of finite positive entries (at
    least two), when that run is geometric and the rest of the row is where floating point runs
    out in its direction — 0 past an underflow, inf past an overflow; with the longest run. Else
    None."""
    ratios, longest = [], 0
    for row in rows:
        usable = np.isfinite(row) & (row > 0)
        run = int(np.argmin(usable)) if not usable.all() else row.size
        if run < 2:
            return None
        steps = np.diff(np.log(row[:run]))
        if not _constant_steps(steps[None, :], float(np.abs(np.log(row[:run])).max())):
            return None
        tail, following = row[run:], np.log(row[run - 1]) + steps[0]
        if tail.size and not (
            (np.all(tail == 0) and following < UNDERFLOW) or (np.all(np.isposinf(tail)) and following > OVERFLOW)
        ):
            return None
        ratios.append(steps[0])
        longest = max(longest, run)
    return np.asarray(ratios), longest


def _numbers(value) -> np.ndarray | None:
    arr = numeric_array(value)
    if arr is None or arr.ndim == 0 or arr.shape[-1] < 2:
        return None
    return arr.reshape(-1, arr.shape[-1])


def find_sequence_kind(ctx: Context) -> Diagnosis | None:
    kinds, long_enough, other_length, run = set(), False, False, 0
    for case in ctx.cases:
        got, exp = _numbers(case.got), _rows(case.expected)
        if got is None or exp is None or got.shape[:-1] != exp.shape[:-1]:
            return None
        ratio = _geometric_ratio(exp)
        if ratio is None or np.any(np.abs(ratio) < 1e-9):
            return None  # not a geometric sequence, or a constant one
        long_enough |= exp.shape[-1] >= 3
        other_length |= got.shape != exp.shape
        leading = _leading_ratio(got)
        if leading is not None and not np.allclose(leading[0], ratio, rtol=1e-6, atol=1e-12):
            kinds.add("geometric")
            run = max(run, leading[1])
            continue
        if got.shape != exp.shape or not np.all(np.isfinite(got)):
            return None
        steps = np.diff(got, axis=-1)
        if _constant_steps(steps, float(np.abs(got).max())) and np.all(steps[:, 0] != 0):
            kinds.add("arithmetic")
        else:
            return None
    if not long_enough or len(kinds) != 1 or (kinds == {"geometric"} and run < 3):
        return None
    if kinds == {"arithmetic"}:
        return Diagnosis("sequence", ARITHMETIC)
    return Diagnosis("sequence", GEOMETRIC_OTHER_LENGTH if other_length else GEOMETRIC)
