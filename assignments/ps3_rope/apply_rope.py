"""Part 4, apply_rope in both conventions ("interleaved": RoFormer's adjacent pairs; "half":
GPT-NeoX / LLaMA / Hugging Face ``rotate_half``): the reference's source (for root cause:
parts 6 and 7 call the student's `apply_rope`), the probes, the known-wrong rotations and their
feedback."""

import numpy as np

from autograder.authoring import AllClose, FunctionSource, Misconception, Probe, Question

from .common import BACKWARDS, DEGREES, EXPONENT_SIGN, M_TIMES_I, randn, rope


# ---- probes, drawn per student
def apply_probes(rng):
    probes = []
    for convention in ("interleaved", "half"):
        d = int(rng.choice([4, 8, 16]))
        t = int(rng.integers(3, 7))
        start = int(rng.integers(0, 100))
        positions = np.arange(start, start + t, dtype=np.int64)
        base = float(rng.choice([100.0, 500.0]))
        probes += [
            Probe((randn(rng, t, d), positions, base, convention), f"{convention}, (T, d) input"),
            Probe((randn(rng, 2, 3, t, d), positions, base, convention), f"{convention}, (B, H, T, d) input"),
            Probe(
                (randn(rng, t, d), rng.permutation(positions), 10000.0, convention),
                f"{convention}, positions not in order",
            ),
        ]
    t = int(rng.integers(3, 7))
    positions = np.sort(rng.choice(np.arange(1, 200), t, replace=False)).astype(np.int64)
    return probes + [
        Probe(
            (randn(rng, t, 6), positions),
            "(T, 6) input, positions with gaps, base and convention left at their defaults",
        ),
        # the notebook allows float positions: fractional ones, as position interpolation makes
        Probe(
            (randn(rng, 2, t, 8).astype(np.float64), (np.arange(t) * 0.75).astype(np.float32), 100.0, "half"),
            "float64 (B, T, d) input, float positions 0, 0.75, 1.5, …, half",
        ),
    ]


# ---- the reference, self-contained (its imports inside): the grader compares with it, and root
# cause compiles its source in the sandbox. tests/grading/test_root_cause.py checks the compiled
# source, tests/assignments/test_reference_sources.py that it is solutions.positional.apply_rope.
def apply_rope(x, positions, base=10000.0, convention="interleaved"):
    import torch

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


APPLY_ROPE_SOURCE = FunctionSource.of(apply_rope)


# ---- known-wrong answers: apply_rope(x, positions, base, convention)
def apply_variant(**kw):
    def wrong(x, positions, base=10000.0, convention="interleaved"):
        return rope(x, positions, base, convention, **kw)

    return wrong


def apply_swapped_conventions(x, positions, base=10000.0, convention="interleaved"):
    return rope(x, positions, base, "half" if convention == "interleaved" else "interleaved")


def apply_convention_ignored(x, positions, base=10000.0, convention="interleaved"):
    return rope(x, positions, base, "interleaved")


def apply_interleaved_as_half(x, positions, base=10000.0, convention="interleaved"):
    """The half (rotate_half) layout whatever was asked."""
    return rope(x, positions, base, "half")


def apply_interleaved_out_in_halves(x, positions, base=10000.0, convention="interleaved"):
    """Interleaved: the adjacent pairs turned right, but written back in the half layout (the
    pairs' first coordinates, then their second ones)."""
    import torch

    out = rope(x, positions, base, convention)
    return torch.cat([out[..., 0::2], out[..., 1::2]], dim=-1) if convention == "interleaved" else out


def apply_mixed(x, positions, base=10000.0, convention="interleaved"):
    """The pairing of the asked convention with the frequency layout of the other one."""
    return rope(x, positions, base, convention, layout="half" if convention == "interleaved" else "interleaved")


QUESTIONS = [
    Question(
        grade_id="apply_rope",
        answer="apply_rope",
        title="apply_rope in both conventions",
        reference=apply_rope,
        reference_source=APPLY_ROPE_SOURCE,
        probes=apply_probes,
        compare=AllClose(atol=3e-4, rtol=1e-4, same_dtype=True),
        visible=[
            Probe(
                (np.eye(4, dtype=np.float32), np.arange(4), 100.0, "interleaved"),
                "interleaved, d = 4",
                note="The rows of the 4×4 identity at positions 0, 1, 2, 3 (base 100): row m is e_m rotated "
                "by R_{Θ,m}.",
            ),
            Probe(
                (np.eye(4, dtype=np.float32), np.arange(4), 100.0, "half"),
                "half, d = 4",
                note="The same in the half-split (rotate_half) convention.",
            ),
        ],
        misconceptions=(
            Misconception("exponent_sign", EXPONENT_SIGN, apply_variant(sign=+1)),
            Misconception("degrees", DEGREES, apply_variant(degrees=True)),
            Misconception("m_times_i", M_TIMES_I, apply_variant(m_times_i=True)),
            Misconception("rotates_backwards", BACKWARDS, apply_variant(backwards=True)),
            Misconception(
                "convention_ignored",
                '`convention` is ignored: with convention="half" the pairs are (x_i, x_{i+d/2}) '
                "and x·cos + rotate_half(x)·sin (Hugging Face) — yours rotates (x_0, x_1), (x_2, x_3), "
                "… in both cases.",
                apply_convention_ignored,
            ),
            Misconception(
                "wrong_pairing",
                'The two conventions are swapped: "interleaved" (RoFormer) rotates the adjacent pairs '
                '(x_0, x_1), (x_2, x_3), …; "half" (GPT-NeoX, LLaMA, rotate_half) rotates '
                "(x_i, x_{i+d/2}).",
                apply_swapped_conventions,
            ),
            Misconception(
                "mixed_conventions",
                "The conventions are mixed: the pairing of one with the frequency layout of the other. "
                "With rotate_half the angle vector is cat(θ, θ) (θ_1 … θ_{d/2}, θ_1 … θ_{d/2}); with "
                "adjacent pairs it is θ_1, θ_1, θ_2, θ_2, … — each pair must turn by one θ_i.",
                apply_mixed,
            ),
            Misconception(
                "interleaved_as_half",
                "Your rotation uses the half layout (rotate_half: pairs (x_i, x_{i+d/2})) also when "
                'convention="interleaved" (the default) is asked; the interleaved layout rotates the adjacent pairs '
                "(x_0, x_1), (x_2, x_3), … (RoFormer, Meta's LLaMA).",
                apply_interleaved_as_half,
            ),
            Misconception(
                "interleaved_output_in_halves",
                'With convention="interleaved" you turn the right pairs but write the result in the half '
                "layout (every pair's first coordinate, then every second one): in the interleaved layout "
                "each turned pair stays where it was, at coordinates 2i and 2i + 1.",
                apply_interleaved_out_in_halves,
            ),
        ),
    ),
]
