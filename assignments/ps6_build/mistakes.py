"""PS6 — known-wrong answers. Each reproduces one misconception exactly, so a student's output
that matches it earns that misconception's feedback (and the self-test proves it is rejected)."""

import math

import torch
import torch.nn.functional as F

from . import reference as ref

# ---- layer_norm


def ln_std_plus_eps(x, gamma, beta, eps):
    """Document 001's LayerNorm: (x − mean) / (std + eps), std the biased one."""
    mean = x.mean(-1, keepdim=True)
    std = (x - mean).pow(2).mean(-1, keepdim=True).sqrt()
    return gamma * (x - mean) / (std + eps) + beta


def ln_unbiased_var(x, gamma, beta, eps):
    mean = x.mean(-1, keepdim=True)
    return gamma * (x - mean) / torch.sqrt(x.var(-1, keepdim=True, unbiased=True) + eps) + beta


def ln_over_all_features_and_tokens(x, gamma, beta, eps):
    dims = tuple(range(1, x.dim())) if x.dim() > 1 else (-1,)
    mean, var = x.mean(dims, keepdim=True), x.var(dims, keepdim=True, unbiased=False)
    return gamma * (x - mean) / torch.sqrt(var + eps) + beta


def ln_no_affine(x, gamma, beta, eps):
    return F.layer_norm(x, (x.shape[-1],), None, None, eps)


# ---- feed_forward


def ffn_no_activation(x, w1, b1, w2, b2):
    return F.linear(F.linear(x, w1, b1), w2, b2)


def ffn_gelu(x, w1, b1, w2, b2):
    return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)


def ffn_relu_on_output(x, w1, b1, w2, b2):
    return F.relu(ref.feed_forward(x, w1, b1, w2, b2))


# ---- multi_head_attention


def _heads(x, h):
    b, t, d = x.shape
    return x.view(b, t, h, d // h).transpose(1, 2)


def _mha(
    x_q,
    x_kv,
    w_q,
    b_q,
    w_k,
    b_k,
    w_v,
    b_v,
    w_o,
    b_o,
    n_heads,
    mask,
    *,
    split=True,
    merge="right",
    project=True,
    scale_by="head",
):
    h = n_heads if split else 1
    q, k, v = (_heads(F.linear(x, w, b), h) for x, w, b in ((x_q, w_q, b_q), (x_kv, w_k, b_k), (x_kv, w_v, b_v)))
    d_scale = q.shape[-1] if scale_by == "head" else x_q.shape[-1]
    scores = q @ k.transpose(-2, -1) / d_scale**0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    out = torch.nan_to_num(torch.softmax(scores, -1), nan=0.0) @ v  # (B, h, T, d_head)
    b, _, t, _ = out.shape
    out = out.transpose(1, 2).reshape(b, t, -1) if merge == "right" else out.reshape(b, t, -1)
    return F.linear(out, w_o, b_o) if project else out


def mha_no_head_split(*args):
    return _mha(*args, split=False)


def mha_no_output_projection(*args):
    return _mha(*args, project=False)


def mha_merge_without_transpose(*args):
    return _mha(*args, merge="wrong")


def mha_scale_by_d_model(*args):
    return _mha(*args, scale_by="model")


def mha_nan_for_fully_masked_rows(x_q, x_kv, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads, mask):
    q, k, v = (_heads(F.linear(x, w, b), n_heads) for x, w, b in ((x_q, w_q, b_q), (x_kv, w_k, b_k), (x_kv, w_v, b_v)))
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    out = torch.softmax(scores, -1) @ v
    return F.linear(out.transpose(1, 2).reshape(x_q.shape[0], x_q.shape[1], -1), w_o, b_o)


# ---- masks


def causal_inverted(t):
    return ~ref.causal_mask(t)


def causal_additive_float(t):
    """nn.Transformer.generate_square_subsequent_mask's form: 0 where allowed, −inf where blocked."""
    return torch.zeros(int(t), int(t)).masked_fill(causal_inverted(t), float("-inf"))


def causal_without_diagonal(t):
    return torch.ones(int(t), int(t), dtype=torch.bool).tril(-1)


def padding_not_inverted(key_is_pad):
    return key_is_pad[:, None, None, :]


def padding_no_broadcast_dims(key_is_pad):
    return ~key_is_pad


def padding_masks_queries(key_is_pad):
    return (~key_is_pad)[:, None, :, None]


# ---- encoder_layer


def _unpack(args):
    x, mask, n_heads, ln1_g, ln1_b, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, ln2_g, ln2_b, w1, b1, w2, b2 = args
    ln1 = lambda y: ref.layer_norm(y, ln1_g, ln1_b, ref.LN_EPS)  # noqa: E731
    ln2 = lambda y: ref.layer_norm(y, ln2_g, ln2_b, ref.LN_EPS)  # noqa: E731
    sa = lambda y: ref.multi_head_attention(y, y, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads, mask)  # noqa: E731
    ff = lambda y: ref.feed_forward(y, w1, b1, w2, b2)  # noqa: E731
    return x, ln1, ln2, sa, ff


def encoder_post_ln(*args):
    x, ln1, ln2, sa, ff = _unpack(args)
    x = ln1(x + sa(x))
    return ln2(x + ff(x))


def encoder_no_residual(*args):
    x, ln1, ln2, sa, ff = _unpack(args)
    x = sa(ln1(x))
    return ff(ln2(x))


def encoder_residual_from_normalised(*args):
    """x = LN(x); x = x + sublayer(x): the residual carries the normalised stream."""
    x, ln1, ln2, sa, ff = _unpack(args)
    x = ln1(x)
    x = x + sa(x)
    x = ln2(x)
    return x + ff(x)


def encoder_norm_on_branch_output(*args):
    x, ln1, ln2, sa, ff = _unpack(args)
    x = x + ln1(sa(x))
    return x + ln2(ff(x))


# ---- decoder_layer


def _decoder(args, *, causal=True, order=("self", "cross"), post_ln=False, normalise_memory=False, memory_mask=True):
    x, memory, mem_mask, n_heads = args[:4]
    ln1, sa, ln2, ca, ln3, ffn = args[4:6], args[6:14], args[14:16], args[16:24], args[24:26], args[26:30]
    norm = lambda y, g_b: ref.layer_norm(y, *g_b, ref.LN_EPS)  # noqa: E731
    self_mask = ref.causal_mask(x.shape[-2]) if causal else None
    blocks = {
        "self": (ln1, lambda y: ref.multi_head_attention(y, y, *sa, n_heads, self_mask)),
        "cross": (
            ln2,
            lambda y: ref.multi_head_attention(
                y, norm(memory, ln2) if normalise_memory else memory, *ca, n_heads, mem_mask if memory_mask else None
            ),
        ),
    }
    for name in (*order, "ffn"):
        g_b, sublayer = blocks[name] if name != "ffn" else (ln3, lambda y: ref.feed_forward(y, *ffn))
        x = norm(x + sublayer(x), g_b) if post_ln else x + sublayer(norm(x, g_b))
    return x


def decoder_no_causal_mask(*args):
    return _decoder(args, causal=False)


def decoder_post_ln(*args):
    return _decoder(args, post_ln=True)


def decoder_cross_before_self(*args):
    return _decoder(args, order=("cross", "self"))


def decoder_normalises_memory(*args):
    return _decoder(args, normalise_memory=True)


def decoder_ignores_memory_mask(*args):
    return _decoder(args, memory_mask=False)


# ---- next_token_probs / sample_tokens


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
            return ref.next_token_probs(logits, temperature, top_k, top_p)
        return _filtered_probs(logits, temperature, top_k, top_p, **mistake)

    return wrong


probs_temperature_multiplied = _with_one_mistake(scale="multiply")
probs_nucleus_drops_crossing_token = _with_one_mistake(nucleus="strict")
probs_nucleus_unsorted = _with_one_mistake(nucleus="unsorted")
probs_nucleus_before_temperature = _with_one_mistake(nucleus_first=True)
probs_not_renormalised = _with_one_mistake(renormalise=False)


def probs_zero_temperature_divides(logits, temperature, top_k, top_p):
    if temperature != 0:
        return ref.next_token_probs(logits, temperature, top_k, top_p)
    with torch.no_grad():
        return (torch.as_tensor(logits, dtype=torch.float32) / 0.0).softmax(-1)  # NaN


def probs_top_p_before_top_k(logits, temperature, top_k, top_p):
    """The nucleus taken on the full softmax, top-k applied after it."""
    from solutions.decoding import top_k_filter, top_p_filter

    logits = torch.as_tensor(logits, dtype=torch.float32)
    if temperature == 0:
        return ref.next_token_probs(logits, temperature, top_k, top_p)
    return top_k_filter(top_p_filter(logits / temperature, top_p), top_k).softmax(-1)


def sample_argmax(logits, temperature, top_k, top_p, seed, n):
    return [int(torch.as_tensor(logits).argmax())] * int(n)


def sample_reseeded_each_draw(logits, temperature, top_k, top_p, seed, n):
    return [ref.sample_tokens(logits, temperature, top_k, top_p, seed, 1)[0] for _ in range(int(n))]


def sample_unfiltered(logits, temperature, top_k, top_p, seed, n):
    return ref.sample_tokens(logits, 1.0, None, None, seed, n)


# ---- beam_search


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
    return ref.greedy_decode(model, prompt, max_new_tokens, eos_id)


def beam_sums_probabilities(model, prompt, beam_width, max_new_tokens, eos_id):
    return _beam(model, prompt, beam_width, max_new_tokens, eos_id, score="prob")


def beam_length_normalised(model, prompt, beam_width, max_new_tokens, eos_id):
    return _beam(model, prompt, beam_width, max_new_tokens, eos_id, normalise=True)


def beam_extends_finished(model, prompt, beam_width, max_new_tokens, eos_id):
    return _beam(model, prompt, beam_width, max_new_tokens, eos_id, extend_finished=True)


# ---- greedy_decode


def greedy_ignores_eos(model, prompt, max_new_tokens, eos_id):
    return ref.greedy_decode(model, prompt, max_new_tokens, eos_id=None)


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
    return ref.greedy_decode(model, prompt, max_new_tokens, eos_id)[len(prompt) :]


def greedy_drops_eos(model, prompt, max_new_tokens, eos_id):
    out = ref.greedy_decode(model, prompt, max_new_tokens, eos_id)
    return out[:-1] if out and out[-1] == eos_id and len(out) > len(prompt) else out


# ---- part 10: training. What a model with each flaw returns, simulated from the truth (cheap:
# the judge recomputes these for every failing submission). tests/grading/test_training_limits.py
# trains real flawed models and checks that they land in the same symptom class.


def _rng(seed, salt):
    return torch.Generator().manual_seed(int(seed) * 1009 + salt)


def _noisy(truth, p, low, high, g):
    """truth with each token replaced, with probability p, by a random one in [low, high)."""
    swap = torch.rand(truth.shape, generator=g) < p
    return torch.where(swap, torch.randint(low, high, truth.shape, generator=g), truth)


def _task_wrong(truth_fn, low, high):
    """The known-wrong answers of one task, as functions with the reference's signature."""

    def value(expected, generated, teacher_forced):
        return {"generated": generated, "teacher_forced": teacher_forced, "_expected": expected}

    def untrained(*args):
        """The model was never (or hardly) trained: every token at chance."""
        e, g = truth_fn(*args), _rng(args[0], 1)
        return value(
            e,
            torch.randint(low, high, e["generated"].shape, generator=g),
            torch.randint(low, high, e["teacher_forced"].shape, generator=g),
        )

    def undertrained(*args):
        """Learned part of it: ~85 % of tokens right, too few whole sequences."""
        e, g = truth_fn(*args), _rng(args[0], 2)
        return value(e, _noisy(e["generated"], 0.15, low, high, g), _noisy(e["teacher_forced"], 0.15, low, high, g))

    def no_causal_mask(*args):
        """Decoder self-attention without the causal mask: with teacher forcing position t reads
        token t + 1 from its input and copies it (near-perfect), generating it has no such token."""
        e, g = truth_fn(*args), _rng(args[0], 3)
        return value(e, _noisy(e["generated"], 0.6, low, high, g), _noisy(e["teacher_forced"], 0.01, low, high, g))

    def unshifted_targets(*args):
        """Trained to predict tgt[:, :-1] (its own input) instead of tgt[:, 1:]: it echoes its input
        token, so greedy decoding repeats BOS."""
        e = truth_fn(*args)
        return value(e, torch.full_like(e["generated"], int(e["decoder_input"][0, 0])), e["decoder_input"].clone())

    return untrained, undertrained, no_causal_mask, unshifted_targets


(copy_untrained, copy_undertrained, copy_no_causal_mask, copy_unshifted_targets) = _task_wrong(
    ref.copy_truth, 1, ref.COPY_VOCAB
)
(addition_untrained, addition_undertrained, addition_no_causal_mask, addition_unshifted_targets) = _task_wrong(
    ref.addition_truth, 0, 10
)


def addition_reversed_digits(*args):
    """Trained on the sum's digits least significant first (a well-known trick) and returned them so."""
    e = ref.addition_truth(*args)
    return {"generated": e["generated"].flip(1), "teacher_forced": e["teacher_forced"].flip(1), "_expected": e}


def addition_document_range(*args):
    """Trained on a, b ≤ 499 only (document 001 keeps the sum below 1000): right on such pairs,
    wrong on the others."""
    e, g = ref.addition_truth(*args), _rng(args[0], 4)
    inside = e["both_below_500"][:, None]
    return {
        "generated": torch.where(inside, e["generated"], _noisy(e["generated"], 0.5, 0, 10, g)),
        "teacher_forced": _noisy(e["teacher_forced"], 0.1, 0, 10, g),
        "_expected": e,
    }
