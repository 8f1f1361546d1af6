"""Part 1, LayerNorm over the last axis (``layer_norm``): the reference — self-contained, so the
sandbox can bind it in place of a student's wrong ``layer_norm`` when re-asking the encoder and
decoder layers (root cause) — the probes, the visible examples, the known mistakes and their
feedback. Document 001 divides by std + eps: the ``std_plus_eps`` mistake names that."""

import numpy as np
import torch
import torch.nn.functional as F

from autograder.authoring import AllClose, FunctionSource, Misconception, Probe, Question

from .common import randn, visible_rng

LN_EPS = 1e-5  # the eps of the layers' LayerNorms (PyTorch's default)


def layer_norm(x, gamma, beta, eps):
    """(x − mean) / sqrt(var + eps) over the last axis, then γ·x̂ + β."""
    import torch.nn.functional as F

    return F.layer_norm(x, (x.shape[-1],), gamma, beta, eps)


# ---- probes, drawn per student
def ln_probes(rng):
    d = int(rng.integers(5, 17))
    affine = lambda: (randn(rng, d, scale=0.5) + 1, randn(rng, d, scale=0.5))  # noqa: E731 - fresh per probe
    return [
        Probe((randn(rng, 2, 3, d, scale=2) + 1, *affine(), 1e-5), "(B, T, d) input, eps = 1e-5"),
        Probe((randn(rng, 4, d, scale=0.05), *affine(), 1e-2), "small activations, eps = 1e-2"),
        Probe((randn(rng, 3, d), *affine(), float(rng.choice([0.1, 0.5, 1.0]))), "large eps"),
    ]


# ---- known-wrong answers


def ln_std_plus_eps(x, gamma, beta, eps):
    """Document 001's LayerNorm: (x − mean) / (std + eps), std the biased one."""
    mean = x.mean(-1, keepdim=True)
    std = (x - mean).pow(2).mean(-1, keepdim=True).sqrt()
    return gamma * (x - mean) / (std + eps) + beta


def ln_unbiased_var(x, gamma, beta, eps):
    mean = x.mean(-1, keepdim=True)
    return gamma * (x - mean) / torch.sqrt(x.var(-1, keepdim=True, unbiased=True) + eps) + beta


def ln_over_all_features_and_tokens(x, gamma, beta, eps):
    dims = tuple(range(1, x.dim())) if x.dim() > 1 else (-1,)
    mean, var = x.mean(dims, keepdim=True), x.var(dims, keepdim=True, unbiased=False)
    return gamma * (x - mean) / torch.sqrt(var + eps) + beta


def ln_no_affine(x, gamma, beta, eps):
    return F.layer_norm(x, (x.shape[-1],), None, None, eps)


VISIBLE_RNG = visible_rng(normals_before=0)  # the first part: draws 8

QUESTIONS = [
    Question(
        grade_id="layer_norm",
        answer="layer_norm",
        title="LayerNorm",
        reference=layer_norm,
        reference_source=FunctionSource.of(layer_norm),
        probes=ln_probes,
        compare=AllClose(atol=1e-4, rtol=1e-4),
        visible=[
            Probe(
                (np.array([[1.0, 2.0, 3.0, 6.0]], np.float32), np.ones(4, np.float32), np.zeros(4, np.float32), 1e-5),
                "one token, γ = 1, β = 0",
            ),
            Probe(
                (randn(VISIBLE_RNG, 2, 4, scale=0.05), np.ones(4, np.float32), np.zeros(4, np.float32), 0.01),
                "small activations, eps = 0.01",
                note="Here eps matters: it must sit inside the square root.",
            ),
        ],
        misconceptions=(
            Misconception(
                "std_plus_eps",
                "Divide by sqrt(var + eps), as PyTorch's LayerNorm does — you divided by "
                "std + eps (document 001's formula). The two differ when the variance is small compared "
                "with eps.",
                ln_std_plus_eps,
            ),
            Misconception(
                "unbiased_variance",
                "LayerNorm uses the biased variance (divide by d, not d − 1): "
                "use x.var(-1, unbiased=False) or mean((x − mean)²).",
                ln_unbiased_var,
            ),
            Misconception(
                "normalised_over_tokens",
                "Normalise each token over its own features (the last axis) "
                "only — not over the tokens or the batch too.",
                ln_over_all_features_and_tokens,
            ),
            Misconception("no_affine", "Apply the learned gain and bias after normalising: γ·x̂ + β.", ln_no_affine),
        ),
    ),
]
