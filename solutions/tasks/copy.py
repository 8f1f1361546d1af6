"""Copy task (document 001, 8.5.1): the output is the input sequence unchanged.

Tokens 1 … 19 are the symbols, 0 is BOS (document 001's vocabulary of 20 leaves 0 free);
sequences have length 20, so there is no padding and no EOS. Model as in the chapter:
d_model 64, 2 + 2 layers, 2 heads, FFN 128, sinusoidal positions, Pre-LN.
"""

from __future__ import annotations

import torch

from solutions.model import TransformerConfig
from solutions.tasks.common import Task

VOCAB, BOS, LENGTH = 20, 0, 20


def make_data(n: int, generator: torch.Generator, length: int = LENGTH):
    """(src, tgt): src (n, length) with symbols 1 … 19; tgt = [BOS] + src."""
    src = torch.randint(1, VOCAB, (n, length), generator=generator)
    return src, torch.cat([torch.full((n, 1), BOS), src], dim=1)


def config() -> TransformerConfig:
    return TransformerConfig(
        vocab_size=VOCAB,
        d_model=64,
        n_heads=2,
        n_layers=2,
        d_ff=128,
        max_len=LENGTH + 1,
        pos="sinusoidal",
        norm_first=True,
        pad_id=None,
    )


def task(seed: int = 0) -> Task:
    # 19^20 ≈ 4e25 sequences: a random test set of 1000 overlaps training with probability ~0
    test = make_data(1000, torch.Generator().manual_seed(10_000 + seed))
    return Task(
        "copy",
        config(),
        bos_id=BOS,
        eos_id=None,
        pad_id=None,
        max_new_tokens=LENGTH,
        train_batch=make_data,
        test_set=test,
        batch_size=64,
        lr=2e-3,
        warmup=50,
    )
