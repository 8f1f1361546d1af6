"""PS2 — positional encodings (absolute, learned, relative): the problem set the kit imports.

Conventions stated to students in the notebook:
* PE[p, 2i] = sin(p·ω_i), PE[p, 2i+1] = cos(p·ω_i), ω_i = base^(−2i/d), pair index
  i = 0 … d/2 − 1 (sin on even columns, cos on odd ones — ``solutions.positional``'s layout);
  document 000's table (base 100, d = 4, positions 0, 1, 2) is a visible check.
* The factor base^(2i/d) (document 001: d = 512, i = 128 → 100, i = 255 → 9646.62) and the
  wavelength 2π·base^(2i/d) (001 prints the factor as the "period").
* M_k: PE(p + k) = M_k·PE(p), proved in ``solutions.derivations.positional_proofs``.
* Interpolating a learned table (document 001, which credits it to Chen et al. 2023; their
  Position Interpolation rescales RoPE's position indices instead): x = p·L/n_new, rows ⌊x⌋ and ⌊x⌋+1 mixed
  linearly, the last row held past the end (``solutions.encodings.position_interpolation``).
* T5 buckets with Hugging Face semantics, rel = key − query (``t5_relative_bucket``); the bias
  (h, t_q, t_k) with both positions from 0 (``t5_bias_matrix``).
* The similarity PE(p)·PE(p + Δ) = Σ cos(Δω_i) (SymPy identity in tests/solutions/test_encodings.py).

One module per question (or group of closely related questions), each with its reference,
probes, visible examples, known mistakes and feedback, and its ``QUESTIONS``:

* ``encodings``      the sinusoidal table, document 001's factors, the wavelengths
                     (``sinusoidal_pe``, ``factors_001``, ``wavelengths``)
* ``table_readings`` which entries document 000's cosine typo changes, how far below its printed
                     1.0 the entry cos(1/10) lies, the wavelengths' range
                     (``typo_entries``, ``cos_one_tenth_gap``, ``wavelength_range``)
* ``shift``          the shift matrix M_k (``shift_matrix``)
* ``learned_table``  a learned table past L_max, position interpolation (``past_lmax``, ``interpolate``)
* ``t5_buckets``     T5's buckets and the per-head bias (``t5_bucket``, ``t5_bias``)
* ``similarity``     similarity vs distance, its d = 4 formula, where it first rises
                     (``similarity``, ``similarity_formula``, ``first_rise``)
* ``common``         the frequency feedback shared by several parts, a parametrised wrong table

Points come from the notebook's grade cells.
"""

from autograder.authoring import Assignment

from . import encodings, learned_table, shift, similarity, t5_buckets, table_readings

ASSIGNMENT = Assignment(
    name="ps2_positional",
    notebook="ps2_positional.ipynb",
    questions=[
        *encodings.QUESTIONS,
        *table_readings.QUESTIONS,
        *shift.QUESTIONS,
        *learned_table.QUESTIONS,
        *t5_buckets.QUESTIONS,
        *similarity.QUESTIONS,
    ],
)
