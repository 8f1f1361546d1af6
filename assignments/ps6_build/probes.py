"""PS6 probes: the inputs each student's functions are called with, drawn per student.

Weights come in ``nn.Linear`` layout (out, in), float32; masks are bool, True = may attend.
Beam-search probes are drawn on a tiny fixed model so that every listed mistake gives its own
answer (each shows, and is told from the others).
"""

import numpy as np

from autograder.authoring import Probe

from . import mistakes as wrong
from . import reference as ref


def randn(rng, *shape, scale=1.0):
    return (scale * rng.standard_normal(shape)).astype(np.float32)


def linear(rng, d_out, d_in):
    return randn(rng, d_out, d_in, scale=d_in**-0.5), randn(rng, d_out, scale=0.1)


def mha_weights(rng, d):
    return tuple(a for _ in range(4) for a in linear(rng, d, d))


def _padding(rng, b, t, fully_padded_row=True):
    pad = rng.random((b, t)) < 0.3
    pad[:, 0] = False
    if fully_padded_row:
        pad[-1, :] = True  # one sequence is all padding
    return pad


# ---- probes


def ln_probes(rng):
    d = int(rng.integers(5, 17))
    affine = lambda: (randn(rng, d, scale=0.5) + 1, randn(rng, d, scale=0.5))  # noqa: E731 - fresh per probe
    return [
        Probe((randn(rng, 2, 3, d, scale=2) + 1, *affine(), 1e-5), "(B, T, d) input, eps = 1e-5"),
        Probe((randn(rng, 4, d, scale=0.05), *affine(), 1e-2), "small activations, eps = 1e-2"),
        Probe((randn(rng, 3, d), *affine(), float(rng.choice([0.1, 0.5, 1.0]))), "large eps"),
    ]


def ffn_probes(rng):
    d, d_ff = int(rng.integers(4, 9)), int(rng.integers(8, 20))
    weights = lambda: (*linear(rng, d_ff, d), *linear(rng, d, d_ff))  # noqa: E731 - fresh per probe
    return [
        Probe((randn(rng, 2, int(rng.integers(2, 6)), d), *weights()), "(B, T, d) input"),
        Probe((randn(rng, 3, d), *weights()), "(T, d) input"),
    ]


def mha_probes(rng):
    h = int(rng.choice([2, 4]))
    d = 4 * int(rng.integers(1, 3))  # divisible by 2 and 4: the other head count below
    b, tq, tk = int(rng.integers(2, 4)), int(rng.integers(3, 6)), int(rng.integers(3, 7))
    w = mha_weights(rng, d)
    x, mem = randn(rng, b, tq, d, scale=2), randn(rng, b, tk, d, scale=2)
    causal = np.tril(np.ones((tq, tq), dtype=bool))
    return [
        Probe((x, x, *w, h, None), "self-attention, no mask"),
        Probe((x, x, *w, h, causal), "self-attention, causal mask"),
        Probe((x, mem, *w, h, None), "cross-attention (T_q ≠ T_k)"),
        Probe(
            (x, mem, *w, h, ~_padding(rng, b, tk)[:, None, None, :]),
            "cross-attention with key padding, one sequence fully padded",
        ),
        Probe(
            (randn(rng, 1, tq + 1, d, scale=2), randn(rng, 1, tk, d, scale=2), *mha_weights(rng, d), 6 - h, None),
            f"cross-attention, {6 - h} heads, other weights",
        ),
    ]


def causal_probes(rng):
    return [Probe((int(t),), f"t = {int(t)}") for t in (1, rng.integers(2, 5), rng.integers(5, 9))]


def padding_probes(rng):
    b, t = int(rng.integers(2, 4)), int(rng.integers(4, 8))  # T ≠ 3: not the visible example's shape
    return [
        Probe((_padding(rng, b, t, fully_padded_row=False),), "some keys padded"),
        Probe((_padding(rng, b, t),), "one sequence fully padded"),
    ]


def encoder_args(rng, b, t, h, d_head, d_ff, mask):
    d = h * d_head
    ln1 = (randn(rng, d, scale=0.3) + 1, randn(rng, d, scale=0.3))
    ln2 = (randn(rng, d, scale=0.3) + 1, randn(rng, d, scale=0.3))
    w1, b1 = linear(rng, d_ff, d)
    w2, b2 = linear(rng, d, d_ff)
    x = randn(rng, b, t, d, scale=1.5) + 0.5
    return (x, mask, h, *ln1, *mha_weights(rng, d), *ln2, w1, b1, w2, b2)


def encoder_probes(rng):
    h, d_head, d_ff = int(rng.choice([2, 4])), int(rng.integers(2, 4)), int(rng.integers(8, 17))
    b, t = int(rng.integers(2, 4)), int(rng.integers(4, 8))  # T ≠ 3: not the visible example's shape
    pad = ~_padding(rng, b, t)[:, None, None, :]
    d_head = 2 * d_head if h == 2 else d_head  # d = h · d_head divisible by 2 and 4
    return [
        Probe(encoder_args(rng, b, t, 6 - h, h * d_head // (6 - h), d_ff, None), f"no mask, {6 - h} heads"),
        Probe(encoder_args(rng, b, t, h, d_head, d_ff, None), "no mask"),
        Probe(encoder_args(rng, b, t, h, d_head, d_ff, pad), "key padding, one sequence fully padded"),
    ]


def greedy_probes(rng):
    probes = []
    for i in range(3):
        seed = int(rng.integers(0, 10_000))
        prompt = [int(v) for v in rng.integers(0, 12, size=int(rng.integers(2, 5)))]
        model = ref.tiny_lm(seed)
        free = ref.greedy_decode(model.compile(), prompt, 8, eos_id=None)
        # eos = the 3rd generated token, so decoding stops early (unless it already came up);
        # the last probe never meets its eos and runs the full budget.
        eos = free[len(prompt) + 2] if i < 2 else 12
        # the notebook allows a 1-D tensor of floats as the prompt: one probe sends one
        sent = np.array(prompt, np.float32) if i == 1 else prompt
        probes.append(Probe((model, sent, 8 - 2 * (i == 1), eos), f"tiny model {seed}, prompt {prompt}, eos {eos}"))
    return probes


def decoder_args(rng, b, t, s, h, d_head, d_ff, memory_mask):
    d = h * d_head
    norm = lambda: (randn(rng, d, scale=0.3) + 1, randn(rng, d, scale=0.3))  # noqa: E731
    w1, b1 = linear(rng, d_ff, d)
    w2, b2 = linear(rng, d, d_ff)
    x, memory = randn(rng, b, t, d, scale=1.5) + 0.5, randn(rng, b, s, d, scale=1.5) - 0.5
    return (
        x,
        memory,
        memory_mask,
        h,
        *norm(),
        *mha_weights(rng, d),
        *norm(),
        *mha_weights(rng, d),
        *norm(),
        w1,
        b1,
        w2,
        b2,
    )


def decoder_probes(rng):
    h, d_head, d_ff = int(rng.choice([2, 4])), int(rng.integers(2, 4)), int(rng.integers(8, 17))
    b, t = int(rng.integers(2, 4)), int(rng.integers(4, 7))  # T ≠ B: an axis mix-up shows
    s = t + int(rng.integers(1, 3))
    pad = ~_padding(rng, b, s)[:, None, None, :]
    d_head = 2 * d_head if h == 2 else d_head  # d = h · d_head divisible by 2 and 4
    return [
        Probe(
            decoder_args(rng, b, t, s, 6 - h, h * d_head // (6 - h), d_ff, None),
            f"T = {t}, memory S = {s}, no memory mask, {6 - h} heads",
        ),
        Probe(decoder_args(rng, b, t, s, h, d_head, d_ff, None), f"T = {t}, memory S = {s}, no memory mask"),
        Probe(
            decoder_args(rng, b, t, s, h, d_head, d_ff, pad), "memory padding mask, one source sequence fully padded"
        ),
    ]


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
    order_mistakes = (wrong.probs_nucleus_before_temperature, wrong.probs_top_p_before_top_k)
    for temperature, top_k, top_p, label in (
        (1.6, None, 0.75, "temperature 1.6, top-p 0.75"),
        (0.6, 4, 0.6, "temperature 0.6, top-k 4, top-p 0.6"),
    ):
        for _ in range(200):
            logits = _logits(rng, v)
            args = (logits, temperature, top_k, top_p)
            expected = ref.next_token_probs(*args)
            if not any(np.allclose(expected, w(*args), atol=1e-3) for w in order_mistakes[: 1 + (top_k is not None)]):
                break
        probes.append(Probe(args, label))
    probes.append(Probe((_logits(rng, v), 0.0, None, None), "temperature 0 (greedy)"))
    return probes


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
            if ref.sample_tokens(logits, temperature, top_k, top_p, seed, 1)[0] != int(np.argmax(logits)):
                break
        n = 20 if top_k is None or top_p is None else 12
        probes.append(
            Probe(
                (logits, temperature, top_k, top_p, seed, n),
                f"temperature {temperature}, top-k {top_k}, top-p {top_p}, seed {seed}, {n} draws",
            )
        )
    return probes


# The mistakes each beam-search probe must expose, each with its own answer (without eos the
# length cannot matter and nothing finishes early).
BEAM_EOS_SHOWS = ("beam_greedy", "beam_sums_probabilities", "beam_length_normalised", "beam_extends_finished")
BEAM_NO_EOS_SHOWS = ("beam_greedy", "beam_sums_probabilities")


def _memoised(model):
    """The five searches below ask the same model for the same prefixes: compute each once."""
    seen = {}

    def cached(tokens):
        key = tuple(int(t) for t in tokens)
        if key not in seen:
            seen[key] = model(list(key))
        return seen[key]

    return cached


def _all_differ(searches, args) -> bool:
    """Each search gives its own answer: every mistake shows, and is told from the others."""
    seen = set()
    for search in searches:
        answer = tuple(search(*args))
        if answer in seen:
            return False
        seen.add(answer)
    return True


def _eos_ignored(model, prompt, beam_width, max_new_tokens, eos_id):
    """A search that never treats eos as finished, cut at the first eos afterwards."""
    tokens, n = ref.beam_search(model, prompt, beam_width, max_new_tokens, None), len(prompt)
    return tokens[: n + tokens[n:].index(eos_id) + 1] if eos_id in tokens[n:] else tokens


def _at_width(width):
    """The search at another width than the one asked for (2: the visible example's, 4: the
    library default's)."""

    def search(model, prompt, beam_width, max_new_tokens, eos_id):
        return ref.beam_search(model, prompt, width, max_new_tokens, eos_id)

    return search


def beam_probes(rng):
    probes = []
    for i in range(3):
        prompt = [int(v) for v in rng.integers(0, 12, size=int(rng.integers(2, 4)))]
        width = (2, 3, int(rng.choice([2, 3])))[i]  # both widths for every student
        n_new = (6, 5, 4)[i]  # the probe without eos runs its whole budget: 4, not the visible 6
        for _ in range(200):  # a tiny model on which every listed mistake gives another answer
            seed = int(rng.integers(0, 10_000))
            model = ref.tiny_lm(seed)
            fn = _memoised(model.compile())
            free = ref.greedy_decode(fn, prompt, n_new, None)
            eos = free[len(prompt) + 2] if i < 2 else None
            if _all_differ(
                [ref.beam_search]
                + [getattr(wrong, name) for name in (BEAM_EOS_SHOWS if eos is not None else BEAM_NO_EOS_SHOWS)],
                (fn, prompt, width, n_new, eos),
            ):
                break
        probes.append(
            Probe(
                (model, prompt, width, n_new, eos), f"tiny model {seed}, prompt {prompt}, beam width {width}, eos {eos}"
            )
        )
    # two more, each where a search that ignores an argument answers otherwise: width 3 against
    # widths 2 and 4 (without eos), and an eos that finishes a hypothesis against one only cut off
    for width, wrongs in ((3, [_at_width(2), _at_width(4)]), (2, [_eos_ignored])):
        prompt = [int(v) for v in rng.integers(0, 12, size=2)]
        for _ in range(100):
            seed = int(rng.integers(0, 10_000))
            model = ref.tiny_lm(seed)
            fn = _memoised(model.compile())
            eos = ref.greedy_decode(fn, prompt, 6, None)[len(prompt) + 1] if width == 2 else None
            expected = ref.beam_search(fn, prompt, width, 6, eos)
            if all(w(fn, prompt, width, 6, eos) != expected for w in wrongs):
                break
        probes.append(
            Probe((model, prompt, width, 6, eos), f"tiny model {seed}, prompt {prompt}, beam width {width}, eos {eos}")
        )
    return probes
