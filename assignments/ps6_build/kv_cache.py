"""Part 7b, the KV cache (document 000 Q4.2: positions of tokens already generated do not change,
"which makes the KV cache possible during inference"): ``attend_with_cache`` — causal
self-attention of new tokens over the cached keys and values of the earlier ones plus their own,
which must equal recomputing the whole sequence (the probes' caches are the reference's own
projections of earlier tokens; tests/assignments/test_ps6_content.py checks the equality against
``solutions.layers.Attention``'s cache). The cache's size is PS3's question (``kv_cache_bytes``)."""

import numpy as np
import torch
import torch.nn.functional as F

from autograder.authoring import Misconception, Probe, Question

from .common import ATTENTION_TOLERANCE, mha_weights, randn


def attend_with_cache(x_new, past_k, past_v, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads):
    """Queries, keys and values of the new tokens (B, T_new, d); keys and values of the T_past
    earlier ones from the cache (B, h, T_past, d_h); new token i attends to every cached token
    and to new tokens 0 … i; heads merged, output projection."""
    import math

    import torch
    import torch.nn.functional as F

    n_heads = int(n_heads)
    x_new, past_k, past_v = (torch.as_tensor(a, dtype=torch.float32) for a in (x_new, past_k, past_v))

    def split(x):
        b, t, d = x.shape
        return x.view(b, t, n_heads, d // n_heads).transpose(1, 2)

    q = split(F.linear(x_new, w_q, b_q))
    k = torch.cat([past_k, split(F.linear(x_new, w_k, b_k))], dim=2)
    v = torch.cat([past_v, split(F.linear(x_new, w_v, b_v))], dim=2)
    t_new, t_all = q.shape[2], k.shape[2]
    allowed = torch.ones(t_new, t_all, dtype=torch.bool).tril(t_all - t_new)
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    out = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1) @ v
    b, h, t, d_head = out.shape
    return F.linear(out.transpose(1, 2).reshape(b, t, h * d_head), w_o, b_o)


def _split(x, h):
    b, t, d = x.shape
    return x.view(b, t, h, d // h).transpose(1, 2)


# ---- known-wrong cached attention


def cache_ignored(x_new, past_k, past_v, *weights_and_heads):
    """Only the new tokens attend to each other: the cache is not used."""
    empty = torch.as_tensor(past_k)[:, :, :0]
    return attend_with_cache(x_new, empty, empty, *weights_and_heads)


def new_tokens_not_cached(x_new, past_k, past_v, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads):
    """The new tokens attend to the cache only, not to themselves."""
    q = _split(F.linear(torch.as_tensor(x_new), w_q, b_q), int(n_heads))
    k, v = torch.as_tensor(past_k), torch.as_tensor(past_v)
    if k.shape[2] == 0:
        return F.linear(torch.zeros_like(torch.as_tensor(x_new)), torch.zeros_like(w_o), b_o)
    out = torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5, -1) @ v
    b, h, t, d_head = out.shape
    return F.linear(out.transpose(1, 2).reshape(b, t, h * d_head), w_o, b_o)


def new_block_not_causal(x_new, past_k, past_v, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads):
    """Each new token also sees the new tokens after it."""
    h = int(n_heads)
    x_new = torch.as_tensor(x_new)
    q = _split(F.linear(x_new, w_q, b_q), h)
    k = torch.cat([torch.as_tensor(past_k), _split(F.linear(x_new, w_k, b_k), h)], 2)
    v = torch.cat([torch.as_tensor(past_v), _split(F.linear(x_new, w_v, b_v), h)], 2)
    out = torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5, -1) @ v
    b, _, t, _ = out.shape
    return F.linear(out.transpose(1, 2).reshape(b, t, -1), w_o, b_o)


def cache_after_new(x_new, past_k, past_v, w_q, b_q, w_k, b_k, w_v, b_v, w_o, b_o, n_heads):
    """The cached keys and values put after the new tokens' own: the mask, offset by the cache's
    length, then lets each new token see the wrong keys."""
    h = int(n_heads)
    x_new = torch.as_tensor(x_new)
    q = _split(F.linear(x_new, w_q, b_q), h)
    k = torch.cat([_split(F.linear(x_new, w_k, b_k), h), torch.as_tensor(past_k)], 2)
    v = torch.cat([_split(F.linear(x_new, w_v, b_v), h), torch.as_tensor(past_v)], 2)
    t_new, t_all = q.shape[2], k.shape[2]
    allowed = torch.ones(t_new, t_all, dtype=torch.bool).tril(t_all - t_new)
    scores = (q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5).masked_fill(~allowed, float("-inf"))
    out = torch.softmax(scores, -1) @ v
    b, _, t, _ = out.shape
    return F.linear(out.transpose(1, 2).reshape(b, t, -1), w_o, b_o)


# ---- probes, drawn per student: the cache holds the projections of earlier tokens


def _cached(rng, b, t_past, t_new, d, h):
    w = mha_weights(rng, d)
    x_past, x_new = randn(rng, b, t_past, d, scale=2), randn(rng, b, t_new, d, scale=2)
    tw = [torch.from_numpy(a) for a in w]
    past_k = _split(F.linear(torch.from_numpy(x_past), tw[2], tw[3]), h).numpy()
    past_v = _split(F.linear(torch.from_numpy(x_past), tw[4], tw[5]), h).numpy()
    return (x_new, past_k, past_v, *w, h)


def cache_probes(rng):
    h = int(rng.choice([2, 4]))
    d = 4 * int(rng.integers(2, 4))  # 8 or 12: not the visible examples' 4
    b, t_past = int(rng.integers(2, 4)), int(rng.integers(2, 6))
    return [
        Probe(_cached(rng, b, t_past, 1, d, h), f"one new token, {t_past} cached"),
        Probe(_cached(rng, b, t_past + 1, 3, d, h), f"three new tokens, {t_past + 1} cached"),
        Probe(_cached(rng, b, 0, 2, d, h), "an empty cache (the prompt's first pass)"),
        Probe(_cached(rng, 1, 4, 1, d, 6 - h), f"one sequence, {6 - h} heads"),
    ]


_VISIBLE_RNG = np.random.default_rng(707)

QUESTIONS = [
    Question(
        grade_id="attend_with_cache",
        answer="attend_with_cache",
        title="Attention with a KV cache",
        reference=attend_with_cache,
        probes=cache_probes,
        compare=ATTENTION_TOLERANCE,
        visible=[
            Probe(_cached(_VISIBLE_RNG, 1, 2, 1, 4, 2), "d = 4, 2 heads, 2 tokens cached, 1 new"),
            Probe(_cached(_VISIBLE_RNG, 1, 2, 2, 4, 2), "d = 4, 2 heads, 2 tokens cached, 2 new"),
        ],
        misconceptions=(
            Misconception(
                "cache_ignored",
                "The new tokens must also attend to the earlier tokens, whose keys and values are in "
                "the cache: concatenate past_k/past_v with the new keys/values along the token axis.",
                cache_ignored,
            ),
            Misconception(
                "new_tokens_not_cached",
                "A new token attends to itself too: append its own key and value to the cached ones before attending.",
                new_tokens_not_cached,
            ),
            Misconception(
                "new_block_not_causal",
                "With several new tokens, new token i may not see the new tokens after it: the mask "
                "over [cache, new] is causal, offset by the cache's length.",
                new_block_not_causal,
            ),
            Misconception(
                "cache_after_new",
                "Your cached keys and values sit at the wrong positions: after the new tokens' own. The "
                "cache holds the earlier tokens, and the causal mask counts positions in sequence order — "
                "with one new token the order does not matter, with several each new token sees the "
                "wrong keys.",
                cache_after_new,
            ),
        ),
    ),
]
