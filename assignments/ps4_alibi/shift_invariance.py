"""Parts 4 and 5, why the relative bias m·(j − i) and the key-only bias m·j give the same
softmax: the difference as a formula (graded with SymPy) and the multiple choice; the shift
invariance is proved exactly in ``solutions.derivations.positional_proofs``
(tests/solutions/test_positional_proofs.py)."""

import sympy

from autograder.authoring import Choice, Formula, Misconception, Question
from solutions.derivations.positional_proofs import alibi_row_difference

# Formula misconceptions are SymPy expressions (the Formula comparator compares the student's
# string with an expression; a plain string as the "expected" side is not understood).
_M, _I, _J = sympy.symbols("m i j", positive=True)


QUESTIONS = [
    Question(
        grade_id="bias_difference",
        answer="bias_difference",
        title="m·(j − i) minus m·j",
        call=False,
        reference=alibi_row_difference,
        compare=Formula(("m", "i", "j")),
        misconceptions=(
            Misconception(
                "difference_sign", "m·(j − i) − m·j = m·j − m·i − m·j = −m·i: check the sign.", lambda: _M * _I
            ),
            Misconception(
                "difference_zero",
                "The two biases are not equal entry by entry: they differ by "
                "−m·i — a constant along each row, which is why the softmax does not notice.",
                lambda: sympy.Integer(0),
            ),
        ),
    ),
    Question(
        grade_id="same_softmax",
        answer="same_softmax",
        title="Does the softmax change?",
        call=False,
        reference=lambda: "B",
        compare=Choice(),
        misconceptions=(
            Misconception(
                "biases_differ_so_weights_differ",
                "Different biases can give the same weights: softmax(s + c) = softmax(s) for any "
                "constant c added to a whole row, and −m·i is the same for every key j of query i.",
                lambda: "A",
            ),
            Misconception(
                "only_first_row",
                "Not only row 0: in every row i the difference −m·i is constant "
                "over the keys j, so every row's softmax is unchanged.",
                lambda: "C",
            ),
        ),
    ),
]
