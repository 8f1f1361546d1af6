"""Diagnosis finder for a lookup into an input table (T5's bias: table[bucket, head]): every entry of
the reference's output and of the answer is an entry of the same 2-D input table, whose entries are
all different, and the answer's wrong entries come from the same column as the reference's but
from another row (or the same row, another column): the lookup is right, the index computed for
it is not. Runs after the relations and re-runs (a bucket flipped by a named misconception, a
flag the wrong way round, are said there)."""

from __future__ import annotations

import numpy as np

from autograder.i18n import N_, Message
from autograder.judging.diagnosis.base import Context, Diagnosis, numeric_array

OTHER_ROW = N_(
    "every entry of your output is an entry of `{name}`, as the reference's are, and each wrong one comes from "
    "the right column of `{name}` but from another row: the lookup is right, the row index your code computes "
    "for it (which row each position reads) is not"
)
OTHER_COLUMN = N_(
    "every entry of your output is an entry of `{name}`, as the reference's are, and each wrong one comes from "
    "the right row of `{name}` but from another column: the lookup is right, the column index your code "
    "computes for it is not"
)


def _positions(values: np.ndarray, table: np.ndarray) -> np.ndarray | None:
    """For each value, its flat index in ``table`` (whose entries are all different); None when a
    value is not one of the table's entries."""
    flat = table.reshape(-1)
    order = np.argsort(flat)
    ranked = flat[order]
    at = np.clip(np.searchsorted(ranked, values.reshape(-1)), 0, ranked.size - 1)
    below = np.clip(at - 1, 0, ranked.size - 1)
    nearer = np.where(np.abs(ranked[below] - values.reshape(-1)) < np.abs(ranked[at] - values.reshape(-1)), below, at)
    if not np.allclose(ranked[nearer], values.reshape(-1), rtol=1e-6, atol=0.0):
        return None
    return order[nearer]


def _distinct(table: np.ndarray) -> bool:
    ranked = np.sort(table.reshape(-1))
    return table.size >= 4 and bool(np.all(np.diff(ranked) > 1e-6 * np.abs(ranked[1:]).clip(min=1e-12)))


def find_other_table_entries(ctx: Context) -> Diagnosis | None:
    if not ctx.question.call:
        return None
    names, kinds = set(), set()
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or got.shape != exp.shape or not np.all(np.isfinite(got)):
            return None
        found = None
        for name, arg in zip(ctx.params, case.probe.args):
            if not (isinstance(arg, np.ndarray) and arg.dtype.kind == "f" and arg.ndim == 2):
                continue
            table = arg.astype(np.float64)
            if table.size > 1_000_000 or not _distinct(table):
                continue
            mine, theirs = _positions(got, table), _positions(exp, table)
            if mine is not None and theirs is not None:
                found = (name, table.shape[1], mine, theirs)
                break
        if found is None:
            return None
        name, width, mine, theirs = found
        off = mine != theirs
        if not off.any():
            return None
        same_column = np.all(mine[off] % width == theirs[off] % width)
        same_row = np.all(mine[off] // width == theirs[off] // width)
        if same_column == same_row:  # both (impossible when off) or neither: no single index to name
            return None
        names.add(name)
        kinds.add(OTHER_ROW if same_column else OTHER_COLUMN)
    if len(names) != 1 or len(kinds) != 1:
        return None
    return Diagnosis("table_lookup", Message(kinds.pop(), name=names.pop()))
