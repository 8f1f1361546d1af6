"""Part 4, T5's relative-position buckets (4a; Hugging Face semantics, rel = key − query) and
the per-head bias matrix (4b; shape (h, t_q, t_k), both positions from 0) — the bucket's
source for root cause (4b calls the student's `t5_bucket`), the probes, a bucketing and a
bias with a switch per mistake, and the feedback."""

import math

import numpy as np
import torch

from autograder.authoring import AllClose, FunctionSource, IntegerArray, Misconception, Probe, Question
from solutions.encodings import t5_bias_matrix

from .common import randn

T5 = {
    "flip": "The relative position is memory − query (key − query): rel = j − i, positive for keys after the "
    "query. Yours uses query − key, which sends past and future keys to each other's buckets.",
    "causal_abs": "In the causal case (bidirectional=False) every key after the query (rel > 0) goes to "
    "bucket 0 — n = max(−rel, 0) — and all 32 buckets are for the past. Yours buckets |rel|, "
    "so future keys share buckets with past ones.",
    "top": "Off by one at the far end: distances ≥ max_distance share the LAST bucket, num_buckets − 1 of "
    "the half (15 of 0 … 15 when bidirectional, 31 causal); yours clamps to num_buckets, a bucket "
    "that belongs to the other direction (or does not exist).",
    "exact_end": "Off by one at the log boundary: the exact buckets are the offsets n = 0 … max_exact − 1 "
    "(0 … 7 for 32 buckets, bidirectional) and the log-spaced buckets start at n = max_exact; "
    "yours ends the exact range one offset early.",
    "rounding": "The log bucket is truncated (as .long() / .to(torch.long) does), not rounded: "
    "max_exact + ⌊log(n/max_exact)/log(max_distance/max_exact)·(num_buckets − max_exact)⌋.",
    "halve": "Bidirectional buckets are split between the two directions: num_buckets // 2 each (16 for 32), "
    "and max_exact is half of that (8). Yours uses all num_buckets on each side.",
}
BIAS = {
    "flip": "bias[h, i, j] uses the bucket of j − i (key minus query), as T5 does; yours uses i − j.",
    "heads_last": "Return the heads first, shape (n_heads, t_q, t_k), so the bias adds to scores of shape "
    "(…, n_heads, t_q, t_k); yours has the heads last.",
    "end_aligned": "Here both positions start at 0: query i and key j are at positions i and j (no KV cache, "
    "as T5's compute_bias); yours aligns the queries to the end of the keys.",
    "always_bidirectional": "`bidirectional` is ignored: with bidirectional=False (a decoder) use the causal "
    "buckets (future keys in bucket 0, all buckets for the past).",
    "default_buckets": "The number of buckets is the table's number of rows (table.shape[0]), not t5_bucket's "
    "default of 32: a table with another number of rows gets buckets it does not have, or leaves rows unused.",
}
FROM_BUCKETS = "Your bias is assembled right, but the buckets come from a t5_bucket with a mistake (see 4a): "


# ---- probes, drawn per student
def bucket_probes(rng):
    every = np.arange(-300, 301, dtype=np.int64)
    t = int(rng.integers(150, 260))
    pos_q, pos_k = np.sort(rng.integers(0, t, 12)), np.sort(rng.integers(0, t, 20))
    nb, md = [(16, 64), (64, 256), (8, 20)][int(rng.integers(0, 3))]
    return [
        Probe((every, True), "every offset in [−300, 300], bidirectional"),
        Probe((every, False), "every offset in [−300, 300], causal"),
        Probe((pos_k[None, :] - pos_q[:, None], bool(rng.integers(0, 2))), "a (12, 20) matrix of offsets"),
        Probe((every, True, nb, md), f"every offset, bidirectional, num_buckets = {nb}, max_distance = {md}"),
        Probe((every, False, nb, md), f"every offset, causal, num_buckets = {nb}, max_distance = {md}"),
        # half the buckets odd (bidirectional), an odd count (causal): integer division shows
        Probe((every, True, 10, 40), "every offset, bidirectional, num_buckets = 10, max_distance = 40"),
        Probe((every, False, 11, 50), "every offset, causal, num_buckets = 11, max_distance = 50"),
        Probe((every[::7],), "every 7th offset, every option left at its default"),
    ]


def bias_probes(rng):
    h = int(rng.integers(2, 5))
    t_q, t_k = int(rng.integers(3, 8)), int(rng.integers(8, 12))
    return [
        Probe((randn(rng, 32, h), t_q, t_k, True), f"{h} heads, t_q = {t_q}, t_k = {t_k}, bidirectional"),
        Probe((randn(rng, 32, h), t_q, t_k, False), f"{h} heads, t_q = {t_q}, t_k = {t_k}, causal"),
        Probe((randn(rng, 32, h), 2, 200, True), f"{h} heads, t_q = 2, t_k = 200, bidirectional"),
        Probe((randn(rng, 32, h), 40, 40, False), f"{h} heads, t_q = t_k = 40, causal"),
        Probe((randn(rng, 32, h), t_k, t_q), f"{h} heads, t_q = {t_k}, t_k = {t_q}, bidirectional by default"),
        # the bucket count is the table's: a t5_bias that leaves t5_bucket at its default 32 fails here
        Probe((randn(rng, 16, h), 3, 150, True), f"a (16, {h}) table: 16 buckets, t_q = 3, t_k = 150, bidirectional"),
        Probe((randn(rng, 64, h), 150, 4, False), f"a (64, {h}) table: 64 buckets, t_q = 150, t_k = 4, causal"),
        Probe(
            (randn(rng, 10, 1), 30, 30),
            "a (10, 1) table: 10 buckets, one head, t_q = t_k = 30, bidirectional by default",
        ),
    ]


# ---- references. The bucket's is self-contained (its imports inside): the grader compares with
# it, and root cause compiles its source in the sandbox. tests/grading/test_root_cause.py checks
# the compiled source, tests/assignments/test_reference_sources.py that it is
# solutions.positional.t5_relative_bucket.
def t5_bucket(rel_pos, bidirectional=True, num_buckets=32, max_distance=128):
    import math

    import torch

    rel_pos = torch.as_tensor(rel_pos)
    first_bucket = torch.zeros_like(rel_pos, dtype=torch.long)  # of the key's direction
    if bidirectional:
        num_buckets //= 2
        first_bucket = first_bucket + (rel_pos > 0).long() * num_buckets
        n = rel_pos.abs()
    else:
        n = (-rel_pos).clamp(min=0)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    # float32, like the T5 and Hugging Face code, so bucket boundaries agree with them exactly
    large = (
        max_exact
        + (torch.log(n.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)).long()
    )
    large = large.clamp(max=num_buckets - 1)
    return first_bucket + torch.where(is_small, n, large)


T5_BUCKET_SOURCE = FunctionSource.of(t5_bucket)


def t5_bias(table, t_q, t_k, bidirectional=True):
    return t5_bias_matrix(table, t_q, t_k, bidirectional, num_buckets=int(np.shape(table)[0]))


# ---- known-wrong answers: t5_bucket(rel_pos, bidirectional, num_buckets, max_distance)
def bucket(
    rel_pos,
    bidirectional=True,
    num_buckets=32,
    max_distance=128,
    *,
    flip=False,
    causal_abs=False,
    top=-1,
    exact_end=0,
    rounding=False,
    halve=True,
):
    """T5 bucketing with switches: ``flip`` uses query − key, ``causal_abs`` causal keeps |rel|
    (future keys not sent to bucket 0), ``top`` the last bucket is num_buckets + top,
    ``exact_end`` shifts the end of the exact range, ``rounding`` rounds the log bucket,
    ``halve=False`` does not split the buckets between the two directions."""
    rel = torch.as_tensor(rel_pos).to(torch.long)
    rel = -rel if flip else rel
    out = torch.zeros_like(rel)
    if bidirectional:
        if halve:
            num_buckets //= 2
        out = out + (rel > 0).long() * num_buckets
        n = rel.abs()
    else:
        n = rel.abs() if causal_abs else (-rel).clamp(min=0)
    max_exact = num_buckets // 2
    scaled = torch.log(n.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    large = max_exact + (torch.round(scaled) if rounding else scaled).long()
    large = large.clamp(max=num_buckets + top)
    return out + torch.where(n < max_exact + exact_end, n, large)


def bucket_variant(**kw):
    def wrong(rel_pos, bidirectional=True, num_buckets=32, max_distance=128):
        return bucket(rel_pos, bidirectional, num_buckets, max_distance, **kw)

    return wrong


# ---- known-wrong answers: t5_bias(table, t_q, t_k, bidirectional)
def bias(
    table,
    t_q,
    t_k,
    bidirectional=True,
    *,
    flip=False,
    heads_last=False,
    end_aligned=False,
    always_bidirectional=False,
    default_buckets=False,
    **bucket_kw,
):
    """The bias table[bucket(j − i), h] with switches; ``bucket_kw`` passes a mistake on to the
    buckets (a right t5_bias built on a wrong t5_bucket); ``default_buckets`` leaves the bucket
    count at 32 whatever the table's size (a smaller table then raises IndexError, as a
    student's would; a larger one gives wrong values)."""
    table = torch.as_tensor(table)
    q_pos = torch.arange(t_q) + (t_k - t_q if end_aligned else 0)
    rel = torch.arange(t_k)[None, :] - q_pos[:, None]
    n_buckets = 32 if default_buckets else table.shape[0]
    b = bucket(-rel if flip else rel, True if always_bidirectional else bidirectional, n_buckets, **bucket_kw)
    out = table[b]
    return out if heads_last else out.permute(2, 0, 1)


def bias_variant(**kw):
    def wrong(table, t_q, t_k, bidirectional=True):
        return bias(table, t_q, t_k, bidirectional, **kw)

    return wrong


QUESTIONS = [
    Question(
        grade_id="t5_bucket",
        answer="t5_bucket",
        title="T5's relative-position buckets",
        reference=t5_bucket,
        reference_source=T5_BUCKET_SOURCE,
        probes=bucket_probes,
        compare=IntegerArray(),
        visible=[
            Probe(
                (np.array([-300, -128, -127, -9, -8, -7, -1, 0, 1, 7, 8, 20, 127, 128, 300]), flag),
                "bidirectional" if flag else "causal",
            )
            for flag in (True, False)
        ],
        misconceptions=(
            Misconception("sign_convention", T5["flip"], bucket_variant(flip=True)),
            Misconception("causal_future_not_zero", T5["causal_abs"], bucket_variant(causal_abs=True)),
            Misconception("last_bucket_off_by_one", T5["top"], bucket_variant(top=0)),
            Misconception("log_boundary_off_by_one", T5["exact_end"], bucket_variant(exact_end=-1)),
            Misconception("rounded_log_bucket", T5["rounding"], bucket_variant(rounding=True)),
            Misconception("not_halved", T5["halve"], bucket_variant(halve=False)),
        ),
    ),
    Question(
        grade_id="t5_bias",
        answer="t5_bias",
        title="The per-head bias matrix",
        reference=t5_bias,
        depends_on=("t5_bucket",),
        probes=bias_probes,
        compare=AllClose(atol=1e-6, rtol=1e-6),
        visible=[
            Probe(
                (np.arange(64, dtype=np.float32).reshape(32, 2), 3, 4, True),
                "2 heads, table[b, h] = 2b + h",
                note="With table[b, h] = 2b + h the bias shows the buckets: head 0 holds 2·bucket.",
            )
        ],
        misconceptions=tuple(
            Misconception({"flip": "sign_convention"}.get(key, key), text, bias_variant(**{key: True}))
            for key, text in BIAS.items()
        )
        + tuple(
            Misconception(f"bucket_{name}", FROM_BUCKETS + T5[key], bias_variant(**{key: value}))
            for name, key, value in (
                ("causal_future_not_zero", "causal_abs", True),
                ("last_bucket_off_by_one", "top", 0),
                ("log_boundary_off_by_one", "exact_end", -1),
                ("rounded_log_bucket", "rounding", True),
            )
        ),
    ),
]
