"""Part 1, where document 003's printed context vector of "shiny" is off: the printed vector
minus the exact one (``shiny_printed_minus_exact``) and which printed entries differ from the
exact vector rounded to 003's four decimals (``shiny_entries_off``). References from the
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


def entries_off():
    """Indices (0-based) of the printed entries that are not the exact value rounded to 4 decimals."""
    rounded = np.round(exact_context(), PRINTED_DECIMALS)
    return [i for i, (p, r) in enumerate(zip(SHINY_PRINTED_003, rounded, strict=True)) if not np.isclose(p, r)]


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
        compare=Exact(integers=True),
        misconceptions=(
            Misconception(
                "all_entries_off",
                "Round the exact vector to the four decimals 003 prints before comparing: one of "
                "the three entries agrees at that precision.",
                lambda: [0, 1, 2],
            ),
            Misconception(
                "no_entry_off",
                "At four decimals the printed vector and the exact one do not agree everywhere.",
                lambda: [],
            ),
            Misconception(
                "one_based_indices",
                "Give the indices 0-based (the first entry is index 0), as Python indexes.",
                lambda: [i + 1 for i in entries_off()],
            ),
        ),
    ),
]
