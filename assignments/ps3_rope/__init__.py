"""PS3 — rotary position embeddings (RoPE): the problem set the kit imports.

Conventions stated to students in the notebook:
* θ_i = base^(−2(i−1)/d) for the pair index i = 1 … d/2 (radians); position m rotates pair i
  by the angle m·θ_i.
* ``"interleaved"`` (RoFormer, homework Q4): pairs (x_0, x_1), (x_2, x_3), …;
  ``"half"`` (GPT-NeoX, Hugging Face ``rotate_half``): pairs (x_i, x_{i+d/2}). Meta's LLaMA
  code pairs interleaved (complex multiplication of adjacent pairs); only the Hugging Face port
  uses ``rotate_half``, after permuting the rows of W_Q/W_K once (part 5).
* R_{Θ,m} is the interleaved matrix: block i is [[cos mθ_i, −sin mθ_i], [sin mθ_i, cos mθ_i]].

Document 000 (Q4.4) writes θ_i = 100^(2(i−1)/d): the lost minus sign gives θ_2 = 10 instead
of 0.1 — the ``exponent_sign`` misconceptions carry that feedback. References come from
``solutions.positional`` / ``solutions.encodings``; the identities are proved in
``solutions.derivations.positional_proofs``.

One module per question (or group of closely related questions), each with its reference,
probes, visible examples, known mistakes and feedback, and its ``QUESTIONS``:

* ``thetas``           the frequencies θ_i, which pair turns fastest (``rope_thetas``, ``fastest_pair``)
* ``rotation_matrix``  document 000's worked example and R_{Θ,m} (``R_worked``, ``rope_matrix``)
* ``worked_errors``    the errors of 000's worked example, judged statement by statement (``worked_errors``)
* ``geometry``         what a rotation keeps: the angle per pair, 004's claim (``rotation_angles``, ``norm_claim``)
* ``apply_rope``       RoPE in both conventions (``apply_rope``)
* ``complex_form``     001's complex form x ⊙ e^{imθ} and position interpolation for RoPE
                       (``apply_rope_complex``, ``rope_interpolated``)
* ``permutation``      from one convention to the other (``rope_permutation``)
* ``relative_scores``  scores depend on n − m only (``score_formula``, ``score_from_offset``)
* ``attention``        causal attention with RoPE (``rope_attention``)
* ``kv_cache``         a decoding step from rotated cached keys, the cache's size
                       (``decode_scores``, ``kv_cache_bytes``)
* ``common``           the feedback shared by several parts and one parametrised wrong RoPE

Points come from the notebook's grade cells.
"""

from autograder.authoring import Assignment

from . import (
    apply_rope,
    attention,
    complex_form,
    geometry,
    kv_cache,
    permutation,
    relative_scores,
    rotation_matrix,
    thetas,
    worked_errors,
)

ASSIGNMENT = Assignment(
    name="ps3_rope",
    notebook="ps3_rope.ipynb",
    questions=[
        *thetas.QUESTIONS,
        *rotation_matrix.QUESTIONS,
        *worked_errors.QUESTIONS,
        *geometry.QUESTIONS,
        *apply_rope.QUESTIONS,
        *complex_form.QUESTIONS,
        *permutation.QUESTIONS,
        *relative_scores.QUESTIONS,
        *attention.QUESTIONS,
        *kv_cache.QUESTIONS,
    ],
)
