"""Diagnosis finders for entries taken in pairs along the last axis, (0, 1), (2, 3), … (RoPE's
interleaved pairs, a sinusoidal table's (sin, cos) columns):

* ``find_misread_pairs`` — the reference re-run with one array argument's pairs read wrong (each
  pair holding its first entry twice, its second twice, or the two swapped) gives the answer: the
  code takes a pair's coordinates out of that argument with a wrong index or slice start;
* ``find_pair_entries_overwritten`` — the answer's entries at one parity hold what the reference
  has at the other parity, and its entries at that other parity are all 0: both parts were written
  to the same positions, the second over the first.

Each states only the relation every failing probe shows."""

from __future__ import annotations

import numpy as np

from autograder.i18n import N_, Message
from autograder.judging.diagnosis.base import Case, Context, Diagnosis, numeric_array

FIRST_TWICE = N_(
    "your results are what the reference gives when each pair of entries (2i, 2i+1) along the last axis of "
    "`{name}` holds its first entry twice: your code reads entry 2i where entry 2i+1 belongs — look at the index "
    "or slice with which you take each pair's second coordinate out of `{name}`"
)
SECOND_TWICE = N_(
    "your results are what the reference gives when each pair of entries (2i, 2i+1) along the last axis of "
    "`{name}` holds its second entry twice: your code reads entry 2i+1 where entry 2i belongs — look at the index "
    "or slice with which you take each pair's first coordinate out of `{name}`"
)
SWAPPED = N_(
    "your results are what the reference gives when the two entries of each pair (2i, 2i+1) along the last axis "
    "of `{name}` are swapped: your code takes each pair's two coordinates out of `{name}` the other way round"
)
OVERWRITTEN = {
    "odd": N_(
        "along the last axis your entries at odd positions are all 0, and those at even positions hold what the "
        "reference has at the odd ones: both parts of each pair are written to the even positions (the second "
        "write over the first) and the odd positions are never written"
    ),
    "even": N_(
        "along the last axis your entries at even positions are all 0, and those at odd positions hold what the "
        "reference has at the even ones: both parts of each pair are written to the odd positions (the second "
        "write over the first) and the even positions are never written"
    ),
}


def _first_twice(a: np.ndarray) -> np.ndarray:
    out = a.copy()
    out[..., 1::2] = a[..., 0::2]
    return out


def _second_twice(a: np.ndarray) -> np.ndarray:
    out = a.copy()
    out[..., 0::2] = a[..., 1::2]
    return out


def _swapped(a: np.ndarray) -> np.ndarray:
    out = a.copy()
    out[..., 0::2], out[..., 1::2] = a[..., 1::2], a[..., 0::2]
    return out


MISREADINGS = ((_first_twice, FIRST_TWICE), (_second_twice, SECOND_TWICE), (_swapped, SWAPPED))


def _paired(a) -> bool:
    if not (isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.ndim >= 1):
        return False
    return a.shape[-1] >= 2 and a.shape[-1] % 2 == 0


def find_misread_pairs(ctx: Context) -> Diagnosis | None:
    if not ctx.question.call:
        return None
    n_args = min(len(c.probe.args) for c in ctx.cases)
    for index in range(min(n_args, len(ctx.params))):
        if not all(_paired(c.probe.args[index]) for c in ctx.cases):
            continue
        for misread, text in MISREADINGS:

            def rerun(case: Case, index=index, misread=misread):
                args = list(case.probe.args)
                args[index] = misread(args[index])
                return ctx.reference(tuple(args), case.probe.kwargs)

            if ctx.all_fit(rerun):
                return Diagnosis("misread_pairs", Message(text, name=ctx.params[index]))
    return None


def find_pair_entries_overwritten(ctx: Context) -> Diagnosis | None:
    kinds = set()
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or got.shape != exp.shape or not got.ndim or got.shape[-1] % 2:
            return None
        even, odd = (slice(0, None, 2), slice(1, None, 2))
        for filled, empty, name in ((even, odd, "odd"), (odd, even, "even")):
            zero = np.all(got[..., empty] == 0) and not np.allclose(exp[..., empty], 0)
            moved = np.allclose(got[..., filled], exp[..., empty], rtol=1e-5, atol=1e-6)
            if zero and moved:
                kinds.add(name)
                break
        else:
            return None
    if len(kinds) != 1:
        return None
    return Diagnosis("pair_overwritten", Message(OVERWRITTEN[kinds.pop()]))
