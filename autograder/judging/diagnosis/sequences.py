"""Diagnosis finder for a reference whose values form a geometric sequence along the last axis
(frequencies base^(−2i/d), their wavelengths, ALiBi's slopes for a power of two): the answer's are
geometric too, with another ratio, or arithmetic (a constant difference: the index enters linearly
where the reference's sits in an exponent). Runs after ``relations.find_power`` (a ratio that is a
constant power of the reference's is said there, with the power)."""

from __future__ import annotations

import numpy as np

from autograder.i18n import Message
from autograder.judging.diagnosis.base import Context, Diagnosis, numeric_array

GEOMETRIC = Message(
    "your values form a geometric sequence along the last axis (one constant ratio between neighbours), "
    "as the reference's do, but with another ratio: how fast they shrink or grow with the index — the "
    "scale of the exponent — is off"
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


def find_sequence_kind(ctx: Context) -> Diagnosis | None:
    kinds, long_enough = set(), False
    for case in ctx.cases:
        got, exp = _rows(case.got), _rows(case.expected)
        if got is None or exp is None or got.shape != exp.shape:
            return None
        ratio = _geometric_ratio(exp)
        if ratio is None or np.any(np.abs(ratio) < 1e-9):
            return None  # not a geometric sequence, or a constant one
        long_enough |= exp.shape[-1] >= 3
        mine = _geometric_ratio(got)
        steps = np.diff(got, axis=-1)
        if mine is not None and not np.allclose(mine, ratio, rtol=1e-6, atol=1e-12):
            kinds.add("geometric")
        elif _constant_steps(steps, float(np.abs(got).max())) and np.all(steps[:, 0] != 0):
            kinds.add("arithmetic")
        else:
            return None
    if not long_enough or len(kinds) != 1:
        return None
    return Diagnosis("sequence", GEOMETRIC if kinds == {"geometric"} else ARITHMETIC)
