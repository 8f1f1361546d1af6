"""Part 6, scores depend on n − m only: (R_m q)·(R_n k) = qᵀ R_{n−m} k — the reference, the
probes, the known-wrong scores and their feedback. The student's answer may call their
`rope_matrix` or `apply_rope` (root cause)."""

import numpy as np

from autograder.authoring import Misconception, Probe, Question, Scalar
from solutions.encodings import rope_score_from_offset


# ---- probes, drawn per student
def offset_probes(rng):
    d = int(rng.choice([4, 8, 16]))
    return [
        Probe((rng.standard_normal(d), rng.standard_normal(d), int(off), float(base)), f"offset {off}")
        for off, base in zip((-int(rng.integers(1, 40)), int(rng.integers(1, 9))), (100.0, 10000.0))
    ] + [
        Probe(
            (rng.standard_normal(d), rng.standard_normal(d), int(rng.integers(50, 500))),
            "a large offset, base left at its default",
        )
    ]


# ---- reference
def score_from_offset(q, k, offset, base=10000.0):
    return rope_score_from_offset(q, k, offset, base)


# ---- known-wrong answers: score_from_offset(q, k, offset, base)
def score_offset_sign(q, k, offset, base=10000.0):
    return rope_score_from_offset(q, k, -int(offset), base)


def score_no_rotation(q, k, offset, base=10000.0):
    return (q.double() * k.double()).sum()


QUESTIONS = [
    Question(
        grade_id="score_from_offset",
        answer="score_from_offset",
        title="Scores depend on n − m only",
        reference=score_from_offset,
        depends_on=("rope_matrix", "apply_rope"),
        probes=offset_probes,
        compare=Scalar(atol=2e-3, rtol=1e-3),
        visible=[
            Probe(
                (np.array([1.0, 0.0, 0.0, 0.0]), np.array([1.0, 0.0, 0.0, 0.0]), 1, 100.0),
                "q = k = e_0, offset 1, base 100",
            )
        ],
        misconceptions=(
            Misconception(
                "offset_sign",
                "(R_m q)·(R_n k) = qᵀ R_mᵀ R_n k = qᵀ R_{n−m} k: the offset is n − m (key minus "
                "query) and R_{n−m} rotates k by it; yours rotates by m − n.",
                score_offset_sign,
            ),
            Misconception(
                "no_rotation",
                "The rotations do not cancel: R_mᵀ R_n = R_{n−m}, not the identity, so the score "
                "is qᵀ R_{n−m} k — it depends on the offset.",
                score_no_rotation,
            ),
        ),
    ),
]
