"""Part 2′, the errors in document 000's worked example: the statements the notebook lists
(A … G) about 000's θ_i and its three printed matrices, each judged from the printed numbers
against the right matrices and against 000's own (sign-lost) angles — the reference, the
known-wrong sets and their feedback."""

import torch

from autograder.authoring import Exact, Misconception, Question

from .common import BACKWARDS, DEGREES, EXPONENT_SIGN, matrix

# Document 000's three printed matrices (all three labelled R_{Θ,0} there), m = 0, 1, 2
PRINTED_000 = torch.tensor(
    [
        [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
        [[0.54, -0.84, 0, 0], [0.84, 0.54, 0, 0], [0, 0, -0.83, 0.54], [0, 0, -0.54, -0.83]],
        [[-0.41, -0.9, 0, 0], [0.9, -0.41, 0, 0], [0, 0, 0.4, -0.91], [0, 0, 0.91, 0.4]],
    ],
    dtype=torch.float64,
)
ROUNDING = 0.0051  # a printed entry rounded right to two decimals is this close to the value


def matrices(**kw):
    return torch.stack([matrix(m, 4, 100.0, **kw) for m in range(3)])


def close(a, b):
    return bool(((a - b).abs() <= ROUNDING + 0.01).all())


def statements():
    """Letter -> whether the notebook's statement about 000's worked example is true."""
    right, own = matrices(), matrices(sign=+1)  # 000's own angles: θ_2 = 100^(+2/4) = 10
    return {
        "A": close(PRINTED_000, own) and not close(PRINTED_000, right),  # the exponent's sign
        "B": True,  # the labels: all three are printed as R_{Θ,0} (text, not numbers)
        "C": close(PRINTED_000, matrices(sign=+1, backwards=True)),  # blocks transposed
        "D": not bool(torch.equal(right[0], torch.eye(4, dtype=torch.float64))),  # R_0 is not I
        "E": not close(PRINTED_000[1, :2, :2], right[1, :2, :2]),  # R_1's first block
        "F": bool(((PRINTED_000 - (own * 100).round() / 100).abs() > 1e-9).any()),  # rounding slips
        "G": close(PRINTED_000, matrices(sign=+1, degrees=True)),  # degrees
    }


def true_letters(**flip):
    """The sorted letters of the true statements; ``flip`` letter=True toggles one."""
    truth = statements()
    return sorted(k for k, v in truth.items() if v != flip.get(k, False))


MISSING = (
    "Not every error is in your list: there is more than one. Check the formula for θ_i, the "
    "labels of the three matrices, and every printed entry (to two decimals) against the "
    "cosine and sine of the angle the document itself uses."
)

QUESTIONS = [
    Question(
        grade_id="worked_errors",
        answer="worked_errors",
        title="The errors in document 000's worked example",
        call=False,
        reference=true_letters,
        compare=Exact(),
        misconceptions=(
            Misconception("only_the_sign", MISSING, lambda: true_letters(B=True, F=True)),
            Misconception("no_rounding_slips", MISSING, lambda: true_letters(F=True)),
            Misconception("no_labels", MISSING, lambda: true_letters(B=True)),
            Misconception(
                "sign_missed",
                EXPONENT_SIGN + " Document 000's m = 1 and m = 2 second blocks are printed with these angles.",
                lambda: true_letters(A=True),
            ),
            Misconception(
                "transposed", "Statement C is false. " + BACKWARDS.split(" Yours")[0], lambda: true_letters(C=True)
            ),
            Misconception(
                "identity_at_zero",
                "Statement D is false: at m = 0 every angle m·θ_i is 0 and each block is [[1, 0], [0, 1]].",
                lambda: true_letters(D=True),
            ),
            Misconception(
                "first_block",
                "Statement E is false: the first pair turns by m·θ_1 = m·1 whatever the exponent's "
                "sign, and the document's m = 1 first block holds cos 1 and sin 1 to two decimals.",
                lambda: true_letters(E=True),
            ),
            Misconception("degrees", "Statement G is false. " + DEGREES, lambda: true_letters(G=True)),
        ),
    ),
]
