"""PS6 part 10 — training the copy and 3-digit addition tasks of document 001.

The probe sends a seed, a budget in optimiser steps and held-out inputs drawn for the student;
the notebook's locked ``copy_task`` / ``addition_task`` trains with the student's ``train_copy`` /
``train_addition`` inside the sandbox and returns plain predictions; the verdict is reached here:
exact-match accuracy of the greedy outputs on the held-out inputs ≥ a threshold (``TaskAccuracy``).
A failing model is placed in a symptom class, and its feedback names the likely mistake.

The verdict is a function of the student's code and the probe only: the seed and the step
budget fix the training run (the sandbox is single-threaded; the notebook asks for nothing that
reads the clock), so a quiet and a saturated machine give the same predictions. Time is only a
safety cap: ``cpu_limit_s`` (CPU-seconds, load-independent, several times an honest run) and a
wall-clock net far above it; hitting either is status ``timeout``, never a misconception.

Budgets (the reference solution — one encoder and one decoder layer, d 64 — on one thread of the
2-core machine, seeds 0–6): copy stops early once solved, after 350–400 of its 600 steps, 9–12
CPU-s; addition after 1350–1900 of its 3000 steps, 18–26 CPU-s. On held-out inputs the reference
generates 99–100 % of copies and 99.5–100 % of sums exactly; the thresholds (97 % and 95 %) leave
honest training that stops on a slightly different criterion a margin. Document 001's models (2–3
layers, d 128–256) learn the same tasks more slowly per CPU-second; a single layer keeps what
the question teaches (attention copies by position; carries are learned) at a third of the cost.
"""

import numpy as np

from autograder.authoring import Misconception, Probe, Question, TaskAccuracy

from . import mistakes as wrong
from . import reference as ref

COPY_STEPS, ADDITION_STEPS = 600, 3000  # max_steps handed to train_copy / train_addition
COPY_CPU_S, ADDITION_CPU_S = 200, 300  # safety caps: about ten times the reference's CPU-seconds


def _wall_net(cpu_s: float) -> float:
    """The wall-clock limit behind a CPU limit: only a run that stops using CPU (sleeps, blocks)
    reaches it; a saturated machine slowing an honest run threefold stays far below it."""
    return 3 * cpu_s + 60


def copy_probes(rng):
    seed = int(rng.integers(0, 2**31 - 1))
    src = rng.integers(1, ref.COPY_VOCAB, size=(500, ref.COPY_LEN)).astype(np.int64)
    tf_src = rng.integers(1, ref.COPY_VOCAB, size=(200, ref.COPY_LEN)).astype(np.int64)
    tf_tgt = np.concatenate([np.full((200, 1), ref.COPY_BOS), tf_src], 1).astype(np.int64)
    return [Probe((seed, COPY_STEPS, src, tf_src, tf_tgt), f"500 held-out sequences ({COPY_STEPS} training steps)")]


def _addition_src(rng, n):
    a, b = rng.integers(0, 1000, size=(2, n))
    digits = lambda x: (x[:, None] // 10 ** np.arange(2, -1, -1)) % 10
    return np.concatenate([digits(a), np.full((n, 1), ref.ADD_PLUS), digits(b)], 1).astype(np.int64)


def addition_probes(rng):
    import torch

    seed = int(rng.integers(0, 2**31 - 1))
    src, tf_src = _addition_src(rng, 1000), _addition_src(rng, 300)
    tf_tgt = ref.addition_target(torch.from_numpy(tf_src)).numpy()
    return [Probe((seed, ADDITION_STEPS, src, tf_src, tf_tgt), f"1000 held-out sums ({ADDITION_STEPS} training steps)")]


def _training_misconceptions(task, extra=()):
    w = lambda name: getattr(wrong, f"{task}_{name}")
    train = f"train_{task}"
    return (
        Misconception(
            "unshifted_targets",
            "Your model repeats its input token: it was trained to predict tgt[:, :-1] "
            "(the decoder's own input) instead of the next token tgt[:, 1:]. Feed tgt[:, :-1] to the "
            "decoder and compute the loss against tgt[:, 1:].",
            w("unshifted_targets"),
        ),
        *extra,
        Misconception(
            "no_causal_mask",
            "Your model predicts the next token almost perfectly with teacher forcing "
            "but fails when it generates on its own: the decoder's self-attention needs the causal "
            "mask. Without it, position t sees token t + 1 of its input during training and learns to "
            "copy it — a token that does not exist yet when generating.",
            w("no_causal_mask"),
        ),
        Misconception(
            "untrained",
            "Your model did not learn the task (its next-token predictions are at chance "
            f"level): check that `{train}` really trains for its max_steps — the loss should fall — "
            "that the optimizer steps on the model you return (zero_grad, backward, step), and the "
            "learning rate (~1e-3).",
            w("untrained"),
        ),
        Misconception(
            "undertrained",
            "Your model learned part of the task but generates too few examples exactly "
            "within its max_steps: use the whole step budget (stop early only once a validation set "
            "is solved), batches of 64, a learning rate around 1e-3 to 3e-3 with warm-up and decay "
            "over max_steps, and gradient clipping.",
            w("undertrained"),
        ),
    )


TRAINING_QUESTIONS = [
    Question(
        grade_id="train_copy",
        mutation_exempt="graded by training the student's model (time-limited)",
        answer="copy_task",
        title="Train: the copy task",
        points=3,
        reference=ref.copy_truth,
        probes=copy_probes,
        compare=TaskAccuracy(threshold=0.97, chance_below=0.25, task="copy"),
        cpu_limit_s=COPY_CPU_S,
        timeout_s=_wall_net(COPY_CPU_S),
        misconceptions=_training_misconceptions("copy"),
    ),
    Question(
        grade_id="train_addition",
        mutation_exempt="graded by training the student's model (time-limited)",
        answer="addition_task",
        title="Train: 3-digit addition",
        points=4,
        reference=ref.addition_truth,
        probes=addition_probes,
        compare=TaskAccuracy(threshold=0.95, chance_below=0.35, task="addition"),
        cpu_limit_s=ADDITION_CPU_S,
        timeout_s=_wall_net(ADDITION_CPU_S),
        misconceptions=_training_misconceptions(
            "addition",
            extra=(
                Misconception(
                    "reversed_digits",
                    "Your sums come out reversed (least significant digit first) — "
                    "fine for training, but generate them most significant digit first, as the targets "
                    "are written.",
                    wrong.addition_reversed_digits,
                ),
                Misconception(
                    "document_range",
                    "Your model adds right when a and b are both below 500 and fails "
                    "otherwise: document 001 trains on a, b ≤ 499 only, the grader's operands range over "
                    "0 … 999 — train on that range (`addition_data` draws it).",
                    wrong.addition_document_range,
                ),
            ),
        ),
    ),
]
