"""Part 1, the slopes m_h for n heads: the reference's source (for root cause: parts 2 and 3
call the student's `alibi_slopes`), the probes, the known-wrong slopes and their feedback.
The wrong slopes and their texts are reused by the parts built on them (bias, attention)."""

import math

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


# ---- slips in the exponent −8h/n (issue 36): the paper's rule (for n not a power of two too) with
# another exponent(h, n), or another function of it in place of 2^x
def with_exponent(exponent, power=lambda x: 2.0**x):
    def slopes(n_heads):
        def geometric(n):
            return [power(exponent(h, n)) for h in range(1, n + 1)]

        n_heads = int(n_heads)
        c = 2 ** math.floor(math.log2(n_heads))
        values = geometric(n_heads) if c == n_heads else geometric(c) + geometric(2 * c)[0::2][: n_heads - c]
        return torch.tensor(values, dtype=torch.float64)

    return slopes


def _spellings(*exponents, power=lambda x: 2.0**x):
    def others(n_heads):
        return [with_exponent(e, power)(n_heads) for e in exponents]

    return others


EXPONENT_WITHOUT_N = (
    "The exponent −8h/n is divided by the number of heads n, so that head n ends at 2^(−8) whatever "
    "n is; yours leaves n out of the exponent (or puts it in the numerator), so the slopes fall far "
    "faster than the sequence does."
)
FRACTION_UPSIDE_DOWN = (
    "In the exponent −8h/n the head index h stands in the numerator and the number of heads n in "
    "the denominator, so that the exponent grows by 8/n per head; yours has h below the fraction "
    "bar (or 8 and n swapped), so the slopes do not form the sequence 2^(−8/n), 2^(−16/n), …."
)
SAME_SLOPE = (
    "Every head gets the same slope: the exponent −8h/n grows with the head index h, so that each "
    "head's slope is the previous one times 2^(−8/n); yours leaves h out."
)
SHIFTED_HEADS = (
    "Off by one in the exponent: head h = 1 … n gets 2^(−8h/n), so head 1 has 2^(−8/n) and head n "
    "exactly 2^(−8); yours is shifted by one head (h runs one too far), or divides by n ± 1."
)
EXPONENT_SIGN = (
    "The exponent is negative: the slopes shrink from 2^(−8/n) for head 1 to 2^(−8) for head n, all "
    "between 0 and 1; yours grow (2 to the power +8h/n)."
)
NOT_A_POWER = (
    "Each slope is 2 raised to the power −8h/n, a positive number below 1; yours are the exponents "
    "themselves (or 2 times them), negative numbers, not powers of two."
)


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
                also_wrong=_spellings(lambda h, n: -8.0 * (h - 1) / n),  # the paper's rule for n ≠ 2^k too
            ),
            Misconception(
                "exponent_without_n",
                EXPONENT_WITHOUT_N,
                with_exponent(lambda h, n: -8.0 * h),
                also_wrong=_spellings(lambda h, n: -8.0 * h * n),
            ),
            Misconception(
                "exponent_fraction_upside_down",
                FRACTION_UPSIDE_DOWN,
                with_exponent(lambda h, n: -8.0 * n / h),
                also_wrong=_spellings(
                    lambda h, n: -8.0 / (h * n), lambda h, n: -h * n / 8.0, lambda h, n: -n / (8.0 * h)
                ),
            ),
            Misconception("exponent_without_h", SAME_SLOPE, with_exponent(lambda h, n: -8.0 / n)),
            Misconception(
                "exponent_shifted_by_one",
                SHIFTED_HEADS,
                with_exponent(lambda h, n: -8.0 * (h + 1) / n),
                also_wrong=_spellings(lambda h, n: -8.0 * h / (n + 1), lambda h, n: -8.0 * h / (n - 1)),
            ),
            Misconception("exponent_sign", EXPONENT_SIGN, with_exponent(lambda h, n: 8.0 * h / n)),
            Misconception(
                "exponent_not_a_power",
                NOT_A_POWER,
                with_exponent(lambda h, n: -8.0 * h / n, power=lambda x: 2.0 * x),
                also_wrong=_spellings(lambda h, n: -8.0 * h / n, power=lambda x: x),
            ),
        ),
    ),
]
