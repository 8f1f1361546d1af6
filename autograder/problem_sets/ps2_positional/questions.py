"""PS2 — positional encodings (absolute, learned, relative): question specs.

Conventions stated to students in the notebook:
* PE[p, 2i] = sin(p·ω_i), PE[p, 2i+1] = cos(p·ω_i), ω_i = base^(−2i/d), pair index
  i = 0 … d/2 − 1 (sin on even columns, cos on odd ones — ``solutions.positional``'s layout);
  document 000's table (base 100, d = 4, positions 0, 1, 2) is a visible check.
* The factor base^(2i/d) (document 001: d = 512, i = 128 → 100, i = 255 → 9646.62) and the
  wavelength 2π·base^(2i/d) (001 prints the factor as the "period").
* M_k: PE(p + k) = M_k·PE(p), proved in ``solutions.derivations.positional_proofs``.
* Position interpolation (001, Chen et al. 2023): x = p·L/n_new, rows ⌊x⌋ and ⌊x⌋+1 mixed
  linearly, the last row held past the end (``solutions.encodings.position_interpolation``).
* T5 buckets with Hugging Face semantics, rel = key − query (``t5_relative_bucket``); the bias
  (h, t_q, t_k) with both positions from 0 (``t5_bias_matrix``).
* The similarity PE(p)·PE(p + Δ) = Σ cos(Δω_i) (SymPy identity in tests/test_encodings_ps2.py).
"""

import numpy as np

from autograder.judging.compare import AllClose, Choice, IntegerArray
from autograder.spec import Assignment, FunctionSource, Misconception, Probe, Question
from solutions.encodings import (position_interpolation, sinusoidal_frequencies, sinusoidal_shift_matrix,
                                 sinusoidal_similarity, sinusoidal_wavelengths, t5_bias_matrix)
from solutions.positional import sinusoidal_encoding, t5_relative_bucket

from . import mistakes as wrong

EXPONENT_SIGN = ("The frequencies must shrink along the vector: ω_i = base^(−2i/d), i.e. PE[p, 2i] = "
                 "sin(p / base^(2i/d)). With the exponent's sign lost (base^(+2i/d), document 000's error "
                 "in its RoPE angles: θ_2 = 10 instead of 0.1 at base 100, d = 4) the last pairs spin fastest "
                 "and the long wavelengths that tell far positions apart are gone.")
I_NOT_2I = ("The exponent is 2i/d for the pair index i = 0 … d/2 − 1 (it runs over the even column "
            "numbers 2i from 0 to d − 2). With i/d the frequencies only reach base^(−1/2): the factor 2 is "
            "missing.")
DIM_INDEX = ("There are d/2 frequencies, one per (sin, cos) pair — not d, one per column. Column 2i and "
             "column 2i+1 share ω_i = base^(−2i/d); using the column index j in base^(−2j/d) gives the "
             "cosine column a different frequency from its sine partner.")
SWAPPED = ("sin and cos are swapped: the even columns 2i hold sin(p·ω_i) and the odd columns 2i+1 hold "
           "cos(p·ω_i) (so PE[0] = [0, 1, 0, 1, …], as in document 000's first row).")
HALF_LAYOUT = ("Your table puts all sines first and all cosines after (the concatenated layout of some "
               "libraries). The notebook's convention interleaves them: column 2i = sin(p·ω_i), column "
               "2i+1 = cos(p·ω_i).")
COS_TYPO = ("Your cosine columns compute cos(p·d / base^(2i)) — document 000's formula has this typo, "
            "n^{2i}/d instead of n^{2i/d}. Both columns of pair i use the same divisor base^(2i/d); "
            "000's own table (cos(1/1), cos(1/10)) is computed with the right one.")
NO_2PI = ("That is the factor base^(2i/d), which document 001 prints as the \"period\". The period of "
          "sin(p / base^(2i/d)) in p is 2π·base^(2i/d): the wavelength needs the factor 2π.")
TRANSPOSED = ("Your M_k is the transpose of the right one, and the transpose shifts by −k: it maps "
              "PE(p) to PE(p − k). On the pair (sin pω, cos pω) the block is [[cos kω, sin kω], "
              "[−sin kω, cos kω]] — expand sin((p+k)ω) and cos((p+k)ω).")
OMEGA_ONE = ("Block i must turn by k·ω_i, with the pair's own frequency ω_i = base^(−2i/d); yours turns "
             "every block by k radians, as if all pairs had ω = 1.")
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
}
FROM_BUCKETS = "Your bias is assembled right, but the buckets come from a t5_bucket with a mistake (see 4a): "
FROM_PE = "Your dot products are taken right, but the encodings come from a sinusoidal_pe with a mistake (see 1a): "
SIM = {
    "normalised": "Return the raw dot product PE(p)·PE(p + Δ) (d/2 at Δ = 0), not the cosine similarity.",
    "offset": "Δ is a distance, not a position: compare PE(p) with PE(p + Δ), not with PE(Δ).",
}






PAST_OPTIONS = ("indexerror", "runtimeerror", "zeros", "last row", "wraps around")


def _randn(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


# ---- probes, drawn per student
def pe_probes(rng):
    probes = [Probe((int(n), int(d), float(b)), f"n_pos = {n}, d = {d}, base = {b:g}")
              for n, d, b in zip(rng.integers(5, 200, 4), rng.choice([4, 6, 8, 16, 64], 4, replace=False),
                                 rng.choice([100.0, 1000.0], 4))]
    n, d = int(rng.integers(5, 60)), int(rng.choice([10, 12]))
    return probes + [Probe((n, d), f"n_pos = {n}, d = {d}, base left at its default")]


def wavelength_probes(rng):
    probes = [Probe((int(d), float(b)), f"d = {d}, base = {b:g}")
              for d, b in zip(rng.choice([4, 8, 16, 128, 512], 3, replace=False), rng.choice([100.0, 1000.0], 3))]
    return probes + [Probe((int(rng.choice([6, 10, 32])),), "base left at its default")]


def shift_probes(rng):
    probes = [Probe((int(k), int(d), float(rng.choice([100.0, 1000.0]))), f"k = {k}, d = {d}")
              for k, d in zip((int(rng.integers(1, 50)), -int(rng.integers(1, 20)), int(rng.integers(2, 9)), 1),
                              (4, 6, 8, 16))]
    return probes + [Probe((int(rng.integers(2, 30)), 10), "d = 10, base left at its default")]


def interp_probes(rng):
    probes = []
    for factor in (2, 3, None):
        L, d = int(rng.integers(4, 17)), int(rng.integers(2, 7))
        n_new = L * factor if factor else L + int(rng.integers(1, L))
        probes.append(Probe((_randn(rng, L, d), n_new), f"L = {L} rows, n_new = {n_new}"))
    L = int(rng.integers(4, 10))
    probes.append(Probe((_randn(rng, L, 3), L), f"L = n_new = {L}"))
    return probes


def bucket_probes(rng):
    every = np.arange(-300, 301, dtype=np.int64)
    t = int(rng.integers(150, 260))
    pos_q, pos_k = np.sort(rng.integers(0, t, 12)), np.sort(rng.integers(0, t, 20))
    nb, md = [(16, 64), (64, 256), (8, 20)][int(rng.integers(0, 3))]
    return [Probe((every, True), "every offset in [−300, 300], bidirectional"),
            Probe((every, False), "every offset in [−300, 300], causal"),
            Probe((pos_k[None, :] - pos_q[:, None], bool(rng.integers(0, 2))), "a (12, 20) matrix of offsets"),
            Probe((every, True, nb, md), f"every offset, bidirectional, num_buckets = {nb}, max_distance = {md}"),
            Probe((every, False, nb, md), f"every offset, causal, num_buckets = {nb}, max_distance = {md}"),
            # half the buckets odd (bidirectional), an odd count (causal): integer division shows
            Probe((every, True, 10, 40), "every offset, bidirectional, num_buckets = 10, max_distance = 40"),
            Probe((every, False, 11, 50), "every offset, causal, num_buckets = 11, max_distance = 50"),
            Probe((every[::7],), "every 7th offset, every option left at its default")]


def bias_probes(rng):
    h = int(rng.integers(2, 5))
    t_q, t_k = int(rng.integers(3, 8)), int(rng.integers(8, 12))
    return [Probe((_randn(rng, 32, h), t_q, t_k, True), f"{h} heads, t_q = {t_q}, t_k = {t_k}, bidirectional"),
            Probe((_randn(rng, 32, h), t_q, t_k, False), f"{h} heads, t_q = {t_q}, t_k = {t_k}, causal"),
            Probe((_randn(rng, 32, h), 2, 200, True), f"{h} heads, t_q = 2, t_k = 200, bidirectional"),
            Probe((_randn(rng, 32, h), 40, 40, False), f"{h} heads, t_q = t_k = 40, causal"),
            Probe((_randn(rng, 32, h), t_k, t_q), f"{h} heads, t_q = {t_k}, t_k = {t_q}, bidirectional by default")]


def similarity_probes(rng):
    probes = [Probe((int(rng.integers(1, 200)), np.arange(0, 80, dtype=np.int64), int(d), float(b)),
                    f"distances 0 … 79, d = {d}, base = {b:g}")
              for d, b in zip(rng.choice([8, 16, 64, 128], 2, replace=False), (1000.0, 100.0))]
    # the notebook promises distances >= 0 (PE has no negative positions): scattered, not 0 … 79
    distances = np.sort(rng.choice(np.arange(0, 240), 25, replace=False)).astype(np.int64)
    return probes + [Probe((int(rng.integers(1, 200)), distances, 32), "25 scattered distances, d = 32, base default")]


# ---- root cause across questions: references other answers call, as self-contained source
# (compiled in the sandbox with only torch, np and math in scope; tests/test_root_cause.py checks
# them against the references on the hidden probes). `t5_bias` calls the student's `t5_bucket`,
# `pe_similarity` their `sinusoidal_pe` (the notebook says "Use your `sinusoidal_pe`").
SINUSOIDAL_PE_SOURCE = FunctionSource('''
def sinusoidal_pe(n_pos, d, base=10000.0):
    pos = torch.arange(int(n_pos), dtype=torch.float64)[:, None]
    inv_freq = float(base) ** (-torch.arange(0, int(d), 2, dtype=torch.float64) / int(d))
    pe = torch.zeros(int(n_pos), int(d), dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos * inv_freq)
    pe[:, 1::2] = torch.cos(pos * inv_freq)
    return pe.to(torch.float32)
''', "sinusoidal_pe")

T5_BUCKET_SOURCE = FunctionSource('''
def t5_bucket(rel_pos, bidirectional=True, num_buckets=32, max_distance=128):
    rel_pos = torch.as_tensor(rel_pos)
    bucket = torch.zeros_like(rel_pos, dtype=torch.long)
    if bidirectional:
        num_buckets //= 2
        bucket = bucket + (rel_pos > 0).long() * num_buckets
        n = rel_pos.abs()
    else:
        n = (-rel_pos).clamp(min=0)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    large = max_exact + (torch.log(n.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).long()
    large = large.clamp(max=num_buckets - 1)
    return bucket + torch.where(is_small, n, large)
''', "t5_bucket")


# ---- references
def sinusoidal_pe(n_pos, d, base=10000.0):
    return sinusoidal_encoding(n_pos, d, base)


def factors_001():
    return (1 / sinusoidal_frequencies(512, 10000.0))[[0, 128, 255]]


def interp_ref(table, n_new):
    return position_interpolation(table, n_new)


def t5_bias(table, t_q, t_k, bidirectional=True):
    return t5_bias_matrix(table, t_q, t_k, bidirectional)


def _pe_mis(name, feedback, **kw):
    return Misconception(name, feedback, wrong.pe_variant(**kw))


ASSIGNMENT = Assignment(
    name="ps2_positional",
    notebook="ps2_positional.ipynb",
    questions=[
        Question(
            grade_id="sinusoidal_pe", answer="sinusoidal_pe", title="Sinusoidal PE for any base and d",
            points=3, reference=sinusoidal_pe, reference_source=SINUSOIDAL_PE_SOURCE, probes=pe_probes, compare=AllClose(atol=2e-4, rtol=1e-4),
            visible=[Probe((3, 4, 100.0), "base 100, d = 4, positions 0, 1, 2",
                           note="Document 000's table: [0, 1, 0, 1], [0.84, 0.54, 0.10, 1.0], [0.91, −0.42, 0.20, 0.98]."),
                     Probe((2, 8, 10000.0), "base 10000, d = 8")],
            misconceptions=(
                _pe_mis("exponent_sign", EXPONENT_SIGN, sign=+1),
                _pe_mis("sin_cos_swapped", SWAPPED, swap=True),
                _pe_mis("i_not_2i", I_NOT_2I, factor=1),
                _pe_mis("d_not_d_half", DIM_INDEX, dim_index=True),
                _pe_mis("half_layout", HALF_LAYOUT, layout="half"),
                _pe_mis("cos_typo_000", COS_TYPO, cos_typo=True),
            ),
        ),
        Question(
            grade_id="factors_001", answer="factors_001", title="Document 001's factors", points=1, call=False,
            reference=factors_001, compare=AllClose(atol=1e-6, rtol=1e-5),
            misconceptions=(
                Misconception("div_term", "These are document 001's div_term values base^(−2i/d), the inverse of "
                              "the factors: the factor base^(2i/d) grows from 1 to ≈ 9646.62.",
                              lambda: wrong.factors_001()),
                Misconception("i_not_2i", I_NOT_2I, lambda: 1 / wrong.factors_001(factor=1)),
                Misconception("wavelength", "That is 2π times the factor (the wavelength, question 1c); the "
                              "factor itself is base^(2i/d): 1, 100, 9646.62.",
                              lambda: 2 * np.pi / wrong.factors_001()),
            ),
        ),
        Question(
            grade_id="wavelengths", answer="sinusoidal_wavelengths", title="Wavelengths of the sinusoidal PE", points=1,
            reference=sinusoidal_wavelengths, probes=wavelength_probes, compare=AllClose(atol=1e-6, rtol=1e-5),
            visible=[Probe((4, 100.0), "d = 4, base = 100", note="2π and 20π: pair 1 repeats every ≈ 62.8 positions.")],
            misconceptions=(
                Misconception("no_2pi", NO_2PI, wrong.wavelength_variant(two_pi=False)),
                Misconception("exponent_sign", EXPONENT_SIGN, wrong.wavelength_variant(sign=+1)),
                Misconception("i_not_2i", I_NOT_2I, wrong.wavelength_variant(factor=1)),
            ),
        ),
        Question(
            grade_id="shift_matrix", answer="shift_matrix", title="The shift PE(p) → PE(p + k) is linear",
            points=2, reference=sinusoidal_shift_matrix, probes=shift_probes, compare=AllClose(atol=1e-5, rtol=1e-4),
            visible=[Probe((1, 4, 100.0), "k = 1, d = 4, base 100")],
            misconceptions=(
                Misconception("transposed", TRANSPOSED, wrong.shift_transposed),
                Misconception("exponent_sign", EXPONENT_SIGN, wrong.shift_variant(sign=+1)),
                Misconception("i_not_2i", I_NOT_2I, wrong.shift_variant(factor=1)),
                Misconception("omega_one", OMEGA_ONE, wrong.shift_variant(omega_one=True)),
            ),
        ),
        Question(
            grade_id="past_lmax", answer="past_lmax", title="A learned table past L_max", points=1, call=False,
            reference=lambda: "indexerror", compare=Choice(PAST_OPTIONS),
            misconceptions=tuple(
                Misconception(name, f"An nn.Embedding with L_max rows has rows 0 … L_max − 1 only, and it does "
                              f"not {what}: looking up row L_max raises IndexError (\"index out of range in "
                              f"self\") on the CPU — run it. (On a GPU the same lookup fails with a device-side "
                              f"assert.) Position L_max has no learned vector at all.", (lambda v=value: v))
                for name, value, what in (("runtime_error", "runtimeerror", "fail with a RuntimeError on the CPU"),
                                          ("zeros", "zeros", "pad with zeros"),
                                          ("last_row", "last row", "fall back to the last row"),
                                          ("wraps", "wraps around", "wrap around to row 0"))),
        ),
        Question(
            grade_id="interpolate", answer="interpolate_table", title="Position interpolation", points=3,
            reference=interp_ref, probes=interp_probes, compare=AllClose(atol=1e-5, rtol=1e-4),
            visible=[Probe((np.arange(8, dtype=np.float32).reshape(4, 2), 8), "L = 4 rows [[0, 1], …, [6, 7]], n_new = 8",
                           note="α = 1/2: even positions hit the rows, odd ones the midpoints; x = 3.5 holds the last row.")],
            misconceptions=tuple(Misconception(name, text, wrong.interpolate_variant(
                **({"alpha": "corners"} if name == "corners" else {"mode": name}))) for name, text in INTERP.items()),
        ),
        Question(
            grade_id="t5_bucket", answer="t5_bucket", title="T5's relative-position buckets", points=3,
            reference=t5_relative_bucket, reference_source=T5_BUCKET_SOURCE, probes=bucket_probes,
            compare=IntegerArray(),
            visible=[Probe((np.array([-300, -128, -127, -9, -8, -7, -1, 0, 1, 7, 8, 20, 127, 128, 300]), flag),
                           "bidirectional" if flag else "causal") for flag in (True, False)],
            misconceptions=(
                Misconception("sign_convention", T5["flip"], wrong.bucket_variant(flip=True)),
                Misconception("causal_future_not_zero", T5["causal_abs"], wrong.bucket_variant(causal_abs=True)),
                Misconception("last_bucket_off_by_one", T5["top"], wrong.bucket_variant(top=0)),
                Misconception("log_boundary_off_by_one", T5["exact_end"], wrong.bucket_variant(exact_end=-1)),
                Misconception("rounded_log_bucket", T5["rounding"], wrong.bucket_variant(rounding=True)),
                Misconception("not_halved", T5["halve"], wrong.bucket_variant(halve=False)),
            ),
        ),
        Question(
            grade_id="t5_bias", answer="t5_bias", title="The per-head bias matrix", points=2,
            reference=t5_bias, depends_on=("t5_bucket",), probes=bias_probes, compare=AllClose(atol=1e-6, rtol=1e-6),
            visible=[Probe((np.arange(64, dtype=np.float32).reshape(32, 2), 3, 4, True), "2 heads, table[b, h] = 2b + h",
                           note="With table[b, h] = 2b + h the bias shows the buckets: head 0 holds 2·bucket.")],
            misconceptions=tuple(Misconception({"flip": "sign_convention"}.get(key, key), text,
                                               wrong.bias_variant(**{key: True})) for key, text in BIAS.items())
            + tuple(Misconception(f"bucket_{name}", FROM_BUCKETS + T5[key], wrong.bias_variant(**{key: value}))
                    for name, key, value in (("causal_future_not_zero", "causal_abs", True),
                                             ("last_bucket_off_by_one", "top", 0),
                                             ("log_boundary_off_by_one", "exact_end", -1),
                                             ("rounded_log_bucket", "rounding", True))),
        ),
        Question(
            grade_id="similarity", answer="pe_similarity", title="Similarity vs distance", points=2,
            reference=sinusoidal_similarity, depends_on=("sinusoidal_pe",), probes=similarity_probes,
            compare=AllClose(atol=2e-3, rtol=1e-4),
            visible=[Probe((5, np.array([0, 1, 2, 10, 50]), 4, 100.0), "p = 5, d = 4, base 100")],
            misconceptions=(
                Misconception("exponent_sign", EXPONENT_SIGN, wrong.similarity_variant(sign=+1)),
                Misconception("i_not_2i", I_NOT_2I, wrong.similarity_variant(factor=1)),
                Misconception("normalised", SIM["normalised"], wrong.similarity_variant(normalised=True)),
                Misconception("offset_as_position", SIM["offset"], wrong.similarity_variant(offset_as_position=True)),
                Misconception("pe_d_not_d_half", FROM_PE + DIM_INDEX, wrong.similarity_from_table(dim_index=True)),
                Misconception("pe_cos_typo_000", FROM_PE + COS_TYPO, wrong.similarity_from_table(cos_typo=True)),
            ),
        ),
    ],
)
