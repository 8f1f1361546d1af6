"""Part 2, the position-wise feed-forward network (``feed_forward``, ReLU between two linear
maps): the reference — self-contained, for root cause in the layers that call it — the probes,
the visible example, the known mistakes and their feedback."""

import torch.nn.functional as F

from autograder.authoring import AllClose, FunctionSource, Misconception, Probe, Question

from .common import linear, randn, visible_rng


def feed_forward(x, w1, b1, w2, b2):
    """W₂·ReLU(W₁x + b₁) + b₂, weights in nn.Linear layout (out, in)."""
    import torch.nn.functional as F

    return F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)


# ---- probes, drawn per student
def ffn_probes(rng):
    d, d_ff = int(rng.integers(4, 9)), int(rng.integers(8, 20))
    weights = lambda: (*linear(rng, d_ff, d), *linear(rng, d, d_ff))  # noqa: E731 - fresh per probe
    return [
        Probe((randn(rng, 2, int(rng.integers(2, 6)), d), *weights()), "(B, T, d) input"),
        Probe((randn(rng, 3, d), *weights()), "(T, d) input"),
    ]


# ---- known-wrong answers


def ffn_no_activation(x, w1, b1, w2, b2):
    return F.linear(F.linear(x, w1, b1), w2, b2)


def ffn_gelu(x, w1, b1, w2, b2):
    return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)


def ffn_relu_on_output(x, w1, b1, w2, b2):
    return F.relu(feed_forward(x, w1, b1, w2, b2))


VISIBLE_RNG = visible_rng(normals_before=8)  # after layer_norm's; draws 44

QUESTIONS = [
    Question(
        grade_id="feed_forward",
        answer="feed_forward",
        title="Position-wise feed-forward network",
        reference=feed_forward,
        reference_source=FunctionSource.of(feed_forward),
        probes=ffn_probes,
        compare=AllClose(atol=1e-4, rtol=1e-4),
        visible=[
            Probe(
                (randn(VISIBLE_RNG, 1, 2, 3), *linear(VISIBLE_RNG, 5, 3), *linear(VISIBLE_RNG, 3, 5)),
                "d = 3, d_ff = 5",
            )
        ],
        misconceptions=(
            Misconception(
                "no_activation",
                "Apply ReLU between the two linear maps: without it the block is one linear map.",
                ffn_no_activation,
            ),
            Misconception("gelu", "This problem set's FFN uses ReLU (the 2017 paper's), not GELU.", ffn_gelu),
            Misconception(
                "relu_on_output",
                "The ReLU goes after the first linear map only; the output of the second is not rectified.",
                ffn_relu_on_output,
            ),
        ),
    ),
]
