"""What the three toy tasks share: the task record, the training loop, exact-match evaluation.

A task is a sequence-to-sequence problem for the reference encoder-decoder. Targets are
``[BOS] y_1 … y_n [EOS] [PAD]…`` (EOS/PAD only where lengths vary); the decoder reads
target[:, :-1] and is trained to predict target[:, 1:] (PAD ignored). Accuracy is **exact
match** of greedy, KV-cached decoding on a held-out test set that no training batch contains.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from solutions.decoding import greedy
from solutions.model import EncoderDecoderTransformer, TransformerConfig


@dataclass
class Task:
    name: str
    cfg: TransformerConfig
    bos_id: int
    eos_id: int | None
    pad_id: int | None
    max_new_tokens: int
    # (n, torch.Generator) -> (src (n, S), tgt (n, T)) drawn from the training distribution
    train_batch: Callable[[int, torch.Generator], tuple]
    test_set: tuple  # (src, tgt): held out from every training batch
    batch_size: int = 128
    lr: float = 1e-3
    warmup: int = 50
    steps: int = 2000  # length of the LR schedule (training may stop earlier)


def exact_match(model, src, tgt, task: Task, batch_size: int = 500) -> float:
    """Share of rows whose greedy decoding equals the target up to (and including) its EOS."""
    model.eval()
    hits = 0
    for i in range(0, src.shape[0], batch_size):
        s, t = src[i : i + batch_size], tgt[i : i + batch_size]
        out = greedy(model, t[:, :1], t.shape[1] - 1, src=s, eos_id=task.eos_id)
        out = F.pad(out, (0, t.shape[1] - out.shape[1]), value=task.eos_id if task.eos_id is not None else -1)
        care = t[:, 1:] != task.pad_id if task.pad_id is not None else torch.ones_like(t[:, 1:], dtype=torch.bool)
        hits += ((out[:, 1:] == t[:, 1:]) | ~care).all(dim=1).sum().item()
    model.train()
    return hits / src.shape[0]


def train(
    task: Task,
    seconds_budget: float = 120,
    seed: int = 0,
    device="cpu",
    *,
    max_steps=None,
    eval_every: int = 100,
    log=None,
    start: float | None = None,
    threads: int | None = None,
    evaluate: bool = True,
) -> dict:
    """Train until the validation set is solved twice in a row, ``task.steps`` steps, or ~85 % of
    the budget (the rest is kept for the final test). LR: linear warm-up, then cosine decay over
    ``task.steps`` (step-based, so a seed gives the same run on any machine fast enough).
    Threads on CPU: 1 by default — these models are small, and on a shared 2-core machine a
    second thread fighting other processes makes each step several times slower. ``start``: perf_counter() value the
    budget counts from (default: now)."""
    start = time.perf_counter() if start is None else start
    old_threads = torch.get_num_threads()
    if torch.device(device).type == "cpu":
        torch.set_num_threads(threads or 1)
    try:
        torch.manual_seed(seed)
        g = torch.Generator().manual_seed(seed + 1)
        model = EncoderDecoderTransformer(task.cfg).to(device).train()
        opt = torch.optim.AdamW(
            model.parameters(), lr=task.lr, betas=(0.9, 0.98), weight_decay=0.01, fused=True
        )  # one kernel for all parameters: a quarter of a small step otherwise
        val_src, val_tgt = task.train_batch(500, torch.Generator().manual_seed(seed + 10_000))
        val_src, val_tgt = val_src.to(device), val_tgt.to(device)
        train_budget = 0.85 * seconds_budget
        step, solved_in_a_row, losses = 0, 0, []
        while True:
            elapsed = time.perf_counter() - start
            if elapsed > train_budget or step >= (max_steps or task.steps) or solved_in_a_row >= 2:
                break
            lr = task.lr * min(1.0, (step + 1) / task.warmup) * 0.5 * (1 + math.cos(math.pi * step / task.steps))
            for group in opt.param_groups:
                group["lr"] = lr
            src, tgt = (t.to(device) for t in task.train_batch(task.batch_size, g))
            logits = model(src, tgt[:, :-1])
            loss = F.cross_entropy(
                logits.reshape(-1, logits.shape[-1]),
                tgt[:, 1:].reshape(-1),
                ignore_index=-100 if task.pad_id is None else task.pad_id,
            )
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(loss.item())
            step += 1
            if step % eval_every == 0:
                val = exact_match(model, val_src, val_tgt, task)
                solved_in_a_row = solved_in_a_row + 1 if val == 1.0 else 0
                if log:
                    log(
                        f"{task.name} step {step} loss {loss.item():.4f} val {val:.4f} "
                        f"t {time.perf_counter() - start:.1f}s"
                    )
        test_src, test_tgt = (t.to(device) for t in task.test_set)
        acc = exact_match(model, test_src, test_tgt, task) if evaluate else float("nan")
        return {
            "task": task.name,
            "accuracy": acc,
            "seconds": time.perf_counter() - start,
            "steps": step,
            "losses": losses,
            "model": model,
        }
    finally:
        torch.set_num_threads(old_threads)
