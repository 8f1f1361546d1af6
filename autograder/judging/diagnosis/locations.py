"""Diagnosis finders that say *where* a wrong answer is wrong, when no relation explains it:
only in the rows whose mask allows nothing, only at one edge, only at even or odd indices, only
in one half of an axis (NaN and ±inf: non_finite.py)."""

from __future__ import annotations

import itertools

import numpy as np

from autograder.i18n import Message
from autograder.i18n.message import clauses
from autograder.judging.diagnosis import location_texts as wording
from autograder.judging.diagnosis.base import Case, Context, Diagnosis, numeric_array


def off_entries(ctx: Context, case: Case) -> np.ndarray | None:
    """Where the answer is off (same shape as the expected value), or None."""
    got, exp = numeric_array(case.got), numeric_array(case.expected)
    if got is None or exp is None or got.shape != exp.shape:
        return None
    with np.errstate(invalid="ignore"):
        same = np.isclose(got, exp, rtol=1e-4, atol=1e-5, equal_nan=True)
    return ~same


def find_masked_rows(ctx: Context) -> Diagnosis | None:
    """Wrong only in the rows whose mask allows nothing (a query that may attend to no key)."""
    for case in ctx.cases:
        off = off_entries(ctx, case)
        masks = [a for a in case.probe.args if isinstance(a, np.ndarray) and a.dtype == bool]
        if off is None or not masks or off.ndim < 2:
            return None
        empty = _empty_rows(masks[0], off.shape[:-1])
        if empty is None or not empty.any() or np.any(off.any(-1) & ~empty):
            return None
    return Diagnosis(
        "masked_rows",
        Message(
            "only the rows whose mask allows no position at all (a query with every key masked) are "
            "wrong: such a row must come out as the specification says — its attention weights all "
            "zero, so no value contributes — not NaN, nor uniform weights that average the values"
        ),
    )


def _empty_rows(mask: np.ndarray, rows: tuple[int, ...]) -> np.ndarray | None:
    """Where the mask allows no position, in the shape of the output's rows (its shape without the
    last axis): the mask's own rows, or with its size-1 axes (heads, a broadcast query axis) dropped
    one at a time until they broadcast — (B, 1, 1, T_k) for an output (B, T_q, d). None if none do."""
    empty = ~mask.any(-1)
    while True:
        try:
            return np.broadcast_to(empty, rows)
        except ValueError:
            ones = [a for a in range(empty.ndim) if empty.shape[a] == 1]
            if not ones:
                return None
            empty = np.squeeze(empty, axis=ones[0])


def find_edge(ctx: Context) -> Diagnosis | None:
    """Wrong only at the first or the last index along one axis."""
    first = numeric_array(ctx.cases[0].expected)
    if first is None:
        return None
    for axis, index in itertools.product(range(-first.ndim, 0), (0, -1)):
        ok = True
        for case in ctx.cases:
            off = off_entries(ctx, case)
            if off is None or off.ndim < -axis or off.shape[axis] < 3:
                ok = False
                break
            rest = np.delete(off, index % off.shape[axis], axis=axis)
            if rest.any() or not off.any():
                ok = False
                break
        if ok:
            return Diagnosis("edge", wording.edge_text(first.ndim, axis, index))
    return None


def _wrong_indices(ctx: Context, axis: int) -> list[tuple[int, set[int]]] | None:
    """Per failing probe: the axis's length and the indices along it where something is wrong."""
    out = []
    for case in ctx.cases:
        off = off_entries(ctx, case)
        if off is None or off.ndim < -axis or off.shape[axis] < 4:
            return None
        other = tuple(a for a in range(off.ndim) if a != off.ndim + axis)
        out.append((off.shape[axis], set(np.flatnonzero(off.any(axis=other)).tolist())))
    return out


def find_stripes(ctx: Context) -> Diagnosis | None:
    """Wrong only at even (or odd) indices along an axis, or only in one half of it."""
    first = numeric_array(ctx.cases[0].expected)
    if first is None:
        return None
    for axis in range(-1, -first.ndim - 1, -1):
        found = _wrong_indices(ctx, axis)
        if not found or not all(wrong for _, wrong in found):
            continue
        words = wording.axis_words(first.ndim, axis)
        for parity, text in enumerate(wording.PARITY_TEXTS):
            if all(all(i % 2 == parity for i in wrong) for _, wrong in found):
                return Diagnosis("stripes", Message(text, items=words))
        for half, text in enumerate(wording.HALF_TEXTS):
            if all(all((i >= n // 2) == bool(half) for i in wrong) and n % 2 == 0 for n, wrong in found):
                return Diagnosis("stripes", Message(text, items=words))
    return None


def find_shape(ctx: Context) -> Diagnosis | None:
    """The right numbers in the wrong shape: an extra or missing axis of size 1, or axes reordered."""
    texts = set()
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or got.shape == exp.shape:
            return None
        if got.ndim == exp.ndim and sum(a != b for a, b in zip(got.shape, exp.shape)) == 1:
            axis = next(i for i, (a, b) in enumerate(zip(got.shape, exp.shape)) if a != b) - got.ndim
            text = _length_relation(got, exp, axis, wording.along(got.ndim, axis))
            if text is None:  # the sizes alone relate; the entries do not bear it out
                return None
            texts.add(text)
        elif exp.ndim == 0 and got.shape == (1,):  # the wire's 0-d tensor: one number, not an axis
            return None
        elif np.squeeze(got).shape == np.squeeze(exp).shape:
            texts.add(
                Message(
                    "your output has an axis of size 1 too many or too few (keepdim, unsqueeze or an "
                    "index that drops an axis?)"
                )
            )
        elif sorted(got.shape) == sorted(exp.shape):
            texts.add(
                Message(
                    "your output has the right sizes in another order of axes: check the transposes "
                    "and the order of the dimensions"
                )
            )
        else:
            return None
    return Diagnosis("shape", sorted(texts)[0]) if len(texts) == 1 else None


def _length_relation(got: np.ndarray, exp: np.ndarray, axis: int, where: Message | str) -> Message | None:
    """An answer one entry longer or shorter along ``axis`` whose entries are the reference's but
    for one at an end; or twice or half as long, the shorter being every second entry or one half
    of the longer. None when the entries do not bear the relation out."""
    mine, theirs = got.shape[axis], exp.shape[axis]
    short, long_ = (got, exp) if mine < theirs else (exp, got)
    n, m = short.shape[axis], long_.shape[axis]

    def same(idx) -> bool:
        return np.allclose(short, np.take(long_, idx, axis=axis), rtol=1e-4, atol=1e-5, equal_nan=True)

    more = mine > theirs
    if m - n == 1 and n >= 1 and (same(range(0, n)) or same(range(1, m))):
        return Message(wording.LENGTH_TEXTS["one, ends agree"][more], where=where)
    if m - n == 1:  # the length alone: a fact, whatever the entries
        return Message(wording.LENGTH_TEXTS["one"][more], where=where)
    if m == 2 * n and n >= 1:
        if same(range(0, m, 2)) or same(range(1, m, 2)):
            return Message(wording.LENGTH_TEXTS["twice, every second"][more], where=where)
        if same(range(0, n)) or same(range(n, m)):
            return Message(wording.LENGTH_TEXTS["twice, one half"][more], where=where)
    return None


def find_agreeing_prefix(ctx: Context) -> Diagnosis | None:
    """Right at the first index (or first few) along an axis, wrong from there on: the dependence on
    that index (a rate, a frequency, a step) is off while the starting value is right."""
    first = numeric_array(ctx.cases[0].expected)
    if first is None:
        return None
    for axis in range(-first.ndim, 0):
        found = _wrong_indices(ctx, axis)
        if not found:
            continue
        starts = {min(wrong) if wrong else None for _, wrong in found}
        if None in starts or len(starts) != 1:
            continue
        start = starts.pop()
        if start >= 1 and all(wrong == set(range(start, n)) for n, wrong in found):
            return Diagnosis(
                "location",
                Message(
                    "your values agree up to index {last_right}{where} and are wrong from "
                    "{first_wrong} on: what changes with that index (a rate, a frequency, a "
                    "step, a position) is off, while the starting value is right",
                    last_right=start - 1,
                    where=wording.along(first.ndim, axis),
                    first_wrong=start,
                ),
            )
    return None


def find_diagonal(ctx: Context) -> Diagnosis | None:
    """In square matrices: wrong only on the diagonal, or only off it."""
    on = Message("only the entries on the diagonal are wrong, the others agree with the reference")
    off_diagonal = Message("only the entries off the diagonal are wrong, the others agree with the reference")
    for text, pick in ((on, lambda eye: eye), (off_diagonal, lambda eye: ~eye)):
        ok = True
        for case in ctx.cases:
            off = off_entries(ctx, case)
            if off is None or off.ndim < 2 or off.shape[-1] != off.shape[-2] or off.shape[-1] < 2:
                return None
            eye = np.broadcast_to(np.eye(off.shape[-1], dtype=bool), off.shape)
            if np.any(off & ~pick(eye)):
                ok = False
                break
        if ok:
            return Diagnosis("diagonal", text)
    return None


def which_inputs(question, probes, cases) -> Diagnosis | None:
    """Right on some kinds of input, wrong on others: name them (labels students may read)."""
    from autograder.judging.labels import public_label

    wrong_ids = {id(c.probe) for c in cases}
    if not question.call or len(wrong_ids) == len(probes) or not all(p.label for p in probes):
        return None
    right = [public_label(p, i) for i, p in enumerate(probes) if id(p) not in wrong_ids]
    wrong = [public_label(p, i) for i, p in enumerate(probes) if id(p) in wrong_ids]
    return Diagnosis(
        "which_inputs",
        Message(
            "right on {right} — but wrong on {wrong}: look at what your code does differently for those inputs",
            right=clauses(right),  # "probe 3" is said in the page's language too
            wrong=clauses(wrong),
        ),
    )


def integer_input(ctx: Context, case: Case) -> np.ndarray | None:
    """The probe's integer array argument of the output's own shape (an element-wise map such as
    relative position → bucket), or None."""
    exp = numeric_array(case.expected)
    found = [
        a
        for a in case.probe.args
        if isinstance(a, np.ndarray) and a.dtype.kind in "iu" and exp is not None and a.shape == exp.shape
    ]
    return found[0] if len(found) == 1 else None


def find_input_region(ctx: Context) -> Diagnosis | None:
    """An element-wise map of integer inputs (relative positions → buckets, …) that is right for
    some inputs and wrong for others: name the region (negative inputs only, large magnitudes
    only, zero only) and whether it is off by one there — never the boundary's value."""
    regions = {"neg": [], "pos": [], "zero": [], "large": []}
    small_right: set = set()  # right inputs smaller than every wrong one of their probe, over all probes
    off_by_one = True
    for case in ctx.cases:
        inp, off = integer_input(ctx, case), off_entries(ctx, case)
        if inp is None or off is None or not off.any() or off.all():
            return None
        wrong, right = inp[off], inp[~off]
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        off_by_one &= bool(np.all(np.abs(got[off] - exp[off]) == 1))
        regions["neg"].append(bool(np.all(wrong < 0)))
        regions["pos"].append(bool(np.all(wrong > 0)))
        regions["zero"].append(bool(np.all(wrong == 0)))
        # every input smaller (in magnitude) than the smallest wrong one is right, and there are several
        below = np.unique(np.abs(right[np.abs(right) < np.abs(wrong).min()]))
        regions["large"].append(len(below) >= 1)
        small_right.update(below.tolist())
    texts = {
        "zero": Message("only the input 0 gets a wrong result: check the special case at zero"),
        "large": Message(
            "your results are right for small inputs (in magnitude) and wrong only for some larger "
            "ones: the rule for the large ones (a logarithmic range, a clamp, a maximum) is off"
        ),
        "neg": Message(
            "only the negative inputs get wrong results, the others are right: check the branch for "
            "negative values (their sign, an offset for them, or which side they belong to)"
        ),
        "pos": Message(
            "only the positive inputs get wrong results, the others are right: check the branch for "
            "positive values (an offset for them, or which side they belong to)"
        ),
    }
    regions["large"].append(len(small_right) >= 3)
    for key in ("zero", "large", "neg", "pos"):
        if all(regions[key]) and off_by_one:
            return Diagnosis(
                "input_region",
                Message(
                    "{finding} — off by one there (a boundary or a rounding, floor vs round or < vs ≤)",
                    finding=texts[key],
                ),
            )
        if all(regions[key]):
            return Diagnosis("input_region", texts[key])
    if off_by_one:
        return Diagnosis(
            "off_by_one",
            Message(
                "wherever your integers differ from the reference's they are off by one: "
                "a boundary (< vs ≤), a rounding (floor vs round) or a range end"
            ),
        )
    return None


def find_other_axis(ctx: Context) -> Diagnosis | None:
    """A 1-D answer whose length is another input's size (one entry per feature where one per
    position is expected), or an answer with an extra last axis: a reduction over the wrong axis,
    or a missing one."""
    texts = set()
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or got.shape == exp.shape:
            return None
        if got.ndim == 0 and exp.ndim >= 1 and exp.size > 1:
            texts.add(
                Message(
                    "your output is a single number where the reference has one value per entry: a sum, mean or "
                    "maximum taken over every axis (or a scalar where a tensor belongs)"
                )
            )
        elif got.ndim == exp.ndim + 1 and got.shape[: exp.ndim] == exp.shape and got.shape[-1] > 1:
            texts.add(
                Message(
                    "your output has an extra last axis that the reference sums (reduces) away: a sum or mean "
                    "over that axis is missing, or taken over another one"
                )
            )
        elif got.ndim == exp.ndim == 1:
            sizes = {}
            for name, arg in zip(ctx.params, case.probe.args):
                if isinstance(arg, np.ndarray):
                    for n in arg.shape:
                        sizes.setdefault(n, Message(wording.PER_AXIS_ENTRY, name=name))
                elif isinstance(arg, (int, np.integer)) and not isinstance(arg, bool):
                    sizes.setdefault(int(arg), Message(wording.PER_ARGUMENT, name=name))
            if got.shape[0] not in sizes or got.shape[0] == exp.shape[0]:
                return None
            texts.add(sizes[got.shape[0]])
        else:
            return None
    return Diagnosis("reduced_axis", texts.pop()) if len(texts) == 1 else None


def find_stops(ctx: Context) -> Diagnosis | None:
    """A sequence that is a proper prefix of the reference's on every failing probe (it stops too
    early), or that starts with the reference's whole sequence and goes on (it stops too late)."""
    kinds = set()
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or got.ndim != 1 or exp.ndim != 1 or len(got) == len(exp):
            return None
        if np.asarray(case.expected).dtype.kind not in "iu":  # sequences of tokens (integers) only
            return None
        short, long_ = (got, exp) if len(got) < len(exp) else (exp, got)
        if len(short) == 0 or not np.array_equal(short, long_[: len(short)]):
            return None
        kinds.add("early" if len(got) < len(exp) else "late")
    if kinds == {"early"}:
        return Diagnosis(
            "stops",
            Message(
                "your sequence stops too early: as far as it goes it agrees with the reference — "
                "check the stopping condition (the end token, the length budget)"
            ),
        )
    if kinds == {"late"}:
        return Diagnosis(
            "stops",
            Message(
                "your sequence goes on where the reference's stops (up to there they agree): "
                "check the stopping condition (the end token, the length budget)"
            ),
        )
    return None
