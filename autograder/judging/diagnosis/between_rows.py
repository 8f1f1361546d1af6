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


MAX_ROWS = 4096  # a table or an answer larger than this is no interpolation table: not searched


def _segments(row: np.ndarray, table: np.ndarray) -> set[int]:
    """The a with ``row`` = table[a] + w·(table[a+1] − table[a]) for some real w."""
    start, step = table[:-1], np.diff(table, axis=0)
    norm = np.einsum("ad,ad->a", step, step)
    w = np.einsum("ad,ad->a", row[None, :] - start, step) / np.where(norm < 1e-18, 1.0, norm)
    scale = max(1.0, float(np.abs(table).max()))
    close = np.all(np.abs(start + w[:, None] * step - row[None, :]) <= 1e-6 * scale, axis=1)
    return set(np.flatnonzero(close & (norm >= 1e-18)).tolist())


def find_other_weight(ctx: Context) -> Diagnosis | None:
    if not ctx.question.call:
        return None
    names = set()
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or got.shape != exp.shape or exp.ndim != 2 or exp.shape[1] < 2:
            return None
        off = ~np.isclose(got, exp, rtol=1e-4, atol=1e-5).all(-1)
        if not off.any() or not np.all(np.isfinite(got)) or got.shape[0] > MAX_ROWS:
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
            if 2 <= table.shape[0] <= MAX_ROWS
            and all(_segments(got[r], table) & _segments(exp[r], table) for r in rows)
        ]
        if len(fits) != 1:
            return None
        names.add(fits[0])
    if len(names) != 1:
        return None
    return Diagnosis("interpolation_weight", Message(OTHER_WEIGHT, name=names.pop()))
