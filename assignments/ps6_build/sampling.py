"""Part 8, the next-token distribution (``next_token_probs``: temperature, then top-k, then
top-p, renormalised; temperature 0 is greedy) and sampling from it with a seeded generator
(``sample_tokens``): the references (the distribution's self-contained, so the sandbox can bind
it in place of a student's wrong one when re-asking ``sample_tokens`` — root cause), the probes,
the visible examples, the known mistakes and their feedback."""

import numpy as np
import torch

from autograder.authoring import AllClose, Exact, FunctionSource, Misconception, Probe, Question

from .common import randn

# Combinations some hidden probe must contain (the coverage rules, autograder.proving.coverage).
TOP_K_WITH_TOP_P = {"top-k and top-p together": lambda a: a["top_k"] is not None and a["top_p"] is not None}


def next_token_probs(logits, temperature, top_k, top_p):
    """Divide by the temperature, keep the top k (every token tied with the k-th kept), keep the
    nucleus (the smallest set of most likely tokens reaching p, the crossing token included; a
    token is dropped only when the tokens strictly more likely than it reach p, so ties stay
    together), renormalise. Temperature 0 is greedy: all the probability on the argmax.
    ``solutions.decoding``'s top-k and top-p filters written out
    (tests/assignments/test_ps6_decoding.py checks them bit for bit)."""
    import torch

    logits = torch.as_tensor(logits, dtype=torch.float32)
    if temperature == 0:
        return torch.nn.functional.one_hot(logits.argmax(-1), logits.shape[-1]).float()
    logits = logits / temperature
    if top_k is not None and top_k < logits.shape[-1]:
        kth = torch.topk(logits, top_k, dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if top_p is not None and top_p < 1.0:
        sorted_logits, order = torch.sort(logits, dim=-1, descending=True)
        probs = sorted_logits.softmax(dim=-1)
        ranks = torch.arange(probs.shape[-1]).expand_as(probs)
        starts = torch.ones_like(sorted_logits, dtype=torch.bool)
        starts[..., 1:] = sorted_logits[..., 1:] != sorted_logits[..., :-1]
        first_of_tie = torch.where(starts, ranks, 0).cummax(dim=-1).values
        drop_sorted = (probs.cumsum(dim=-1) - probs).gather(-1, first_of_tie) >= top_p
        drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)
        logits = logits.masked_fill(drop, float("-inf"))
    return logits.softmax(-1)


def sample_tokens(logits, temperature, top_k, top_p, seed, n):
    """n draws, one after another, from one generator seeded with ``seed``."""
    probs = next_token_probs(logits, temperature, top_k, top_p)
    g = torch.Generator().manual_seed(int(seed))
    return [int(torch.multinomial(probs, 1, generator=g)) for _ in range(int(n))]


# ---- known-wrong distributions: one filter with a switch per mistake


def _filtered_probs(
    logits, temperature, top_k, top_p, *, scale="divide", nucleus="sorted", nucleus_first=False, renormalise=True
):
    logits = torch.as_tensor(logits, dtype=torch.float32)
    tempered = logits / temperature if scale == "divide" else logits * temperature
    if top_k is not None and top_k < logits.shape[-1]:
        kth = torch.topk(tempered, int(top_k), dim=-1).values[..., -1:]
        tempered = tempered.masked_fill(tempered < kth, float("-inf"))
    if top_p is not None and top_p < 1:
        probs = (logits if nucleus_first else tempered).softmax(-1)
        if nucleus == "unsorted":  # cumulative sum in vocabulary order
            drop = probs.cumsum(-1) - probs >= top_p
        else:
            sorted_p, order = torch.sort(probs, dim=-1, descending=True)
            before = sorted_p.cumsum(-1) - sorted_p
            drop_sorted = (before >= top_p) if nucleus == "sorted" else (before + sorted_p > top_p)
            drop_sorted[..., 0] = False  # the most likely token always stays
            drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)
        tempered = tempered.masked_fill(drop, float("-inf"))
    if renormalise:
        return tempered.softmax(-1)
    full = (logits / temperature).softmax(-1)
    return full.masked_fill(tempered == float("-inf"), 0.0)


def _with_one_mistake(**mistake):
    """A next_token_probs that gets temperature 0 right and makes ``mistake`` otherwise."""

    def wrong(logits, temperature, top_k, top_p):
        if temperature == 0:
            return next_token_probs(logits, temperature, top_k, top_p)
        return _filtered_probs(logits, temperature, top_k, top_p, **mistake)

    return wrong


probs_temperature_multiplied = _with_one_mistake(scale="multiply")
probs_nucleus_drops_crossing_token = _with_one_mistake(nucleus="strict")
probs_nucleus_unsorted = _with_one_mistake(nucleus="unsorted")
probs_nucleus_before_temperature = _with_one_mistake(nucleus_first=True)
probs_not_renormalised = _with_one_mistake(renormalise=False)


def probs_zero_temperature_divides(logits, temperature, top_k, top_p):
    if temperature != 0:
        return next_token_probs(logits, temperature, top_k, top_p)
    with torch.no_grad():
        return (torch.as_tensor(logits, dtype=torch.float32) / 0.0).softmax(-1)  # NaN


def probs_top_p_before_top_k(logits, temperature, top_k, top_p):
    """The nucleus taken on the full softmax, top-k applied after it."""
    from solutions.decoding import top_k_filter, top_p_filter

    logits = torch.as_tensor(logits, dtype=torch.float32)
    if temperature == 0:
        return next_token_probs(logits, temperature, top_k, top_p)
    return top_k_filter(top_p_filter(logits / temperature, top_p), top_k).softmax(-1)


def probs_top_k_splits_ties(logits, temperature, top_k, top_p):
    """Exactly k tokens kept (torch.topk's indices): a token tied with the k-th is dropped."""
    logits = torch.as_tensor(logits, dtype=torch.float32)
    if temperature == 0 or top_k is None or top_k >= logits.shape[-1]:
        return next_token_probs(logits, temperature, top_k, top_p)
    tempered = logits / temperature
    keep = torch.zeros_like(tempered, dtype=torch.bool).scatter(-1, torch.topk(tempered, int(top_k), -1).indices, True)
    return next_token_probs(tempered.masked_fill(~keep, float("-inf")), 1.0, None, top_p)


def probs_nucleus_splits_ties(logits, temperature, top_k, top_p):
    """The nucleus cut in sorted order: of two equally likely tokens at the boundary one is kept."""
    from solutions.decoding import top_k_filter

    logits = torch.as_tensor(logits, dtype=torch.float32)
    if temperature == 0 or top_p is None or top_p >= 1:
        return next_token_probs(logits, temperature, top_k, top_p)
    tempered = top_k_filter(logits / temperature, top_k)
    sorted_logits, order = torch.sort(tempered, dim=-1, descending=True, stable=True)
    probs = sorted_logits.softmax(-1)
    drop = torch.zeros_like(probs, dtype=torch.bool).scatter(-1, order, probs.cumsum(-1) - probs >= top_p)
    return tempered.masked_fill(drop, float("-inf")).softmax(-1)


def sample_argmax(logits, temperature, top_k, top_p, seed, n):
    return [int(torch.as_tensor(logits).argmax())] * int(n)


def sample_reseeded_each_draw(logits, temperature, top_k, top_p, seed, n):
    return [sample_tokens(logits, temperature, top_k, top_p, seed, 1)[0] for _ in range(int(n))]


def sample_unfiltered(logits, temperature, top_k, top_p, seed, n):
    return sample_tokens(logits, 1.0, None, None, seed, n)


# ---- probes, drawn per student


def _logits(rng, *shape):
    return randn(rng, *shape, scale=2.0)


def probs_probes(rng):
    v = int(rng.integers(8, 17))
    probes = [
        Probe((_logits(rng, v), 1.0, None, None), "temperature 1, no filtering"),
        Probe((_logits(rng, 2, v), 0.7, 4, None), "(2, V) logits, temperature 0.7, top-k 4"),
    ]
    # Nucleus probes where the crossing token, the temperature's effect on the nucleus and (with
    # top-k) the order of top-k and top-p show: each set of logits is drawn until every such
    # known mistake gives another distribution than the reference.
    order_mistakes = (probs_nucleus_before_temperature, probs_top_p_before_top_k)
    for temperature, top_k, top_p, label in (
        (1.6, None, 0.75, "temperature 1.6, top-p 0.75"),
        (0.6, 4, 0.6, "temperature 0.6, top-k 4, top-p 0.6"),
    ):
        for _ in range(200):
            logits = _logits(rng, v)
            args = (logits, temperature, top_k, top_p)
            expected = next_token_probs(*args)
            if not any(np.allclose(expected, w(*args), atol=1e-3) for w in order_mistakes[: 1 + (top_k is not None)]):
                break
        probes.append(Probe(args, label))
    probes.append(Probe((_logits(rng, v), 0.0, None, None), "temperature 0 (greedy)"))
    probes += tie_probes(rng, v)
    probes.append(Probe((_logits(rng, v), 1.0, v, 1.0), "top-k = V and top-p = 1 (nothing filtered)"))
    probes.append(Probe((_logits(rng, 2, v), 1.3, 1, None), "(2, V) logits, top-k 1 (greedy by another road)"))
    return probes


def tie_probes(rng, v):
    """Ties where the notebook states the rule: a logit equal to the k-th largest (top-k keeps
    it), and two equally likely tokens where the nucleus reaches p (kept together)."""
    k = int(rng.integers(2, 5))
    logits = -np.sort(-_logits(rng, v))
    logits[k] = logits[k - 1]  # the (k+1)-th largest equals the k-th
    perm = rng.permutation(v)
    top_k_tie = Probe((logits[perm], 0.9, k, None), f"temperature 0.9, top-k {k}, a tie at the k-th logit")
    logits = -np.sort(-_logits(rng, v))
    logits[2] = logits[1]  # the 2nd and 3rd most likely tokens tie
    probs = np.exp(logits / 1.2 - np.max(logits / 1.2))
    probs /= probs.sum()
    top_p = float(probs[0] + probs[1] / 2)  # the nucleus reaches p inside the tie
    top_p_tie = Probe(
        (logits[rng.permutation(v)], 1.2, None, top_p), "temperature 1.2, top-p inside a tie of two tokens"
    )
    return [top_k_tie, top_p_tie]


def sample_probes(rng):
    v = int(rng.integers(8, 13))
    probes = []
    # (3.0, 2, None): a flat top 2, so the second token is drawn often and a top-k that keeps
    # one token too few (or too many) shows
    for temperature, top_k, top_p in (
        (1.0, None, None),
        (0.8, 4, None),
        (1.3, None, 0.85),
        (1.1, 5, 0.7),
        (3.0, 2, None),
    ):
        logits = randn(rng, v)
        for _ in range(100):  # a seed whose first draw is not the argmax: sampling ≠ greedy shows
            seed = int(rng.integers(0, 10_000))
            if sample_tokens(logits, temperature, top_k, top_p, seed, 1)[0] != int(np.argmax(logits)):
                break
        n = 20 if top_k is None or top_p is None else 12
        probes.append(
            Probe(
                (logits, temperature, top_k, top_p, seed, n),
                f"temperature {temperature}, top-k {top_k}, top-p {top_p}, seed {seed}, {n} draws",
            )
        )
    probes.append(Probe((randn(rng, v), 1.0, None, None, int(rng.integers(0, 10_000)), 0), "n = 0 draws"))
    return probes


QUESTIONS = [
    Question(
        grade_id="next_token_probs",
        coverage_together=TOP_K_WITH_TOP_P,
        answer="next_token_probs",
        title="Temperature, top-k and top-p",
        reference=next_token_probs,
        reference_source=FunctionSource.of(next_token_probs),
        probes=probs_probes,
        compare=AllClose(atol=1e-5, rtol=1e-4),
        visible=[
            Probe((np.array([2.0, 1.0, 0.5, 0.0, -1.0], np.float32), 1.0, None, 0.8), "top-p 0.8"),
            Probe(
                (np.array([[2.0, 1.0, 0.5, 0.0, -1.0]], np.float32), 0.5, 2, None),
                "(1, V) logits, temperature 0.5, top-k 2",
            ),
        ],
        misconceptions=(
            Misconception(
                "zero_temperature_divides",
                "Temperature 0 means greedy: put all the probability on the argmax. "
                "Dividing the logits by 0 gives inf − inf = NaN.",
                probs_zero_temperature_divides,
            ),
            Misconception(
                "temperature_multiplied",
                "Divide the logits by the temperature (τ < 1 sharpens, τ > 1 flattens); you multiplied by it.",
                probs_temperature_multiplied,
            ),
            Misconception(
                "nucleus_drops_crossing_token",
                "The nucleus is the smallest set of most likely tokens whose "
                "probability *reaches* p: keep the token that crosses p (drop a token only when the tokens "
                "ranked above it already reach p).",
                probs_nucleus_drops_crossing_token,
            ),
            Misconception(
                "nucleus_unsorted",
                "Sort the probabilities (descending) before accumulating them: the nucleus "
                "is made of the *most likely* tokens, not the first ones in vocabulary order.",
                probs_nucleus_unsorted,
            ),
            Misconception(
                "nucleus_before_temperature",
                "Apply the temperature first, then top-k, then top-p on the "
                "tempered distribution: the nucleus depends on the temperature.",
                probs_nucleus_before_temperature,
            ),
            Misconception(
                "not_renormalised",
                "After removing tokens, renormalise: softmax over the kept logits (set the "
                "removed ones to −inf), so the probabilities sum to 1.",
                probs_not_renormalised,
            ),
            Misconception(
                "top_k_splits_ties",
                "Ties at the top-k cut: keep every token whose logit equals the k-th largest "
                "(drop only the logits strictly below it) — you kept exactly k tokens and dropped one of a tie.",
                probs_top_k_splits_ties,
            ),
            Misconception(
                "nucleus_splits_ties",
                "Ties at the top-p boundary: equally likely tokens are kept or dropped together — "
                "a token is dropped only when the tokens strictly more likely than it already reach p. "
                "You cut between two tokens of equal probability (in sorted order).",
                probs_nucleus_splits_ties,
            ),
            Misconception(
                "top_p_before_top_k",
                "Keep the top k first, then take the nucleus on the softmax of what is "
                "left: the order matters — your nucleus was taken over the whole vocabulary.",
                probs_top_p_before_top_k,
            ),
        ),
    ),
    Question(
        grade_id="sample_tokens",
        coverage_together=TOP_K_WITH_TOP_P,
        answer="sample_tokens",
        title="Sampling with a seeded generator",
        reference=sample_tokens,
        depends_on=("next_token_probs",),
        probes=sample_probes,
        compare=Exact(integers=True),
        visible=[Probe((np.array([2.0, 1.0, 0.5, 0.0, -1.0], np.float32), 1.0, None, None, 0, 10), "seed 0, 10 draws")],
        misconceptions=(
            Misconception(
                "argmax",
                "Sampling draws from the distribution (torch.multinomial(probs, 1, generator=g)); you "
                "returned the most likely token every time.",
                sample_argmax,
            ),
            Misconception(
                "reseeded_each_draw",
                "Create the generator once, seeded with `seed`, and draw n times from it: "
                "re-seeding before every draw repeats the same token.",
                sample_reseeded_each_draw,
            ),
            Misconception(
                "unfiltered",
                "Sample from next_token_probs(logits, temperature, top_k, top_p), not from the "
                "plain softmax of the logits.",
                sample_unfiltered,
            ),
        ),
    ),
]
