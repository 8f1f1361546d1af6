"""Parts 7 and 9, decoding on the tiny fixed model (``tiny_lm.py``): greedy decoding
(``greedy_decode``) and beam search (``beam_search``, hypotheses ranked by the plain sum of their
tokens' log-probabilities; one that generates eos is finished): the references (beam search is
``solutions.decoding.beam_search`` run on the model), the probes, the visible examples, the known
mistakes and their feedback. Beam-search probes are drawn on tiny models on which every listed
mistake gives its own answer (each shows, and is told from the others)."""

import math

import numpy as np
import torch

from autograder.authoring import Exact, Misconception, Probe, Question

from .tiny_lm import VOCAB, tiny_lm


def greedy_decode(model, prompt, max_new_tokens, eos_id):
    """Append argmax(model(tokens)[-1]) until eos_id has been appended or max_new_tokens are new."""
    tokens = [int(t) for t in prompt]
    for _ in range(int(max_new_tokens)):
        logits = model(tokens)
        tokens.append(int(torch.argmax(logits[-1])))
        if tokens[-1] == eos_id:
            break
    return tokens


class _FunctionModel:
    """A tokens → logits function seen through the reference models' decoding interface (no
    KV cache: every step feeds the whole sequence), so ``solutions.decoding`` can search it."""

    def __init__(self, fn):
        self.fn = fn

    def start_state(self, src=None, use_cache=False):
        return {"pos": 0}

    def step(self, tokens, state):
        return torch.stack([torch.as_tensor(self.fn(row.tolist()), dtype=torch.float32) for row in tokens])

    @staticmethod
    def reorder_state(state, index):
        return state


def beam_search(model, prompt, beam_width, max_new_tokens, eos_id):
    """The highest-scoring continuation (sum of the generated tokens' log-probabilities) found by
    ``solutions.decoding.beam_search``: prompt + tokens, ending at eos_id if it finished."""
    from solutions.decoding import beam_search as reference_beam_search

    seqs, _ = reference_beam_search(
        _FunctionModel(model),
        torch.tensor([[int(t) for t in prompt]]),
        int(max_new_tokens),
        beam_size=int(beam_width),
        eos_id=eos_id,
        use_cache=False,
    )
    tokens, n = seqs[0].tolist(), len(prompt)
    if eos_id in tokens[n:]:
        tokens = tokens[: n + tokens[n:].index(eos_id) + 1]
    return tokens


# ---- known-wrong greedy decoding


def greedy_ignores_eos(model, prompt, max_new_tokens, eos_id):
    return greedy_decode(model, prompt, max_new_tokens, eos_id=None)


def greedy_last_token_only(model, prompt, max_new_tokens, eos_id):
    tokens = [int(t) for t in prompt]
    for _ in range(int(max_new_tokens)):
        tokens.append(int(torch.argmax(model(tokens[-1:])[-1])))
        if tokens[-1] == eos_id:
            break
    return tokens


def greedy_first_position(model, prompt, max_new_tokens, eos_id):
    tokens = [int(t) for t in prompt]
    for _ in range(int(max_new_tokens)):
        tokens.append(int(torch.argmax(model(tokens)[0])))
        if tokens[-1] == eos_id:
            break
    return tokens


def greedy_without_prompt(model, prompt, max_new_tokens, eos_id):
    return greedy_decode(model, prompt, max_new_tokens, eos_id)[len(prompt) :]


def greedy_drops_eos(model, prompt, max_new_tokens, eos_id):
    out = greedy_decode(model, prompt, max_new_tokens, eos_id)
    return out[:-1] if out and out[-1] == eos_id and len(out) > len(prompt) else out


def greedy_appends_before_checking_budget(model, prompt, max_new_tokens, eos_id):
    """A do-while loop: one token is appended even when the budget is 0."""
    tokens = greedy_decode(model, prompt, max(1, int(max_new_tokens)), eos_id)
    return tokens


# ---- known-wrong beam search: a plain list-based search with a switch per mistake


def _beam(
    model, prompt, beam_width, max_new_tokens, eos_id, *, score="log_prob", extend_finished=False, normalise=False
):
    """A plain list-based beam search with one known mistake switched on."""
    beams, finished = [(0.0, [int(t) for t in prompt])], []
    n = len(prompt)
    for _ in range(int(max_new_tokens)):
        candidates = []
        for total, tokens in beams:
            log_p = torch.log_softmax(torch.as_tensor(model(tokens), dtype=torch.float32)[-1], -1).tolist()
            for token, lp in enumerate(log_p):
                gain = {"log_prob": lp, "prob": math.exp(lp)}[score]
                candidates.append((total + gain, tokens + [token]))
        candidates.sort(key=lambda c: -c[0])
        beams = []
        for total, tokens in candidates:
            if len(beams) == int(beam_width):
                break
            if tokens[-1] == eos_id and not extend_finished and eos_id not in tokens[n:-1]:
                finished.append((total, tokens))
            else:
                beams.append((total, tokens))
        if not beams:
            break
    rank = (lambda c: c[0] / (len(c[1]) - n)) if normalise else (lambda c: c[0])
    return max(finished + beams, key=rank)[1]


def beam_greedy(model, prompt, beam_width, max_new_tokens, eos_id):
    return greedy_decode(model, prompt, max_new_tokens, eos_id)


def beam_sums_probabilities(model, prompt, beam_width, max_new_tokens, eos_id):
    return _beam(model, prompt, beam_width, max_new_tokens, eos_id, score="prob")


def beam_length_normalised(model, prompt, beam_width, max_new_tokens, eos_id):
    return _beam(model, prompt, beam_width, max_new_tokens, eos_id, normalise=True)


def beam_extends_finished(model, prompt, beam_width, max_new_tokens, eos_id):
    return _beam(model, prompt, beam_width, max_new_tokens, eos_id, extend_finished=True)


# ---- probes, drawn per student


def greedy_probes(rng):
    probes = []
    for i in range(3):
        seed = int(rng.integers(0, 10_000))
        prompt = [int(v) for v in rng.integers(0, VOCAB, size=int(rng.integers(2, 5)))]
        model = tiny_lm(seed)
        free = greedy_decode(model.compile(), prompt, 8, eos_id=None)
        # eos = the 3rd generated token, so decoding stops early (unless it already came up);
        # the last probe never meets its eos and runs the full budget.
        eos = free[len(prompt) + 2] if i < 2 else VOCAB
        # the notebook allows a 1-D tensor of floats as the prompt: one probe sends one
        sent = np.array(prompt, np.float32) if i == 1 else prompt
        probes.append(Probe((model, sent, 8 - 2 * (i == 1), eos), f"tiny model {seed}, prompt {prompt}, eos {eos}"))
    # eos_id None (never stop early) and a budget of 0 new tokens (the prompt comes back as it is)
    seed = int(rng.integers(0, 10_000))
    prompt = [int(v) for v in rng.integers(0, VOCAB, size=3)]
    probes.append(Probe((tiny_lm(seed), prompt, 7, None), f"tiny model {seed}, prompt {prompt}, eos None"))
    first = greedy_decode(tiny_lm(seed).compile(), prompt, 1, None)[-1]
    probes.append(Probe((tiny_lm(seed), prompt, 0, first), f"tiny model {seed}, prompt {prompt}, max_new_tokens 0"))
    return probes


# The mistakes each beam-search probe must expose, each with its own answer (without eos the
# length cannot matter and nothing finishes early).
BEAM_EOS_SHOWS = (beam_greedy, beam_sums_probabilities, beam_length_normalised, beam_extends_finished)
BEAM_NO_EOS_SHOWS = (beam_greedy, beam_sums_probabilities)


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
    tokens, n = beam_search(model, prompt, beam_width, max_new_tokens, None), len(prompt)
    return tokens[: n + tokens[n:].index(eos_id) + 1] if eos_id in tokens[n:] else tokens


def _at_width(width):
    """The search at another width than the one asked for (2: the visible example's, 4: the
    library default's)."""

    def search(model, prompt, beam_width, max_new_tokens, eos_id):
        return beam_search(model, prompt, width, max_new_tokens, eos_id)

    return search


def beam_probes(rng):
    probes = []
    for i in range(3):
        prompt = [int(v) for v in rng.integers(0, VOCAB, size=int(rng.integers(2, 4)))]
        width = (2, 3, int(rng.choice([2, 3])))[i]  # both widths for every student
        n_new = (6, 5, 4)[i]  # the probe without eos runs its whole budget: 4, not the visible 6
        for _ in range(200):  # a tiny model on which every listed mistake gives another answer
            seed = int(rng.integers(0, 10_000))
            model = tiny_lm(seed)
            fn = _memoised(model.compile())
            eos = greedy_decode(fn, prompt, n_new, None)[len(prompt) + 2] if i < 2 else None
            shows = BEAM_EOS_SHOWS if eos is not None else BEAM_NO_EOS_SHOWS
            if _all_differ([beam_search, *shows], (fn, prompt, width, n_new, eos)):
                break
        probes.append(
            Probe(
                (model, prompt, width, n_new, eos), f"tiny model {seed}, prompt {prompt}, beam width {width}, eos {eos}"
            )
        )
    # two more, each where a search that ignores an argument answers otherwise: width 3 against
    # widths 2 and 4 (without eos), and an eos that finishes a hypothesis against one only cut off
    for width, wrongs in ((3, [_at_width(2), _at_width(4)]), (2, [_eos_ignored])):
        prompt = [int(v) for v in rng.integers(0, VOCAB, size=2)]
        for _ in range(100):
            seed = int(rng.integers(0, 10_000))
            model = tiny_lm(seed)
            fn = _memoised(model.compile())
            eos = greedy_decode(fn, prompt, 6, None)[len(prompt) + 1] if width == 2 else None
            expected = beam_search(fn, prompt, width, 6, eos)
            if all(w(fn, prompt, width, 6, eos) != expected for w in wrongs):
                break
        probes.append(
            Probe((model, prompt, width, 6, eos), f"tiny model {seed}, prompt {prompt}, beam width {width}, eos {eos}")
        )
    # the boundary budgets: no new token at all, and beam width 1 (greedy decoding)
    seed = int(rng.integers(0, 10_000))
    prompt = [int(v) for v in rng.integers(0, VOCAB, size=2)]
    probes.append(Probe((tiny_lm(seed), prompt, 2, 0, None), f"tiny model {seed}, prompt {prompt}, max_new_tokens 0"))
    probes.append(Probe((tiny_lm(seed), prompt, 1, 5, None), f"tiny model {seed}, prompt {prompt}, beam width 1"))
    return probes


# The visible examples' eos: the 3rd token greedy decoding generates on the tiny model.
VISIBLE_EOS = greedy_decode(tiny_lm(7).compile(), [3, 1], 6, None)[4]

# Combinations some hidden probe must contain (the coverage rules, autograder.proving.coverage).
EOS_INSIDE_AND_OUTSIDE = {
    "an eos inside the vocabulary": lambda a: a["eos_id"] is not None and 0 <= a["eos_id"] < VOCAB,
    "an eos outside the vocabulary": lambda a: a["eos_id"] is not None and a["eos_id"] >= VOCAB,
    "no eos": lambda a: a["eos_id"] is None,
    "no new token": lambda a: a["max_new_tokens"] == 0,
}
EOS_INSIDE_OR_NONE = {
    "an eos inside the vocabulary": lambda a: a["eos_id"] is not None and 0 <= a["eos_id"] < VOCAB,
    "no eos": lambda a: a["eos_id"] is None,
}

QUESTIONS = [
    Question(
        grade_id="greedy_decode",
        coverage_together=EOS_INSIDE_AND_OUTSIDE,
        answer="greedy_decode",
        title="Greedy decoding",
        reference=greedy_decode,
        probes=greedy_probes,
        compare=Exact(integers=True),
        visible=[
            Probe(
                (tiny_lm(7), [3, 1], 6, 12),
                "tiny model, prompt [3, 1]",
                note="A tiny fixed model: one causal attention layer, weights from seed 7 "
                "(eos 12 is outside its vocabulary: decoding runs the full budget).",
            ),
            Probe(
                (tiny_lm(7), [3, 1], 6, VISIBLE_EOS),
                f"tiny model, prompt [3, 1], eos {VISIBLE_EOS}",
                note=f"The same model with eos_id = {VISIBLE_EOS}, a token it generates: decoding stops there.",
            ),
        ],
        misconceptions=(
            Misconception(
                "ignores_eos",
                "Stop as soon as eos_id has been generated (keep the eos token in the output).",
                greedy_ignores_eos,
            ),
            Misconception(
                "drops_eos", "Keep the eos token at the end of the output when it is generated.", greedy_drops_eos
            ),
            Misconception(
                "last_token_only",
                "Feed the whole sequence so far (prompt + generated tokens) to the "
                "model at every step, not only the last token.",
                greedy_last_token_only,
            ),
            Misconception(
                "first_position",
                "The next token comes from the logits of the *last* position "
                "(logits[-1]); position t predicts token t + 1.",
                greedy_first_position,
            ),
            Misconception(
                "without_prompt", "Return the prompt followed by the generated tokens.", greedy_without_prompt
            ),
            Misconception(
                "appends_with_zero_budget",
                "max_new_tokens = 0 means no new token: check the budget before generating, not "
                "after (a do-while loop always appends one).",
                greedy_appends_before_checking_budget,
            ),
        ),
    ),
    Question(
        grade_id="beam_search",
        coverage_together=EOS_INSIDE_OR_NONE,
        answer="beam_search",
        title="Beam search",
        reference=beam_search,
        probes=beam_probes,
        compare=Exact(integers=True),
        visible=[
            Probe((tiny_lm(7), [3, 1], 2, 6, None), "tiny model, prompt [3, 1], beam width 2"),
            Probe(
                (tiny_lm(7), [3, 1], 2, 6, VISIBLE_EOS),
                f"tiny model, prompt [3, 1], beam width 2, eos {VISIBLE_EOS}",
            ),
        ],
        misconceptions=(
            Misconception(
                "greedy",
                "Keep the beam_width best hypotheses at every step, not only the best one: your "
                "output is greedy decoding's.",
                beam_greedy,
            ),
            Misconception(
                "sums_probabilities",
                "Score a hypothesis by the sum of its tokens' log-probabilities (the log "
                "of the product of probabilities), not the sum of the probabilities.",
                beam_sums_probabilities,
            ),
            Misconception(
                "length_normalised",
                "Rank hypotheses by the plain sum of log-probabilities, as specified — you divided by the length.",
                beam_length_normalised,
            ),
            Misconception(
                "extends_finished",
                "A hypothesis that generates eos_id is finished: set it aside (it still "
                "competes for the best score) and do not extend it.",
                beam_extends_finished,
            ),
        ),
    ),
]
