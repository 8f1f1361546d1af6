"""Diagnosis finders for values floating point could not represent: NaN or ±inf in the answer where
the reference's values are numbers."""

from __future__ import annotations

import numpy as np

from autograder.i18n import Message
from autograder.judging.diagnosis.base import Context, Diagnosis, numeric_array


def find_nan(ctx: Context) -> Diagnosis | None:
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or got.shape != exp.shape:
            return None
        if not np.any(np.isnan(got) & ~np.isnan(exp)):
            return None
    return Diagnosis(
        "nan",
        Message(
            "your output contains NaN where the reference has numbers: look for 0/0, or a "
            "softmax over a row whose entries are all −inf"
        ),
    )


def find_infinite(ctx: Context) -> Diagnosis | None:
    """±inf in the answer where the reference is finite, on every failing probe (after the mask
    finders: −∞ at the positions a mask blocks is said there)."""
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or got.shape != exp.shape:
            return None
        if not np.any(np.isinf(got) & np.isfinite(exp)):
            return None
    return Diagnosis(
        "infinite",
        Message(
            "your output holds ±inf where the reference's values are finite: in floating point that comes from a "
            "division by 0 (or the log of 0) or from a value too large to represent — look at what your code "
            "divides by, takes the log of, or raises to a power"
        ),
    )
