"""Benchmarks of the reference transformer (called by ``autograder bench model|tasks``).

``bench_model``: forward + backward time of the reference encoder-decoder stacks against
``torch.nn.Transformer`` at the same configuration and with the same weights, in one process:
warm-up, then repeats alternating the two (so background load hits both alike), median of each.
Prints both, the largest output difference, and last ``reference_over_torch: <ratio>``.

``bench_tasks``: trains each toy task of document 001 and prints
``<task>: accuracy=<0..1> seconds=<s>`` per task.
"""

from __future__ import annotations

import statistics
import time

import torch

from solutions.attention import causal_mask
from solutions.interop import stacks_like_torch, torch_transformer_for
from solutions.model import TransformerConfig


def _time_fwd_bwd(fn, grad):
    t0 = time.perf_counter()
    out = fn()
    out.backward(grad)
    if out.is_cuda:
        torch.cuda.synchronize(out.device)
    return time.perf_counter() - t0


def bench_model(
    d_model=256,
    n_heads=4,
    n_layers=3,
    d_ff=1024,
    batch=16,
    src_len=48,
    tgt_len=48,
    *,
    norm_first=True,
    activation="relu",
    warmup=2,
    repeats=11,
    device="cpu",
    dtype=torch.float32,
    seed=0,
    threads=1,
) -> dict:
    """Time one training step's forward + backward (no optimiser) of both implementations on random
    embedded inputs with a causal target mask. Returns the timings and the ratio.
    ``threads``: torch CPU threads during the run (1 by default: on a shared 2-core machine a
    second thread makes both timings noisy and several times slower; None leaves torch's setting)."""
    old_threads = torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
    try:
        return _bench_model(
            d_model,
            n_heads,
            n_layers,
            d_ff,
            batch,
            src_len,
            tgt_len,
            norm_first,
            activation,
            warmup,
            repeats,
            device,
            dtype,
            seed,
        )
    finally:
        torch.set_num_threads(old_threads)


def _bench_model(
    d_model,
    n_heads,
    n_layers,
    d_ff,
    batch,
    src_len,
    tgt_len,
    norm_first,
    activation,
    warmup,
    repeats,
    device,
    dtype,
    seed,
):
    torch.manual_seed(seed)
    cfg = TransformerConfig(
        d_model=d_model, n_heads=n_heads, n_layers=n_layers, d_ff=d_ff, norm_first=norm_first, activation=activation
    )
    theirs = torch_transformer_for(cfg).to(device=device, dtype=dtype).train()
    enc, dec = stacks_like_torch(theirs, cfg)
    enc, dec = enc.to(device=device, dtype=dtype).train(), dec.to(device=device, dtype=dtype).train()
    src = torch.randn(batch, src_len, d_model, device=device, dtype=dtype)
    tgt = torch.randn(batch, tgt_len, d_model, device=device, dtype=dtype)
    grad = torch.randn(batch, tgt_len, d_model, device=device, dtype=dtype)
    blocked = ~causal_mask(tgt_len, device=device)

    def ours():
        return dec(tgt, enc(src))  # the decoder's default self-mask is causal

    def torch_ref():
        return theirs(src, tgt, tgt_mask=blocked, tgt_is_causal=True)

    with torch.no_grad():
        diff = (ours() - torch_ref()).abs().max().item()
    for _ in range(warmup):
        _time_fwd_bwd(ours, grad), _time_fwd_bwd(torch_ref, grad)
    t_ours, t_torch = [], []
    for i in range(repeats):
        order = ((ours, t_ours), (torch_ref, t_torch)) if i % 2 == 0 else ((torch_ref, t_torch), (ours, t_ours))
        for fn, times in order:
            times.append(_time_fwd_bwd(fn, grad))
    m_ours, m_torch = statistics.median(t_ours), statistics.median(t_torch)
    print(
        f"config: d_model={d_model} heads={n_heads} layers={n_layers}+{n_layers} d_ff={d_ff} batch={batch} "
        f"src_len={src_len} tgt_len={tgt_len} norm_first={norm_first} device={device} "
        f"threads={torch.get_num_threads()} repeats={repeats}"
    )
    print(f"reference forward+backward: {m_ours * 1e3:.1f} ms (median)")
    print(f"torch.nn.Transformer forward+backward: {m_torch * 1e3:.1f} ms (median)")
    print(f"max |output difference|: {diff:.2e}")
    ratio = m_ours / m_torch
    print(f"reference_over_torch: {ratio:.3f}")
    return {"reference_s": m_ours, "torch_s": m_torch, "ratio": ratio, "max_abs_diff": diff}


def bench_tasks(names=("copy", "addition", "parser"), seconds_budget=120, seed=0, device="cpu") -> dict:
    """Train each toy task within its budget; one line per task."""
    from solutions.tasks import train_task

    results = {}
    for name in names:
        r = train_task(name, seconds_budget=seconds_budget, seed=seed, device=device)
        results[name] = r
        print(f"{name}: accuracy={r['accuracy']:.4f} seconds={r['seconds']:.1f}", flush=True)
    return results
