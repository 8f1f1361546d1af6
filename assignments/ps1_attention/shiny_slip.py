"""Part 1, where document 003's printed context vector of "shiny" is off: the printed vector
minus the exact one (``shiny_printed_minus_exact``) and, entry by entry, whether the printed value
differs from the exact one rounded to 003's four decimals (``shiny_entries_off``). References from the
exact context vector (``by_hand``), the known-wrong answers and their feedback."""

import numpy as np

from autograder.authoring import AllClose, Exact, Misconception, Question

from .by_hand import E_003, SHINY_PRINTED_003, by_hand_reference

PRINTED_DECIMALS = 4  # 003 prints its context vector to four decimals


def exact_context():
    return np.asarray(by_hand_reference("context_shiny")(), dtype=np.float64)


def shiny_weights():
    scores = E_003.astype(np.float64) @ E_003[1]
    return np.exp(scores) / np.exp(scores).sum()


def printed_minus_exact():
    return np.array(SHINY_PRINTED_003) - exact_context()


def entries_off(decimals=PRINTED_DECIMALS):
    """For each printed entry: does it differ from the exact value rounded to ``decimals``?"""
    rounded = np.round(exact_context(), decimals)
    printed = np.round(np.array(SHINY_PRINTED_003), decimals)
    return [bool(not np.isclose(p, r)) for p, r in zip(printed, rounded, strict=True)]


QUESTIONS = [
    Question(
        grade_id="shiny_printed_minus_exact",
        answer="shiny_printed_minus_exact",
        title="Document 003's printed context vector against the exact one",
        call=False,
        reference=printed_minus_exact,
        compare=AllClose(atol=2e-5, rtol=0.0),
        misconceptions=(
            Misconception(
                "exact_minus_printed",
                "The order is printed minus exact: your differences have the opposite sign.",
                lambda: -printed_minus_exact(),
            ),
            Misconception(
                "printed_equals_exact",
                "The printed vector is not the exact one: compare them beyond the second decimal.",
                lambda: np.zeros(3),
            ),
            Misconception(
                "minus_rounded_weights",
                "Subtract the exact context vector (full-precision weights), not the one made from "
                "weights rounded to three decimals.",
                lambda: np.array(SHINY_PRINTED_003) - np.round(shiny_weights(), 3) @ E_003,
            ),
        ),
    ),
    Question(
        grade_id="shiny_entries_off",
        answer="shiny_entries_off",
        title="Which printed entries of document 003 are off",
        call=False,
        reference=entries_off,
        compare=Exact(),
        misconceptions=(
            Misconception(
                "all_entries_off",
                "Round the exact vector to the four decimals 003 prints before comparing: not every "
                "entry differs at that precision.",
                lambda: [True, True, True],
            ),
            Misconception(
                "no_entry_off",
                "At four decimals the printed vector and the exact one do not agree everywhere.",
                lambda: [False, False, False],
            ),
            Misconception(
                "compared_at_three_decimals",
                "Compare at the four decimals 003 prints: rounded to three, a slip in the fourth "
                "decimal can disappear.",
                lambda: entries_off(decimals=3),
            ),
        ),
    ),
]
