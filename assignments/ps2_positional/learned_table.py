"""Part 3, a learned position table: what happens past L_max (3a) and position interpolation
(3b; document 001, Chen et al. 2023: x = p·L/n_new, rows ⌊x⌋ and ⌊x⌋+1 mixed linearly, the last
row held past the end) — the references, the probes, the known-wrong answers and their
feedback."""

import numpy as np
import torch

from autograder.authoring import AllClose, Choice, Misconception, Probe, Question
from solutions.encodings import position_interpolation

from .common import randn

PAST_OPTIONS = ("indexerror", "runtimeerror", "zeros", "last row", "wraps around")
INTERP = {
    "floor": "The rows are not mixed: position p must land between rows ⌊x⌋ and ⌊x⌋ + 1 (x = p·L/n_new) "
    "and take P[⌊x⌋] + (x − ⌊x⌋)(P[⌊x⌋+1] − P[⌊x⌋]); yours returns P[⌊x⌋] (a staircase).",
    "round": "Rounding x = p·L/n_new to the nearest row is nearest-neighbour lookup, not interpolation: "
    "mix the two neighbouring rows linearly with weight x − ⌊x⌋.",
    "corners": "x = p·L/n_new (α = L_train/L_new, document 001 and Chen et al.), not p·(L − 1)/(n_new − 1): "
    "yours stretches the positions so the last one lands exactly on the last row.",
    "clamp": "Holding the last row for every position past L − 1 is not interpolation: all those positions "
    "get the same vector and the model cannot tell them apart. Squeeze the positions into the "
    "trained range, x = p·L/n_new, and interpolate between rows.",
    "wrap": "Wrapping around (p mod L) gives position L the vector of position 0: far positions are "
    "confused with the first ones. Squeeze the positions into the trained range, x = p·L/n_new, and "
    "interpolate between rows.",
    "unheld": "Document 001's formula P[⌊x⌋] + (x − ⌊x⌋)(P[⌊x⌋+1] − P[⌊x⌋]) reads row ⌊x⌋ + 1 = L for the "
    "last positions (x > L − 1), a row the table does not have: hold the last row there "
    "(use P[min(⌊x⌋ + 1, L − 1)], as numpy.interp does).",
}


# ---- probes, drawn per student
def interp_probes(rng):
    probes = []
    for factor in (2, 3, None):
        L, d = int(rng.integers(4, 17)), int(rng.integers(2, 7))
        n_new = L * factor if factor else L + int(rng.integers(1, L))
        probes.append(Probe((randn(rng, L, d), n_new), f"L = {L} rows, n_new = {n_new}"))
    L = int(rng.integers(4, 10))
    probes.append(Probe((randn(rng, L, 3), L), f"L = n_new = {L}"))
    return probes


# ---- reference
def interp_ref(table, n_new):
    return position_interpolation(table, n_new)


# ---- known-wrong answers: interpolate_table(table, n_new)
def interpolate(table, n_new, *, mode="linear", alpha=None):
    """Rows for positions 0 … n_new − 1 of an (L, d) table: ``mode`` "floor" | "round" (no
    mixing), "clamp" (P[min(p, L−1)]), "wrap" (P[p mod L]), "unheld" (001's formula verbatim, no
    last row held); ``alpha`` "corners" maps 0 → 0 and n_new − 1 → L − 1."""
    table = torch.as_tensor(table).to(torch.float64)
    L = table.shape[0]
    p = torch.arange(n_new, dtype=torch.float64)
    if mode == "clamp":
        return table[p.long().clamp(max=L - 1)]
    if mode == "wrap":
        return table[p.long() % L]
    x = p * ((L - 1) / max(n_new - 1, 1) if alpha == "corners" else L / n_new)
    if mode == "floor":
        return table[x.floor().long().clamp(max=L - 1)]
    if mode == "round":
        return table[torch.round(x).long().clamp(max=L - 1)]
    lo = x.floor().long().clamp(max=L - 1)
    hi = lo + 1 if mode == "unheld" else (lo + 1).clamp(max=L - 1)  # "unheld": IndexError at the end
    return table[lo] + (x - lo).clamp(max=1.0)[:, None] * (table[hi] - table[lo])


def interpolate_variant(**kw):
    def wrong(table, n_new):
        return interpolate(table, n_new, **kw)

    return wrong


QUESTIONS = [
    Question(
        grade_id="past_lmax",
        answer="past_lmax",
        title="A learned table past L_max",
        call=False,
        reference=lambda: "indexerror",
        compare=Choice(PAST_OPTIONS),
        misconceptions=tuple(
            Misconception(
                name,
                f"An nn.Embedding with L_max rows has rows 0 … L_max − 1 only, and it does "
                f'not {what}: looking up row L_max raises IndexError ("index out of range in '
                f'self") on the CPU — run it. (On a GPU the same lookup fails with a device-side '
                f"assert.) Position L_max has no learned vector at all.",
                (lambda v=value: v),
            )
            for name, value, what in (
                ("runtime_error", "runtimeerror", "fail with a RuntimeError on the CPU"),
                ("zeros", "zeros", "pad with zeros"),
                ("last_row", "last row", "fall back to the last row"),
                ("wraps", "wraps around", "wrap around to row 0"),
            )
        ),
    ),
    Question(
        grade_id="interpolate",
        answer="interpolate_table",
        title="Position interpolation",
        reference=interp_ref,
        probes=interp_probes,
        compare=AllClose(atol=1e-5, rtol=1e-4),
        visible=[
            Probe(
                (np.arange(8, dtype=np.float32).reshape(4, 2), 8),
                "L = 4 rows [[0, 1], …, [6, 7]], n_new = 8",
                note="α = 1/2: even positions hit the rows, odd ones the midpoints; x = 3.5 holds the last row.",
            )
        ],
        misconceptions=tuple(
            Misconception(
                name, text, interpolate_variant(**({"alpha": "corners"} if name == "corners" else {"mode": name}))
            )
            for name, text in INTERP.items()
        ),
    ),
]
