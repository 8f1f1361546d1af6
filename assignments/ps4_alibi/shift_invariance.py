"""Parts 4 and 5, why the relative bias m·(j − i) and the key-only bias m·j give the same
softmax: the difference as a formula (graded with SymPy), the multiple choice (claims without
their reasons), and the symmetric bias −m·|j − i| of a bidirectional ALiBi, where the key-only
shortcut holds in one row only (its answer found by checking, row by row, whether the difference
is constant over the keys). The shift invariance is proved exactly in
``solutions.derivations.positional_proofs`` (tests/solutions/test_positional_proofs.py)."""

import sympy
import torch

from autograder.authoring import Choice, Formula, Misconception, Question
from solutions.derivations.positional_proofs import alibi_row_difference

# Formula misconceptions are SymPy expressions (the Formula comparator compares the student's
# string with an expression; a plain string as the "expected" side is not understood).
_M, _I, _J = sympy.symbols("m i j", positive=True)

# Part 5(b)'s options: the rows i of a T-token sequence in which the symmetric bias and the
# key-only bias give the same weights for every score
ROW_OPTIONS = {"A": "every row", "B": "only the last row", "C": "only row 0", "D": "no row"}


def rows_with_same_softmax(t=6, slope=0.5):
    """The rows where −m·|j − i| − m·j is constant over the keys j (the softmax ignores only that)."""
    i, j = torch.arange(t)[:, None], torch.arange(t)[None, :]
    difference = -slope * (j - i).abs() - slope * j
    return [row for row in range(t) if bool((difference[row] == difference[row, 0]).all())]


def bidirectional_choice():
    rows = rows_with_same_softmax()
    last = rows_with_same_softmax.__defaults__[0] - 1
    by_rows = {(): "D", (0,): "C", (last,): "B", tuple(range(last + 1)): "A"}
    return by_rows[tuple(rows)]


QUESTIONS = [
    Question(
        grade_id="bias_difference",
        answer="bias_difference",
        title="m·(j − i) minus m·j",
        call=False,
        reference=alibi_row_difference,
        compare=Formula(
            ("m", "i", "j"),
            concept="expand m·(j − i), with i the query's position and j the key's, then subtract m·j and simplify.",
        ),
        misconceptions=(
            Misconception(
                "difference_sign",
                "Recheck both steps: the bias is m·(j − i), with i the query's position and j the "
                "key's, and the question subtracts the key-only bias m·j from it.",
                lambda: _M * _I,
            ),
            Misconception(
                "difference_zero",
                "The two biases are not equal entry by entry: expand m·(j − i), subtract m·j and simplify "
                "term by term — the difference is not 0.",
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
        compare=Choice(("A", "B", "C")),
        misconceptions=(
            Misconception(
                "biases_differ_so_weights_differ",
                "Different biases can give the same weights: the softmax ignores any constant "
                "added to a whole row. Look at how your part 4 difference depends on the key j.",
                lambda: "A",
            ),
            Misconception(
                "only_first_row",
                "Not only row 0: ask in every row i whether the difference of part 4 depends on the key j.",
                lambda: "C",
            ),
        ),
    ),
    Question(
        grade_id="bidirectional_rows",
        answer="bidirectional_rows",
        title="A bidirectional bias and the key-only shortcut",
        call=False,
        reference=bidirectional_choice,
        compare=Choice(tuple(ROW_OPTIONS)),
        misconceptions=(
            Misconception(
                "shortcut_carries_over",
                "Part 5's identity needs the difference of the two biases to be constant along "
                "each row. With |j − i| the keys after the query (j > i) change that: check, row "
                "by row, whether −m·|j − i| − m·j depends on j.",
                lambda: "A",
            ),
            Misconception(
                "row_zero",
                "In row 0 every key is at or after the query: there −m·|j − i| − m·j = −2m·j "
                "changes with j, so the weights differ.",
                lambda: "C",
            ),
            Misconception(
                "no_row",
                "Check each row i separately: whether −m·|j − i| − m·j depends on j depends on "
                "where the keys lie relative to the query.",
                lambda: "D",
            ),
        ),
    ),
]
