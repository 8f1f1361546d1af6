"""Part 4 (e), the length experiment across the five position schemes the course builds (learned,
sinusoidal, T5-style clipped relative, RoPE, ALiBi): the notebook's locked ``ShiftModel`` with
each scheme, trained at length 8 by the student's ``train_shift`` and tested at lengths 8 and 32
(``shift_outcomes``). 004 says relative encodings extend past the training length, the ALiBi
paper promises as much of its bias, and 001 plans tests "bei Stellenwertausweitung": the answer
is measured, and a student who copies those claims loses the point.

Measured with the notebook's reference recipe (Adam lr 1e-2, batches of 64, 400 steps, 0.5–0.7
CPU-s an arm) on seeds 0–49, every seed in the stated class (issue 35's note;
``tests/assignments/test_ps7_content.py`` retrains every arm on one seed): learned 100 % at
length 8, no row past position 7 (IndexError at 32); sinusoidal 100 % at 8, 0 % at 32 (rows 8–31
never trained on); relative 100 % at 8, 98.7–100 % at 32 (clipped offsets: nothing new);
RoPE 100 % at 8, 0–86 % at 32 (offsets 8–31 turn by angles never trained on; lr 3e-3 gives
0–10 %), so the notebook asks what a scheme does on most of a student's seeds; ALiBi 0–0.7 % even
at 8 (−m(i − j) is largest at j = i: one head cannot prefer the previous token over itself).
"""

from autograder.authoring import Exact, Misconception, Question

SCHEMES = ("learned", "sinusoidal", "relative", "rope", "alibi")
BOTH, SHORT_ONLY, NEITHER = "length 32 too", "length 8 only", "not even length 8"
OUTCOMES = (BOTH, SHORT_ONLY, NEITHER)
MEASURED = {"learned": SHORT_ONLY, "sinusoidal": SHORT_ONLY, "relative": BOTH, "rope": SHORT_ONLY, "alibi": NEITHER}


def shift_outcomes():
    """Each scheme's outcome: at least 90 % of the rows right at length 8 and at length 32."""
    return dict(MEASURED)


def outcomes_with(**changed):
    return {**MEASURED, **changed}


UNSEEN_OFFSETS = (
    "is relative, yet at length 32 the offsets 8 … 31 turn queries and keys by angles the model never "
    "trained on, and its scores there are untrained: measure the rope arm at length 32."
)

QUESTIONS = [
    Question(
        grade_id="shift_outcomes",
        answer="shift_outcomes",
        title="Five position schemes, trained at length 8, tested at 32",
        call=False,
        reference=shift_outcomes,
        compare=Exact(values_in=OUTCOMES),
        misconceptions=(
            Misconception(
                "relative_schemes_extend",
                "Not every scheme that sees only offsets extends past the training length (004's claim "
                "for relative encodings): RoPE " + UNSEEN_OFFSETS + " And look at ALiBi at length 8 first.",
                lambda: outcomes_with(rope=BOTH, alibi=BOTH),
            ),
            Misconception(
                "rope_extends",
                "RoPE " + UNSEEN_OFFSETS,
                lambda: outcomes_with(rope=BOTH),
            ),
            Misconception(
                "alibi_extends",
                "ALiBi's bias only falls with the distance i − j, so in one head it favours the token "
                "itself over the previous one: train the alibi arm and look at length 8 first.",
                lambda: outcomes_with(alibi=BOTH),
            ),
            Misconception(
                "alibi_learns_length_8",
                "Measure the alibi arm at the training length too: a bias that only falls with the "
                "distance cannot single out the previous token, whatever the length.",
                lambda: outcomes_with(alibi=SHORT_ONLY),
            ),
            Misconception(
                "sinusoidal_extends",
                "The sinusoidal encoding has a row for every position, but rows 8 … 31 never occurred "
                "in training: measure the sinusoidal arm at length 32.",
                lambda: outcomes_with(sinusoidal=BOTH),
            ),
            Misconception(
                "learned_crash_as_failure_at_8",
                "The learned table works at the length it was trained on; that it cannot run at length "
                "32 at all counts as none right there, not as a failure at length 8.",
                lambda: outcomes_with(learned=NEITHER),
            ),
        ),
    ),
]
