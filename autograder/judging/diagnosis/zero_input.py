"""Diagnosis finder for an element-wise map of integer inputs (distances → similarities, offsets →
buckets) that is right where the input is 0 and wrong at every other input: the value at the origin
is right, what changes with the input (a rate, a frequency, a step) is not. Runs after the
relations (a factor, a power) and ``locations.find_input_region`` (a region that is wrong)."""

from __future__ import annotations

from autograder.i18n import Message
from autograder.judging.diagnosis.base import Context, Diagnosis
from autograder.judging.diagnosis.locations import integer_input, off_entries


def find_right_only_at_zero(ctx: Context) -> Diagnosis | None:
    """On every failing probe each input 0 gets the reference's value and every other input a wrong
    one; at least one probe holds a 0 and each several other inputs."""
    zero_seen = False
    for case in ctx.cases:
        inputs, off = integer_input(ctx, case), off_entries(ctx, case)
        if inputs is None or off is None:
            return None
        at_zero = inputs == 0
        if off[at_zero].any() or not off[~at_zero].all() or (~at_zero).sum() < 2:
            return None
        zero_seen |= bool(at_zero.any())
    if not zero_seen:
        return None
    return Diagnosis(
        "input_region",
        Message(
            "your results are right only where the input is 0 and wrong at every other input: what changes "
            "with the input (a rate, a frequency, a step) is off, while the value at 0 is right"
        ),
    )
