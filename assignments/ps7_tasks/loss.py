"""Part 2, the training loss of document 001's toy tasks (its ``CopyLoss`` / ``AdditionLoss``):
cross-entropy from logits, per target token, with teacher forcing (``token_loss``), and the value
the document's own worked example should have printed (``copy_example_loss``).

Document 001's worked examples treat the model's logits as probabilities (−log 0.9 for a logit of
0.9, "softmax already applied") and divide the summed loss by the number of sequences, not of
tokens; the misconceptions name both. Contract stated in the notebook: ``logits`` (..., T, V) are
the decoder's outputs for the input ``tgt[..., :-1]``; ``tgt`` (..., T + 1) starts with BOS; the
loss is the mean, over the target tokens ``tgt[..., 1:]`` that are not ``pad_id``, of
−log softmax(logits)[target]; ``pad_id=None``: no padding; at least one token is not padding."""

import numpy as np
import torch

from autograder.authoring import Misconception, Probe, Question, Scalar

# document 001's CopyLoss example: batch 2, length 3, vocabulary 5; "logits" that look like probabilities
DOCUMENT_OUTPUTS = [
    [[0.9, 0.1, 0.0, 0.0, 0.0], [0.1, 0.8, 0.1, 0.0, 0.0], [0.0, 0.1, 0.9, 0.0, 0.0]],
    [[0.8, 0.2, 0.0, 0.0, 0.0], [0.1, 0.7, 0.2, 0.0, 0.0], [0.1, 0.1, 0.8, 0.0, 0.0]],
]
DOCUMENT_TARGET = [[0, 1, 2], [0, 1, 2]]


# ---- the reference
def token_loss(logits, tgt, pad_id=None):
    """Mean cross-entropy over the non-padding target tokens tgt[..., 1:] (teacher forcing)."""
    target = tgt[..., 1:].long()
    log_probs = torch.log_softmax(logits.double(), dim=-1)
    picked = log_probs.gather(-1, target.unsqueeze(-1)).squeeze(-1)
    keep = torch.ones_like(target, dtype=torch.bool) if pad_id is None else target != pad_id
    return -picked[keep].sum() / keep.sum()


def copy_example_loss():
    """Document 001's CopyLoss example as cross-entropy from logits, averaged over its 6 tokens."""
    logits = torch.tensor(DOCUMENT_OUTPUTS, dtype=torch.float64)
    return float(torch.nn.functional.cross_entropy(logits.reshape(-1, 5), torch.tensor(DOCUMENT_TARGET).reshape(-1)))


# ---- probes
def batch(rng, lead, t, v, pad_id, style):
    """(logits (*lead, t, v), tgt (*lead, t + 1)): BOS = 1, the rest drawn from 2 … v − 1; with a
    pad_id, every sequence but the first ends in a run of padding."""
    tgt = rng.integers(2, v, size=(*lead, t + 1))
    tgt[..., 0] = 1
    if pad_id is not None:
        tgt[tgt == pad_id] = 2  # pad_id marks padding only
        flat = tgt.reshape(-1, t + 1)
        for row in flat[1:]:
            row[int(rng.integers(2, t + 2)) :] = pad_id
        tgt = flat.reshape(*lead, t + 1)
    if style == "probabilities":  # the document's kind of numbers: in [0, 1)
        logits = rng.random((*lead, t, v))
    else:
        logits = 2.5 * rng.standard_normal((*lead, t, v))
    return logits.astype(np.float32), tgt.astype(np.int64)


def loss_probes(rng):
    probes = []
    for lead, pad, style in (
        ((3,), 0, "normal"),
        ((2,), None, "probabilities"),
        ((2, 3), "last", "normal"),
        ((4,), "omitted", "normal"),
        ((3,), 0, "probabilities"),
        ((), None, "normal"),
    ):
        t, v = int(rng.integers(3, 7)), int(rng.integers(5, 12))
        pad = v - 1 if pad == "last" else pad
        logits, tgt = batch(rng, lead, t, v, None if pad in ("omitted", None) else pad, style)
        label = f"logits {list(logits.shape)}, {style} values"
        if pad == "omitted":
            probes.append(Probe((logits, tgt), label + ", pad_id left out"))
        else:
            probes.append(Probe((logits, tgt, pad), label + f", pad_id = {pad}"))
    return probes


def visible_probes():
    rng = np.random.default_rng(707)
    logits, tgt = batch(rng, (2,), 4, 6, 0, "normal")
    return [
        Probe((logits, tgt, 0), "batch 2, 4 target tokens, vocabulary 6, pad_id = 0"),
        Probe((logits, tgt), "the same, no padding (pad_id left out)"),
    ]


# ---- known mistakes
def mean_over(logits, target, keep, per_token):
    log_probs = torch.log_softmax(logits.double(), dim=-1)
    picked = log_probs.gather(-1, target.long().unsqueeze(-1)).squeeze(-1)
    return -(picked * keep).sum() / (keep.sum() if per_token else keep[..., 0].numel())


def keep_of(tgt, pad_id):
    target = tgt[..., 1:]
    return torch.ones_like(target, dtype=torch.double) if pad_id is None else (target != pad_id).double()


def loss_logits_as_probabilities(logits, tgt, pad_id=None):
    keep = keep_of(tgt, pad_id)
    picked = logits.double().gather(-1, tgt[..., 1:].long().unsqueeze(-1)).squeeze(-1)
    return -(torch.log(picked + 1e-10) * keep).sum() / keep.sum()


def loss_per_sequence(logits, tgt, pad_id=None):
    return mean_over(logits, tgt[..., 1:], keep_of(tgt, pad_id), per_token=False)


def loss_no_shift(logits, tgt, pad_id=None):
    target = tgt[..., :-1]
    keep = torch.ones_like(target, dtype=torch.double) if pad_id is None else (target != pad_id).double()
    return mean_over(logits, target, keep, per_token=True)


def loss_padding_counted(logits, tgt, pad_id=None):
    return mean_over(logits, tgt[..., 1:], keep_of(tgt, None), per_token=True)


def loss_padding_in_denominator(logits, tgt, pad_id=None):
    keep = keep_of(tgt, pad_id)
    return mean_over(logits, tgt[..., 1:], keep, per_token=True) * keep.sum() / keep.numel()


def loss_pad_zero_as_none(logits, tgt, pad_id=None):
    """`if pad_id:` — a pad id of 0 is falsy, so its padding is averaged in."""
    return token_loss(logits, tgt, pad_id if pad_id else None)


def example_as_document():
    """Document 001's printed recipe: −(1/2)·Σ log(logit) — logits read as probabilities, per sequence."""
    picked = [DOCUMENT_OUTPUTS[b][t][DOCUMENT_TARGET[b][t]] for b in range(2) for t in range(3)]
    return float(-sum(np.log(picked)) / 2)


def example_probabilities_per_token():
    picked = [DOCUMENT_OUTPUTS[b][t][DOCUMENT_TARGET[b][t]] for b in range(2) for t in range(3)]
    return float(-np.mean(np.log(picked)))


def example_per_sequence():
    return copy_example_loss() * 6 / 2


LOGITS_AS_PROBABILITIES = (
    "The model's outputs are logits (any real numbers), not probabilities: take log_softmax over "
    "the vocabulary first. Document 001's worked example makes this slip — it reads −log 0.9 off "
    'a logit of 0.9 ("softmax already applied").'
)
PER_SEQUENCE = (
    "Average over target tokens, not over sequences: document 001's CopyLoss divides the summed "
    "loss by batch_size, so its size grows with the sequence length (and with how little padding "
    "a batch has)."
)

QUESTIONS = [
    Question(
        grade_id="token_loss",
        answer="token_loss",
        title="Cross-entropy per token, with teacher forcing",
        reference=token_loss,
        probes=loss_probes,
        compare=Scalar(atol=1e-5, rtol=1e-5),
        visible=visible_probes(),
        misconceptions=(
            Misconception("logits_as_probabilities", LOGITS_AS_PROBABILITIES, loss_logits_as_probabilities),
            Misconception("per_sequence", PER_SEQUENCE, loss_per_sequence),
            Misconception(
                "no_shift",
                "With teacher forcing the logits at position t predict the next token: compare "
                "them with tgt[..., 1:], not with the decoder's own input tgt[..., :-1].",
                loss_no_shift,
            ),
            Misconception(
                "padding_counted",
                "Padding is not a target: leave the positions whose target is pad_id out of the loss.",
                loss_padding_counted,
            ),
            Misconception(
                "padding_in_denominator",
                "You left padding out of the sum but still counted it in the number you divide by: "
                "average over the real target tokens only.",
                loss_padding_in_denominator,
            ),
            Misconception(
                "pad_zero_as_none",
                "pad_id = 0 treated as no padding: 0 is a token id like any other, but `if pad_id:` "
                'reads it as false. Test `pad_id is None` to tell "no padding" from a pad id.',
                loss_pad_zero_as_none,
            ),
        ),
    ),
    Question(
        grade_id="copy_example_loss",
        answer="copy_example_loss",
        title="Document 001's worked loss, recomputed",
        call=False,
        reference=copy_example_loss,
        compare=Scalar(atol=1e-4, rtol=1e-4),
        misconceptions=(
            Misconception(
                "document_recipe",
                "This is document 001's printed recipe: it reads the logits as probabilities and "
                "divides by the number of sequences. Apply softmax to the logits and average over tokens.",
                example_as_document,
            ),
            Misconception("logits_as_probabilities", LOGITS_AS_PROBABILITIES, example_probabilities_per_token),
            Misconception("per_sequence", PER_SEQUENCE, example_per_sequence),
        ),
    ),
]
