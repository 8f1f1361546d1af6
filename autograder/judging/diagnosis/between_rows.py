"""Diagnosis finder for rows mixed between neighbouring rows of an input table (position
interpolation: P[a] + w·(P[a+1] − P[a])): each of the answer's wrong rows lies on the line through
the same two neighbouring rows as the reference's row, at another point along it — the rows are the
right ones, the weight (the position's fraction between them) is not. Runs after
``copied_rows`` (every row a plain copy is said there)."""

from __future__ import annotations

import numpy as np

from autograder.i18n import N_, Message
from autograder.judging.diagnosis.base import Context, Diagnosis, numeric_array

OTHER_WEIGHT = N_(
    "each of your wrong rows lies on the line through the same two neighbouring rows of `{name}` as the "
    "reference's row, but at another point along it: the rows your code mixes are the right ones, the weight "
    "it gives the second of them (the position's fraction between the two rows) is not"
)


def _segments(row: np.ndarray, table: np.ndarray) -> set[int]:
    """The a with ``row`` = table[a] + w·(table[a+1] − table[a]) for some real w."""
    found = set()
    for a in range(table.shape[0] - 1):
        step = table[a + 1] - table[a]
        norm = float(step @ step)
        if norm < 1e-18:
            continue
        w = float((row - table[a]) @ step) / norm
        scale = max(1.0, float(np.abs(table).max()))
        if np.allclose(table[a] + w * step, row, rtol=0.0, atol=1e-6 * scale):
            found.add(a)
    return found


def find_other_weight(ctx: Context) -> Diagnosis | None:
    if not ctx.question.call:
        return None
    names = set()
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or got.shape != exp.shape or exp.ndim != 2 or exp.shape[1] < 2:
            return None
        off = ~np.isclose(got, exp, rtol=1e-4, atol=1e-5).all(-1)
        if not off.any() or not np.all(np.isfinite(got)):
            return None
        tables = [
            (name, np.asarray(arg, dtype=np.float64))
            for name, arg in zip(ctx.params, case.probe.args)
            if isinstance(arg, np.ndarray) and arg.dtype.kind == "f" and arg.ndim == 2 and arg.shape[1] == exp.shape[1]
        ]
        rows = np.flatnonzero(off)
        fits = [
            name
            for name, table in tables
            if table.shape[0] >= 2 and all(_segments(got[r], table) & _segments(exp[r], table) for r in rows)
        ]
        if len(fits) != 1:
            return None
        names.add(fits[0])
    if len(names) != 1:
        return None
    return Diagnosis("interpolation_weight", Message(OTHER_WEIGHT, name=names.pop()))
