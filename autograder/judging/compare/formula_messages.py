"""The formula grammar's refusals as messages, for a page in another language.

``formula_grammar.py`` ships to students as ``formula_check.py`` (standard library only, the same
check on both sides), so it raises plain English. The grader's parser (``symbolic.parse_formula``)
turns that English back into the message it is (``syntax_message``): each refusal below is a
msgid whose English is exactly what the grammar writes, its values placeholders; the grammar's
names for a construct ("a list", "indexing (a[i])") are messages too. tests/i18n checks that every
refusal the grammar raises is recognised.
"""

from __future__ import annotations

from autograder.i18n.message import N_, Message
from autograder.i18n.recognise import recognise

SYNTAX_ERRORS = (
    N_("the answer must be a formula written as a string, e.g. '4*d**2 + 4*d'"),
    N_("the formula is longer than {limit} characters"),
    N_("the formula is empty"),
    N_("{text} is not a formula I can read (write multiplication explicitly: 4*d, not 4d)"),
    N_("{text} is not a formula I can read"),
    N_("the formula is nested too deeply"),
    N_("{value} is not a number"),
    N_("unknown symbol {name}: use none"),
    N_("unknown symbol {name}: use {allowed}"),
    N_("the operator {operator} is not allowed (use + - * / ** or ^)"),
    N_("the operator {operator} is not allowed"),
    N_("function {name} is not allowed (allowed: {allowed})"),
    N_("function {name} is not allowed"),
    N_("{name} takes exactly one argument"),
    N_("{what} is not allowed in a formula"),
)
# formula_grammar.describe: the constructs a formula may not use, in words (the rest is code)
CONSTRUCTS = (
    N_("attribute access (a.b)"),
    N_("indexing (a[i])"),
    N_("a comparison"),
    N_("a list"),
    N_("a tuple"),
    N_("a dict"),
    N_("a set"),
    N_("an f-string"),
    N_("a comprehension"),
    N_("a generator"),
)


def syntax_message(text: str) -> Message | str:
    """The grammar's English refusal as its message (as it is when it is none of these)."""
    return recognise(text, SYNTAX_ERRORS + CONSTRUCTS, depth=1) or text
