"""Part 7, causal attention with RoPE: the reference, the probes, the known-wrong attention
(v rotated, only q rotated, no rotation) and their feedback. The student's answer calls their
`apply_rope` (root cause)."""

import numpy as np

from autograder.authoring import AllClose, Misconception, Probe, Question
from solutions.attention import attention_weights, causal_mask
from solutions.encodings import rope_attention as reference_rope_attention

from .common import randn, rope


# ---- probes, drawn per student
def attention_probes(rng):
    d, t = int(rng.choice([4, 8])), int(rng.integers(4, 8))  # T ≠ 3, the visible example's
    t += t == d  # and T ≠ d: an axis taken for the other (shape[-1] for shape[-2]) must show
    start = int(rng.integers(1, 50))
    positions = np.arange(start, start + t, dtype=np.int64)
    gaps = np.sort(rng.choice(np.arange(0, 300), t, replace=False)).astype(np.int64)
    return [
        Probe(
            (randn(rng, t, d, scale=2), randn(rng, t, d, scale=2), randn(rng, t, d), positions, 100.0),
            "(T, d), base 100",
        ),
        Probe(
            (randn(rng, 2, t, d, scale=2), randn(rng, 2, t, d, scale=2), randn(rng, 2, t, d), gaps, 500.0),
            "(B, T, d), positions with gaps, base 500",
        ),
        Probe(
            (randn(rng, t, d, scale=2), randn(rng, t, d, scale=2), randn(rng, t, d), positions),
            "(T, d), base left at its default",
        ),
    ]


# ---- reference
def rope_attention(q, k, v, positions, base=10000.0):
    return reference_rope_attention(q, k, v, positions, base, causal=True)


# ---- known-wrong answers: rope_attention(q, k, v, positions, base)
def _attention(q, k, v, positions, base, rotate=("q", "k")):
    def turn(t, name):
        return rope(t.double(), positions, base) if name in rotate else t.double()

    w = attention_weights(turn(q, "q"), turn(k, "k"), causal_mask(q.shape[-2]))
    return (w @ turn(v, "v")).to(q.dtype)


def attention_rotates_v(q, k, v, positions, base=10000.0):
    return _attention(q, k, v, positions, base, rotate=("q", "k", "v"))


def attention_only_q(q, k, v, positions, base=10000.0):
    return _attention(q, k, v, positions, base, rotate=("q",))


def attention_no_rope(q, k, v, positions, base=10000.0):
    return _attention(q, k, v, positions, base, rotate=())


QUESTIONS = [
    Question(
        grade_id="rope_attention",
        answer="rope_attention",
        title="Causal attention with RoPE",
        reference=rope_attention,
        depends_on=("apply_rope",),
        probes=attention_probes,
        compare=AllClose(atol=2e-4, rtol=1e-4),
        visible=[
            Probe(
                (
                    np.eye(3, 4, dtype=np.float32),
                    np.eye(3, 4, dtype=np.float32),
                    np.arange(12, dtype=np.float32).reshape(3, 4),
                    np.array([0, 1, 2]),
                    100.0,
                ),
                "q = k = first rows of I, v = 0 … 11, positions 0, 1, 2, base 100",
                note="Three tokens, d = 4, base 100; a query never sees later keys.",
            )
        ],
        misconceptions=(
            Misconception(
                "rotates_v",
                "RoPE rotates q and k only: v carries the content that is mixed, and rotating it "
                "would make the output depend on the absolute positions of the keys. Apply R_m to "
                "q and k, leave v as it is.",
                attention_rotates_v,
            ),
            Misconception(
                "only_q_rotated",
                "Rotate both q (at the query's position) and k (at the key's): only then does "
                "q_m·k_n = qᵀ R_{n−m} k depend on the offset.",
                attention_only_q,
            ),
            Misconception(
                "positions_ignored",
                "The positions are not used: rotate q and k by apply_rope before the scores.",
                attention_no_rope,
            ),
        ),
    ),
]
