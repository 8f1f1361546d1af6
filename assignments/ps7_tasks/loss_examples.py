"""Part 2 (c), document 001's two other worked losses, recomputed (``example_losses_001``).

001 explains ``AdditionLoss`` on outputs of "batch_size=2, sequence_length=3, vocab_size=10" but
shows one sequence and prints ``-log(0.8) - log(0.7) - log(0.8) = … = 0.803`` then
``loss = 0.803 / batch_size``; it explains the parser's loss on two sequences of four tokens and
prints ``loss = (1.16 + 1.042) / 2 = 1.101``. Both read the model's outputs as probabilities
("softmax는 이미 적용되어 있다고 가정") and divide the summed loss by the number of sequences.
The answer is the loss the course's recipe gives (part (a): cross-entropy from the logits,
averaged over the target tokens) on each example as printed: ``[addition, parser]``.
Every value, right or wrong, is computed here in float64, never typed in."""

import torch

from autograder.authoring import AllClose, Misconception, Question

# 001's AdditionLoss example: one sequence shown ("batch_size=2"), 3 digits, vocabulary 10
ADDITION_OUTPUTS = [
    [
        [0.1, 0.8, 0.1, 0, 0, 0, 0, 0, 0, 0],
        [0.1, 0.1, 0.7, 0.1, 0, 0, 0, 0, 0, 0],
        [0.8, 0.1, 0.1, 0, 0, 0, 0, 0, 0, 0],
    ]
]
ADDITION_TARGET = [[1, 2, 0]]
ADDITION_STATED_BATCH = 2  # "batch_size=2", "loss = 0.803 / batch_size"
# 001's parser loss example: two sequences of 4 tokens, vocabulary 5
PARSER_OUTPUTS = [
    [[0.1, 0.7, 0.1, 0.1, 0.0], [0.8, 0.1, 0.0, 0.1, 0.0], [0.1, 0.0, 0.1, 0.7, 0.1], [0.0, 0.1, 0.8, 0.0, 0.1]],
    [[0.1, 0.8, 0.0, 0.1, 0.0], [0.7, 0.1, 0.1, 0.0, 0.1], [0.1, 0.0, 0.1, 0.1, 0.7], [0.0, 0.0, 0.9, 0.1, 0.0]],
]
PARSER_TARGET = [[1, 0, 3, 2], [1, 0, 4, 2]]
EXAMPLES = ((ADDITION_OUTPUTS, ADDITION_TARGET), (PARSER_OUTPUTS, PARSER_TARGET))


def _picked_log(outputs, target, from_logits):
    """log p(target) per token, (B, T), in float64: from the logits, or the outputs read as probabilities."""
    x = torch.tensor(outputs, dtype=torch.float64)
    log_p = torch.log_softmax(x, dim=-1) if from_logits else torch.log(x)
    return log_p.gather(-1, torch.tensor(target).unsqueeze(-1)).squeeze(-1)


def _losses(from_logits, per_token, batch_sizes=(None, None)):
    values = []
    for (outputs, target), stated in zip(EXAMPLES, batch_sizes):
        total = -_picked_log(outputs, target, from_logits).sum()
        denominator = total.new_tensor(len(target) if stated is None else stated)
        values.append(float(total / (len(target) * len(target[0]) if per_token else denominator)))
    return values


def example_losses_001():
    """[addition, parser]: cross-entropy from the logits, the mean over each example's target tokens."""
    return _losses(from_logits=True, per_token=True)


def as_printed():
    """001's printed recipe: outputs read as probabilities, summed, divided by the batch size it states."""
    return _losses(from_logits=False, per_token=False, batch_sizes=(ADDITION_STATED_BATCH, None))


def probabilities_per_token():
    return _losses(from_logits=False, per_token=True)


def logits_per_sequence():
    return _losses(from_logits=True, per_token=False)


def logits_over_stated_batch():
    """From the logits, per sequence, with the addition example divided by the stated batch_size = 2."""
    return _losses(from_logits=True, per_token=False, batch_sizes=(ADDITION_STATED_BATCH, None))


QUESTIONS = [
    Question(
        grade_id="example_losses_001",
        answer="example_losses_001",
        title="Document 001's other two worked losses, recomputed",
        call=False,
        reference=example_losses_001,
        compare=AllClose(atol=1e-4, rtol=1e-4),
        misconceptions=(
            Misconception(
                "document_recipe",
                "These are document 001's printed values: they read the outputs as probabilities and "
                "divide the summed loss by a number of sequences. Apply softmax to the logits and "
                "average over each example's target tokens.",
                as_printed,
            ),
            Misconception(
                "logits_as_probabilities",
                "The outputs are logits, not probabilities: take log_softmax over the vocabulary "
                "first (document 001 assumes the softmax was already applied).",
                probabilities_per_token,
            ),
            Misconception(
                "per_sequence",
                "Average over target tokens, not over sequences: a per-sequence sum grows with the "
                "length of the sequences.",
                logits_per_sequence,
            ),
            Misconception(
                "stated_batch_size",
                "The addition example shows one sequence: a divisor of 2 (the batch_size the "
                "document states) counts a sequence that is not there — and the loss is a mean "
                "over target tokens anyway.",
                logits_over_stated_batch,
            ),
        ),
    ),
]
