"""Part 6, scores depend on n − m only: (R_m q)·(R_n k) = qᵀ R_{n−m} k — the reference, the
probes, the known-wrong scores and their feedback. The student's answer may call their
`rope_matrix` or `apply_rope` (root cause)."""

import functools

import numpy as np
import sympy

from autograder.authoring import Formula, Misconception, Probe, Question, Scalar
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


# ---- 6a: the identity for d = 2 (θ_1 = 1), as a formula
SCORE_SYMBOLS = ("q1", "q2", "k1", "k2", "m", "n")
_Q1, _Q2, _K1, _K2, _M, _N = sympy.symbols(SCORE_SYMBOLS, positive=True)


def rotate_2d(x1, x2, angle):
    return x1 * sympy.cos(angle) - x2 * sympy.sin(angle), x1 * sympy.sin(angle) + x2 * sympy.cos(angle)


@functools.lru_cache
def score_formula(query_angle=_M, key_angle=_N):
    """(R_m q)·(R_n k) for d = 2, θ_1 = 1, built from the two rotations (not typed in) and
    simplified once (cached: about a second), so that a student's compact form is checked in
    a fraction of the formula check's time limit."""
    q = rotate_2d(_Q1, _Q2, query_angle)
    k = rotate_2d(_K1, _K2, key_angle)
    return sympy.simplify(q[0] * k[0] + q[1] * k[1])


QUESTIONS = [
    Question(
        grade_id="score_formula",
        answer="score_formula",
        title="(R_m q)·(R_n k) for one pair",
        call=False,
        reference=score_formula,
        compare=Formula(SCORE_SYMBOLS, timeout_s=10.0),  # trigonometric: SymPy may need seconds on a loaded machine
        misconceptions=(
            Misconception(
                "angles_add",
                "R_mᵀ R_n = R_{n−m}: transposing R_m turns by −m, so the angles subtract. Yours "
                "turns by the sum of the two angles.",
                lambda: score_formula(-_M, _N),
            ),
            Misconception(
                "offset_sign",
                "The key's rotation is by n and the query's by m: write out R_mᵀ R_n for these two "
                "rotations and check which way it turns k relative to q.",
                lambda: score_formula(_N, _M),
            ),
            Misconception(
                "no_rotation",
                "The rotations do not cancel: the score depends on the offset through a cosine and a sine of it.",
                lambda: _Q1 * _K1 + _Q2 * _K2,
            ),
            Misconception(
                "no_sine_term",
                "A term is missing: besides (q1·k1 + q2·k2) times a cosine, the cross products "
                "q1·k2 and q2·k1 enter with a sine.",
                lambda: (_Q1 * _K1 + _Q2 * _K2) * sympy.cos(_N - _M),
            ),
        ),
    ),
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
