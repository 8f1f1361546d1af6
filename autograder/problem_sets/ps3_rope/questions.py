"""PS3 — rotary position embeddings (RoPE): question specs.

Conventions stated to students in the notebook:
* θ_i = base^(−2(i−1)/d) for the pair index i = 1 … d/2 (radians); position m rotates pair i
  by the angle m·θ_i.
* ``"interleaved"`` (RoFormer, homework Q4): pairs (x_0, x_1), (x_2, x_3), …;
  ``"half"`` (GPT-NeoX, LLaMA, Hugging Face ``rotate_half``): pairs (x_i, x_{i+d/2}).
* R_{Θ,m} is the interleaved matrix: block i is [[cos mθ_i, −sin mθ_i], [sin mθ_i, cos mθ_i]].

Document 000 (Q4.4) writes θ_i = 100^(2(i−1)/d): the lost minus sign gives θ_2 = 10 instead
of 0.1 — the ``exponent_sign`` misconceptions below carry that feedback. References come from
``solutions.positional`` / ``solutions.encodings``; the identities are proved in
``solutions.derivations.positional_proofs``.
"""

import numpy as np

from autograder.judging.compare import AllClose, IntegerArray, Scalar
from autograder.spec import Assignment, FunctionSource, Misconception, Probe, Question
from solutions.encodings import rope_attention as reference_rope_attention
from solutions.encodings import rope_score_from_offset
from solutions.positional import apply_rope, rope_frequencies, rope_half_permutation, rope_matrix

from . import mistakes as wrong

EXPONENT_SIGN = ("θ_i must shrink with i: the exponent is −2(i−1)/d, θ_i = base^(−2(i−1)/d). "
                 "With the sign lost (θ_i = base^(+2(i−1)/d), as in document 000's answer) base 100 "
                 "and d = 4 give θ_2 = 10 instead of 0.1, and the fastest rotations land on the last pairs.")
DEGREES = ("The angles m·θ_i are in radians — torch.cos and math.cos take radians; do not convert "
           "from degrees (cos 1 ≈ 0.540, while cos 1° ≈ 0.99985).")
M_TIMES_I = ("Pair i rotates by m·θ_i, not by m·i: the frequency θ_i = base^(−2(i−1)/d) is what "
             "makes the far pairs turn slowly (for base 100, d = 4, θ_2 = 0.1, not 2).")
BACKWARDS = ("Each 2×2 block is [[cos mθ_i, −sin mθ_i], [sin mθ_i, cos mθ_i]] — the −sin is in the "
             "upper right. Yours is the transpose, a rotation by −mθ_i.")


def _randn(rng, *shape, scale=1.0):
    return (scale * rng.standard_normal(shape)).astype(np.float32)


# ---- probes, drawn per student
def thetas_probes(rng):
    return [Probe((int(d), float(b)), f"d = {d}, base = {b:g}")
            for d, b in zip(rng.choice([4, 6, 8, 16, 64, 128], 4, replace=False),
                            rng.choice([100.0, 500.0, 10000.0, 1e6], 4))]


def matrix_probes(rng):
    probes = [Probe((int(rng.integers(1, 50)), int(d), float(rng.choice([100.0, 500.0, 2000.0]))),
                    f"m, d = {d}") for d in (4, 6, 8, 16)]
    return probes + [Probe((int(rng.integers(2, 50)), 10), "m, d = 10, base left at its default")]


def apply_probes(rng):
    probes = []
    for convention in ("interleaved", "half"):
        d = int(rng.choice([4, 8, 16]))
        t = int(rng.integers(3, 7))
        start = int(rng.integers(0, 100))
        positions = np.arange(start, start + t, dtype=np.int64)
        base = float(rng.choice([100.0, 500.0]))
        probes += [
            Probe((_randn(rng, t, d), positions, base, convention), f"{convention}, (T, d) input"),
            Probe((_randn(rng, 2, 3, t, d), positions, base, convention), f"{convention}, (B, H, T, d) input"),
            Probe((_randn(rng, t, d), rng.permutation(positions), 10000.0, convention),
                  f"{convention}, positions not in order"),
        ]
    t = int(rng.integers(3, 7))
    positions = np.sort(rng.choice(np.arange(1, 200), t, replace=False)).astype(np.int64)
    return probes + [Probe((_randn(rng, t, 6), positions), "(T, 6) input, positions with gaps, base and "
                                                          "convention left at their defaults")]


def permutation_probes(rng):
    return [Probe((int(d),), f"d = {d}") for d in sorted(rng.choice([6, 8, 10, 12, 16, 64], 3, replace=False))]


def offset_probes(rng):
    d = int(rng.choice([4, 8, 16]))
    return [Probe((rng.standard_normal(d), rng.standard_normal(d), int(off), float(base)), f"offset {off}")
            for off, base in zip((-int(rng.integers(1, 40)), int(rng.integers(1, 9))), (100.0, 10000.0))] + [
        Probe((rng.standard_normal(d), rng.standard_normal(d), int(rng.integers(50, 500))),
              "a large offset, base left at its default")]


def attention_probes(rng):
    d, t = int(rng.choice([4, 8])), int(rng.integers(4, 8))   # T ≠ 3, the visible example's
    t += t == d  # and T ≠ d: an axis taken for the other (shape[-1] for shape[-2]) must show
    start = int(rng.integers(1, 50))
    positions = np.arange(start, start + t, dtype=np.int64)
    gaps = np.sort(rng.choice(np.arange(0, 300), t, replace=False)).astype(np.int64)
    return [Probe((_randn(rng, t, d, scale=2), _randn(rng, t, d, scale=2), _randn(rng, t, d), positions, 100.0),
                  "(T, d), base 100"),
            Probe((_randn(rng, 2, t, d, scale=2), _randn(rng, 2, t, d, scale=2), _randn(rng, 2, t, d), gaps,
                   500.0), "(B, T, d), positions with gaps, base 500"),
            Probe((_randn(rng, t, d, scale=2), _randn(rng, t, d, scale=2), _randn(rng, t, d), positions),
                  "(T, d), base left at its default")]


# ---- references
def rope_thetas(d, base):
    return rope_frequencies(d, base)


def worked_example():
    import torch

    return torch.stack([rope_matrix(m, 4, 100.0) for m in range(3)])


def score_from_offset(q, k, offset, base=10000.0):
    return rope_score_from_offset(q, k, offset, base)


def rope_attention(q, k, v, positions, base=10000.0):
    return reference_rope_attention(q, k, v, positions, base, causal=True)


# ---- root cause across questions: `rope_attention` calls the student's `apply_rope` (the
# notebook: "Use your `apply_rope`"), `score_from_offset` their `rope_matrix` or `apply_rope`;
# the references as self-contained source (torch, np and math in scope;
# tests/test_root_cause.py checks them against the references).
ROPE_MATRIX_SOURCE = FunctionSource('''
def rope_matrix(m, d, base=10000.0):
    d = int(d)
    theta = float(base) ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    ang = float(m) * theta
    r = torch.zeros(d, d, dtype=torch.float64)
    c, s = ang.cos(), ang.sin()
    i = torch.arange(0, d, 2)
    r[i, i], r[i, i + 1], r[i + 1, i], r[i + 1, i + 1] = c, -s, s, c
    return r
''', "rope_matrix")

APPLY_ROPE_SOURCE = FunctionSource('''
def apply_rope(x, positions, base=10000.0, convention="interleaved"):
    positions = torch.as_tensor(positions)
    d = x.shape[-1]
    theta = float(base) ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    ang = positions.to(torch.float64)[:, None] * theta
    if convention == "interleaved":
        ang = ang.repeat_interleave(2, dim=-1)
    elif convention == "half":
        ang = torch.cat([ang, ang], dim=-1)
    else:
        raise ValueError(f"unknown RoPE convention {convention!r}")
    cos, sin = ang.cos().to(x.dtype).to(x.device), ang.sin().to(x.dtype).to(x.device)
    if convention == "half":
        x1, x2 = x.chunk(2, dim=-1)
        turned = torch.cat([-x2, x1], dim=-1)
    else:
        turned = torch.stack([-x[..., 1::2], x[..., 0::2]], dim=-1).flatten(-2)
    return x * cos + turned * sin
''', "apply_rope")


APPLY_CHECK = Question(
    grade_id="apply_rope", answer="apply_rope", title="apply_rope in both conventions", points=4,
    reference=apply_rope, reference_source=APPLY_ROPE_SOURCE, probes=apply_probes, compare=AllClose(atol=3e-4, rtol=1e-4, same_dtype=True),
    visible=[
        Probe((np.eye(4, dtype=np.float32), np.arange(4), 100.0, "interleaved"), "interleaved, d = 4",
              note="The rows of the 4×4 identity at positions 0, 1, 2, 3 (base 100): row m is e_m rotated by R_{Θ,m}."),
        Probe((np.eye(4, dtype=np.float32), np.arange(4), 100.0, "half"), "half, d = 4",
              note="The same in the half-split (rotate_half) convention."),
    ],
    misconceptions=(
        Misconception("exponent_sign", EXPONENT_SIGN, wrong.apply_variant(sign=+1)),
        Misconception("degrees", DEGREES, wrong.apply_variant(degrees=True)),
        Misconception("m_times_i", M_TIMES_I, wrong.apply_variant(m_times_i=True)),
        Misconception("rotates_backwards", BACKWARDS, wrong.apply_variant(backwards=True)),
        Misconception("convention_ignored",
                      "`convention` is ignored: with convention=\"half\" the pairs are (x_i, x_{i+d/2}) "
                      "and x·cos + rotate_half(x)·sin (Hugging Face) — yours rotates (x_0, x_1), (x_2, x_3), "
                      "… in both cases.", wrong.apply_convention_ignored),
        Misconception("wrong_pairing",
                      "The two conventions are swapped: \"interleaved\" (RoFormer) rotates the adjacent pairs "
                      "(x_0, x_1), (x_2, x_3), …; \"half\" (GPT-NeoX, LLaMA, rotate_half) rotates "
                      "(x_i, x_{i+d/2}).", wrong.apply_swapped_conventions),
        Misconception("mixed_conventions",
                      "The conventions are mixed: the pairing of one with the frequency layout of the other. "
                      "With rotate_half the angle vector is cat(θ, θ) (θ_1 … θ_{d/2}, θ_1 … θ_{d/2}); with "
                      "adjacent pairs it is θ_1, θ_1, θ_2, θ_2, … — each pair must turn by one θ_i.",
                      wrong.apply_mixed),
    ),
)

ASSIGNMENT = Assignment(
    name="ps3_rope",
    notebook="ps3_rope.ipynb",
    questions=[
        Question(
            grade_id="rope_thetas", answer="rope_thetas", title="The frequencies θ_i", points=1,
            reference=rope_thetas, probes=thetas_probes, compare=AllClose(atol=1e-10, rtol=1e-5),
            visible=[Probe((4, 100.0), "d = 4, base = 100", note="Document 000's setting: θ_1 = 1, θ_2 = 0.1.")],
            misconceptions=(
                Misconception("exponent_sign", EXPONENT_SIGN, wrong.thetas_exponent_sign),
                Misconception("exponent_without_2", "The exponent is −2(i−1)/d: the pairs' exponents run "
                              "from 0 down to −(d−2)/d, not to −(d−2)/(2d) — the factor 2 is missing.",
                              wrong.thetas_no_factor_two),
                Misconception("index_off_by_one", "i starts at 1 and the exponent uses i − 1: θ_1 = base^0 = 1 "
                              "(the first pair turns by m radians), θ_2 = base^(−2/d), …",
                              wrong.thetas_off_by_one),
            ),
        ),
        Question(
            grade_id="worked_example", answer="R_worked", title="Document 000's example: R_{Θ,m}, m = 0, 1, 2",
            points=2, call=False, reference=worked_example, compare=AllClose(atol=1e-2, rtol=0),
            misconceptions=(
                Misconception("exponent_sign",
                              EXPONENT_SIGN + " Your m = 1 block shows cos 10 ≈ −0.84 and sin 10 ≈ −0.54: with "
                              "the right sign the angles are a hundred times smaller.", lambda: wrong.worked(sign=+1)),
                Misconception("degrees", DEGREES, lambda: wrong.worked(degrees=True)),
                Misconception("m_times_i", M_TIMES_I, lambda: wrong.worked(m_times_i=True)),
                Misconception("rotates_backwards", BACKWARDS, lambda: wrong.worked(backwards=True)),
                Misconception("same_position", "Each matrix uses its own position: R_{Θ,0} = I, but R_{Θ,1} and "
                              "R_{Θ,2} rotate pair i by 1·θ_i and 2·θ_i (document 000 also labels all three "
                              "m = 0).", wrong.worked_same_position),
            ),
        ),
        Question(
            grade_id="rope_matrix", answer="rope_matrix", title="R_{Θ,m} for any m, d, base", points=2,
            reference=rope_matrix, reference_source=ROPE_MATRIX_SOURCE, probes=matrix_probes, compare=AllClose(atol=1e-4, rtol=1e-4),
            visible=[Probe((1, 4, 100.0), "m = 1, d = 4, base 100"), Probe((3, 6, 10000.0), "m = 3, d = 6")],
            misconceptions=(
                Misconception("exponent_sign", EXPONENT_SIGN, wrong.matrix_variant(sign=+1)),
                Misconception("degrees", DEGREES, wrong.matrix_variant(degrees=True)),
                Misconception("m_times_i", M_TIMES_I, wrong.matrix_variant(m_times_i=True)),
                Misconception("rotates_backwards", BACKWARDS, wrong.matrix_variant(backwards=True)),
                Misconception("half_pairing", "R_{Θ,m} is the interleaved (RoFormer) matrix: block i acts on "
                              "coordinates (2i−2, 2i−1), next to each other on the diagonal. Yours pairs "
                              "coordinate i with i + d/2 (the half-split convention).",
                              wrong.matrix_variant(pairing="half", layout="half")),
            ),
        ),
        APPLY_CHECK,
        Question(
            grade_id="rope_permutation", answer="rope_permutation", title="From one convention to the other",
            points=2, reference=rope_half_permutation, probes=permutation_probes, compare=IntegerArray(),
            visible=[Probe((4,), "d = 4")],
            misconceptions=(
                Misconception("inverse_permutation",
                              "That is the inverse permutation. P[j] names the interleaved coordinate that goes "
                              "to slot j of the half layout: the even coordinates first, then the odd ones "
                              "(P = [0, 2, 4, …, 1, 3, 5, …]), so that half(x[P]) = interleaved(x)[P].",
                              wrong.permutation_inverse),
                Misconception("odd_first",
                              "Within a pair the first coordinate is the even one (x_0 of (x_0, x_1)) and it goes "
                              "to the first half; odd-first turns every pair the other way.",
                              wrong.permutation_odd_first),
            ),
        ),
        Question(
            grade_id="score_from_offset", answer="score_from_offset", title="Scores depend on n − m only",
            points=2, reference=score_from_offset, depends_on=("rope_matrix", "apply_rope"), probes=offset_probes, compare=Scalar(atol=2e-3, rtol=1e-3),
            visible=[Probe((np.array([1.0, 0.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.0, 0.0]), 1, 100.0),
                           "q = k = e_0, offset 1, base 100")],
            misconceptions=(
                Misconception("offset_sign",
                              "(R_m q)·(R_n k) = qᵀ R_mᵀ R_n k = qᵀ R_{n−m} k: the offset is n − m (key minus "
                              "query) and R_{n−m} rotates k by it; yours rotates by m − n.",
                              wrong.score_offset_sign),
                Misconception("no_rotation",
                              "The rotations do not cancel: R_mᵀ R_n = R_{n−m}, not the identity, so the score "
                              "is qᵀ R_{n−m} k — it depends on the offset.", wrong.score_no_rotation),
            ),
        ),
        Question(
            grade_id="rope_attention", answer="rope_attention", title="Causal attention with RoPE", points=2,
            reference=rope_attention, depends_on=("apply_rope",), probes=attention_probes, compare=AllClose(atol=2e-4, rtol=1e-4),
            visible=[Probe((np.eye(3, 4, dtype=np.float32), np.eye(3, 4, dtype=np.float32),
                            np.arange(12, dtype=np.float32).reshape(3, 4), np.array([0, 1, 2]), 100.0),
                           "q = k = first rows of I, v = 0 … 11, positions 0, 1, 2, base 100",
                           note="Three tokens, d = 4, base 100; a query never sees later keys.")],
            misconceptions=(
                Misconception("rotates_v",
                              "RoPE rotates q and k only: v carries the content that is mixed, and rotating it "
                              "would make the output depend on the absolute positions of the keys. Apply R_m to "
                              "q and k, leave v as it is.", wrong.attention_rotates_v),
                Misconception("only_q_rotated",
                              "Rotate both q (at the query's position) and k (at the key's): only then does "
                              "q_m·k_n = qᵀ R_{n−m} k depend on the offset.", wrong.attention_only_q),
                Misconception("positions_ignored",
                              "The positions are not used: rotate q and k by apply_rope before the scores.",
                              wrong.attention_no_rope),
            ),
        ),
    ],
)
