"""Diagnosis finder for an answer whose every row (along the last axis) is a copy of some row of an
input table, where the reference computes rows that no input row holds (rows mixed between
neighbours, interpolated): the positions are mapped onto the table, but what lies between its rows
is never computed — the position's fraction is lost, or the mapping runs off the table's end."""

from __future__ import annotations

import numpy as np

from autograder.i18n import Message
from autograder.judging.diagnosis.base import Context, Diagnosis, numeric_array


def _copied(rows: np.ndarray, table: np.ndarray) -> np.ndarray:
    """For each row, whether it equals some row of ``table``."""
    close = np.isclose(rows[:, None, :], table[None, :, :], rtol=1e-6, atol=1e-9).all(-1)
    return close.any(-1)


def find_copied_rows(ctx: Context) -> Diagnosis | None:
    names, mixed = set(), False
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or got.shape != exp.shape or exp.ndim != 2:
            return None
        tables = [
            (name, np.asarray(arg, dtype=np.float64))
            for name, arg in zip(ctx.params, case.probe.args)
            if isinstance(arg, np.ndarray) and arg.dtype.kind == "f" and arg.ndim == 2
        ]
        found = [(name, t) for name, t in tables if t.shape[-1] == exp.shape[-1] and _copied(got, t).all()]
        if len(found) != 1:
            return None
        names.add(found[0][0])
        mixed |= not _copied(exp, found[0][1]).all()
    if len(names) != 1 or not mixed:
        return None
    return Diagnosis(
        "copied_rows",
        Message(
            "every row of your output is a copy of one row of `{name}`, while some of the reference's rows are "
            "not rows of `{name}` but combinations of them: your code selects rows where the reference combines "
            "them (for positions between two rows: the fraction lost, or positions mapped past the last row)",
            name=names.pop(),
        ),
    )
