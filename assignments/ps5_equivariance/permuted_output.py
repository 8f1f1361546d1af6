"""Part 3, the multiple choice on what reordering the input does to self-attention's output.
Document 000 (Q5.4) claims the output "stays the same" for a reordered input: that is the
invariance misconception, answer "A"."""

from autograder.authoring import Exact, Misconception, Question

MULTIPLE_CHOICE = "B"

QUESTIONS = [
    Question(
        grade_id="permuted_output",
        title="What happens to the output of self-attention when the input is reordered?",
        answer="permuted_output",
        call=False,
        reference=lambda: MULTIPLE_CHOICE,
        compare=Exact(),
        misconceptions=(
            Misconception(
                "invariance_claim",
                "A permuted input permutes the output: Y(PX) = P·Y(X) — equivariance, not "
                "invariance. Only a pooled output (e.g. the mean over tokens) stays the same.",
                lambda: "A",
            ),
            Misconception(
                "arbitrary_change",
                "Without positional information nothing in attention depends on the order: "
                "the output rows move with their tokens, they do not change arbitrarily.",
                lambda: "C",
            ),
        ),
    ),
]
