"""PS6 — build a transformer: question specs.

Students write the pieces as plain functions (their classes are free); the grader calls them
through these functional signatures with weights and inputs as tensors, in ``nn.Linear``
layout (out, in). Masks: bool, True = may attend; a query with no allowed key gets a zero
attention output. References: ``reference.py`` (built on ``solutions/``); known-wrong
answers: ``mistakes.py``; per-student inputs: ``probes.py``.

Part 10 trains: the grader calls the notebook's locked ``copy_task`` / ``addition_task`` with a
seed, a budget in optimiser steps and held-out inputs drawn per student; they train with the
student's ``train_copy`` / ``train_addition`` inside the sandbox and return plain predictions,
judged here by exact-match accuracy (``TaskAccuracy`` in ``training.py``, which also states
the budgets, the CPU-clock safety caps and what the reference solution costs).
"""

import numpy as np

from autograder.authoring import AllClose, Assignment, Exact, Misconception, Probe, Question

from . import mistakes as wrong
from . import reference as ref
from . import reference_source as ref_source
from .probes import (
    beam_probes,
    causal_probes,
    decoder_args,
    decoder_probes,
    encoder_args,
    encoder_probes,
    ffn_probes,
    greedy_probes,
    linear,
    ln_probes,
    mha_probes,
    mha_weights,
    padding_probes,
    probs_probes,
    randn,
    sample_probes,
)
from .training import TRAINING_QUESTIONS

# Masks are compared as numbers, exactly (True = 1): the released checks render an expected
# array through assert_allclose (Exact would write `_got == array(...)`, which cannot run there).
MASK = AllClose(atol=0.0, rtol=0.0, same_dtype=True)  # bool, as the notebook asks
RNG = np.random.default_rng(606)  # visible examples: fixed, small


def _mis(name, feedback, fn):
    return Misconception(name, feedback, fn)


# The visible decoding examples' eos: the 3rd token greedy decoding generates on the tiny model.
VISIBLE_EOS = ref.greedy_decode(ref.tiny_lm(7).compile(), [3, 1], 6, None)[4]

# Combinations some hidden probe must contain (the coverage rules, autograder.proving.coverage).
TOP_K_WITH_TOP_P = {"top-k and top-p together": lambda a: a["top_k"] is not None and a["top_p"] is not None}
EOS_INSIDE_AND_OUTSIDE = {
    "an eos inside the vocabulary": lambda a: a["eos_id"] is not None and 0 <= a["eos_id"] < 12,
    "an eos outside the vocabulary": lambda a: a["eos_id"] is not None and a["eos_id"] >= 12,
}
EOS_INSIDE_OR_NONE = {
    "an eos inside the vocabulary": lambda a: a["eos_id"] is not None and 0 <= a["eos_id"] < 12,
    "no eos": lambda a: a["eos_id"] is None,
}

QUESTIONS = [
    Question(
        grade_id="layer_norm",
        answer="layer_norm",
        title="LayerNorm",
        points=2,
        reference=ref.layer_norm,
        reference_source=ref_source.LAYER_NORM,
        probes=ln_probes,
        compare=AllClose(atol=1e-4, rtol=1e-4),
        visible=[
            Probe(
                (np.array([[1.0, 2.0, 3.0, 6.0]], np.float32), np.ones(4, np.float32), np.zeros(4, np.float32), 1e-5),
                "one token, γ = 1, β = 0",
            ),
            Probe(
                (randn(RNG, 2, 4, scale=0.05), np.ones(4, np.float32), np.zeros(4, np.float32), 0.01),
                "small activations, eps = 0.01",
                note="Here eps matters: it must sit inside the square root.",
            ),
        ],
        misconceptions=(
            _mis(
                "std_plus_eps",
                "Divide by sqrt(var + eps), as PyTorch's LayerNorm does — you divided by "
                "std + eps (document 001's formula). The two differ when the variance is small compared "
                "with eps.",
                wrong.ln_std_plus_eps,
            ),
            _mis(
                "unbiased_variance",
                "LayerNorm uses the biased variance (divide by d, not d − 1): "
                "use x.var(-1, unbiased=False) or mean((x − mean)²).",
                wrong.ln_unbiased_var,
            ),
            _mis(
                "normalised_over_tokens",
                "Normalise each token over its own features (the last axis) "
                "only — not over the tokens or the batch too.",
                wrong.ln_over_all_features_and_tokens,
            ),
            _mis("no_affine", "Apply the learned gain and bias after normalising: γ·x̂ + β.", wrong.ln_no_affine),
        ),
    ),
    Question(
        grade_id="feed_forward",
        answer="feed_forward",
        title="Position-wise feed-forward network",
        points=1,
        reference=ref.feed_forward,
        reference_source=ref_source.FEED_FORWARD,
        probes=ffn_probes,
        compare=AllClose(atol=1e-4, rtol=1e-4),
        visible=[Probe((randn(RNG, 1, 2, 3), *linear(RNG, 5, 3), *linear(RNG, 3, 5)), "d = 3, d_ff = 5")],
        misconceptions=(
            _mis(
                "no_activation",
                "Apply ReLU between the two linear maps: without it the block is one linear map.",
                wrong.ffn_no_activation,
            ),
            _mis("gelu", "This problem set's FFN uses ReLU (the 2017 paper's), not GELU.", wrong.ffn_gelu),
            _mis(
                "relu_on_output",
                "The ReLU goes after the first linear map only; the output of the second is not rectified.",
                wrong.ffn_relu_on_output,
            ),
        ),
    ),
    Question(
        grade_id="multi_head_attention",
        answer="multi_head_attention",
        title="Multi-head attention",
        points=4,
        reference=ref.multi_head_attention,
        reference_source=ref_source.MULTI_HEAD_ATTENTION,
        probes=mha_probes,
        compare=AllClose(atol=1e-4, rtol=1e-4),
        visible=[
            Probe((x := randn(RNG, 1, 3, 4), x, *mha_weights(RNG, 4), 2, None), "d = 4, 2 heads"),
            Probe(
                (x, x, *mha_weights(RNG, 4), 2, np.tril(np.ones((3, 3), dtype=bool))),
                "causal",
                note="The same input with a causal mask.",
            ),
        ],
        misconceptions=(
            _mis(
                "no_head_split",
                "Split d_model into n_heads heads of width d/h, attend in each head "
                "separately (scale 1/√(d/h)), then concatenate: you attended once over the full width.",
                wrong.mha_no_head_split,
            ),
            _mis(
                "no_output_projection",
                "After concatenating the heads apply the output projection W_O (w_o, b_o).",
                wrong.mha_no_output_projection,
            ),
            _mis(
                "merge_order",
                "Merging heads: (B, h, T, d_head) must become (B, T, h, d_head) — transpose "
                "back — before reshaping to (B, T, d). Reshaping directly mixes tokens and heads.",
                wrong.mha_merge_without_transpose,
            ),
            _mis(
                "scale_by_d_model",
                "Scale each head's scores by 1/√d_head (d_model / n_heads), not 1/√d_model.",
                wrong.mha_scale_by_d_model,
            ),
            _mis(
                "nan_fully_masked",
                "A query whose keys are all masked (a fully padded sequence) must get "
                "a zero attention output, not NaN: replace the NaN weights of such rows with 0.",
                wrong.mha_nan_for_fully_masked_rows,
            ),
        ),
    ),
    Question(
        grade_id="causal_mask",
        answer="causal_mask",
        title="Causal mask",
        points=1,
        reference=ref.causal_mask,
        reference_source=ref_source.CAUSAL_MASK,
        probes=causal_probes,
        compare=MASK,
        visible=[Probe((3,), "t = 3")],
        misconceptions=(
            _mis(
                "inverted",
                "True means 'may attend': query i may see keys 0..i (lower triangle, "
                "diagonal included). Yours is inverted — True marks the blocked positions, the "
                "convention of nn.Transformer's bool masks.",
                wrong.causal_inverted,
            ),
            _mis(
                "additive_float",
                "Return a bool mask (True = may attend), not an additive float mask "
                "of 0 and −inf like nn.Transformer.generate_square_subsequent_mask.",
                wrong.causal_additive_float,
            ),
            _mis(
                "no_diagonal",
                "A token may attend to itself: keep the diagonal (tril, not tril(-1)).",
                wrong.causal_without_diagonal,
            ),
        ),
    ),
    Question(
        grade_id="padding_mask",
        answer="padding_mask",
        title="Key padding mask",
        points=1,
        reference=ref.padding_mask,
        probes=padding_probes,
        compare=MASK,
        visible=[Probe((np.array([[False, False, True], [True, True, True]]),), "one sequence fully padded")],
        misconceptions=(
            _mis(
                "not_inverted",
                "key_is_pad is True at padding; the mask is True where attention is allowed — invert it.",
                wrong.padding_not_inverted,
            ),
            _mis(
                "no_broadcast_dims",
                "Return shape (B, 1, 1, T_k) so the mask broadcasts over heads and queries.",
                wrong.padding_no_broadcast_dims,
            ),
            _mis(
                "masks_queries",
                "Padding hides *keys* (the last axis): shape (B, 1, 1, T_k), not (B, 1, T, 1).",
                wrong.padding_masks_queries,
            ),
        ),
    ),
    Question(
        grade_id="encoder_layer",
        answer="encoder_layer",
        title="A Pre-LN encoder layer",
        points=3,
        reference=ref.encoder_layer,
        depends_on=("layer_norm", "feed_forward", "multi_head_attention"),
        probes=encoder_probes,
        compare=AllClose(atol=2e-4, rtol=2e-4),
        visible=[Probe(encoder_args(RNG, 1, 3, 2, 2, 8, None), "d = 4, 2 heads, d_ff = 8")],
        misconceptions=(
            _mis(
                "post_ln",
                "This layer is Pre-LN: x + Attention(LN₁(x)), then x + FFN(LN₂(x)). You "
                "normalised after the residual sum (Post-LN, the 2017 paper's order).",
                wrong.encoder_post_ln,
            ),
            _mis(
                "no_residual",
                "Each sub-layer's output is added to its input (the residual connection): x = x + sublayer(LN(x)).",
                wrong.encoder_no_residual,
            ),
            _mis(
                "residual_from_normalised",
                "The residual must carry the un-normalised x: x + sublayer(LN(x)), not LN(x) + sublayer(LN(x)).",
                wrong.encoder_residual_from_normalised,
            ),
            _mis(
                "norm_on_branch_output",
                "Pre-LN normalises the sub-layer's *input*: x + sublayer(LN(x)), not x + LN(sublayer(x)).",
                wrong.encoder_norm_on_branch_output,
            ),
        ),
    ),
    Question(
        grade_id="decoder_layer",
        answer="decoder_layer",
        title="A Pre-LN decoder layer",
        points=3,
        reference=ref.decoder_layer,
        depends_on=("layer_norm", "feed_forward", "multi_head_attention", "causal_mask"),
        probes=decoder_probes,
        compare=AllClose(atol=2e-4, rtol=2e-4),
        visible=[Probe(decoder_args(RNG, 1, 3, 4, 2, 2, 8, None), "d = 4, 2 heads, T = 3, S = 4")],
        misconceptions=(
            _mis(
                "no_causal_mask",
                "The decoder's self-attention is causal: build causal_mask(T) inside the "
                "layer. Without it position t reads the target token it must predict (document 001's "
                "decoder needs the look-ahead mask).",
                wrong.decoder_no_causal_mask,
            ),
            _mis(
                "post_ln",
                "This layer is Pre-LN: x + SelfAttn(LN₁(x)), x + CrossAttn(LN₂(x), memory), "
                "x + FFN(LN₃(x)). You normalised after each residual sum (Post-LN).",
                wrong.decoder_post_ln,
            ),
            _mis(
                "cross_before_self",
                "Order: masked self-attention first, then cross-attention to the encoder memory, then the FFN.",
                wrong.decoder_cross_before_self,
            ),
            _mis(
                "normalises_memory",
                "LN₂ normalises the decoder stream (the queries) only: keys and values "
                "come from the encoder memory as given (the encoder already applied its final norm).",
                wrong.decoder_normalises_memory,
            ),
            _mis(
                "ignores_memory_mask",
                "Pass memory_mask to the cross-attention: padded source positions must not be attended.",
                wrong.decoder_ignores_memory_mask,
            ),
        ),
    ),
    Question(
        grade_id="greedy_decode",
        coverage_together=EOS_INSIDE_AND_OUTSIDE,
        answer="greedy_decode",
        title="Greedy decoding",
        points=2,
        reference=ref.greedy_decode,
        probes=greedy_probes,
        compare=Exact(integers=True),
        visible=[
            Probe(
                (ref.tiny_lm(7), [3, 1], 6, 12),
                "tiny model, prompt [3, 1]",
                note="A tiny fixed model: one causal attention layer, weights from seed 7 "
                "(eos 12 is outside its vocabulary: decoding runs the full budget).",
            ),
            Probe(
                (ref.tiny_lm(7), [3, 1], 6, VISIBLE_EOS),
                f"tiny model, prompt [3, 1], eos {VISIBLE_EOS}",
                note=f"The same model with eos_id = {VISIBLE_EOS}, a token it generates: decoding stops there.",
            ),
        ],
        misconceptions=(
            _mis(
                "ignores_eos",
                "Stop as soon as eos_id has been generated (keep the eos token in the output).",
                wrong.greedy_ignores_eos,
            ),
            _mis(
                "drops_eos", "Keep the eos token at the end of the output when it is generated.", wrong.greedy_drops_eos
            ),
            _mis(
                "last_token_only",
                "Feed the whole sequence so far (prompt + generated tokens) to the "
                "model at every step, not only the last token.",
                wrong.greedy_last_token_only,
            ),
            _mis(
                "first_position",
                "The next token comes from the logits of the *last* position "
                "(logits[-1]); position t predicts token t + 1.",
                wrong.greedy_first_position,
            ),
            _mis("without_prompt", "Return the prompt followed by the generated tokens.", wrong.greedy_without_prompt),
        ),
    ),
    Question(
        grade_id="next_token_probs",
        coverage_together=TOP_K_WITH_TOP_P,
        answer="next_token_probs",
        title="Temperature, top-k and top-p",
        points=2,
        reference=ref.next_token_probs,
        reference_source=ref_source.NEXT_TOKEN_PROBS,
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
            _mis(
                "zero_temperature_divides",
                "Temperature 0 means greedy: put all the probability on the argmax. "
                "Dividing the logits by 0 gives inf − inf = NaN.",
                wrong.probs_zero_temperature_divides,
            ),
            _mis(
                "temperature_multiplied",
                "Divide the logits by the temperature (T < 1 sharpens, T > 1 flattens); you multiplied by it.",
                wrong.probs_temperature_multiplied,
            ),
            _mis(
                "nucleus_drops_crossing_token",
                "The nucleus is the smallest set of most likely tokens whose "
                "probability *reaches* p: keep the token that crosses p (drop a token only when the tokens "
                "ranked above it already reach p).",
                wrong.probs_nucleus_drops_crossing_token,
            ),
            _mis(
                "nucleus_unsorted",
                "Sort the probabilities (descending) before accumulating them: the nucleus "
                "is made of the *most likely* tokens, not the first ones in vocabulary order.",
                wrong.probs_nucleus_unsorted,
            ),
            _mis(
                "nucleus_before_temperature",
                "Apply the temperature first, then top-k, then top-p on the "
                "tempered distribution: the nucleus depends on the temperature.",
                wrong.probs_nucleus_before_temperature,
            ),
            _mis(
                "not_renormalised",
                "After removing tokens, renormalise: softmax over the kept logits (set the "
                "removed ones to −inf), so the probabilities sum to 1.",
                wrong.probs_not_renormalised,
            ),
            _mis(
                "top_p_before_top_k",
                "Keep the top k first, then take the nucleus on the softmax of what is "
                "left: the order matters — your nucleus was taken over the whole vocabulary.",
                wrong.probs_top_p_before_top_k,
            ),
        ),
    ),
    Question(
        grade_id="sample_tokens",
        coverage_together=TOP_K_WITH_TOP_P,
        answer="sample_tokens",
        title="Sampling with a seeded generator",
        points=1,
        reference=ref.sample_tokens,
        depends_on=("next_token_probs",),
        probes=sample_probes,
        compare=Exact(integers=True),
        visible=[Probe((np.array([2.0, 1.0, 0.5, 0.0, -1.0], np.float32), 1.0, None, None, 0, 10), "seed 0, 10 draws")],
        misconceptions=(
            _mis(
                "argmax",
                "Sampling draws from the distribution (torch.multinomial(probs, 1, generator=g)); you "
                "returned the most likely token every time.",
                wrong.sample_argmax,
            ),
            _mis(
                "reseeded_each_draw",
                "Create the generator once, seeded with `seed`, and draw n times from it: "
                "re-seeding before every draw repeats the same token.",
                wrong.sample_reseeded_each_draw,
            ),
            _mis(
                "unfiltered",
                "Sample from next_token_probs(logits, temperature, top_k, top_p), not from the "
                "plain softmax of the logits.",
                wrong.sample_unfiltered,
            ),
        ),
    ),
    Question(
        grade_id="beam_search",
        coverage_together=EOS_INSIDE_OR_NONE,
        answer="beam_search",
        title="Beam search",
        points=3,
        reference=ref.beam_search,
        probes=beam_probes,
        compare=Exact(integers=True),
        visible=[
            Probe((ref.tiny_lm(7), [3, 1], 2, 6, None), "tiny model, prompt [3, 1], beam width 2"),
            Probe(
                (ref.tiny_lm(7), [3, 1], 2, 6, VISIBLE_EOS),
                f"tiny model, prompt [3, 1], beam width 2, eos {VISIBLE_EOS}",
            ),
        ],
        misconceptions=(
            _mis(
                "greedy",
                "Keep the beam_width best hypotheses at every step, not only the best one: your "
                "output is greedy decoding's.",
                wrong.beam_greedy,
            ),
            _mis(
                "sums_probabilities",
                "Score a hypothesis by the sum of its tokens' log-probabilities (the log "
                "of the product of probabilities), not the sum of the probabilities.",
                wrong.beam_sums_probabilities,
            ),
            _mis(
                "length_normalised",
                "Rank hypotheses by the plain sum of log-probabilities, as specified — you divided by the length.",
                wrong.beam_length_normalised,
            ),
            _mis(
                "extends_finished",
                "A hypothesis that generates eos_id is finished: set it aside (it still "
                "competes for the best score) and do not extend it.",
                wrong.beam_extends_finished,
            ),
        ),
    ),
]


QUESTIONS += TRAINING_QUESTIONS  # part 10, training.py

# The notebook runs its cells, then every question in one sandboxed process: the CPU limit must
# cover the two training budgets on top of everything else (single-threaded: CPU ≤ wall time).
ASSIGNMENT = Assignment(name="ps6_build", notebook="ps6_build.ipynb", questions=QUESTIONS, cpu_s=700)
