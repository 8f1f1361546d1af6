"""Part 2, the causal bias matrix m_h·(j − i): the reference's source (for root cause: part 3
calls the student's `alibi_causal_bias`), the probes, a bias with a switch per mistake (also
used by part 3's wrong attention) and the feedback."""

import torch

from autograder.authoring import AllClose, FunctionSource, Misconception, Probe, Question
from solutions.attention import causal_mask

from .slopes import FREE_CONSTANT, LINEAR, NAIVE_RULE, SLOPES, WRONG_ORDER

BIAS_SIGN = (
    "The bias must penalise distance: m·(j − i) is ≤ 0 for a key j in the past of query i "
    "(the further back, the lower the score). Yours has the opposite sign, m·(i − j), which "
    "favours the most distant keys."
)


# ---- probes, drawn per student
def bias_probes(rng):
    return [Probe((int(n), int(rng.integers(3, 9))), f"{n} heads") for n in (int(rng.choice([2, 4, 8])), 12)]


# ---- root cause: `alibi_causal_bias` calls the student's `alibi_slopes` (the notebook: "Use your
# `alibi_slopes`"). The reference, self-contained (its imports inside): the grader compares with
# it, and root cause compiles its source in the sandbox. tests/grading/test_root_cause.py checks
# the compiled source, tests/assignments/test_reference_sources.py that it is
# solutions.encodings.alibi_causal_bias.
def alibi_causal_bias(n_heads, t):
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
    t = int(t)
    m = torch.tensor(slopes, dtype=torch.float64)
    dist = (torch.arange(t)[None, :] - torch.arange(t)[:, None]).to(torch.float64)
    # rounded through float32, as solutions.positional.alibi_bias is
    linear_bias = (m[:, None, None] * dist).float().double()
    return linear_bias.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))


ALIBI_CAUSAL_BIAS_SOURCE = FunctionSource.of(alibi_causal_bias)


# ---- known-wrong biases: alibi_causal_bias(n_heads, t)
def bias(n_heads, t, *, slopes="right", sign=+1, masked=float("-inf"), key_only=False):
    """m_h·sign·(j − i) for j ≤ i and ``masked`` above the diagonal (None: no mask);
    ``key_only``: m_h·j instead."""
    m = SLOPES[slopes](n_heads).to(torch.float64)
    dist = (torch.arange(t)[None, :] - (0 if key_only else torch.arange(t)[:, None])).to(torch.float64)
    dist = dist.expand(t, t)
    out = m[:, None, None] * sign * dist
    if masked is not None:
        out = out.masked_fill(~causal_mask(t), masked)
    return out


def bias_variant(**kw):
    def wrong(n_heads, t):
        return bias(n_heads, t, **kw)

    return wrong


QUESTIONS = [
    Question(
        grade_id="alibi_causal_bias",
        answer="alibi_causal_bias",
        title="The causal bias matrix",
        reference=alibi_causal_bias,
        reference_source=ALIBI_CAUSAL_BIAS_SOURCE,
        depends_on=("alibi_slopes",),
        probes=bias_probes,
        compare=AllClose(atol=1e-6, rtol=1e-5),
        visible=[Probe((2, 4), "2 heads, T = 4", note="Two heads (slopes 2^-4 and 2^-8), four tokens.")],
        misconceptions=(
            Misconception("free_constant", FREE_CONSTANT, bias_variant(slopes="free_constant")),
            Misconception("bias_sign", BIAS_SIGN, bias_variant(sign=-1)),
            Misconception("wrong_order", WRONG_ORDER, bias_variant(slopes="wrong_order")),
            Misconception("linear_spacing", LINEAR, bias_variant(slopes="linear_spacing")),
            Misconception("naive_rule_for_every_n", NAIVE_RULE, bias_variant(slopes="naive_rule")),
            Misconception(
                "key_only_bias",
                "This matrix is the relative bias m·(j − i), 0 on the diagonal; "
                "yours is the key-only bias m·j. The two give the same softmax (part 5), but they "
                "are different matrices.",
                bias_variant(key_only=True),
            ),
            Misconception(
                "no_causal_mask",
                "This is the causal bias: keys after the query (j > i) are masked "
                "with −inf; yours gives them m·(j − i) > 0, a bonus for looking ahead.",
                bias_variant(masked=None),
            ),
            Misconception(
                "zero_for_masked",
                "Masked entries must be −inf (weight exactly 0 after the "
                "softmax); a bias of 0 there lets every query see the future, and even favours it.",
                bias_variant(masked=0.0),
            ),
        ),
    ),
]
