"""Part 4c, dropout on the attention weights (documents 001 and 003): a seeded *inverted* dropout
(``attention_dropout``: drop each weight with probability p, scale the kept ones by 1/(1 − p), so
every row keeps its expected sum 1). The notebook fixes the random draws (one generator seeded
with ``seed``, ``torch.rand(weights.shape, generator=g) < p`` marks the dropped entries), so the
grade is exact and deterministic; the rescaling is what it asks about. Document 003 describes
dropout as "randomly setting some of the attention weights to zero" (p = 0.5 in its code, "about
10–20 %" in its text): the mistake of zeroing without rescaling is named after it."""

import torch

from autograder.authoring import AllClose, Misconception, Probe, Question

from .common import randn


def attention_dropout(weights, p, seed):
    """Inverted dropout with the notebook's draws: drop where rand < p, scale the rest by 1/(1 − p)."""
    weights = torch.as_tensor(weights, dtype=torch.float32)
    g = torch.Generator().manual_seed(int(seed))
    dropped = torch.rand(weights.shape, generator=g) < p
    return weights.masked_fill(dropped, 0.0) / (1.0 - p)


def _draws(weights, seed):
    g = torch.Generator().manual_seed(int(seed))
    return torch.rand(torch.as_tensor(weights).shape, generator=g)


# ---- known-wrong dropouts


def dropout_without_rescale(weights, p, seed):
    """Document 003's description: some weights set to zero, the others left as they are."""
    return attention_dropout(weights, p, seed) * (1.0 - p)


def dropout_scaled_by_keep(weights, p, seed):
    """The kept weights multiplied by (1 − p): the test-time scaling of the original dropout."""
    return attention_dropout(weights, p, seed) * (1.0 - p) ** 2


def dropout_keeps_with_probability_p(weights, p, seed):
    """p read as the probability of keeping an entry."""
    weights = torch.as_tensor(weights, dtype=torch.float32)
    return weights.masked_fill(_draws(weights, seed) >= p, 0.0) / max(p, 1e-12)


def dropout_renormalised_rows(weights, p, seed):
    """The kept weights renormalised so that each row sums to 1 exactly."""
    kept = attention_dropout(weights, p, seed)
    total = kept.sum(-1, keepdim=True)
    return torch.where(total > 0, kept / total.clamp_min(1e-30), kept)


# ---- probes, drawn per student


def _weights(rng, *shape):
    return torch.softmax(torch.from_numpy(randn(rng, *shape, scale=2)), dim=-1).numpy()


def dropout_probes(rng):
    b, h, t = int(rng.integers(2, 4)), int(rng.integers(2, 4)), int(rng.integers(3, 7))
    seeds = [int(s) for s in rng.integers(0, 10_000, size=4)]
    return [
        Probe((_weights(rng, t, t), 0.1, seeds[0]), f"({t}, {t}) weights, p = 0.1"),
        Probe((_weights(rng, b, h, t, t), 0.5, seeds[1]), "(B, h, T, T) weights, p = 0.5 (document 003's)"),
        Probe((_weights(rng, b, t + 1, t), float(rng.uniform(0.15, 0.3)), seeds[2]), "(B, T_q, T_k) weights"),
        Probe((_weights(rng, t, t), 0.0, seeds[3]), "p = 0 (nothing dropped)"),
    ]


_VISIBLE_WEIGHTS = torch.softmax(
    torch.tensor([[0.9, 0.7, 0.3, 0.2], [0.6, 0.8, 0.9, 0.4], [0.2, 0.5, 0.7, 0.9]]), -1
).numpy()

QUESTIONS = [
    Question(
        grade_id="attention_dropout",
        answer="attention_dropout",
        title="Dropout on the attention weights",
        reference=attention_dropout,
        probes=dropout_probes,
        compare=AllClose(atol=1e-6, rtol=1e-5),
        visible=[Probe((_VISIBLE_WEIGHTS, 0.5, 0), "(3, 4) weights, p = 0.5, seed 0")],
        misconceptions=(
            Misconception(
                "no_rescale",
                "Document 003's description taken literally — some weights set to zero, the others "
                "left as they are: then each row sums to 1 − p on average, and the layer sees smaller "
                "values in training than at inference. Scale the kept weights (inverted dropout).",
                dropout_without_rescale,
            ),
            Misconception(
                "scaled_by_keep_probability",
                "Multiplying the kept weights by the keep probability is the original dropout's "
                "*inference-time* correction; in training, inverted dropout divides by it.",
                dropout_scaled_by_keep,
            ),
            Misconception(
                "p_is_keep_probability",
                "p is the probability of *dropping* an entry (nn.Dropout(p)): an entry is dropped "
                "where the generator's draw is below p.",
                dropout_keeps_with_probability_p,
            ),
            Misconception(
                "renormalised_rows",
                "Dropout keeps each row's sum 1 only in expectation: scale by a constant, not by "
                "each row's own kept total (that is a different, data-dependent operation).",
                dropout_renormalised_rows,
            ),
        ),
    ),
]
