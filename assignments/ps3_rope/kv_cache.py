"""Part 7b, RoPE and the KV cache (document 000, question 4.2: "the positional encodings of the
words generated before do not change, which makes the KV cache possible"): one decoding step's
scores from a cache of keys stored already rotated, and the cache's size as a formula — the
references, the probes, the known-wrong answers and their feedback. (Incremental decoding that
equals full recomputation is PS6's.)"""

import numpy as np
import sympy
import torch

from autograder.authoring import AllClose, Formula, Misconception, Probe, Question
from solutions.positional import apply_rope

from .common import randn

CACHE_SYMBOLS = ("n_layers", "n_heads", "d_head", "T", "b")


def rotate_at(x, m, base):
    """R_m x for x (..., d), interleaved, float64."""
    x = torch.as_tensor(x, dtype=torch.float64)
    return apply_rope(x[..., None, :], torch.tensor([m]), base, "interleaved")[..., 0, :]


def cache_of(keys, base):
    """A cache as it is stored: keys (..., m, d) at positions 0 … m − 1, each rotated once, in the
    keys' own dtype (float32 probes get a float32 cache, as the notebook's convention says)."""
    dtype = np.asarray(keys).dtype
    keys = torch.as_tensor(keys, dtype=torch.float64)
    return apply_rope(keys, torch.arange(keys.shape[-2]), base, "interleaved").numpy().astype(dtype)


# ---- probes, drawn per student
def decode_probes(rng):
    out = []
    for lead, m, d, base in (((), 5, 4, 100.0), ((2,), 9, 8, 10000.0), ((2, 3), 4, 6, 500.0), ((3,), 0, 8, 100.0)):
        q, k = randn(rng, *lead, d), randn(rng, *lead, d)
        cache = cache_of(randn(rng, *lead, m, d), base)
        out.append(Probe((q, k, cache, base), f"batch {lead or 'none'}, {m} cached keys, d = {d}, base {base:g}"))
    m = int(rng.integers(200, 600))
    q, k, cache = randn(rng, 16), randn(rng, 16), cache_of(randn(rng, m, 16), 10000.0)
    return out + [Probe((q, k, cache), f"{m} cached keys, d = 16, base left at its default")]


# ---- references
def decode_scores(q, k, k_cache, base=10000.0):
    """(..., m + 1): (R_m q)·k̃_n for the m cached keys k̃_n = R_n k_n and the new key R_m k."""
    cache = torch.as_tensor(k_cache, dtype=torch.float64)
    m = cache.shape[-2]
    keys = torch.cat([cache, rotate_at(k, m, base)[..., None, :]], dim=-2)
    return (keys @ rotate_at(q, m, base)[..., :, None])[..., 0]


_L, _H, _D, _T, _B = sympy.symbols(CACHE_SYMBOLS, positive=True)


def cache_bytes():
    """Keys and values, every layer and head, T positions of d_head numbers of b bytes."""
    return 2 * _L * _H * _D * _T * _B


# ---- known-wrong answers: decode_scores(q, k, k_cache, base)
def scores(q, k, k_cache, base=10000.0, *, rerotate=False, query_rotated=True, key_rotated=True, shift=0):
    cache = torch.as_tensor(k_cache, dtype=torch.float64)
    m = cache.shape[-2]
    if rerotate:
        cache = apply_rope(cache, torch.arange(m), base, "interleaved")
    new_k = rotate_at(k, m + shift, base) if key_rotated else torch.as_tensor(k, dtype=torch.float64)
    new_q = rotate_at(q, m + shift, base) if query_rotated else torch.as_tensor(q, dtype=torch.float64)
    return (torch.cat([cache, new_k[..., None, :]], dim=-2) @ new_q[..., :, None])[..., 0]


def scores_variant(**kw):
    def wrong(q, k, k_cache, base=10000.0):
        return scores(q, k, k_cache, base, **kw)

    return wrong


QUESTIONS = [
    Question(
        grade_id="decode_scores",
        answer="decode_scores",
        title="One decoding step with a cache of rotated keys",
        reference=decode_scores,
        probes=decode_probes,
        depends_on=("apply_rope",),  # the text allows calling apply_rope for the rotations
        compare=AllClose(atol=1e-4, rtol=1e-4),
        visible=[
            Probe(
                (
                    np.array([1.0, 0.0, 1.0, 0.0]),
                    np.array([1.0, 0.0, 1.0, 0.0]),
                    cache_of(np.ones((2, 4)), 100.0),
                    100.0,
                ),
                "q = k = [1, 0, 1, 0], two cached keys (ones, rotated at 0 and 1), base 100",
            )
        ],
        misconceptions=(
            Misconception(
                "rotated_twice",
                "The cached keys are stored already rotated, each at its own position: rotating them "
                "again turns key n by 2n·θ_i. Only the new token's query and key are rotated.",
                scores_variant(rerotate=True),
            ),
            Misconception(
                "query_not_rotated",
                "The new query must be rotated at its own position too: the score is (R_m q)·(R_n k), "
                "so the relative angle n − m appears only when both sides are turned.",
                scores_variant(query_rotated=False),
            ),
            Misconception(
                "new_key_not_rotated",
                "The new token's key goes into the cache rotated at its position, like every key "
                "before it; yours is appended unrotated.",
                scores_variant(key_rotated=False),
            ),
            Misconception(
                "position_off_by_one",
                "Positions count from 0: with m keys cached (positions 0 … m − 1) the new token sits "
                "at position m = the cache's length, not one further.",
                scores_variant(shift=1),
            ),
        ),
    ),
    Question(
        grade_id="kv_cache_bytes",
        answer="kv_cache_bytes",
        title="The size of a KV cache",
        call=False,
        reference=cache_bytes,
        compare=Formula(
            CACHE_SYMBOLS,
            concept="count what the cache stores for each position — in every layer, for every head — "
            "and the bytes of each number.",
        ),
        misconceptions=(
            Misconception(
                "keys_only",
                "The values are cached too: a new query needs every earlier value as well as every earlier key.",
                lambda: _L * _H * _D * _T * _B,
            ),
            Misconception(
                "one_layer",
                "Every layer has its own keys and values (its own W_K, W_V): the cache holds one set per layer.",
                lambda: 2 * _H * _D * _T * _B,
            ),
            Misconception(
                "attention_matrix",
                "The cache holds keys and values, one vector per position — not the T × T attention "
                "weights, which are recomputed for each new query and never stored.",
                lambda: 2 * _L * _H * _D * _T**2 * _B,
            ),
            Misconception(
                "no_bytes",
                "The question asks for bytes: multiply the number of cached numbers by b bytes each.",
                lambda: 2 * _L * _H * _D * _T,
            ),
        ),
    ),
]
