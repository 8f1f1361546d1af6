"""Diagnosis finder for an answer that is one number repeated where the reference's entries vary:
on every failing probe all of the answer's entries are equal (and finite, not all zero — a zero
output is ``relations.find_zeros``'s), while the reference's differ among themselves. What should
make them differ (an index, a position, an input) does not reach the result."""

from __future__ import annotations

import numpy as np

from autograder.i18n import Message
from autograder.judging.diagnosis.base import Context, Diagnosis, numeric_array


def find_constant_output(ctx: Context) -> Diagnosis | None:
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or got.shape != exp.shape or exp.size < 2:
            return None
        if not np.all(np.isfinite(got)) or not np.all(np.isfinite(exp)):
            return None
        first = got.reshape(-1)[0]
        if first == 0 or not np.allclose(got, first, rtol=1e-9, atol=0.0):
            return None
        if np.allclose(exp, exp.reshape(-1)[0], rtol=1e-4, atol=1e-5):
            return None  # the reference is constant too: a wrong value, not a missing dependence
    return Diagnosis(
        "constant",
        Message(
            "every entry of your output is the same number, while the reference's entries differ: what should "
            "make them differ (an index, a position, one of the inputs) does not reach your result"
        ),
    )
