"""Part 4a (b), document 001's masked self-attention example (``translation_steps_001``): 001 writes
that when translating "I love you", after "Ich" the step that generates "dich" cannot consider
the not-yet-generated token "liebe" — but in "Ich liebe dich" "liebe" comes *before* "dich". The
student lists, for the decoder input ``<bos> Ich liebe dich``, which input tokens the step that
generates each target token may attend to, and which the causal mask hides from the position that
predicts "dich" when teacher forcing feeds the whole input at once. The reference reads both off
``solutions.attention.causal_mask``; the known mistakes are the same table built from a wrong
mask or a wrong alignment of steps and positions."""

from autograder.authoring import Exact, Misconception, Question
from solutions.attention import causal_mask

DECODER_INPUT = ("<bos>", "Ich", "liebe", "dich")
TARGET = ("Ich", "liebe", "dich", "<eos>")  # position i of the decoder predicts TARGET[i]
ASKED = "dich"


def steps_table(allowed, inputs=DECODER_INPUT):
    """{"may_attend": target token -> the input tokens its step may attend to (in input order),
    "hidden_in_training": the input tokens hidden from the position that predicts "dich"} for a
    mask ``allowed(i, j)``: may the position that predicts TARGET[i] attend to input j?"""
    n = len(inputs)
    may_attend = {tok: [inputs[j] for j in range(n) if allowed(i, j)] for i, tok in enumerate(TARGET)}
    i = TARGET.index(ASKED)
    return {"may_attend": may_attend, "hidden_in_training": [inputs[j] for j in range(n) if not allowed(i, j)]}


def translation_steps_001():
    mask = causal_mask(len(DECODER_INPUT))
    return steps_table(lambda i, j: bool(mask[i, j]))


def _document_001():
    """001's reading: "liebe" is not yet generated when "dich" is (the other steps as they are)."""
    table = translation_steps_001()
    seen = [t for t in table["may_attend"][ASKED] if t != "liebe"]
    table["may_attend"][ASKED] = seen
    table["hidden_in_training"] = [t for t in DECODER_INPUT if t not in seen]
    return table


def _nothing_hidden_in_training():
    return {**translation_steps_001(), "hidden_in_training": []}


def _without_bos():
    """The steps see only the real tokens generated before them: <bos> left out."""
    table = translation_steps_001()
    table["may_attend"] = {tok: [t for t in seen if t != "<bos>"] for tok, seen in table["may_attend"].items()}
    return table


QUESTIONS = [
    Question(
        grade_id="translation_steps_001",
        answer="translation_steps_001",
        title='Document 001\'s "Ich liebe dich": what each step may attend to',
        call=False,
        reference=translation_steps_001,
        compare=Exact(),
        misconceptions=(
            Misconception(
                "document_001",
                'That is document 001\'s reading, in which "liebe" is not yet generated when "dich" is. '
                'The decoder generates "Ich liebe dich" from left to right: the causal mask hides from a '
                "step only the tokens after its own position, not a token that comes earlier in the output.",
                _document_001,
            ),
            Misconception(
                "query_cannot_see_itself",
                "The causal mask keeps its diagonal: a position may attend to the token fed in at that "
                "position itself (tril, not tril(-1), as in part 4).",
                lambda: steps_table(lambda i, j: j < i),
            ),
            Misconception(
                "bos_forgotten",
                "<bos> is a token of the decoder input like any other: the step that generates the first "
                "word attends to it, and so does every later step.",
                _without_bos,
            ),
            Misconception(
                "nothing_hidden_in_training",
                "Under teacher forcing the whole decoder input is fed at once, so every input token is "
                "there for every position: the causal mask is what keeps a position from the tokens that "
                "come after it, which it would not have seen while generating.",
                _nothing_hidden_in_training,
            ),
            Misconception(
                "generated_token_visible",
                "The step that generates a token cannot attend to it: that token is fed in only at the "
                "next step. The position that predicts a token holds the token before it.",
                lambda: steps_table(lambda i, j: j <= i + 1),
            ),
        ),
    ),
]
