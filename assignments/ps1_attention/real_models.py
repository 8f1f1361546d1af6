"""Part 4c, real models against their papers (BERT-base, GPT-2 small, Transformer base): the
counts from ``solutions.derivations.param_counts``, the known-wrong counts and their feedback."""

from autograder.authoring import Exact, Misconception, Question
from solutions.derivations import param_counts as pc

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
        ),
    ),
]
