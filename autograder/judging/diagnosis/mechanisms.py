"""Diagnosis finders that name a mechanism a location finder would otherwise only point at: an
input scaled before the reference's own arithmetic (missing 1/√d_k where a bias is added after the
scaling, so the softmax's whole input is not scaled), and entries that must be −∞ (the positions a
mask blocks) left finite, or −∞ where the reference allows. Each explains every failing probe of
its ``Context`` or returns None; ``diagnose`` asks them before any finder that says *where*."""

from __future__ import annotations

import numpy as np

from autograder.i18n import Message
from autograder.judging.diagnosis.base import Context, Diagnosis, numeric_array

# the factors an input may be scaled by: a size's root (√d_k, 1/√d_k) or 2, 1/2
_ROOTS = ("√", "1/√")


def _scale_names(ctx: Context, probe) -> list[tuple[str, float]]:
    return [(n, v) for n, v in ctx.factor_names(probe) if n.startswith(_ROOTS) or n in ("2", "1/2")]


def find_scaled_input(ctx: Context) -> Diagnosis | None:
    """The reference re-run with one tensor argument multiplied by a named factor gives the answer:
    the scores that argument makes are off by that factor (the scaling missing, applied twice or
    inverted), though not the softmax's whole input (a bias added after the scaling)."""
    if not ctx.question.call:
        return None
    first = ctx.cases[0].probe
    tensors = [
        (i, name)
        for i, (name, a) in enumerate(zip(ctx.params, first.args))
        if isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.ndim >= 2
    ]
    for index, name in tensors:
        for label, _ in _scale_names(ctx, first):

            def rerun(case, index=index, label=label):
                factor = dict(_scale_names(ctx, case.probe))[label]
                args = list(case.probe.args)
                args[index] = (args[index].astype(np.float64) * factor).astype(args[index].dtype)
                return ctx.reference(tuple(args), case.probe.kwargs)

            if ctx.all_fit(rerun):
                return Diagnosis(
                    "input_scale",
                    Message(
                        "your output is the reference's for `{name}` times {factor}: the scores made from "
                        "`{name}` are off by the factor {factor} — a scaling left out, applied twice or "
                        "inverted (the scores' scaling, not a term added to them afterwards)",
                        name=name,
                        factor=label,
                    ),
                )
    return None


def find_blocked_entries(ctx: Context) -> Diagnosis | None:
    """Wrong only where the reference is −∞ (the positions a mask blocks) and finite there, or −∞
    only where the reference is finite: the mask, not the values, is what is off."""
    kinds = set()
    for case in ctx.cases:
        got, exp = numeric_array(case.got), numeric_array(case.expected)
        if got is None or exp is None or got.shape != exp.shape:
            return None
        with np.errstate(invalid="ignore"):
            off = ~np.isclose(got, exp, rtol=1e-4, atol=1e-5, equal_nan=True)
        if not off.any():
            return None
        if np.all(np.isneginf(exp[off])) and np.all(np.isfinite(got[off])):
            kinds.add("finite")
        elif np.all(np.isfinite(exp[off])) and np.all(np.isneginf(got[off])):
            kinds.add("blocked")
        else:
            return None
    if kinds == {"finite"}:
        return Diagnosis(
            "mask_finite",
            Message(
                "your values agree with the reference wherever it is finite, but the positions it blocks "
                "(−∞: for a causal mask, every key after its query) are finite in yours: the mask is "
                "missing there — blocked positions must be −∞"
            ),
        )
    if kinds == {"blocked"}:
        return Diagnosis(
            "mask_blocks_too_much",
            Message(
                "your answer is −∞ at positions the reference allows (it has finite values there): your "
                "mask blocks positions it should not — check which side of the diagonal, or which keys, it blocks"
            ),
        )
    return None
