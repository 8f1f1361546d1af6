"""Automatic diagnosis: how a wrong answer relates to the reference, when no named misconception
matches.

From the returned values, the probes and the reference alone (in the trusted process), each
finder tests one relation on every probe the answer got wrong: a sign flip, a constant factor
(named when it is √d_k, d_k, 2, … — the sizes come from the probe's own arguments), the axes
in another order, entries reversed or permuted along an axis, a shift by one, the mask left
out or inverted (the reference re-run without, or with the inverse, mask), the softmax's
scores scaled or taken over another axis and LayerNorm over more axes (the reference re-run with
that primitive changed, ``variants``; its weights rounded), the wrong entries all zero, or precision only. The first
relation that explains every failing probe is the diagnosis; its text names the cause and
never the expected value. Formula answers get a term-by-term comparison (``formula_terms``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from autograder.i18n import Message
from autograder.judging.compare.comparators import AllClose, Exact, Formula
from autograder.judging.diagnosis.base import Case, Context, Diagnosis
from autograder.judging.diagnosis.batch_elements import find_first_entry_shared
from autograder.judging.diagnosis.between_rows import find_other_weight
from autograder.judging.diagnosis.circumstances import separating_circumstance
from autograder.judging.diagnosis.constant_output import find_constant_output
from autograder.judging.diagnosis.copied_rows import find_copied_rows
from autograder.judging.diagnosis.extents import find_length_offset, find_reshaped
from autograder.judging.diagnosis.ignored_argument import find_ignored_argument
from autograder.judging.diagnosis.locations import (
    find_agreeing_prefix,
    find_diagonal,
    find_edge,
    find_input_region,
    find_masked_rows,
    find_other_axis,
    find_shape,
    find_stops,
    find_stripes,
    which_inputs,
)
from autograder.judging.diagnosis.mechanisms import find_blocked_entries, find_scaled_input
from autograder.judging.diagnosis.non_finite import find_infinite, find_nan
from autograder.judging.diagnosis.pair_entries import find_misread_pairs, find_pair_entries_overwritten
from autograder.judging.diagnosis.relations import (
    find_axes,
    find_factor,
    find_lengths,
    find_power,
    find_precision,
    find_reversed_or_permuted,
    find_shift,
    find_sign,
    find_sums_axis,
    find_zeros,
)
from autograder.judging.diagnosis.reruns import (
    find_argument,
    find_mask,
    find_primitive_variants,
    find_rounded_weights,
)
from autograder.judging.diagnosis.sequences import find_sequence_kind
from autograder.judging.diagnosis.table_lookup import find_other_table_entries
from autograder.judging.diagnosis.zero_input import find_right_only_at_zero
from autograder.spec import Probe, Question

__all__ = ["Diagnosis", "diagnose"]

# in order: exact relations first, then the reference re-run, then where the errors are
FINDERS = (
    find_zeros,
    find_sign,
    find_factor,
    find_power,
    find_axes,
    find_shift,
    find_reversed_or_permuted,
    find_sums_axis,
    find_mask,
    find_argument,
    find_first_entry_shared,
    find_ignored_argument,
    find_primitive_variants,
    find_rounded_weights,
    find_scaled_input,
    find_blocked_entries,
    find_precision,
    find_sequence_kind,
    find_constant_output,
    find_copied_rows,
    find_other_weight,
    find_other_table_entries,
    find_misread_pairs,
    find_pair_entries_overwritten,
    # where the errors are: only once no relation (a factor, a scale, a mask, −∞) explains them
    find_masked_rows,
    find_edge,
    find_input_region,
    find_right_only_at_zero,
    find_stripes,
    find_diagonal,
    find_agreeing_prefix,
    find_lengths,
    find_stops,
    find_shape,
    find_length_offset,
    find_reshaped,
    find_other_axis,
    find_nan,
    find_infinite,
)


def diagnose(question: Question, probes: list[Probe], values: list[Any]) -> Diagnosis | None:
    """The first relation that explains every probe the answer got wrong, or None. ``values`` are
    the returned values (plain data), one per probe."""
    if isinstance(question.compare, Formula):
        from autograder.judging.diagnosis.formula_terms import formula_diagnosis

        return formula_diagnosis(question, values[0] if values else None)
    if not isinstance(question.compare, (AllClose, Exact)):
        return None  # task accuracies and the like: their comparator's own message says it all
    cases = []
    for probe, got in zip(probes, values):
        try:
            expected = question.expected(probe)
            if not question.compare.matches(got, expected):
                cases.append(Case(probe, got, expected))
        except Exception:  # noqa: BLE001
            return None
    if not cases:
        return None
    if getattr(question.compare, "length_is_answer", False) and any(_shape(c.got) != _shape(c.expected) for c in cases):
        return None  # how many entries it holds is part of the answer: no diagnosis may say it
    found = _first_finding(Context(question, cases))
    if found is not None:
        return found
    # No relation explains every wrong probe: none is claimed (one that fits only some of them —
    # a relative shift by |k| that looks like a transpose on one square probe — would mislead).
    return wrong_when(question, probes, cases) or which_inputs(question, probes, cases)


def _shape(value: Any) -> tuple | None:
    try:
        return np.shape(value)
    except Exception:  # noqa: BLE001 - ragged or unreadable: no shape
        return None


def wrong_when(question: Question, probes: list[Probe], cases: list[Case]) -> Diagnosis | None:
    """Right on some probes, wrong on others, and one property of the arguments tells them apart
    (the same properties as for a crash: an argument given or None, the number of axes, an option,
    an odd size, …) — named, never the probes' values."""
    if not question.call:
        return None
    wrong_ids = {id(c.probe) for c in cases}
    wrong = [p for p in probes if id(p) in wrong_ids]
    right = [p for p in probes if id(p) not in wrong_ids]
    if not wrong or not right:
        return None
    # a size's divisibility by 4 tells a crash's cause (a reshape into fours), hardly a wrong value's
    words = separating_circumstance(question, probes, wrong, right, skip=("not a multiple of 4",), controlled=True)
    if words is None:
        return None
    return Diagnosis(
        "wrong_when",
        Message(
            "your answer is right on every input except when {circumstance}: look at what your code does in that case",
            circumstance=words,
        ),
    )


def _first_finding(ctx: Context) -> Diagnosis | None:
    for finder in FINDERS:
        try:
            found = finder(ctx)
        except Exception:  # noqa: BLE001 - a diagnosis that cannot be made is no diagnosis
            found = None
        if found is not None:
            return found
    return None
