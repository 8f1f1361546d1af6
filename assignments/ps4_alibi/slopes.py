"""Part 1, the slopes m_h for n heads: the reference's source (for root cause: parts 2 and 3
call the student's `alibi_slopes`), the probes, the known-wrong slopes and their feedback.
The wrong slopes and their texts are reused by the parts built on them (bias, attention)."""

import torch

from autograder.authoring import AllClose, FunctionSource, Misconception, Probe, Question

FREE_CONSTANT = (
    'The slope is not a free constant like 0.4 that "normalises the scores into 0–1" (document '
    '000 calls it "a predefined constant, e.g. 0.4", and adds that it differs per head): it '
    "multiplies the distance j − i, not q·k, and the slopes are fixed before training as a "
    "geometric sequence — 2^(−8/n), 2^(−16/n), …, 2^(−8) for n heads (n = 8: 1/2, 1/4, …, 1/256). "
    "Yours uses 0.4 for every head."
)
WRONG_ORDER = (
    "The slopes are in the wrong order: head 1 has the largest slope 2^(−8/n) and each next "
    "head's slope is multiplied by 2^(−8/n), down to 2^(−8) for head n."
)
LINEAR = (
    "The slopes are spaced geometrically, not linearly: each is the previous one times 2^(−8/n) "
    "(a constant ratio, not a constant difference)."
)
NAIVE_RULE = (
    "When n is not a power of two the paper uses another rule: the c = 2^⌊log₂ n⌋ slopes of the "
    "closest smaller power of two, then every other slope of the 2c-head sequence for the remaining "
    "n − c heads (n = 12: 2^−1 … 2^−8, then 2^−0.5, 2^−1.5, 2^−2.5, 2^−3.5)."
)


# ---- probes, drawn per student
def slopes_probes(rng):
    powers = rng.choice([2, 4, 8, 16, 32], 2, replace=False)
    others = rng.choice([3, 5, 6, 7, 10, 12, 20, 24], 3, replace=False)
    return [Probe((int(n),), f"n = {n}") for n in (*sorted(powers), *sorted(others))]


# ---- the reference, self-contained (its imports inside): the grader compares with it, and root
# cause compiles its source in the sandbox. tests/grading/test_root_cause.py checks the compiled
# source, tests/assignments/test_reference_sources.py that it is solutions.positional.alibi_slopes.
def alibi_slopes(n_heads):
    import math

    import torch

    n_heads = int(n_heads)

    def power_of_two(n):
        return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]

    if math.log2(n_heads).is_integer():
        slopes = power_of_two(n_heads)
    else:
        c = 2 ** math.floor(math.log2(n_heads))
        slopes = power_of_two(c) + power_of_two(2 * c)[0::2][: n_heads - c]
    return torch.tensor(slopes, dtype=torch.float64)


ALIBI_SLOPES_SOURCE = FunctionSource.of(alibi_slopes)


# ---- known-wrong slopes
def slopes_free_constant(n_heads):
    """Document 000's example value "e.g. 0.4" taken for every head (000 itself says the term
    differs per head, without saying how)."""
    return torch.full((n_heads,), 0.4, dtype=torch.float64)


def slopes_reversed(n_heads):
    return alibi_slopes(n_heads).flip(0)


def slopes_linear(n_heads):
    return torch.linspace(2.0 ** (-8.0 / n_heads), 2.0**-8, n_heads, dtype=torch.float64)


def slopes_naive_rule(n_heads):
    """2^(−8h/n) for every n, also when n is not a power of two."""
    return torch.tensor([2.0 ** (-8.0 * h / n_heads) for h in range(1, n_heads + 1)], dtype=torch.float64)


def slopes_start_at_one(n_heads):
    return torch.tensor([2.0 ** (-8.0 * h / n_heads) for h in range(n_heads)], dtype=torch.float64)


SLOPES = {
    "right": alibi_slopes,
    "free_constant": slopes_free_constant,
    "wrong_order": slopes_reversed,
    "linear_spacing": slopes_linear,
    "naive_rule": slopes_naive_rule,
}


QUESTIONS = [
    Question(
        grade_id="alibi_slopes",
        answer="alibi_slopes",
        title="The slopes for n heads",
        reference=alibi_slopes,
        reference_source=ALIBI_SLOPES_SOURCE,
        probes=slopes_probes,
        compare=AllClose(atol=1e-7, rtol=1e-5),
        visible=[
            Probe((8,), "n = 8", note="8 heads: 2^-1, 2^-2, …, 2^-8."),
            Probe((4,), "n = 4"),
            Probe(
                (12,), "n = 12", note="12 heads, not a power of two: 2^-1 … 2^-8, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5."
            ),
        ],
        misconceptions=(
            Misconception("free_constant", FREE_CONSTANT, slopes_free_constant),
            Misconception("wrong_order", WRONG_ORDER, slopes_reversed),
            Misconception("linear_spacing", LINEAR, slopes_linear),
            Misconception("naive_rule_for_every_n", NAIVE_RULE, slopes_naive_rule),
            Misconception(
                "starts_at_one",
                "Head 1's slope is 2^(−8/n), not 2^0 = 1: the exponents are −8h/n for h = 1 … n.",
                slopes_start_at_one,
            ),
        ),
    ),
]
