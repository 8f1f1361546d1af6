"""Part 4c, real models against their papers (BERT-base, GPT-2 small, Transformer base): the
counts from ``solutions.derivations.param_counts``, the known-wrong counts and their feedback."""

from autograder.authoring import Exact, Misconception, Question
from solutions.derivations import param_counts as pc

# its one vocabulary table: 37000 tokens × d_model (one token more adds a row of d_model)
TRANSFORMER_BASE_TABLE = 37000 * int(pc.transformer_base(V=37001) - pc.transformer_base())


def _with_transformer_tables(tables, gpt2_tied=True):
    """The right counts, but Transformer-base with ``tables`` vocabulary tables instead of one
    (and GPT-2's head untied unless ``gpt2_tied``)."""
    return {
        "bert_base": int(pc.bert()),
        "gpt2_small": int(pc.gpt2(tied_head=gpt2_tied)),
        "transformer_base": int(pc.transformer_base()) + (tables - 1) * TRANSFORMER_BASE_TABLE,
    }


QUESTIONS = [
    Question(
        grade_id="real_models",
        answer="real_models",
        title="Real models against their papers",
        call=False,
        compare=Exact(),
        reference=lambda: {
            "bert_base": int(pc.bert()),
            "gpt2_small": int(pc.gpt2()),
            "transformer_base": int(pc.transformer_base()),
        },
        misconceptions=(
            Misconception(
                "bert_without_pooler",
                "BERT-base's 110M includes the pooler (a d×d linear with bias on [CLS]): count it.",
                lambda: {
                    "bert_base": int(pc.bert(pooler=False)),
                    "gpt2_small": int(pc.gpt2()),
                    "transformer_base": int(pc.transformer_base()),
                },
            ),
            Misconception(
                "gpt2_untied_head",
                "GPT-2 ties its LM head to the token embedding: no extra vocabulary × d table.",
                lambda: {
                    "bert_base": int(pc.bert()),
                    "gpt2_small": int(pc.gpt2(tied_head=False)),
                    "transformer_base": int(pc.transformer_base()),
                },
            ),
            Misconception(
                "transformer_base_untied",
                "Transformer-base's weights are tied (stated above): one embedding table serves source, "
                "target and the output projection — yours counts a table more than once.",
                lambda: _with_transformer_tables(2),
                also_wrong=lambda: [_with_transformer_tables(3)],  # source, target and output apart
            ),
            Misconception(
                "weight_tying_ignored",
                "Your counts ignore weight tying: GPT-2's LM head is its token table, and Transformer-base "
                "has one table for source, target and output projection (stated above) — a tied matrix "
                "is counted once.",
                lambda: _with_transformer_tables(2, gpt2_tied=False),
                also_wrong=lambda: [_with_transformer_tables(3, gpt2_tied=False)],
            ),
        ),
    ),
]
