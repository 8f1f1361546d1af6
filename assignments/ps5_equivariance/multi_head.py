"""Part 3(d), multi-head attention (``multi_head_reordered``): document 000 (Q5.4) asks what the
heads' outputs do for a reordered input "when they are concatenated and W(o) is applied", and
answers that they "stay the same". The student returns the multi-head output for X[..., p, :]
from the heads' outputs on X alone — possible only because each head is equivariant and the
concatenation (per token) and W_O (token-wise) keep it. The reference is
``solutions.equivariance.multi_head_on_reordered_input``."""

import numpy as np
import torch

from autograder.authoring import AllClose, Misconception, Probe, Question
from solutions.equivariance import merge_heads, multi_head_on_reordered_input


def multi_head_reference(heads, W_O, p):
    return multi_head_on_reordered_input(heads, W_O, p)


def tokens_moved(rng: np.random.Generator, t: int) -> np.ndarray:
    """A permutation of t >= 3 tokens that is not its own inverse (so p and argsort(p) differ)."""
    while True:
        p = rng.permutation(t)
        if not np.array_equal(p[p], np.arange(t)):
            return p.astype(np.int64)


def multi_head_probes(rng: np.random.Generator) -> list[Probe]:
    """h heads of width d_h on T tokens (T, h and d_model all different, h·d_h ≠ d_model), a
    (T, ...) layer and a batch (B, h, T, d_h), each with a permutation that is not its own inverse."""
    probes = []
    for batch in (None, int(rng.choice([2, 3]))):
        h = int(rng.choice([2, 3, 4]))
        d_h = int(rng.choice([2, 3]))
        t = int(rng.choice([n for n in range(3, 8) if n != h]))
        d_model = int(rng.choice([n for n in range(3, 7) if n != h * d_h and n != t]))
        lead = () if batch is None else (batch,)
        heads = rng.standard_normal((*lead, h, t, d_h)).astype(np.float32)
        W_O = (rng.standard_normal((h * d_h, d_model)) / np.sqrt(h * d_h)).astype(np.float32)
        shape = f"({h}, {t}, {d_h})" if batch is None else f"({batch}, {h}, {t}, {d_h})"
        probes.append(Probe((heads, W_O, tokens_moved(rng, t)), f"{h} heads on {t} tokens, heads {shape}"))
    return probes


# ---- known-wrong answers: multi_head_reordered(heads, W_O, p)
def output_unchanged(heads, W_O, p):
    return merge_heads(torch.as_tensor(heads)) @ torch.as_tensor(W_O)


def inverse_permutation(heads, W_O, p):
    return multi_head_on_reordered_input(heads, W_O, np.argsort(np.asarray(p)))


def merged_without_transpose(heads, W_O, p):
    heads = torch.as_tensor(heads)
    *lead, h, t, d_h = heads.shape
    return (heads.reshape(*lead, t, h * d_h) @ torch.as_tensor(W_O))[..., torch.as_tensor(p), :]


def no_output_projection(heads, W_O, p):
    return merge_heads(torch.as_tensor(heads))[..., torch.as_tensor(p), :]


QUESTIONS = [
    Question(
        grade_id="multi_head_reordered",
        title="Multi-head attention on a reordered input",
        answer="multi_head_reordered",
        reference=multi_head_reference,
        probes=multi_head_probes,
        compare=AllClose(atol=1e-5, rtol=1e-4),
        coverage_exempt={"W_O": "the notebook gives W_O the shape (h·d_h, d_model): one projection for every sequence"},
        visible=[
            Probe(
                (
                    np.arange(12, dtype=np.float32).reshape(2, 3, 2) / 4,
                    np.eye(4, 3, dtype=np.float32) + 0.5,
                    np.arange(3),
                ),
                "2 heads on 3 tokens, p the identity",
                note="Two heads of width 2 on three tokens, W_O of shape (4, 3), and p the identity "
                "(nothing reordered): this checks how the heads are joined, not the reordering.",
            )
        ],
        misconceptions=(
            Misconception(
                "invariance_claim",
                'Document 000 (Q5.4) says the heads\' output "stays the same" for a reordered input — '
                "that is invariance. Each head moves its output rows with its tokens, and joining the "
                "heads token by token and applying W_O to every token alike keeps that: the multi-head "
                "output is equivariant, not invariant.",
                output_unchanged,
            ),
            Misconception(
                "inverse_permutation",
                "Your answer reorders the rows by the inverse permutation. Row k of X[..., p, :] is "
                "token p[k]; the output row computed from it is that token's row of the output on X.",
                inverse_permutation,
            ),
            Misconception(
                "merged_without_transpose",
                "The heads are joined by reshaping (h, T, d_h) straight to (T, h·d_h): that packs "
                "rows of different tokens into one row. Concatenation puts each token's h head "
                "vectors side by side (move the head axis next to the feature axis first); only then "
                "is every output row one token's, and the layer equivariant.",
                merged_without_transpose,
            ),
            Misconception(
                "no_output_projection",
                "The heads are joined but W_O is never applied: the layer's output is "
                "Concat[H_1; ...; H_h]·W_O, with d_model columns.",
                no_output_projection,
            ),
        ),
    ),
]
