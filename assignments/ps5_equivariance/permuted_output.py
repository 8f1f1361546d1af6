"""Part 3, what reordering the input does to self-attention's output: the multiple choice (four
claims, none carrying its reason), the rows as values (``permuted_rows``) and which functions are
equivariant, invariant or neither (``symmetry_kinds``). Document 000 (Q5.4) claims the output
"stays the same" for a reordered input: that is the invariance misconception in each. Expected
values come from running the subject functions and the reference testers."""

import numpy as np
import torch

from autograder.authoring import Choice, Exact, IntegerArray, Misconception, Question
from solutions.equivariance import is_permutation_equivariant, is_permutation_invariant

from .subjects import SUBJECTS, random_tokens

STAYS_THE_SAME = (
    'Document 000 (Q5.4) says the output "stays the same" for any reordering — that is '
    "invariance. Self-attention without positions moves each output row with its token: "
    "equivariance, not invariance. Only a pooled output stays the same."
)
INVERSE = (
    "Your answer reorders the rows by the inverse permutation. Row k of X[..., p, :] is token "
    "p[k]; the output row computed from it is that token's row of Y."
)

# Part 3(b): the reordering the notebook quotes, on T = 5 tokens
ORDER = [3, 0, 4, 1, 2]


def permuted_rows():
    """For each row k of f(X[..., p, :]), the row of Y = f(X) it equals (found by running f)."""
    f = SUBJECTS["attention_no_position"].compile()
    x = torch.from_numpy(random_tokens(np.random.default_rng(0), len(ORDER)))
    y, moved = f(x), f(x[..., ORDER, :])
    return [int(torch.cdist(moved[k][None], y).argmin()) for k in range(len(ORDER))]


# Part 3(c): the functions the notebook describes, by letter, as subject functions
KIND_SUBJECTS = {
    "a": "attention_no_position",
    "b": "mean_pooled",
    "c": "last_token_readout",
    "d": "attention_sinusoidal",
    "e": "attention_causal",
    "f": "tanh_projection",
}


def symmetry_kinds():
    x = torch.from_numpy(random_tokens(np.random.default_rng(1), 6))
    kinds = {}
    for letter, name in KIND_SUBJECTS.items():
        f = SUBJECTS[name].compile()
        kinds[letter] = (
            "equivariant"
            if is_permutation_equivariant(f, x)
            else "invariant"
            if is_permutation_invariant(f, x)
            else "neither"
        )
    return kinds


def kinds_with(**changes):
    def wrong():
        return {**symmetry_kinds(), **changes}

    return wrong


QUESTIONS = [
    Question(
        grade_id="permuted_output",
        title="What happens to the output of self-attention when the input is reordered?",
        answer="permuted_output",
        call=False,
        reference=lambda: "B",
        compare=Choice(("A", "B", "C", "D")),
        misconceptions=(
            Misconception("invariance_claim", STAYS_THE_SAME, lambda: "A"),
            Misconception("inverse_permutation", INVERSE, lambda: "C"),
            Misconception(
                "arbitrary_change",
                "Without positional information nothing in attention depends on the order: "
                "the output rows move with their tokens, they do not change arbitrarily.",
                lambda: "D",
            ),
        ),
    ),
    Question(
        grade_id="permuted_rows",
        title="Which rows of Y?",
        answer="permuted_rows",
        call=False,
        reference=permuted_rows,
        compare=IntegerArray(),
        misconceptions=(
            Misconception("invariance_claim", STAYS_THE_SAME, lambda: list(range(len(ORDER)))),
            Misconception("inverse_permutation", INVERSE, lambda: np.argsort(ORDER).tolist()),
        ),
    ),
    Question(
        grade_id="symmetry_kinds",
        title="Equivariant, invariant or neither?",
        answer="symmetry_kinds",
        call=False,
        reference=symmetry_kinds,
        compare=Exact(),
        misconceptions=(
            Misconception("invariance_claim", STAYS_THE_SAME, kinds_with(a="invariant", f="invariant")),
            Misconception(
                "pooled_equivariant",
                "Pooling over the tokens removes the token axis: a pooled output has no rows to "
                "reorder, and for a reordered input it stays the same.",
                kinds_with(b="equivariant"),
            ),
            Misconception(
                "positions_or_mask_ignored",
                "Added positions and a causal mask tie the output to the order of the tokens: "
                "a reordered input then changes the output in a way a reordering of the rows "
                "does not undo.",
                kinds_with(d="equivariant", e="equivariant"),
            ),
        ),
    ),
]
