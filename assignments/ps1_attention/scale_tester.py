"""Part 2b, a tester for the 1/√d_k scaling (``is_correctly_scaled``): graded by running the
student's tester, in the sandbox, on the grader's attention functions (sent as source) — some
scale right, others leave the scale out or take it from the wrong size — and comparing its
verdicts with the reference tester's. The known-wrong testers are the classic weak ones (sizes
that hide a wrong factor, inputs too small to show any), each with the feedback naming why."""

import numpy as np

from autograder.authoring import Exact, FunctionSource, Misconception, Probe, Question

# ---- the subjects: attention functions q (..., T_q, d_k), k (..., T_k, d_k), v (..., T_k, d_v)


def scaled_right(q, k, v):
    import math

    import torch

    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1) @ v


def scaled_right_by_torch(q, k, v):
    import torch

    return torch.nn.functional.scaled_dot_product_attention(q, k, v)


def scaled_queries_first(q, k, v):
    import torch

    return torch.softmax((q * q.shape[-1] ** -0.5) @ k.transpose(-2, -1), dim=-1) @ v


def unscaled(q, k, v):
    import torch

    return torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v


def scaled_by_dk(q, k, v):
    import torch

    return torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1], dim=-1) @ v


def scaled_by_value_width(q, k, v):
    import math

    import torch

    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(v.shape[-1]), dim=-1) @ v


def scaled_by_length(q, k, v):
    import math

    import torch

    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(k.shape[-2]), dim=-1) @ v


def scaled_after_softmax(q, k, v):
    import math

    import torch

    return torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v / math.sqrt(q.shape[-1])


SUBJECTS = {
    f.__name__: FunctionSource.of(f)
    for f in (
        scaled_right,
        scaled_right_by_torch,
        scaled_queries_first,
        unscaled,
        scaled_by_dk,
        scaled_by_value_width,
        scaled_by_length,
        scaled_after_softmax,
    )
}


# ---- the reference tester and the known-wrong ones


def _agrees(attention, d_k, d_v, t_q, t_k, size, exact=False, atol=1e-5):
    import math

    import torch

    g = torch.Generator().manual_seed(0)
    q, k = (torch.randn(2, t, d_k, generator=g) * size for t in (t_q, t_k))
    v = torch.randn(2, t_k, d_v, generator=g)
    expected = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d_k), dim=-1) @ v
    got = attention(q, k, v)
    if got.shape != expected.shape:
        return False
    return bool(torch.equal(got, expected)) if exact else bool(torch.allclose(got, expected, atol=atol, rtol=1e-4))


def is_correctly_scaled(attention):
    """Sizes that differ from one another (d_k, d_v, both lengths) and scores of unit size."""
    return _agrees(attention, d_k=8, d_v=3, t_q=5, t_k=6, size=1.0)


def tester_key_width_one(attention):
    return _agrees(attention, d_k=1, d_v=3, t_q=5, t_k=6, size=1.0)


def tester_equal_sizes(attention):
    return _agrees(attention, d_k=4, d_v=4, t_q=4, t_k=4, size=1.0)


def tester_tiny_inputs(attention):
    return _agrees(attention, d_k=8, d_v=3, t_q=5, t_k=6, size=1e-3, atol=1e-2)


def tester_exact_equality(attention):
    return _agrees(attention, d_k=8, d_v=3, t_q=5, t_k=6, size=1.0, exact=True)


def tester_probes(rng: np.random.Generator) -> list[Probe]:
    names = list(SUBJECTS)
    order = rng.permutation(len(names))
    return [Probe((SUBJECTS[names[i]],), names[i]) for i in order]


QUESTIONS = [
    Question(
        grade_id="scale_tester",
        title="A tester for the 1/√d_k scaling",
        answer="is_correctly_scaled",
        reference=is_correctly_scaled,
        probes=tester_probes,
        depends_on=("sdpa",),  # the notebook allows calling scaled_dot_product_attention
        visible=[
            Probe((SUBJECTS["scaled_right"],), "softmax(qkᵀ/√d_k)v", note="An attention that scales right."),
            Probe((SUBJECTS["unscaled"],), "softmax(qkᵀ)v", note="An attention without the scaling."),
        ],
        compare=Exact(),
        misconceptions=(
            Misconception(
                "tester_key_width_one",
                "Your tester accepts an attention with no scaling: with a key width d_k = 1 every "
                "power of d_k is 1, so a missing or wrong factor is invisible. Test with d_k > 1.",
                tester_key_width_one,
            ),
            Misconception(
                "tester_equal_sizes",
                "Your tester accepts an attention that takes its factor from another size (the "
                "value width or the key length): when those sizes equal d_k it cannot tell them "
                "apart. Make every size differ.",
                tester_equal_sizes,
            ),
            Misconception(
                "tester_tiny_inputs",
                "Your tester accepts wrongly scaled attentions, even one without scaling: scores near "
                "0 make every softmax nearly uniform whatever the factor, and a loose tolerance hides "
                "the rest. Use inputs of unit size and a tight tolerance.",
                tester_tiny_inputs,
            ),
            Misconception(
                "tester_exact_equality",
                "Your tester rejects correct attentions that compute in another order (torch's own "
                "kernel, or q scaled before the product): floating point differs in the last bits. "
                "Compare with a tolerance (torch.allclose).",
                tester_exact_equality,
            ),
        ),
    ),
]
