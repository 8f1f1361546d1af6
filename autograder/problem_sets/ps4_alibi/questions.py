"""PS4 — ALiBi (attention with linear biases): question specs.

Conventions stated to students in the notebook: heads h = 1 … n; query i, key j (0-based);
causal attention adds m_h·(j − i) ≤ 0 for j ≤ i and −inf above the diagonal; scores are
scaled by 1/√d before the bias is added. Document 000 (Q4.5) describes the slope as "a
predefined constant, e.g. 0.4" that "normalises the scores into 0–1": the ``free_constant``
misconceptions below name that. References: ``solutions.positional.alibi_slopes`` and
``solutions.encodings``; the shift invariance behind parts 4–5 is proved exactly in
``solutions.derivations.positional_proofs`` (tests/test_positional_proofs.py). Part 7
(extrapolation paragraph, 3 points) is graded by hand; its rubric is in the source notebook.
"""

import numpy as np
import sympy

from autograder.judging.compare import AllClose, Choice, Formula
from autograder.spec import Assignment, FunctionSource, Misconception, Probe, Question
from solutions.derivations.positional_proofs import alibi_row_difference
from solutions.encodings import alibi_attention, alibi_causal_bias, alibi_last_row_weights
from solutions.positional import alibi_slopes

from . import mistakes as wrong

FREE_CONSTANT = ("The slope is not a free constant like 0.4 that \"normalises the scores into 0–1\" "
                 "(document 000's answer): it is fixed before training, differs per head, and follows "
                 "a geometric sequence — 2^(−8/n), 2^(−16/n), …, 2^(−8) for n heads (n = 8: 1/2, 1/4, …, 1/256).")
WRONG_ORDER = ("The slopes are in the wrong order: head 1 has the largest slope 2^(−8/n) and each next "
               "head's slope is multiplied by 2^(−8/n), down to 2^(−8) for head n.")
LINEAR = ("The slopes are spaced geometrically, not linearly: each is the previous one times 2^(−8/n) "
          "(a constant ratio, not a constant difference).")
NAIVE_RULE = ("When n is not a power of two the paper uses another rule: the c = 2^⌊log₂ n⌋ slopes of the "
              "closest smaller power of two, then every other slope of the 2c-head sequence for the remaining "
              "n − c heads (n = 12: 2^−1 … 2^−8, then 2^−0.5, 2^−1.5, 2^−2.5, 2^−3.5).")
BIAS_SIGN = ("The bias must penalise distance: m·(j − i) is ≤ 0 for a key j in the past of query i "
             "(the further back, the lower the score). Yours has the opposite sign, m·(i − j), which "
             "favours the most distant keys.")






# Formula misconceptions are SymPy expressions (the Formula comparator compares the student's
# string with an expression; a plain string as the "expected" side is not understood).
_M, _I, _J = sympy.symbols("m i j", positive=True)


def _randn(rng, *shape, scale=1.0):
    return (scale * rng.standard_normal(shape)).astype(np.float32)


# ---- probes, drawn per student
def slopes_probes(rng):
    powers = rng.choice([2, 4, 8, 16, 32], 2, replace=False)
    others = rng.choice([3, 5, 6, 7, 10, 12, 20, 24], 3, replace=False)
    return [Probe((int(n),), f"n = {n}") for n in (*sorted(powers), *sorted(others))]


def bias_probes(rng):
    return [Probe((int(n), int(rng.integers(3, 9))), f"{n} heads") for n in (int(rng.choice([2, 4, 8])), 12)]


def attention_probes(rng):
    t, d = int(rng.choice([5, 7, 9])), int(rng.choice([4, 8]))   # T ≠ d and T ≠ h: an axis mix-up shows
    h = int(rng.choice([2, 4, 8]))
    return [Probe((_randn(rng, h, t, d), _randn(rng, h, t, d), _randn(rng, h, t, d)), f"{h} heads, (h, T, d)"),
            Probe((_randn(rng, 2, 6, t, d), _randn(rng, 2, 6, t, d), _randn(rng, 2, 6, t, d)),
                  "6 heads, (B, h, T, d)")]


def profile_probes(rng):
    return [*(Probe((float(2.0 ** -rng.integers(1, 9)), int(length)), f"length {length}")
              for length in (int(rng.integers(5, 20)), int(rng.integers(100, 300)), 2048)),
            Probe((0.5, 2048), "slope 1/2, length 2048")]


# ---- root cause across questions: `alibi_causal_bias` calls the student's `alibi_slopes` (the
# notebook: "Use your `alibi_slopes`"), `alibi_attention` their bias and slopes; the references as
# self-contained source (torch, np and math in scope; tests/test_root_cause.py checks them).
ALIBI_SLOPES_SOURCE = FunctionSource('''
def alibi_slopes(n_heads):
    n_heads = int(n_heads)

    def power_of_two(n):
        return [2.0 ** (-8.0 * h / n) for h in range(1, n + 1)]

    if math.log2(n_heads).is_integer():
        slopes = power_of_two(n_heads)
    else:
        c = 2 ** math.floor(math.log2(n_heads))
        slopes = power_of_two(c) + power_of_two(2 * c)[0::2][: n_heads - c]
    return torch.tensor(slopes, dtype=torch.float64)
''', "alibi_slopes")

ALIBI_CAUSAL_BIAS_SOURCE = FunctionSource('''
def alibi_causal_bias(n_heads, t):
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
    bias = (m[:, None, None] * dist).float().double()
    return bias.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
''', "alibi_causal_bias")


ASSIGNMENT = Assignment(
    name="ps4_alibi",
    notebook="ps4_alibi.ipynb",
    questions=[
        Question(
            grade_id="alibi_slopes", answer="alibi_slopes", title="The slopes for n heads", points=2,
            reference=alibi_slopes, reference_source=ALIBI_SLOPES_SOURCE, probes=slopes_probes, compare=AllClose(atol=1e-7, rtol=1e-5),
            visible=[Probe((8,), "n = 8", note="8 heads: 2^-1, 2^-2, …, 2^-8."), Probe((4,), "n = 4"),
                     Probe((12,), "n = 12", note="12 heads, not a power of two: 2^-1 … 2^-8, then 2^-0.5, "
                           "2^-1.5, 2^-2.5, 2^-3.5.")],
            misconceptions=(
                Misconception("free_constant", FREE_CONSTANT, wrong.slopes_free_constant),
                Misconception("wrong_order", WRONG_ORDER, wrong.slopes_reversed),
                Misconception("linear_spacing", LINEAR, wrong.slopes_linear),
                Misconception("naive_rule_for_every_n", NAIVE_RULE, wrong.slopes_naive_rule),
                Misconception("starts_at_one", "Head 1's slope is 2^(−8/n), not 2^0 = 1: the exponents are "
                              "−8h/n for h = 1 … n.", wrong.slopes_start_at_one),
            ),
        ),
        Question(
            grade_id="alibi_causal_bias", answer="alibi_causal_bias", title="The causal bias matrix", points=2,
            reference=alibi_causal_bias, reference_source=ALIBI_CAUSAL_BIAS_SOURCE,
            depends_on=("alibi_slopes",), probes=bias_probes, compare=AllClose(atol=1e-6, rtol=1e-5),
            visible=[Probe((2, 4), "2 heads, T = 4", note="Two heads (slopes 2^-4 and 2^-8), four tokens.")],
            misconceptions=(
                Misconception("free_constant", FREE_CONSTANT, wrong.bias_variant(slopes="free_constant")),
                Misconception("bias_sign", BIAS_SIGN, wrong.bias_variant(sign=-1)),
                Misconception("wrong_order", WRONG_ORDER, wrong.bias_variant(slopes="wrong_order")),
                Misconception("linear_spacing", LINEAR, wrong.bias_variant(slopes="linear_spacing")),
                Misconception("naive_rule_for_every_n", NAIVE_RULE, wrong.bias_variant(slopes="naive_rule")),
                Misconception("key_only_bias", "This matrix is the relative bias m·(j − i), 0 on the diagonal; "
                              "yours is the key-only bias m·j. The two give the same softmax (part 5), but they "
                              "are different matrices.", wrong.bias_variant(key_only=True)),
                Misconception("no_causal_mask", "This is the causal bias: keys after the query (j > i) are masked "
                              "with −inf; yours gives them m·(j − i) > 0, a bonus for looking ahead.",
                              wrong.bias_variant(masked=None)),
                Misconception("zero_for_masked", "Masked entries must be −inf (weight exactly 0 after the "
                              "softmax); a bias of 0 there lets every query see the future, and even favours it.",
                              wrong.bias_variant(masked=0.0)),
            ),
        ),
        Question(
            grade_id="alibi_attention", answer="alibi_attention", title="Causal attention with ALiBi", points=3,
            reference=alibi_attention, depends_on=("alibi_causal_bias", "alibi_slopes"), probes=attention_probes, compare=AllClose(atol=1e-4, rtol=1e-4, same_dtype=True),
            visible=[Probe((np.zeros((2, 4, 4), np.float32), np.zeros((2, 4, 4), np.float32),
                            np.tile(np.eye(4, dtype=np.float32), (2, 1, 1))), "2 heads, q = k = 0, v = I",
                           note="Content scores all 0 and v = I: each output row is that query's attention "
                                "weights, set by the bias alone (slopes 2^-4 and 2^-8).")],
            misconceptions=(
                Misconception("free_constant", FREE_CONSTANT, wrong.attention_variant(slopes="free_constant")),
                Misconception("bias_sign", BIAS_SIGN, wrong.attention_variant(sign=-1)),
                Misconception("wrong_order", WRONG_ORDER, wrong.attention_variant(slopes="wrong_order")),
                Misconception("linear_spacing", LINEAR, wrong.attention_variant(slopes="linear_spacing")),
                Misconception("naive_rule_for_every_n", NAIVE_RULE, wrong.attention_variant(slopes="naive_rule")),
                Misconception("bias_missing", "Add the ALiBi bias m_h·(j − i) to the scaled scores of head h "
                              "before the softmax; yours is plain causal attention.",
                              wrong.attention_variant(use_bias=False)),
                Misconception("bias_scaled", "Add the bias after the scaling: softmax(q·k/√d + m_h·(j − i)). "
                              "Dividing the bias by √d as well flattens every head's slope by a factor √d.",
                              wrong.attention_variant(scale_bias=True)),
            ),
        ),
        Question(
            grade_id="bias_difference", answer="bias_difference", title="m·(j − i) minus m·j", points=1,
            call=False, reference=alibi_row_difference, compare=Formula(("m", "i", "j")),
            misconceptions=(
                Misconception("difference_sign", "m·(j − i) − m·j = m·j − m·i − m·j = −m·i: check the sign.",
                              lambda: _M * _I),
                Misconception("difference_zero", "The two biases are not equal entry by entry: they differ by "
                              "−m·i — a constant along each row, which is why the softmax does not notice.",
                              lambda: sympy.Integer(0)),
            ),
        ),
        Question(
            grade_id="same_softmax", answer="same_softmax", title="Does the softmax change?", points=1,
            call=False, reference=lambda: "B", compare=Choice(),
            misconceptions=(
                Misconception("biases_differ_so_weights_differ",
                              "Different biases can give the same weights: softmax(s + c) = softmax(s) for any "
                              "constant c added to a whole row, and −m·i is the same for every key j of query i.",
                              lambda: "A"),
                Misconception("only_first_row", "Not only row 0: in every row i the difference −m·i is constant "
                              "over the keys j, so every row's softmax is unchanged.", lambda: "C"),
            ),
        ),
        Question(
            grade_id="alibi_profile", answer="alibi_profile", title="Synthetic scores: where the last query looks",
            points=2, reference=alibi_last_row_weights, probes=profile_probes, compare=AllClose(atol=1e-6, rtol=1e-4),
            visible=[Probe((0.5, 4), "slope 1/2, 4 keys")],
            misconceptions=(
                Misconception("bias_sign", BIAS_SIGN, wrong.profile_sign),
                Misconception("bias_ignored", "With every content score 0 the weights come from the bias alone: "
                              "softmax over j of m·(j − i) — not uniform.", wrong.profile_uniform),
                Misconception("not_normalised", "Attention weights sum to 1: take the softmax of the biases, not "
                              "just exp(m·(j − i)).", wrong.profile_unnormalised),
                Misconception("overflow", "exp(m·j) overflows for long sequences (m = 1/2, j = 2047: e^1023 > "
                              "the largest float64), and inf/inf is NaN. Subtract the row's largest score before "
                              "exp, i.e. use m·(j − i), which is ≤ 0 — or torch.softmax, which does it for you.",
                              wrong.profile_overflow),
            ),
        ),
    ],
)
