"""Part 4, length generalisation (document 001's "Tests der Verallgemeinerungsleistung bei
Stellenwertausweitung"; 004's claim that relative encodings extend to lengths not seen in
training): how many digits document 001's addition model can read at all (``max_operand_digits``),
what its "required" padding mask hides (``addition_padding``: nothing, the operands are
zero-padded), a clipped relative bias (``relative_bias``), and training a model at length 8 that still works
at length 32 (``shift_task``, graded by training).

The training question: the notebook's locked ``shift_task(seed, max_steps, short, long)`` trains
with the student's ``train_shift(seed, max_steps)`` (a ``ShiftModel`` of the notebook's given
code, position scheme of the student's choice) on the "previous token" task at length 8 and
returns the argmax predictions for positions 1 … on held-out inputs of length 8 and 32. The
verdict (``TaskAccuracy``): at least 90 % of the length-32 rows exactly right. The reference
recipe (relative bias, Adam lr 1e-2, batch 64, 400 steps) gets 100 % on seeds 0–3 in about
0.8 CPU-s; a learned absolute table cannot be indexed at position 8 (IndexError), and clamped or
extended it is right at length 8 only — the ``absolute_positions`` symptom class."""

import numpy as np
import torch

from autograder.authoring import AllClose, Choice, Exact, FunctionSource, Misconception, Probe, Question, TaskAccuracy

SHIFT_VOCAB, SHIFT_TRAIN_LEN, SHIFT_LONG_LEN, SHIFT_STEPS = 10, 8, 32, 600
SHIFT_CPU_S = 60  # a safety cap, about fifty times the reference's CPU-seconds


# ---- 001's addition source: n digits, '+', n digits, one learned position per token
def max_operand_digits(max_positions):
    """The most digits n per operand for which the source (2n + 1 tokens) fits the table."""
    return max(0, (int(max_positions) - 1) // 2)


def digits_probes(rng):
    drawn = sorted({int(p) for p in rng.integers(3, 200, 4)})
    return [Probe((p,), f"max_positions = {p}") for p in [*drawn, 10, 11, 1, 2, 0]]


# ---- 001: "In der Additionsaufgabe ist ein Padding-Mask erforderlich" — yet every operand is zero-padded
MASKED_OPTIONS = ("none", "the leading zeros", "the plus token", "the last digit")
LEADING_ZEROS_ARE_DIGITS = (
    "Zero-padding writes the number with n digits (7 → 0 0 7): the zeros are digits the model must "
    "read — they tell it where the hundreds are."
)


def masked_positions():
    """Document 001 zero-pads both operands to max_digits: no source position is padding."""
    return MASKED_OPTIONS[0]


# ---- the clipped relative bias, self-contained (root cause binds it under shift_task)
def relative_bias(table, t):
    """(..., t, t): table[..., min(i - j, K - 1)] for key j <= query i, -inf for j > i."""
    import torch

    i = torch.arange(int(t))[:, None]
    j = torch.arange(int(t))[None, :]
    offset = (i - j).clamp(min=0, max=table.shape[-1] - 1)
    return table[..., offset].masked_fill(j > i, float("-inf"))


RELATIVE_BIAS_SOURCE = FunctionSource.of(relative_bias)


def bias_probes(rng):
    probes = []
    for lead, k, t, dtype in (
        ((), 4, 7, np.float32),
        ((3,), 8, 8, np.float32),
        ((2,), 6, 3, np.float64),
        ((2, 2), 5, 12, np.float32),
        ((), 3, 1, np.float32),
        ((), 5, 9, np.float64),
    ):
        table = (rng.standard_normal((*lead, k)) * 2).astype(dtype)
        probes.append(Probe((table, t), f"table {list(table.shape)} ({table.dtype}), t = {t}"))
    return probes


def bias_absolute_offset(table, t):
    i, j = torch.arange(t)[:, None], torch.arange(t)[None, :]
    return table[..., (i - j).abs().clamp(max=table.shape[-1] - 1)]


def bias_zero_beyond(table, t):
    i, j = torch.arange(t)[:, None], torch.arange(t)[None, :]
    padded = torch.cat([table, torch.zeros_like(table[..., :1])], -1)
    offset = torch.where(i - j >= table.shape[-1], table.shape[-1], (i - j).clamp(min=0))
    return padded[..., offset].masked_fill(j > i, float("-inf"))


def bias_masked_beyond(table, t):
    i, j = torch.arange(t)[:, None], torch.arange(t)[None, :]
    return relative_bias(table, t).masked_fill(i - j >= table.shape[-1], float("-inf"))


def bias_default_dtype(table, t):
    """-inf filled into torch's default float32, whatever the table's dtype."""
    return relative_bias(torch.as_tensor(table), t).float()


def bias_key_index(table, t):
    i, j = torch.arange(t)[:, None], torch.arange(t)[None, :]
    return table[..., j.clamp(max=table.shape[-1] - 1).expand(t, t)].masked_fill(j > i, float("-inf"))


# ---- the training question: truths and flaws (simulated from the truth, cheap for the judge)
def shift_truth(seed, max_steps, short, long):
    return {"generated": long[:, :-1], "teacher_forced": short[:, :-1], "decoder_input": short[:, 1:]}


def shift_probes(rng):
    seed = int(rng.integers(0, 2**31 - 1))
    short = rng.integers(0, SHIFT_VOCAB, size=(300, SHIFT_TRAIN_LEN)).astype(np.int64)
    long = rng.integers(0, SHIFT_VOCAB, size=(300, SHIFT_LONG_LEN)).astype(np.int64)
    return [Probe((seed, SHIFT_STEPS, short, long), f"300 held-out rows of length 8 and 32 ({SHIFT_STEPS} steps)")]


def noisy(truth, p, seed, salt):
    g = torch.Generator().manual_seed(int(seed) * 1009 + salt)
    swap = torch.rand(truth.shape, generator=g) < p
    return torch.where(swap, torch.randint(0, SHIFT_VOCAB, truth.shape, generator=g), truth)


def flaw(generated_p, teacher_p, salt, trained=True):
    def wrong(*args):
        e = shift_truth(*args)
        return {
            "generated": noisy(e["generated"], generated_p, args[0], salt),
            "teacher_forced": noisy(e["teacher_forced"], teacher_p, args[0], salt + 1),
            "trained": trained,
            "_expected": e,
        }

    return wrong


def shift_echo(*args):
    e = shift_truth(*args)
    return {"generated": args[3][:, 1:], "teacher_forced": e["decoder_input"], "_expected": e}


QUESTIONS = [
    Question(
        grade_id="max_operand_digits",
        answer="max_operand_digits",
        title="Digits a learned table can read",
        reference=max_operand_digits,
        probes=digits_probes,
        compare=Exact(integers=True),
        visible=[Probe((16,), "a table of 16 rows")],
        misconceptions=(
            Misconception(
                "plus_forgotten",
                "The source holds the '+' token too: two operands of n digits and the sign need 2n + 1 positions.",
                lambda p: p // 2,
            ),
            Misconception(
                "one_operand",
                "Both operands are in the source, one after the other: each needs its own n positions.",
                lambda p: p - 1,
            ),
            Misconception(
                "negative_digits",
                "A number of digits is never negative: read again what the text asks for when not "
                "even one digit of each operand fits the table.",
                lambda p: (p - 1) // 2,
            ),
        ),
    ),
    Question(
        grade_id="addition_padding",
        answer="addition_padding",
        title="A padding mask for 001's addition source",
        call=False,
        reference=masked_positions,
        compare=Choice(MASKED_OPTIONS),
        misconceptions=tuple(
            Misconception(name, LEADING_ZEROS_ARE_DIGITS if name == "leading_zeros" else text, lambda v=value: v)
            for name, value, text in (
                ("leading_zeros", MASKED_OPTIONS[1], ""),
                (
                    "plus_token",
                    MASKED_OPTIONS[2],
                    "The '+' token tells the model where the first operand ends: a mask that hid it would "
                    "hide information. A key padding mask hides only positions that hold no token.",
                ),
                (
                    "last_digit",
                    MASKED_OPTIONS[3],
                    "A key padding mask hides positions that hold no token; the last position holds the "
                    "units digit of b, which the sum needs first.",
                ),
            )
        ),
    ),
    Question(
        grade_id="relative_bias",
        answer="relative_bias",
        title="A clipped relative bias",
        reference=relative_bias,
        reference_source=RELATIVE_BIAS_SOURCE,
        probes=bias_probes,
        compare=AllClose(atol=1e-6, rtol=1e-6, same_dtype=True),
        visible=[Probe((np.array([0.0, 1.0, 2.0], np.float32), 5), "table [0, 1, 2] (K = 3), t = 5")],
        misconceptions=(
            Misconception(
                "not_causal",
                "The bias is causal: keys after the query (j > i) get −inf, and the offset is i − j, not |i − j|.",
                bias_absolute_offset,
            ),
            Misconception(
                "zero_beyond",
                "Offsets of K − 1 and more share the table's last entry (they are clipped), they do not get 0.",
                bias_zero_beyond,
            ),
            Misconception(
                "masked_beyond",
                "Offsets of K − 1 and more share the table's last entry: they are not masked out. "
                "A far key stays visible; the table only stops telling distances apart.",
                bias_masked_beyond,
            ),
            Misconception(
                "key_position",
                "The bias depends on the offset i − j between query and key, not on the key's position j.",
                bias_key_index,
            ),
            Misconception(
                "default_dtype",
                "The bias is asked for in the table's dtype: a float64 table gives a float64 bias. "
                "A tensor made with torch.full / torch.zeros without dtype= is float32 and rounds the "
                "table's entries when you copy them in.",
                bias_default_dtype,
            ),
        ),
    ),
    Question(
        grade_id="shift_generalises",
        mutation_exempt="graded by training the student's model (time-limited)",
        answer="shift_task",
        title="Train at length 8, test at length 32",
        reference=shift_truth,
        probes=shift_probes,
        depends_on=("relative_bias",),
        compare=TaskAccuracy(threshold=0.9, chance_below=0.3, task="shift"),
        cpu_limit_s=SHIFT_CPU_S,
        second_run_on=("undertrained", "stalled"),
        timeout_s=3 * SHIFT_CPU_S + 60,
        misconceptions=(
            Misconception(
                "current_token",
                "Your model predicts the token at its own position: the label at position t is the "
                "token at t − 1 — compare the logits at positions 1 … with tokens[:, :-1].",
                shift_echo,
            ),
            Misconception(
                "absolute_positions",
                "Your model is right at the training length and wrong beyond it: it tells the "
                "previous token by absolute position, and positions 8 … 31 never occurred in "
                "training (a learned table has no trained row there, clamped or not). A bias that "
                "sees only the offset i − j, clipped, meets at length 32 only offsets it learned.",
                flaw(0.6, 0.01, 3),
            ),
            Misconception(
                "untrained",
                "Your model was not trained: its parameters did not change while train_shift ran. "
                "Check that it steps the optimiser on the model it returns, for max_steps steps, with "
                "a learning rate around 1e-2.",
                flaw(0.9, 0.9, 1, trained=False),
            ),
            Misconception(
                "stalled",
                "Your model's predictions at length 8 stayed at chance after train_shift ran: "
                "the run stalled. Runs on other seeds drawn for you are tried "
                "too; to make it steady, check that the loss falls within the first hundred steps and "
                "use a learning rate around 1e-2.",
                flaw(0.9, 0.9, 5),
            ),
            Misconception(
                "undertrained",
                "Your model learned part of the task but too few rows come out exactly right: use "
                "the step budget, batches of 64, a learning rate around 1e-2.",
                flaw(0.15, 0.15, 2),
            ),
        ),
    ),
]
