"""Diagnosis finder for an answer that leaves an input out: on every failing probe, the reference
re-run with one floating-point array argument set to all zeros gives what the answer returned — a
bias never added (`F.linear(x, w)` where `F.linear(x, w, b)` belongs), a term of a sum dropped.

Established by the re-run, not guessed: only the argument whose zeroing explains every failing probe
is named (two that both do: none), and the text names the argument, never a value."""

from __future__ import annotations

import numpy as np

from autograder.i18n import Message
from autograder.judging.diagnosis.base import Case, Context, Diagnosis


def _float_arrays(ctx: Context, case: Case) -> dict[str, int]:
    return {
        ctx.params[i]: i
        for i, arg in enumerate(case.probe.args)
        if i < len(ctx.params) and isinstance(arg, np.ndarray) and arg.dtype.kind == "f" and arg.size and arg.any()
    }


def _several_floats(value) -> bool:
    return isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.size > 1


def find_ignored_argument(ctx: Context) -> Diagnosis | None:
    # a float array on every failing probe: a verdict (a bool) or a single number matches a re-run by chance
    if not ctx.question.call or not ctx.cases or not all(_several_floats(c.expected) for c in ctx.cases):
        return None
    per_case = [_float_arrays(ctx, c) for c in ctx.cases]
    names = [n for n in per_case[0] if all(n in p for p in per_case)]

    def zeroed(name):
        def rerun(case: Case):
            args = list(case.probe.args)
            index = _float_arrays(ctx, case)[name]
            args[index] = np.zeros_like(args[index])
            return ctx.reference(tuple(args), dict(case.probe.kwargs))

        return rerun

    fitting = [n for n in names if ctx.all_fit(zeroed(n))]
    if len(fitting) != 1:
        return None  # none, or the probes cannot tell which argument it is
    return Diagnosis(
        "ignored_argument",
        Message(
            "on every input that fails, your output is what the reference gives when `{name}` is all zeros: "
            "your code leaves `{name}` out (or cancels it) — check where it should enter",
            name=fitting[0],
        ),
    )
