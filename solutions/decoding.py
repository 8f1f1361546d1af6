"""Decoding strategies for both reference models: greedy, sampling with temperature / top-k /
nucleus (top-p), and beam search.

Every function takes ``model`` (an EncoderDecoderTransformer or DecoderOnlyTransformer),
``prefix`` (B, T0) int64 — the decoder start tokens (e.g. BOS) or a prompt — and, for an
encoder-decoder, ``src`` (B, S). With ``use_cache=True`` each step feeds only the new token
and the KV cache holds the rest; ``use_cache=False`` re-runs the whole sequence (same logits,
slower: a test checks it). Sampling draws from a caller-supplied ``torch.Generator`` so
results are reproducible. After ``eos_id`` a sequence keeps emitting ``eos_id``.
"""

from __future__ import annotations

import torch


def top_k_filter(logits, k: int):
    """Keep the k largest logits of each row, set the rest to −inf (ties at the k-th value kept)."""
    if k is None or k >= logits.shape[-1]:
        return logits
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    return logits.masked_fill(logits < kth, float("-inf"))


def top_p_filter(logits, p: float):
    """Nucleus: keep the smallest set of most likely tokens whose probability reaches p
    (the token that crosses p is kept; the most likely token always is). Ties: a token is
    dropped only when the tokens *strictly* more likely than it already reach p, so tokens of
    equal probability are kept or dropped together (as top-k keeps every tie at the k-th value)."""
    if p is None or p >= 1.0:
        return logits
    sorted_logits, order = torch.sort(logits, dim=-1, descending=True)
    probs = sorted_logits.softmax(dim=-1)
    mass_before = probs.cumsum(dim=-1) - probs  # probability of the tokens ranked above
    # a tie shares the mass above its first member: index of each position's tie group start
    ranks = torch.arange(probs.shape[-1], device=probs.device).expand_as(probs)
    starts = torch.ones_like(sorted_logits, dtype=torch.bool)
    starts[..., 1:] = sorted_logits[..., 1:] != sorted_logits[..., :-1]
    first_of_tie = torch.where(starts, ranks, 0).cummax(dim=-1).values
    drop_sorted = mass_before.gather(-1, first_of_tie) >= p
    drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)
    return logits.masked_fill(drop, float("-inf"))


def sample_next(logits, *, temperature: float = 1.0, top_k=None, top_p=None, generator=None):
    """One token per row of (B, V) logits. temperature 0 means greedy."""
    if temperature == 0:
        return logits.argmax(dim=-1)
    logits = top_p_filter(top_k_filter(logits / temperature, top_k), top_p)
    probs = logits.softmax(dim=-1)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)


def _next_logits(model, seq, state):
    """Logits (B, V) for the token after seq; feeds only what the cache has not seen."""
    return model.step(seq[:, state["pos"] :], state)[:, -1].float()


@torch.no_grad()
def generate(
    model,
    prefix,
    max_new_tokens: int,
    *,
    src=None,
    temperature: float = 0.0,
    top_k=None,
    top_p=None,
    generator=None,
    eos_id=None,
    use_cache: bool = True,
):
    """Greedy (temperature 0, the default) or sampled continuation: (B, T0 + max_new_tokens)."""
    state = model.start_state(src, use_cache=use_cache)
    seq, done = prefix, torch.zeros(prefix.shape[0], dtype=torch.bool, device=prefix.device)
    for _ in range(max_new_tokens):
        nxt = sample_next(
            _next_logits(model, seq, state), temperature=temperature, top_k=top_k, top_p=top_p, generator=generator
        )
        if eos_id is not None:
            nxt = nxt.masked_fill(done, eos_id)
            done = done | (nxt == eos_id)
        seq = torch.cat([seq, nxt[:, None]], dim=1)
        if eos_id is not None and bool(done.all()):
            break
    return seq


def greedy(model, prefix, max_new_tokens: int, *, src=None, eos_id=None, use_cache: bool = True):
    return generate(model, prefix, max_new_tokens, src=src, eos_id=eos_id, use_cache=use_cache)


def sample(
    model,
    prefix,
    max_new_tokens: int,
    *,
    src=None,
    temperature: float = 1.0,
    top_k=None,
    top_p=None,
    generator=None,
    eos_id=None,
    use_cache: bool = True,
):
    return generate(
        model,
        prefix,
        max_new_tokens,
        src=src,
        temperature=temperature,
        top_k=top_k,
        top_p=top_p,
        generator=generator,
        eos_id=eos_id,
        use_cache=use_cache,
    )


@torch.no_grad()
def beam_search(
    model,
    prefix,
    max_new_tokens: int,
    *,
    src=None,
    beam_size: int = 4,
    eos_id=None,
    length_penalty: float = 0.0,
    use_cache: bool = True,
):
    """Beam search over sum of log-probabilities. Finished hypotheses (ending in eos_id) are ranked
    by score / length^length_penalty (length = generated tokens; 0 = raw sum).
    Returns (sequences (B, T0 + n), scores (B,)) for the best hypothesis of each batch row;
    a hypothesis that finished early is right-padded with eos_id."""
    b, t0 = prefix.shape
    dev = prefix.device
    # Every row is repeated beam_size times; only the first copy starts alive so the first step
    # does not pick the same token beam_size times.
    seq = prefix.repeat_interleave(beam_size, dim=0)
    if src is not None:
        src = src.repeat_interleave(beam_size, dim=0)
    state = model.start_state(src, use_cache=use_cache)
    scores = torch.full((b, beam_size), float("-inf"), device=dev)
    scores[:, 0] = 0.0
    finished = [[] for _ in range(b)]  # (normalised score, raw score, tokens) per row
    for step in range(max_new_tokens):
        logp = _next_logits(model, seq, state).log_softmax(dim=-1)  # (b·k, V)
        v = logp.shape[-1]
        cand = (scores.reshape(-1, 1) + logp).reshape(b, beam_size * v)
        top, idx = cand.topk(2 * beam_size, dim=-1)  # 2k so k live beams survive k finishing
        beam, tok = idx // v, idx % v
        new_scores = torch.full((b, beam_size), float("-inf"), device=dev)
        new_src = torch.zeros(b, beam_size, dtype=torch.long, device=dev)
        new_tok = torch.zeros(b, beam_size, dtype=torch.long, device=dev)
        for r in range(b):
            n_live = 0
            for s, bm, tk in zip(top[r].tolist(), beam[r].tolist(), tok[r].tolist()):
                if s == float("-inf") or n_live == beam_size:
                    break
                if eos_id is not None and tk == eos_id:
                    tokens = torch.cat([seq[r * beam_size + bm], seq.new_tensor([tk])])
                    finished[r].append((s / (step + 1) ** length_penalty, s, tokens))
                    continue
                new_scores[r, n_live], new_src[r, n_live], new_tok[r, n_live] = s, bm, tk
                n_live += 1
        flat = (new_src + torch.arange(b, device=dev)[:, None] * beam_size).reshape(-1)
        seq = torch.cat([seq.index_select(0, flat), new_tok.reshape(-1, 1)], dim=1)
        model.reorder_state(state, flat)
        scores = new_scores
        # a row is done once its best finished hypothesis beats every live beam (scores only fall)
        if (
            eos_id is not None
            and length_penalty == 0.0
            and all(finished[r] and max(f[1] for f in finished[r]) >= scores[r].max().item() for r in range(b))
        ):
            break
    out_len = seq.shape[1]
    best_seqs, best_scores = [], []
    for r in range(b):
        live = [
            (scores[r, i].item() / (out_len - t0) ** length_penalty, scores[r, i].item(), seq[r * beam_size + i])
            for i in range(beam_size)
            if scores[r, i] > float("-inf")
        ]
        _, raw, tokens = max(finished[r] + live, key=lambda f: f[0])
        pad = out_len - tokens.shape[0]
        if pad > 0:
            tokens = torch.cat([tokens, tokens.new_full((pad,), eos_id)])
        best_seqs.append(tokens)
        best_scores.append(raw)
    return torch.stack(best_seqs), torch.tensor(best_scores, device=dev)
