"""The three toy tasks of document 001 (copy, 3-digit addition, expression → parse tree),
trained with the reference encoder-decoder from ``solutions/model.py``."""

from __future__ import annotations

import time

from solutions.tasks import addition, copy, parser
from solutions.tasks.common import Task, exact_match, train

TASKS = {"copy": copy.task, "addition": addition.task, "parser": parser.task}


def train_task(name: str, seconds_budget: float = 120, seed: int = 0, device="cpu", **kw) -> dict:
    """Train task ``name`` within ``seconds_budget`` (wall clock, evaluation included) and return
    dict(accuracy=exact match on the held-out test set, seconds=..., steps=..., losses=..., model=...)."""
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r}; one of {sorted(TASKS)}")
    start = time.perf_counter()  # building the data counts against the budget too
    return train(TASKS[name](seed), seconds_budget=seconds_budget, seed=seed, device=device, start=start, **kw)


__all__ = ["TASKS", "Task", "exact_match", "train", "train_task"]
