"""The sentences ``locations.py`` says, one message per case (a translation sees the whole
sentence): which edge, which parity or half, how much longer or shorter, per what."""

from __future__ import annotations

from autograder.i18n import N_, Message


def edge_text(ndim: int, axis: int, index: int) -> Message:
    if ndim == 1 and index == 0:
        return Message(
            "only the first entry is wrong, the others agree with the "
            "reference: check the boundary case (an off-by-one or a special case)"
        )
    if ndim == 1:
        return Message(
            "only the last entry is wrong, the others agree with the "
            "reference: check the boundary case (an off-by-one or a special case)"
        )
    if index == 0:
        return Message(
            "only the first position along axis {axis} is wrong, the others agree with the "
            "reference: check the boundary case (an off-by-one or a special case)",
            axis=axis,
        )
    return Message(
        "only the last position along axis {axis} is wrong, the others agree with the "
        "reference: check the boundary case (an off-by-one or a special case)",
        axis=axis,
    )


def axis_words(ndim: int, axis: int) -> Message:
    if ndim == 1:
        return Message("entries")
    return Message("columns (the last axis)") if axis == -1 else Message("positions along axis {axis}", axis=axis)


def along(ndim: int, axis: int) -> Message | str:
    """The words " along axis {axis}" after a phrase; nothing for a 1-D output."""
    return "" if ndim == 1 else Message(" along axis {axis}", axis=axis)


PARITY_TEXTS = (
    N_(
        "only the {items} with even index (0-based) are wrong, the others "
        "agree: look at what you compute for that half of the pairs"
    ),
    N_(
        "only the {items} with odd index (0-based) are wrong, the others "
        "agree: look at what you compute for that half of the pairs"
    ),
)
HALF_TEXTS = (
    N_("only the first half of the {items} is wrong, the other half agrees: look at what you compute for that half"),
    N_("only the second half of the {items} is wrong, the other half agrees: look at what you compute for that half"),
)

# (fewer, more) entries than the reference's; {where}: " along axis …", or nothing for a 1-D output
LENGTH_TEXTS = {
    "one, ends agree": (
        N_(
            "your output has one entry too few{where} (the others agree "
            "with the reference): an off-by-one in a range, a slice or a length"
        ),
        N_(
            "your output has one entry too many{where} (the others agree "
            "with the reference): an off-by-one in a range, a slice or a length"
        ),
    ),
    "one": (
        N_(
            "your output has one entry too few{where}: check its length — "
            "a range, a slice or a stopping condition off by one"
        ),
        N_(
            "your output has one entry too many{where}: check its length — "
            "a range, a slice or a stopping condition off by one"
        ),
    ),
    "twice, every second": (
        N_(
            "your output has half as many entries{where}, "
            "every second one agreeing with the reference: check the step of a range or slice"
        ),
        N_(
            "your output has twice as many entries{where}, "
            "every second one agreeing with the reference: check the step of a range or slice"
        ),
    ),
    "twice, one half": (
        N_(
            "your output has half as many entries{where}, "
            "one half agreeing with the reference: a range that stops halfway or runs on too long"
        ),
        N_(
            "your output has twice as many entries{where}, "
            "one half agreeing with the reference: a range that stops halfway or runs on too long"
        ),
    ),
}

PER_AXIS_ENTRY = N_(
    "your output has one entry per entry along an axis of `{name}` instead of one per entry the reference has: "
    "you reduce (sum) over the wrong axis, or keep the wrong one"
)
PER_ARGUMENT = N_(
    "your output has one entry per `{name}` instead of one per entry the reference has: you reduce (sum) over "
    "the wrong axis, or keep the wrong one"
)
