"""PS6 — build a transformer: question specs.

Students write the pieces as plain functions (their classes are free); the grader calls them
through these functional signatures with weights and inputs as tensors, in ``nn.Linear``
layout (out, in). Masks: bool, True = may attend; a query with no allowed key gets a zero
attention output. References: ``ps6_reference.py`` (built on ``solutions/``); known-wrong
answers: ``ps6_wrong.py``.

Part 10 trains: the grader calls the notebook's locked ``copy_task`` / ``addition_task`` with a
seed, a time budget and held-out inputs drawn per student; they train with the student's
``train_copy`` / ``train_addition`` inside the sandbox and return plain predictions, judged here
by exact-match accuracy (``TaskAccuracy``). Measured with the reference solution in the sandbox
(one thread, 2-core machine shared with other work): copy 20–37 s to 99.8–100 % of 500,
addition 45–59 s to 99.8–100 % of 1000; budgets 90 s and 180 s, thresholds 99 % and 95 %.
"""
from dataclasses import dataclass

import numpy as np

from autograder.judging.compare import AllClose, Check, Comparator, Exact, type_name
from autograder.spec import Assignment, Misconception, Probe, Question

import ps6_reference as ref
import ps6_wrong as wrong


def _randn(rng, *shape, scale=1.0):
    return (scale * rng.standard_normal(shape)).astype(np.float32)


def _linear(rng, d_out, d_in):
    return _randn(rng, d_out, d_in, scale=d_in ** -0.5), _randn(rng, d_out, scale=0.1)


def _mha_weights(rng, d):
    return tuple(a for _ in range(4) for a in _linear(rng, d, d))


def _padding(rng, b, t, fully_padded_row=True):
    pad = rng.random((b, t)) < 0.3
    pad[:, 0] = False
    if fully_padded_row:
        pad[-1, :] = True          # one sequence is all padding
    return pad


# ---- probes

def ln_probes(rng):
    d = int(rng.integers(5, 17))
    g, b = _randn(rng, d, scale=0.5) + 1, _randn(rng, d, scale=0.5)
    return [
        Probe((_randn(rng, 2, 3, d, scale=2) + 1, g, b, 1e-5), "(B, T, d) input, eps = 1e-5"),
        Probe((_randn(rng, 4, d, scale=0.05), g, b, 1e-2), "small activations, eps = 1e-2"),
        Probe((_randn(rng, 3, d), g, b, float(rng.choice([0.1, 0.5, 1.0]))), "large eps"),
    ]


def ffn_probes(rng):
    d, d_ff = int(rng.integers(4, 9)), int(rng.integers(8, 20))
    w1, b1 = _linear(rng, d_ff, d)
    w2, b2 = _linear(rng, d, d_ff)
    return [Probe((_randn(rng, 2, int(rng.integers(2, 6)), d), w1, b1, w2, b2), "(B, T, d) input"),
            Probe((_randn(rng, 3, d), w1, b1, w2, b2), "(T, d) input")]


def mha_probes(rng):
    h = int(rng.choice([2, 4]))
    d = h * int(rng.integers(2, 5))
    b, tq, tk = int(rng.integers(2, 4)), int(rng.integers(3, 6)), int(rng.integers(3, 7))
    w = _mha_weights(rng, d)
    x, mem = _randn(rng, b, tq, d, scale=2), _randn(rng, b, tk, d, scale=2)
    causal = np.tril(np.ones((tq, tq), dtype=bool))
    return [
        Probe((x, x, *w, h, None), "self-attention, no mask"),
        Probe((x, x, *w, h, causal), "self-attention, causal mask"),
        Probe((x, mem, *w, h, None), "cross-attention (T_q ≠ T_k)"),
        Probe((x, mem, *w, h, ~_padding(rng, b, tk)[:, None, None, :]),
              "cross-attention with key padding, one sequence fully padded"),
    ]


def causal_probes(rng):
    return [Probe((int(t),), f"t = {int(t)}") for t in (1, rng.integers(2, 5), rng.integers(5, 9))]


def padding_probes(rng):
    b, t = int(rng.integers(2, 4)), int(rng.integers(3, 7))
    return [Probe((_padding(rng, b, t, fully_padded_row=False),), "some keys padded"),
            Probe((_padding(rng, b, t),), "one sequence fully padded")]


def encoder_args(rng, b, t, h, d_head, d_ff, mask):
    d = h * d_head
    ln1 = (_randn(rng, d, scale=0.3) + 1, _randn(rng, d, scale=0.3))
    ln2 = (_randn(rng, d, scale=0.3) + 1, _randn(rng, d, scale=0.3))
    w1, b1 = _linear(rng, d_ff, d)
    w2, b2 = _linear(rng, d, d_ff)
    x = _randn(rng, b, t, d, scale=1.5) + 0.5
    return (x, mask, h, *ln1, *_mha_weights(rng, d), *ln2, w1, b1, w2, b2)


def encoder_probes(rng):
    h, d_head, d_ff = int(rng.choice([2, 4])), int(rng.integers(2, 4)), int(rng.integers(8, 17))
    b, t = int(rng.integers(2, 4)), int(rng.integers(3, 7))
    pad = ~_padding(rng, b, t)[:, None, None, :]
    return [Probe(encoder_args(rng, b, t, h, d_head, d_ff, None), "no mask"),
            Probe(encoder_args(rng, b, t, h, d_head, d_ff, pad), "key padding, one sequence fully padded")]


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
        probes.append(Probe((model, prompt, 8, eos), f"tiny model {seed}, prompt {prompt}, eos {eos}"))
    return probes


def decoder_args(rng, b, t, s, h, d_head, d_ff, memory_mask):
    d = h * d_head
    norm = lambda: (_randn(rng, d, scale=0.3) + 1, _randn(rng, d, scale=0.3))  # noqa: E731
    w1, b1 = _linear(rng, d_ff, d)
    w2, b2 = _linear(rng, d, d_ff)
    x, memory = _randn(rng, b, t, d, scale=1.5) + 0.5, _randn(rng, b, s, d, scale=1.5) - 0.5
    return (x, memory, memory_mask, h, *norm(), *_mha_weights(rng, d), *norm(), *_mha_weights(rng, d),
            *norm(), w1, b1, w2, b2)


def decoder_probes(rng):
    h, d_head, d_ff = int(rng.choice([2, 4])), int(rng.integers(2, 4)), int(rng.integers(8, 17))
    b, t = int(rng.integers(2, 4)), int(rng.integers(3, 6))
    s = t + int(rng.integers(1, 3))
    pad = ~_padding(rng, b, s)[:, None, None, :]
    return [Probe(decoder_args(rng, b, t, s, h, d_head, d_ff, None), f"T = {t}, memory S = {s}, no memory mask"),
            Probe(decoder_args(rng, b, t, s, h, d_head, d_ff, pad),
                  "memory padding mask, one source sequence fully padded")]


def _logits(rng, *shape):
    return _randn(rng, *shape, scale=2.0)


def probs_probes(rng):
    v = int(rng.integers(8, 17))
    probes = [Probe((_logits(rng, v), 1.0, None, None), "temperature 1, no filtering"),
              Probe((_logits(rng, 2, v), 0.7, 4, None), "(2, V) logits, temperature 0.7, top-k 4")]
    # Nucleus probes where the crossing token and the temperature's effect on the nucleus show.
    for temperature, top_k, top_p, label in ((1.6, None, 0.75, "temperature 1.6, top-p 0.75"),
                                             (0.6, 6, 0.6, "temperature 0.6, top-k 6, top-p 0.6")):
        for _ in range(100):
            logits = _logits(rng, v)
            args = (logits, temperature, top_k, top_p)
            if not np.allclose(ref.next_token_probs(*args), wrong.probs_nucleus_before_temperature(*args), atol=1e-3):
                break
        probes.append(Probe(args, label))
    probes.append(Probe((_logits(rng, v), 0.0, None, None), "temperature 0 (greedy)"))
    return probes


def sample_probes(rng):
    v = int(rng.integers(8, 13))
    probes = []
    for temperature, top_k, top_p in ((1.0, None, None), (0.8, 4, None), (1.3, None, 0.85)):
        logits = _randn(rng, v)
        for _ in range(100):   # a seed whose first draw is not the argmax: sampling ≠ greedy shows
            seed = int(rng.integers(0, 10_000))
            if ref.sample_tokens(logits, temperature, top_k, top_p, seed, 1)[0] != int(np.argmax(logits)):
                break
        probes.append(Probe((logits, temperature, top_k, top_p, seed, 20),
                            f"temperature {temperature}, top-k {top_k}, top-p {top_p}, seed {seed}, 20 draws"))
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


def beam_probes(rng):
    probes = []
    for i in range(3):
        prompt = [int(v) for v in rng.integers(0, 12, size=int(rng.integers(2, 4)))]
        width = int(rng.choice([2, 3]))
        for _ in range(200):   # a tiny model on which every listed mistake gives another answer
            seed = int(rng.integers(0, 10_000))
            model = ref.tiny_lm(seed)
            fn = _memoised(model.compile())
            free = ref.greedy_decode(fn, prompt, 6, None)
            eos = free[len(prompt) + 2] if i < 2 else None
            if _all_differ([ref.beam_search] + [getattr(wrong, name) for name in
                                                 (BEAM_EOS_SHOWS if eos is not None else BEAM_NO_EOS_SHOWS)],
                           (fn, prompt, width, 6, eos)):
                break
        probes.append(Probe((model, prompt, width, 6, eos),
                            f"tiny model {seed}, prompt {prompt}, beam width {width}, eos {eos}"))
    return probes


# Masks are compared as numbers, exactly (True = 1): the released checks render an expected
# array through assert_allclose (Exact would write `_got == array(...)`, which cannot run there).
MASK = AllClose(atol=0.0, rtol=0.0)
RNG = np.random.default_rng(606)  # visible examples: fixed, small


def _mis(name, feedback, fn):
    return Misconception(name, feedback, fn)


QUESTIONS = [
    Question(
        grade_id="layer_norm", answer="layer_norm", title="LayerNorm", points=2, reference=ref.layer_norm,
        probes=ln_probes, compare=AllClose(atol=1e-4, rtol=1e-4),
        visible=[Probe((np.array([[1.0, 2.0, 3.0, 6.0]], np.float32), np.ones(4, np.float32),
                        np.zeros(4, np.float32), 1e-5), "one token, γ = 1, β = 0"),
                 Probe((_randn(RNG, 2, 4, scale=0.05), np.ones(4, np.float32), np.zeros(4, np.float32), 0.01),
                       "small activations, eps = 0.01",
                       note="Here eps matters: it must sit inside the square root.")],
        misconceptions=(
            _mis("std_plus_eps", "Divide by sqrt(var + eps), as PyTorch's LayerNorm does — you divided by "
                 "std + eps (document 001's formula). The two differ when the variance is small compared "
                 "with eps.", wrong.ln_std_plus_eps),
            _mis("unbiased_variance", "LayerNorm uses the biased variance (divide by d, not d − 1): "
                 "use x.var(-1, unbiased=False) or mean((x − mean)²).", wrong.ln_unbiased_var),
            _mis("normalised_over_tokens", "Normalise each token over its own features (the last axis) "
                 "only — not over the tokens or the batch too.", wrong.ln_over_all_features_and_tokens),
            _mis("no_affine", "Apply the learned gain and bias after normalising: γ·x̂ + β.", wrong.ln_no_affine),
        ),
    ),
    Question(
        grade_id="feed_forward", answer="feed_forward", title="Position-wise feed-forward network", points=1,
        reference=ref.feed_forward, probes=ffn_probes, compare=AllClose(atol=1e-4, rtol=1e-4),
        visible=[Probe((_randn(RNG, 1, 2, 3), *_linear(RNG, 5, 3), *_linear(RNG, 3, 5)), "d = 3, d_ff = 5")],
        misconceptions=(
            _mis("no_activation", "Apply ReLU between the two linear maps: without it the block is one "
                 "linear map.", wrong.ffn_no_activation),
            _mis("gelu", "This problem set's FFN uses ReLU (the 2017 paper's), not GELU.", wrong.ffn_gelu),
            _mis("relu_on_output", "The ReLU goes after the first linear map only; the output of the "
                 "second is not rectified.", wrong.ffn_relu_on_output),
        ),
    ),
    Question(
        grade_id="multi_head_attention", answer="multi_head_attention", title="Multi-head attention", points=4,
        reference=ref.multi_head_attention, probes=mha_probes, compare=AllClose(atol=1e-4, rtol=1e-4),
        visible=[Probe((x := _randn(RNG, 1, 3, 4), x, *_mha_weights(RNG, 4), 2, None), "d = 4, 2 heads"),
                 Probe((x, x, *_mha_weights(RNG, 4), 2, np.tril(np.ones((3, 3), dtype=bool))),
                       "causal", note="The same input with a causal mask.")],
        misconceptions=(
            _mis("no_head_split", "Split d_model into n_heads heads of width d/h, attend in each head "
                 "separately (scale 1/√(d/h)), then concatenate: you attended once over the full width.",
                 wrong.mha_no_head_split),
            _mis("no_output_projection", "After concatenating the heads apply the output projection "
                 "W_O (w_o, b_o).", wrong.mha_no_output_projection),
            _mis("merge_order", "Merging heads: (B, h, T, d_head) must become (B, T, h, d_head) — transpose "
                 "back — before reshaping to (B, T, d). Reshaping directly mixes tokens and heads.",
                 wrong.mha_merge_without_transpose),
            _mis("scale_by_d_model", "Scale each head's scores by 1/√d_head (d_model / n_heads), not "
                 "1/√d_model.", wrong.mha_scale_by_d_model),
            _mis("nan_fully_masked", "A query whose keys are all masked (a fully padded sequence) must get "
                 "a zero attention output, not NaN: replace the NaN weights of such rows with 0.",
                 wrong.mha_nan_for_fully_masked_rows),
        ),
    ),
    Question(
        grade_id="causal_mask", answer="causal_mask", title="Causal mask", points=1,
        reference=ref.causal_mask, probes=causal_probes, compare=MASK,
        visible=[Probe((3,), "t = 3")],
        misconceptions=(
            _mis("inverted", "True means 'may attend': query i may see keys 0..i (lower triangle, "
                 "diagonal included). Yours is inverted — True marks the blocked positions, the "
                 "convention of nn.Transformer's bool masks.", wrong.causal_inverted),
            _mis("additive_float", "Return a bool mask (True = may attend), not an additive float mask "
                 "of 0 and −inf like nn.Transformer.generate_square_subsequent_mask.",
                 wrong.causal_additive_float),
            _mis("no_diagonal", "A token may attend to itself: keep the diagonal (tril, not tril(-1)).",
                 wrong.causal_without_diagonal),
        ),
    ),
    Question(
        grade_id="padding_mask", answer="padding_mask", title="Key padding mask", points=1,
        reference=ref.padding_mask, probes=padding_probes, compare=MASK,
        visible=[Probe((np.array([[False, False, True], [True, True, True]]),), "one sequence fully padded")],
        misconceptions=(
            _mis("not_inverted", "key_is_pad is True at padding; the mask is True where attention is "
                 "allowed — invert it.", wrong.padding_not_inverted),
            _mis("no_broadcast_dims", "Return shape (B, 1, 1, T_k) so the mask broadcasts over heads and "
                 "queries.", wrong.padding_no_broadcast_dims),
            _mis("masks_queries", "Padding hides *keys* (the last axis): shape (B, 1, 1, T_k), not "
                 "(B, 1, T, 1).", wrong.padding_masks_queries),
        ),
    ),
    Question(
        grade_id="encoder_layer", answer="encoder_layer", title="A Pre-LN encoder layer", points=3,
        reference=ref.encoder_layer, probes=encoder_probes, compare=AllClose(atol=2e-4, rtol=2e-4),
        visible=[Probe(encoder_args(RNG, 1, 3, 2, 2, 8, None), "d = 4, 2 heads, d_ff = 8")],
        misconceptions=(
            _mis("post_ln", "This layer is Pre-LN: x + Attention(LN₁(x)), then x + FFN(LN₂(x)). You "
                 "normalised after the residual sum (Post-LN, the 2017 paper's order).", wrong.encoder_post_ln),
            _mis("no_residual", "Each sub-layer's output is added to its input (the residual connection): "
                 "x = x + sublayer(LN(x)).", wrong.encoder_no_residual),
            _mis("residual_from_normalised", "The residual must carry the un-normalised x: "
                 "x + sublayer(LN(x)), not LN(x) + sublayer(LN(x)).", wrong.encoder_residual_from_normalised),
            _mis("norm_on_branch_output", "Pre-LN normalises the sub-layer's *input*: x + sublayer(LN(x)), "
                 "not x + LN(sublayer(x)).", wrong.encoder_norm_on_branch_output),
        ),
    ),
    Question(
        grade_id="decoder_layer", answer="decoder_layer", title="A Pre-LN decoder layer", points=3,
        reference=ref.decoder_layer, probes=decoder_probes, compare=AllClose(atol=2e-4, rtol=2e-4),
        visible=[Probe(decoder_args(RNG, 1, 3, 4, 2, 2, 8, None), "d = 4, 2 heads, T = 3, S = 4")],
        misconceptions=(
            _mis("no_causal_mask", "The decoder's self-attention is causal: build causal_mask(T) inside the "
                 "layer. Without it position t reads the target token it must predict (document 001's "
                 "decoder needs the look-ahead mask).", wrong.decoder_no_causal_mask),
            _mis("post_ln", "This layer is Pre-LN: x + SelfAttn(LN₁(x)), x + CrossAttn(LN₂(x), memory), "
                 "x + FFN(LN₃(x)). You normalised after each residual sum (Post-LN).", wrong.decoder_post_ln),
            _mis("cross_before_self", "Order: masked self-attention first, then cross-attention to the encoder "
                 "memory, then the FFN.", wrong.decoder_cross_before_self),
            _mis("normalises_memory", "LN₂ normalises the decoder stream (the queries) only: keys and values "
                 "come from the encoder memory as given (the encoder already applied its final norm).",
                 wrong.decoder_normalises_memory),
            _mis("ignores_memory_mask", "Pass memory_mask to the cross-attention: padded source positions must "
                 "not be attended.", wrong.decoder_ignores_memory_mask),
        ),
    ),
    Question(
        grade_id="greedy_decode", answer="greedy_decode", title="Greedy decoding", points=2,
        reference=ref.greedy_decode, probes=greedy_probes, compare=Exact(),
        visible=[Probe((ref.tiny_lm(7), [3, 1], 6, 12), "tiny model, prompt [3, 1]",
                       note="A tiny fixed model: one causal attention layer, weights from seed 7.")],
        misconceptions=(
            _mis("ignores_eos", "Stop as soon as eos_id has been generated (keep the eos token in the "
                 "output).", wrong.greedy_ignores_eos),
            _mis("drops_eos", "Keep the eos token at the end of the output when it is generated.",
                 wrong.greedy_drops_eos),
            _mis("last_token_only", "Feed the whole sequence so far (prompt + generated tokens) to the "
                 "model at every step, not only the last token.", wrong.greedy_last_token_only),
            _mis("first_position", "The next token comes from the logits of the *last* position "
                 "(logits[-1]); position t predicts token t + 1.", wrong.greedy_first_position),
            _mis("without_prompt", "Return the prompt followed by the generated tokens.",
                 wrong.greedy_without_prompt),
        ),
    ),
    Question(
        grade_id="next_token_probs", answer="next_token_probs", title="Temperature, top-k and top-p", points=2,
        reference=ref.next_token_probs, probes=probs_probes, compare=AllClose(atol=1e-5, rtol=1e-4),
        visible=[Probe((np.array([2.0, 1.0, 0.5, 0.0, -1.0], np.float32), 1.0, None, 0.8), "top-p 0.8"),
                 Probe((np.array([[2.0, 1.0, 0.5, 0.0, -1.0]], np.float32), 0.5, 2, None),
                       "(1, V) logits, temperature 0.5, top-k 2")],
        misconceptions=(
            _mis("zero_temperature_divides", "Temperature 0 means greedy: put all the probability on the argmax. "
                 "Dividing the logits by 0 gives inf − inf = NaN.", wrong.probs_zero_temperature_divides),
            _mis("temperature_multiplied", "Divide the logits by the temperature (T < 1 sharpens, T > 1 "
                 "flattens); you multiplied by it.", wrong.probs_temperature_multiplied),
            _mis("nucleus_drops_crossing_token", "The nucleus is the smallest set of most likely tokens whose "
                 "probability *reaches* p: keep the token that crosses p (drop a token only when the tokens "
                 "ranked above it already reach p).", wrong.probs_nucleus_drops_crossing_token),
            _mis("nucleus_unsorted", "Sort the probabilities (descending) before accumulating them: the nucleus "
                 "is made of the *most likely* tokens, not the first ones in vocabulary order.",
                 wrong.probs_nucleus_unsorted),
            _mis("nucleus_before_temperature", "Apply the temperature first, then top-k, then top-p on the "
                 "tempered distribution: the nucleus depends on the temperature.",
                 wrong.probs_nucleus_before_temperature),
            _mis("not_renormalised", "After removing tokens, renormalise: softmax over the kept logits (set the "
                 "removed ones to −inf), so the probabilities sum to 1.", wrong.probs_not_renormalised),
        ),
    ),
    Question(
        grade_id="sample_tokens", answer="sample_tokens", title="Sampling with a seeded generator", points=1,
        reference=ref.sample_tokens, probes=sample_probes, compare=Exact(),
        visible=[Probe((np.array([2.0, 1.0, 0.5, 0.0, -1.0], np.float32), 1.0, None, None, 0, 10), "seed 0, 10 draws")],
        misconceptions=(
            _mis("argmax", "Sampling draws from the distribution (torch.multinomial(probs, 1, generator=g)); you "
                 "returned the most likely token every time.", wrong.sample_argmax),
            _mis("reseeded_each_draw", "Create the generator once, seeded with `seed`, and draw n times from it: "
                 "re-seeding before every draw repeats the same token.", wrong.sample_reseeded_each_draw),
            _mis("unfiltered", "Sample from next_token_probs(logits, temperature, top_k, top_p), not from the "
                 "plain softmax of the logits.", wrong.sample_unfiltered),
        ),
    ),
    Question(
        grade_id="beam_search", answer="beam_search", title="Beam search", points=3,
        reference=ref.beam_search, probes=beam_probes, compare=Exact(),
        visible=[Probe((ref.tiny_lm(7), [3, 1], 2, 6, None), "tiny model, prompt [3, 1], beam width 2")],
        misconceptions=(
            _mis("greedy", "Keep the beam_width best hypotheses at every step, not only the best one: your "
                 "output is greedy decoding's.", wrong.beam_greedy),
            _mis("sums_probabilities", "Score a hypothesis by the sum of its tokens' log-probabilities (the log "
                 "of the product of probabilities), not the sum of the probabilities.",
                 wrong.beam_sums_probabilities),
            _mis("length_normalised", "Rank hypotheses by the plain sum of log-probabilities, as specified — "
                 "you divided by the length.", wrong.beam_length_normalised),
            _mis("extends_finished", "A hypothesis that generates eos_id is finished: set it aside (it still "
                 "competes for the best score) and do not extend it.", wrong.beam_extends_finished),
        ),
    ),
]



# ---- part 10: training (document 001's copy and 3-digit addition tasks)
#
# The probe sends a seed, a time budget and held-out inputs drawn for the student; the
# notebook's locked `copy_task` / `addition_task` trains with the student's `train_copy` /
# `train_addition` inside the sandbox and returns plain predictions; the verdict is reached
# here: exact-match accuracy of the greedy outputs on the held-out inputs ≥ a threshold.

def _as_int_array(value):
    if isinstance(value, np.ndarray) and value.dtype.kind in "iub":
        return value.astype(np.int64)
    return None


def _rate(hits: np.ndarray) -> float:
    return float(hits.mean()) if hits.size else 0.0


@dataclass(frozen=True)
class TaskAccuracy(Comparator):
    """Exact match of a trained model's greedy outputs on held-out inputs.

    Returned value: {"generated": (n, L) ints, "teacher_forced": (m, L) ints}; expected: the
    truth {"generated", "teacher_forced", "decoder_input", …} (``ps6_reference``). Passes when
    at least ``threshold`` of the n rows are generated exactly. A failing value is placed in a
    *symptom* class from both halves (the teacher-forced predictions say what the model learned,
    the generated ones what it does on its own); a known-wrong answer carries the truth it was
    simulated from (``_expected``), and matches a value of the same class."""

    threshold: float
    chance_below: float  # teacher-forced token accuracy under this: the model did not learn
    task: str = "copy"

    def measure(self, got, expected) -> dict | str:
        if not isinstance(got, dict) or "generated" not in got or "teacher_forced" not in got:
            return (f"expected the dict that `{self.task}_task` returns, {{'generated': …, 'teacher_forced': …}}, "
                    f"got {type_name(got)}")
        out = {}
        for key in ("generated", "teacher_forced"):
            arr, exp = _as_int_array(got[key]), np.asarray(expected[key])
            if arr is None:
                return f"{key}: expected an integer array of token ids, got {type_name(got[key])}"
            if arr.shape != exp.shape:
                return f"{key}: shape {list(arr.shape)} where {list(exp.shape)} was expected"
            out[key] = arr
        gen, truth = out["generated"], np.asarray(expected["generated"])
        rows = (gen == truth).all(1)
        m = {"exact": _rate(rows), "tokens": _rate(gen == truth),
             "tf": _rate(out["teacher_forced"] == np.asarray(expected["teacher_forced"])),
             "echo": _rate(out["teacher_forced"] == np.asarray(expected["decoder_input"])),
             "reversed": _rate((gen[:, ::-1] == truth).all(1))}
        if "both_below_500" in expected:
            inside = np.asarray(expected["both_below_500"], dtype=bool)
            m["inside"], m["outside"] = _rate(rows[inside]), _rate(rows[~inside])
        return m

    def __call__(self, got, expected) -> Check:
        m = self.measure(got, expected)
        if isinstance(m, str):
            return Check(False, m)
        if m["exact"] >= self.threshold:
            return Check(True)
        n = len(np.asarray(expected["generated"]))
        return Check(False, f"{100 * m['exact']:.1f} % of your {n} held-out examples were generated exactly "
                            f"(at least {100 * self.threshold:g} % needed); tokens right: {100 * m['tokens']:.1f} % "
                            f"when generating, {100 * m['tf']:.1f} % with teacher forcing")

    def symptom(self, got, expected) -> str | None:
        m = self.measure(got, expected)
        if isinstance(m, str) or m["exact"] >= self.threshold:
            return None
        if m["echo"] >= 0.9:
            return "unshifted_targets"
        if self.task == "addition" and m["reversed"] >= 0.5:
            return "reversed_digits"
        if "inside" in m and m["inside"] >= 0.9 and m["outside"] < 0.5:
            return "document_range"
        if m["tf"] >= 0.9:
            return "no_causal_mask"
        if m["tf"] < self.chance_below:
            return "untrained"
        return "undertrained"

    def matches(self, got, expected) -> bool:
        """`expected` is a known-wrong answer's value: same symptom class on the same truth."""
        truth = expected.get("_expected") if isinstance(expected, dict) else None
        if truth is None:
            return False
        mine = self.symptom(got, truth)
        return mine is not None and mine == self.symptom(expected, truth)


COPY_BUDGET_S, ADDITION_BUDGET_S = 90.0, 180.0  # time_budget_s handed to train_copy / train_addition
DECODE_S = 30.0  # on top of the budget: building the model, greedy decoding of the held-out inputs


def copy_probes(rng):
    seed = int(rng.integers(0, 2**31 - 1))
    src = rng.integers(1, ref.COPY_VOCAB, size=(500, ref.COPY_LEN)).astype(np.int64)
    tf_src = rng.integers(1, ref.COPY_VOCAB, size=(200, ref.COPY_LEN)).astype(np.int64)
    tf_tgt = np.concatenate([np.full((200, 1), ref.COPY_BOS), tf_src], 1).astype(np.int64)
    return [Probe((seed, COPY_BUDGET_S, src, tf_src, tf_tgt),
                  f"500 held-out sequences (seed {seed}, time budget {COPY_BUDGET_S:g} s)")]


def _addition_src(rng, n):
    a, b = rng.integers(0, 1000, size=(2, n))
    digits = lambda x: (x[:, None] // 10 ** np.arange(2, -1, -1)) % 10
    return np.concatenate([digits(a), np.full((n, 1), ref.ADD_PLUS), digits(b)], 1).astype(np.int64)


def addition_probes(rng):
    import torch

    seed = int(rng.integers(0, 2**31 - 1))
    src, tf_src = _addition_src(rng, 1000), _addition_src(rng, 300)
    tf_tgt = ref.addition_target(torch.from_numpy(tf_src)).numpy()
    return [Probe((seed, ADDITION_BUDGET_S, src, tf_src, tf_tgt),
                  f"1000 held-out sums (seed {seed}, time budget {ADDITION_BUDGET_S:g} s)")]


def _training_misconceptions(task, extra=()):
    w = lambda name: getattr(wrong, f"{task}_{name}")
    train = f"train_{task}"
    return (
        _mis("unshifted_targets", f"Your model repeats its input token: it was trained to predict tgt[:, :-1] (the "
             "decoder's own input) instead of the next token tgt[:, 1:]. Feed tgt[:, :-1] to the decoder and "
             "compute the loss against tgt[:, 1:].", w("unshifted_targets")),
        *extra,
        _mis("no_causal_mask", "Your model predicts the next token almost perfectly with teacher forcing but "
             "fails when it generates on its own: the decoder's self-attention needs the causal mask. Without "
             "it, position t sees token t + 1 of its input during training and learns to copy it — a token "
             "that does not exist yet when generating.", w("no_causal_mask")),
        _mis("untrained", f"Your model did not learn the task (its next-token predictions are at chance "
             f"level): check that `{train}` really trains within time_budget_s — the loss should fall — "
             "that the optimizer steps on the model you return (zero_grad, backward, step), and the "
             "learning rate (~1e-3).", w("untrained")),
        _mis("undertrained", f"Your model learned part of the task but generates too few examples exactly: "
             f"train longer within time_budget_s (measure the time your steps take), check the learning-rate "
             f"schedule, and stop on a validation set rather than a fixed number of steps.", w("undertrained")),
    )


QUESTIONS += [
    Question(
        grade_id="train_copy", answer="copy_task", title="Train: the copy task", points=3,
        reference=ref.copy_truth, probes=copy_probes,
        compare=TaskAccuracy(threshold=0.99, chance_below=0.25, task="copy"),
        timeout_s=COPY_BUDGET_S + DECODE_S,
        misconceptions=_training_misconceptions("copy"),
    ),
    Question(
        grade_id="train_addition", answer="addition_task", title="Train: 3-digit addition", points=4,
        reference=ref.addition_truth, probes=addition_probes,
        compare=TaskAccuracy(threshold=0.95, chance_below=0.35, task="addition"),
        timeout_s=ADDITION_BUDGET_S + DECODE_S,
        misconceptions=_training_misconceptions("addition", extra=(
            _mis("reversed_digits", "Your sums come out reversed (least significant digit first) — fine for "
                 "training, but generate them most significant digit first, as the targets are written.",
                 wrong.addition_reversed_digits),
            _mis("document_range", "Your model adds right when a and b are both below 500 and fails otherwise: "
                 "document 001 trains on a, b ≤ 499 only, the grader's operands range over 0 … 999 — train on "
                 "that range (`addition_data` draws it).", wrong.addition_document_range),
        )),
    ),
]

# The notebook runs its cells, then every question in one sandboxed process: the CPU limit must
# cover the two training budgets on top of everything else (single-threaded: CPU ≤ wall time).
ASSIGNMENT = Assignment(name="ps6_build", notebook="ps6_build.ipynb", questions=QUESTIONS, cpu_s=600)
