"""What the comparators say about a value that does not match, where more than one says it: a
shape, a dtype, −inf / +inf / NaN in the wrong places (each a message, said in the page's language)."""

from __future__ import annotations

import numpy as np

from autograder.i18n import N_, Message


def dtype_mismatch(got, expected) -> Message:
    if expected.kind == "f":
        text = N_(
            "you returned dtype {got} where {expected} was asked for (the input's dtype: keep it through every step)"
        )
    else:
        text = N_("you returned dtype {got} where {expected} was asked for")
    return Message(text, got=str(got), expected=str(expected))  # dtypes: plain text, stored as JSON


def shape_mismatch(got: tuple, expected: tuple) -> Message:
    return Message("shape {got} where {expected} was expected", got=list(got), expected=list(expected))


def misplaced_nonfinite(arr: np.ndarray, exp: np.ndarray) -> Message | None:
    """Where the expected value holds −inf / +inf / NaN (masked scores), the answer must hold the
    same in exactly those places: an error size cannot say that, so say it in words."""
    if np.isfinite(exp).all():
        return None
    for test, what in ((np.isneginf, "−inf"), (np.isposinf, "+inf"), (np.isnan, "NaN")):
        wrong = test(arr) != test(exp)
        if wrong.any():
            return Message(
                "{what} is not where it should be ({n} of {size} entries)",
                what=what,
                n=int(wrong.sum()),
                size=wrong.size,
            )
    return None
