"""Parts 2 and 3, the rotation matrix R_{Θ,m}: document 000's worked example (m = 0, 1, 2 at
base 100, d = 4) and R_{Θ,m} for any m, d, base — the references (with R's source for root
cause: part 6 may call the student's `rope_matrix`), the probes, the known-wrong matrices and
their feedback."""

import torch

from autograder.authoring import AllClose, FunctionSource, Misconception, Probe, Question

from .common import BACKWARDS, DEGREES, EXPONENT_SIGN, M_TIMES_I, matrix


# ---- probes, drawn per student
def matrix_probes(rng):
    probes = [
        Probe((int(rng.integers(1, 50)), int(d), float(rng.choice([100.0, 500.0, 2000.0]))), f"m, d = {d}")
        for d in (4, 6, 8, 16)
    ]
    return probes + [Probe((int(rng.integers(2, 50)), 10), "m, d = 10, base left at its default")]


# ---- references. R_{Θ,m}'s is self-contained (its imports inside): the grader compares with it,
# and root cause compiles its source in the sandbox. tests/grading/test_root_cause.py checks the
# compiled source, tests/assignments/test_reference_sources.py that it is solutions.positional.rope_matrix.
def rope_matrix(m, d, base=10000.0):
    import torch

    d = int(d)
    theta = float(base) ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    ang = float(m) * theta
    r = torch.zeros(d, d, dtype=torch.float64)
    c, s = ang.cos(), ang.sin()
    i = torch.arange(0, d, 2)
    r[i, i], r[i, i + 1], r[i + 1, i], r[i + 1, i + 1] = c, -s, s, c
    return r


ROPE_MATRIX_SOURCE = FunctionSource.of(rope_matrix)


def worked_example():
    return torch.stack([rope_matrix(m, 4, 100.0) for m in range(3)])


# ---- known-wrong answers: R_worked (base 100, d = 4, m = 0, 1, 2)
def worked(**kw):
    return torch.stack([matrix(m, 4, 100.0, **kw) for m in range(3)])


def worked_same_position():
    return torch.stack([torch.eye(4, dtype=torch.float64)] * 3)


# ---- known-wrong answers: rope_matrix(m, d, base)
def matrix_variant(**kw):
    def wrong(m, d, base=10000.0):
        return matrix(m, d, base, **kw)

    return wrong


QUESTIONS = [
    Question(
        grade_id="worked_example",
        answer="R_worked",
        title="Document 000's example: R_{Θ,m}, m = 0, 1, 2",
        call=False,
        reference=worked_example,
        compare=AllClose(atol=1e-2, rtol=0),
        misconceptions=(
            Misconception(
                "exponent_sign",
                EXPONENT_SIGN + " Your m = 1 block shows cos 10 ≈ −0.84 and sin 10 ≈ −0.54: with "
                "the right sign the angles are a hundred times smaller.",
                lambda: worked(sign=+1),
            ),
            Misconception("degrees", DEGREES, lambda: worked(degrees=True)),
            Misconception("m_times_i", M_TIMES_I, lambda: worked(m_times_i=True)),
            Misconception("rotates_backwards", BACKWARDS, lambda: worked(backwards=True)),
            Misconception(
                "same_position",
                "Each matrix uses its own position: R_{Θ,0} = I, but R_{Θ,1} and "
                "R_{Θ,2} rotate pair i by 1·θ_i and 2·θ_i (document 000 also labels all three "
                "m = 0).",
                worked_same_position,
            ),
        ),
    ),
    Question(
        grade_id="rope_matrix",
        answer="rope_matrix",
        title="R_{Θ,m} for any m, d, base",
        reference=rope_matrix,
        reference_source=ROPE_MATRIX_SOURCE,
        probes=matrix_probes,
        compare=AllClose(atol=1e-4, rtol=1e-4),
        visible=[Probe((1, 4, 100.0), "m = 1, d = 4, base 100"), Probe((3, 6, 10000.0), "m = 3, d = 6")],
        misconceptions=(
            Misconception("exponent_sign", EXPONENT_SIGN, matrix_variant(sign=+1)),
            Misconception("degrees", DEGREES, matrix_variant(degrees=True)),
            Misconception("m_times_i", M_TIMES_I, matrix_variant(m_times_i=True)),
            Misconception("rotates_backwards", BACKWARDS, matrix_variant(backwards=True)),
            Misconception(
                "half_pairing",
                "R_{Θ,m} is the interleaved (RoFormer) matrix: block i acts on "
                "coordinates (2i−2, 2i−1), next to each other on the diagonal. Yours pairs "
                "coordinate i with i + d/2 (the half-split convention).",
                matrix_variant(pairing="half", layout="half"),
            ),
        ),
    ),
]
