"""3-digit addition (document 001, 8.5.2): "a+b" → the digits of a + b.

Source: a and b zero-padded to 3 digits around '+' (7 tokens: digits 0–9 are tokens 0–9,
'+' is 10, as in the chapter). Target: BOS (11) then a + b zero-padded to 4 digits.
Unlike the chapter (which keeps a, b ≤ 499 so the sum has 3 digits) a and b range over all of
0 … 999. Test set: 2000 pairs that no training batch contains (rejected when drawn).
Vocabulary 11 + BOS = 12.

Model: **shrunk** from the chapter's d_model 256, 3 + 3 layers, 4 heads, FFN 512 (``CHAPTER``)
to d_model 64, 2 + 2 layers, 4 heads, FFN 256 with learned positions (``config()``), so that it
reaches ≥ 99 % exact match within 120 s on a 2-core CPU: the chapter's model needs ~1500 steps of
batch 128 (its own log), about ten minutes there. Sinusoidal positions learn the same
task markedly slower at this size.
"""

from __future__ import annotations

import torch

from solutions.model import TransformerConfig
from solutions.tasks.common import Task

PLUS, BOS, VOCAB, DIGITS = 10, 11, 12, 3


def digits(x: torch.Tensor, width: int) -> torch.Tensor:
    """(n,) non-negative ints → (n, width) decimal digits, most significant first, zero-padded."""
    powers = 10 ** torch.arange(width - 1, -1, -1)
    return (x[:, None] // powers) % 10


def encode(a: torch.Tensor, b: torch.Tensor):
    n = a.shape[0]
    src = torch.cat([digits(a, DIGITS), torch.full((n, 1), PLUS), digits(b, DIGITS)], dim=1)
    tgt = torch.cat([torch.full((n, 1), BOS), digits(a + b, DIGITS + 1)], dim=1)
    return src, tgt


def decode_number(tokens) -> int:
    return int("".join(str(int(t)) for t in tokens))


CHAPTER = dict(d_model=256, n_heads=4, n_layers=3, d_ff=512)


def config(**overrides) -> TransformerConfig:
    base = dict(
        vocab_size=VOCAB,
        d_model=64,
        n_heads=4,
        n_layers=2,
        d_ff=256,
        max_len=16,
        pos="learned",
        norm_first=True,
        pad_id=None,
    )
    return TransformerConfig(**{**base, **overrides})


def _split(seed: int):
    g = torch.Generator().manual_seed(20_000 + seed)
    pairs = torch.randperm(1000 * 1000, generator=g)[:2000]
    held_out = torch.zeros(1000 * 1000, dtype=torch.bool)
    held_out[pairs] = True
    return pairs // 1000, pairs % 1000, held_out


def task(seed: int = 0) -> Task:
    a_test, b_test, held_out = _split(seed)

    def train_batch(n: int, generator: torch.Generator):
        a = torch.randint(0, 1000, (2 * n,), generator=generator)
        b = torch.randint(0, 1000, (2 * n,), generator=generator)
        keep = ~held_out[a * 1000 + b]
        return encode(a[keep][:n], b[keep][:n])

    return Task(
        "addition",
        config(),
        bos_id=BOS,
        eos_id=None,
        pad_id=None,
        max_new_tokens=DIGITS + 1,
        train_batch=train_batch,
        test_set=encode(a_test, b_test),
        batch_size=64,
        lr=3e-3,
        warmup=100,
        steps=3000,
    )
