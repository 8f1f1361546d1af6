"""Diagnosis finder for an answer that gives every entry of a batch the first entry's inputs: on
every failing probe (each with more than one entry along the first axis of the output and of some
arguments, all of at least three axes: batch, tokens, features), the reference re-run with those
arguments' entry 0 repeated along their first axis gives what the answer returned — `past_k[0]`
used for every sequence of a batch (issue 36: such an answer is right on a batch of one, and a
circumstance found from the drawn probes alone named an odd width instead).

The cause is established by the re-run, not guessed from which probes fail: the smallest set of
arguments whose first entry, shared, explains every failing probe is named (two sets of one size
that both explain them: none is named). The text names the arguments, never a value."""

from __future__ import annotations

from itertools import combinations

import numpy as np

from autograder.i18n import Message
from autograder.judging.diagnosis.base import Case, Context, Diagnosis

# at most this many arguments are shared at once (beyond that: all batched arguments together)
_LARGEST_SUBSET = 2


def _leading(value) -> int | None:
    """The length of a batch axis: the first of an array with at least three (batch, tokens, features)."""
    shape = np.shape(value) if isinstance(value, np.ndarray) else None
    return shape[0] if shape and len(shape) >= 3 else None


def _batched_names(ctx: Context, case: Case) -> dict[str, int] | None:
    """Parameter name -> position of each array argument whose first axis is the output's (longer
    than 1); None when the output has no such axis."""
    batch = _leading(np.asarray(case.expected)) if isinstance(case.expected, np.ndarray) else None
    if batch is None or batch < 2:
        return None
    return {ctx.params[i]: i for i, arg in enumerate(case.probe.args) if i < len(ctx.params) and _leading(arg) == batch}


def _first_shared(case: Case, positions: list[int]) -> tuple:
    args = list(case.probe.args)
    for i in positions:
        arr = args[i]
        args[i] = np.repeat(arr[:1], arr.shape[0], axis=0)
    return tuple(args)


def find_first_entry_shared(ctx: Context) -> Diagnosis | None:
    if not ctx.question.call or not ctx.cases:
        return None
    per_case = [_batched_names(ctx, c) for c in ctx.cases]
    if any(not names for names in per_case):
        return None
    common = [n for n in per_case[0] if all(n in names for names in per_case)]
    if not common:
        return None
    sizes = list(range(1, min(_LARGEST_SUBSET, len(common)) + 1))
    if len(common) > _LARGEST_SUBSET:
        sizes.append(len(common))
    for size in sizes:
        fitting = []
        for subset in combinations(common, size):

            def rerun(case: Case, subset=subset):
                positions = [_batched_names(ctx, case)[n] for n in subset]
                return ctx.reference(_first_shared(case, positions), dict(case.probe.kwargs))

            if ctx.all_fit(rerun):
                fitting.append(subset)
        if len(fitting) > 1:
            return None  # the probes cannot tell which argument it is
        if fitting:
            names = ", ".join(f"`{n}`" for n in fitting[0])
            return Diagnosis(
                "first_entry_shared",
                Message(
                    "on every input that fails, your output is what the reference gives when every sequence of "
                    "the batch (every entry along the first axis) is given the first one's {names}: your code uses "
                    "entry 0 of {names} for the whole batch (as `{first}[0]` would) where each sequence needs its "
                    "own — right only on a batch of one",
                    names=names,
                    first=fitting[0][0],
                ),
            )
    return None
