"""Part 3, the shapes through an encoder-decoder at the student's own configuration: the
reference (``solutions.shapes``), the known-wrong shape tables and their feedback."""

from autograder.authoring import Exact, Misconception, Question
from solutions.shapes import encoder_decoder_shapes


def shapes_reference(batch, src_len, tgt_len, d_model, n_heads, d_ff_factor, vocab, **_):
    """The shape table; ``vocab`` is the vocabulary size |𝒱| (V is the value matrix)."""
    shapes = encoder_decoder_shapes(batch, src_len, tgt_len, d_model, n_heads, d_ff_factor * d_model, vocab)
    return {name: list(shape) for name, shape in shapes.items()}


def _shapes_with(**changes):
    """A known-wrong shape table: the reference with some entries replaced by f(B, S, T, d, h)."""

    def wrong(**params):
        shapes = shapes_reference(**params)
        dims = [params[k] for k in ("batch", "src_len", "tgt_len", "d_model", "n_heads")]
        shapes.update({name: list(make(*dims)) for name, make in changes.items()})
        return shapes

    return wrong


QUESTIONS = [
    Question(
        grade_id="shapes",
        answer="shapes",
        title="Shapes through an encoder-decoder",
        call=False,
        personal=True,
        reference=shapes_reference,
        compare=Exact(),
        misconceptions=(
            Misconception(
                "ffn_narrows",
                "The FFN widens the model to d_ff = 4·d_model (as in the "
                "original paper); it does not narrow to d/2 as document 000's answer does.",
                _shapes_with(ffn_hidden=lambda B, S, T, d, h: (B, S, d // 2)),
            ),
            Misconception(
                "heads_not_split",
                "A per-head tensor holds one head's share of the model width: d_model is split across "
                "the heads, not copied to each.",
                _shapes_with(encoder_q_per_head=lambda B, S, T, d, h: (B, h, S, d)),
            ),
            Misconception(
                "decoder_ffn_on_source",
                "The decoder's FFN acts on the decoder's own positions: its hidden layer has the "
                "target length, not the source length.",
                _shapes_with(decoder_ffn_hidden=lambda B, S, T, d, h: (B, S, 4 * d)),
            ),
            Misconception(
                "cross_attention_lengths",
                "Cross-attention scores are (B, h, T_target, T_source): "
                "queries come from the decoder, keys from the encoder.",
                _shapes_with(cross_scores=lambda B, S, T, d, h: (B, h, S, T)),
            ),
        ),
    ),
]
