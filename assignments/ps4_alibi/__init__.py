"""PS4 — ALiBi (attention with linear biases): the problem set the kit imports.

Conventions stated to students in the notebook: heads h = 1 … n; query i, key j (0-based);
causal attention adds m_h·(j − i) ≤ 0 for j ≤ i and −inf above the diagonal; scores are
scaled by 1/√d before the bias is added. Document 000 (Q4.5) describes the slope as "a
predefined constant, e.g. 0.4" that "normalises the scores into 0–1", and says the term
differs per head: the ``free_constant`` misconceptions name the first part. References:
``solutions.positional.alibi_slopes`` and ``solutions.encodings``. Part 8's paragraph (3
points) is graded by hand; its rubric is in the source notebook.

One module per question (or group of closely related questions), each with its reference,
probes, visible examples, known mistakes and feedback, and its ``QUESTIONS``:

* ``slopes``           part 1, the slopes m_h (``alibi_slopes``)
* ``bias``             part 2, the causal bias matrix (``alibi_causal_bias``)
* ``attention``        part 3, causal attention with ALiBi (``alibi_attention``)
* ``shift_invariance`` parts 4–5, m·(j − i) − m·j, whether the softmax changes, and the
                       bidirectional bias −m·|j − i|
* ``profile``          part 6, where the last query looks (``alibi_profile``)
* ``beyond``           part 7, attention at distances never seen in training
                       (``alibi_share_unseen``, ``heads_past_training_length``)
* ``relative_learned`` part 9, document 001's learned relative positions: a vector per
                       clipped offset added to the keys (``relative_key_scores``) and a scalar
                       b ∈ R^{2K+1} per clipped offset (``clipped_bias_scores``)

Points come from the notebook's grade cells.
"""

from autograder.authoring import Assignment

from . import attention, beyond, bias, profile, relative_learned, shift_invariance, slopes

ASSIGNMENT = Assignment(
    name="ps4_alibi",
    notebook="ps4_alibi.ipynb",
    questions=[
        *slopes.QUESTIONS,
        *bias.QUESTIONS,
        *attention.QUESTIONS,
        *shift_invariance.QUESTIONS,
        *profile.QUESTIONS,
        *beyond.QUESTIONS,
        *relative_learned.QUESTIONS,
    ],
)
