"""Part 7, how much attention reaches past the training length: the share of the last query's
attention on keys at distance ≥ L (``alibi_share_unseen``, a function) and which of 8 heads put
more than 1 % there when reading 2048 tokens after training on 512 (``heads_past_training_length``,
a value). Only the bias is evaluated (content scores 0); no model is trained. References:
``solutions.encodings.alibi_last_row_weights`` and ``solutions.positional.alibi_slopes``."""

from autograder.authoring import IntegerArray, Misconception, Probe, Question, Scalar, StatedRange
from solutions.encodings import alibi_last_row_weights
from solutions.positional import alibi_slopes

from .profile import NO_EMPTY_SEQUENCE

# the experiment the notebook quotes: 8 heads, trained on L = 512 tokens, reading 2048
N_HEADS, L_TRAIN, L_TEST, THRESHOLD = 8, 512, 2048, 0.01


def share_unseen(slope, length, train_length):
    """Share of the last query's weight on keys at distance i − j ≥ train_length."""
    by_distance = alibi_last_row_weights(float(slope), int(length)).flip(0)  # [d]: d positions back
    return float(by_distance[int(train_length) :].sum())


# ---- probes, drawn per student
def share_probes(rng):
    slope = float(2.0 ** -rng.integers(1, 9))
    length = int(rng.integers(20, 200))
    return [
        Probe((slope, length, int(rng.integers(2, length - 2))), "a window inside the sequence"),
        Probe((float(2.0**-8), 2048, 512), "slope 2^-8, 2048 keys, L = 512"),
        Probe((float(2.0**-7), 1024, int(rng.integers(100, 400))), "slope 2^-7, 1024 keys"),
        Probe((slope, length, 0), "L = 0"),
        Probe((slope, length, length), "L = length"),
        Probe((slope, length, length - 1), "L = length - 1"),
        Probe((0.5, 1, 0), "one key, L = 0"),
        # past the sequence (the text allows it: none of the weight). Just past it, a slice end
        # length − L is a small negative number and w[:length − L] holds nearly every key
        Probe((slope, length, length + int(rng.integers(1, 6))), "L just past the sequence"),
        Probe((float(2.0**-8), 512, 2048), "slope 2^-8, 512 keys, L = 2048"),
    ]


# the text's promise: "Every `train_length` ≥ 0 is allowed (0: every key; `length` or more: none)"
TRAIN_LENGTH_RANGE = StatedRange(
    text="Every `train_length` $\\ge 0$ is allowed (0: every key; `length` or more: none)",
    low=0,
    high="length",
    above=True,
)


# ---- known-wrong shares: alibi_share_unseen(slope, length, train_length)
def share_strictly_beyond(slope, length, train_length):
    return share_unseen(slope, length, int(train_length) + 1)


def share_seen(slope, length, train_length):
    return 1.0 - share_unseen(slope, length, train_length)


def share_from_first_key(slope, length, train_length):
    """Keys j ≥ train_length counted from the start, not by distance from the query."""
    weights = alibi_last_row_weights(float(slope), int(length))
    return float(weights[int(train_length) :].sum())


def share_negative_slice(slope, length, train_length):
    """Keys 0 … length − 1 − L sliced as w[:length − L], unguarded: past the sequence the slice end
    is negative and counts from the end of the array."""
    weights = alibi_last_row_weights(float(slope), int(length))
    return float(weights[: int(length) - int(train_length)].sum())


def share_uniform(slope, length, train_length):
    return max(int(length) - int(train_length), 0) / int(length)


def heads_past_training_length():
    shares = [share_unseen(m, L_TEST, L_TRAIN) for m in alibi_slopes(N_HEADS).tolist()]
    return [h for h, share in enumerate(shares, start=1) if share > THRESHOLD]


QUESTIONS = [
    Question(
        grade_id="alibi_share_unseen",
        answer="alibi_share_unseen",
        title="Attention at distances never seen in training",
        reference=share_unseen,
        probes=share_probes,
        compare=Scalar(atol=1e-9, rtol=1e-6),
        coverage_exempt=NO_EMPTY_SEQUENCE,
        stated_ranges={"train_length": TRAIN_LENGTH_RANGE},
        visible=[Probe((0.5, 4, 2), "slope 1/2, 4 keys, L = 2")],
        misconceptions=(
            Misconception(
                "strictly_beyond",
                "Off by one in the distance: a key exactly L positions back is already at a "
                "distance the model never saw (training distances are 0 … L − 1).",
                share_strictly_beyond,
            ),
            Misconception(
                "share_seen",
                "You returned the share on the keys at distances seen in training; the question asks for the rest.",
                share_seen,
            ),
            Misconception(
                "counted_from_first_key",
                "Distance is counted back from the query i = length − 1 (i − j), not from the "
                "first key: key j is i − j positions back.",
                share_from_first_key,
            ),
            Misconception(
                "bias_ignored",
                "With every content score 0 the weights come from the bias alone, which favours "
                "recent keys: the weights are not uniform.",
                share_uniform,
            ),
            Misconception(
                "negative_slice_end",
                "When `train_length` is more than `length`, no key is that far back (the text: "
                "`length` or more: none). A slice end that goes negative, `w[:length - train_length]`, "
                "counts from the end of the array instead of selecting nothing: keep the end at 0 or above.",
                share_negative_slice,
            ),
        ),
    ),
    Question(
        grade_id="heads_past_training_length",
        answer="heads_past_training_length",
        title="Which heads look past the training length?",
        call=False,
        reference=heads_past_training_length,
        compare=IntegerArray(length_is_answer=True),  # how many heads is part of the answer
        misconceptions=(
            Misconception(
                "zero_based_heads",
                "Heads are numbered h = 1 … n in this problem set (index h − 1 in code).",
                lambda: [h - 1 for h in heads_past_training_length()],
            ),
            Misconception(
                "steepest_heads",
                "Head 1 has the largest slope, so the fastest decay and the shortest window: the "
                "heads that reach far back are the ones with the smallest slopes.",
                lambda: [N_HEADS + 1 - h for h in reversed(heads_past_training_length())],
            ),
            Misconception(
                "every_head",
                "Every head puts some attention that far back (softmax weights are never 0), but "
                "the question asks for more than 1 %: most heads put far less.",
                lambda: list(range(1, N_HEADS + 1)),
            ),
        ),
    ),
]
