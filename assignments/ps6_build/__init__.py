"""PS6 — build a transformer: the problem set the kit imports.

Students write the pieces as plain functions (their classes are free); the grader calls them
through functional signatures with weights and inputs as tensors, in ``nn.Linear`` layout
(out, in). Masks: bool, True = may attend; a query with no allowed key gets zero attention
weights (its heads output 0; the layer returns b_o there). References: built on ``solutions/``
(attention, layers, decoding). Where one answer calls
another (the layers call ``layer_norm``, ``feed_forward``, ``multi_head_attention``,
``causal_mask``; ``sample_tokens`` calls ``next_token_probs``) the dependency is declared, and the
called answer's reference is one self-contained function whose source (``FunctionSource.of``)
the sandbox binds in its place when re-asking the caller (root cause).

One module per question (or group of closely related questions), each with its reference,
probes, visible examples, known mistakes and feedback, and its ``QUESTIONS``:

* ``layer_norm``     part 1, LayerNorm (``layer_norm``)
* ``feed_forward``   part 2, the position-wise FFN (``feed_forward``)
* ``attention``      part 3, multi-head attention (``multi_head_attention``)
* ``masks``          part 4, the causal and key padding masks (``causal_mask``, ``padding_mask``)
* ``translation_steps`` part 4a (b), 001's "Ich liebe dich": what each decoder step may attend to
* ``mask_bugs``      part 4b, documents 001's and 003's mask bugs predicted, and ``masked_softmax``
* ``dropout``        part 4c, inverted dropout on the attention weights (``attention_dropout``)
* ``encoder_layer``  part 5, a Pre-LN encoder layer (``encoder_layer``)
* ``bank_context``   part 5a, 001's "bank": does its vector change with its place or its context?
* ``decoder_layer``  part 6, a Pre-LN decoder layer (``decoder_layer``)
* ``decoding``       parts 7 and 9, greedy decoding and beam search on ``tiny_lm``'s fixed model
* ``kv_cache``       part 7b, attention with a KV cache (``attend_with_cache``) and its size
* ``sampling``       part 8, temperature / top-k / top-p and seeded sampling
* ``training``       part 10, training the copy and addition tasks (graded by exact-match accuracy)

Shared: ``common`` (the probes' random tensors and the visible examples' fixed stream),
``tiny_lm`` (the tiny language model the decoding questions run on).

Points come from the notebook's grade cells. The notebook runs its cells, then every question in
one sandboxed process: ``cpu_s`` must cover the two training budgets on top of everything else
(single-threaded: CPU ≤ wall time).
"""

from autograder.authoring import Assignment

from . import (
    attention,
    bank_context,
    decoder_layer,
    decoding,
    dropout,
    encoder_layer,
    feed_forward,
    kv_cache,
    layer_norm,
    mask_bugs,
    masks,
    sampling,
    training,
    translation_steps,
)

ASSIGNMENT = Assignment(
    name="ps6_build",
    notebook="ps6_build.ipynb",
    questions=[
        *layer_norm.QUESTIONS,
        *feed_forward.QUESTIONS,
        *attention.QUESTIONS,
        *masks.QUESTIONS,
        *translation_steps.QUESTIONS,
        *mask_bugs.QUESTIONS,
        *dropout.QUESTIONS,
        *encoder_layer.QUESTIONS,
        *bank_context.QUESTIONS,
        *decoder_layer.QUESTIONS,
        *decoding.QUESTIONS,  # greedy_decode, beam_search: the loader puts them in notebook order
        *kv_cache.QUESTIONS,
        *sampling.QUESTIONS,
        *training.QUESTIONS,
    ],
    cpu_s=770,  # the two training budgets, every other question's limit, and 60 s for the cells
)
