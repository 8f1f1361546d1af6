"""Probe labels in the page's language, translated when the page is written.

A problem set labels its probes in English ("unmasked, batch × heads", f"L = {n} rows, n_new =
{m}"), and the verdict quotes the label ("`sdpa` on unmasked, batch × heads raised …"). The
question modules keep writing plain English; a label is translated by its **template**: every
value in it (a number, a list or tuple of numbers, a quoted string, None/True/False) becomes a
placeholder ``{v1}``, ``{v2}``, … in order — ``"L = {v1} rows, n_new = {v2}"`` — so one
translation serves every drawn instance, and the values go back in where the translation puts them.

The templates of a set are gathered (``label_catalogue.py``) from its loaded questions' probes (``gather``: the labels
``public_label`` shows, drawn for a few ids) and the titles of its hand-graded questions (headings
of its notebook, which no question module writes) into ``<ps>/locale/<ps>_labels.pot``, which also
keeps, per question, a fingerprint of the code that draws its probes; the translations are
``<ps>/locale/<lang>/LC_MESSAGES/<ps>_labels.po`` (domain ``<ps>_labels``). A label without a word
of a language in it (``"k = {v1}, d = {v2}"``, a quoted expression) is code and needs none.
``needed`` (the completeness check) reuses a question's templates from the ``.pot`` while its
fingerprint holds and draws its probes again when its code changed, so a label another engineer
adds is caught until it is translated.
"""

from __future__ import annotations

import re

from autograder.i18n.catalogue import LABELS_SUFFIX, N_, gettext_for

_NUMBER = r"[-−]?\d+(?:\.\d+)?(?:e[-+−]?\d+)?"
VALUE = re.compile(
    rf"""(?<!\w)'[^']*'(?!\w)                                   # a quoted string
    |\[[^\[\]A-Za-z_]*\]                                       # a list of numbers
    |\((?:\s*{_NUMBER}\s*,)+\s*(?:{_NUMBER}\s*)?\)             # a tuple of numbers: (2, 3), (2,)
    |(?<![\w.]){_NUMBER}(?![\w])                               # a number
    |\b(?:None|True|False)\b""",
    re.X,
)
WORD = re.compile(r"(?<![\w{])[^\W\d_]{2,}(?![\w}])")  # a word of a language, not an identifier
# the engine's own labels of a value question's single probe (spec.Question.probes_for)
ENGINE_LABELS = (N_("your parameters"), N_("your answer"))


def template(label: str) -> tuple[str, dict[str, str]]:
    """``"L = 12 rows, n_new = 21"`` -> ``("L = {v1} rows, n_new = {v2}", {"v1": "12", "v2": "21"})``."""
    values: dict[str, str] = {}

    def hole(match: re.Match) -> str:
        name = f"v{len(values) + 1}"
        values[name] = match.group(0)
        return "{" + name + "}"

    return VALUE.sub(hole, label.replace("{", "{{").replace("}", "}}")), values


def is_language(msgid: str) -> bool:
    """Has the template a word to translate (else it is code, shown as it is)?"""
    return bool(WORD.search(re.sub(r"\{v\d+\}", " ", msgid)))


def domain(problem_set: str) -> str:
    return problem_set + LABELS_SUFFIX


def say_label(text: str, lang: str, problem_set: str | None) -> str:
    """``text`` in ``lang`` when it is one of the set's probe labels (or the engine's), else as it is."""
    if lang == "en" or not text or len(text) > 300:
        return text
    if text in ENGINE_LABELS:
        return gettext_for(lang)(text)
    if not problem_set:
        return text
    msgid, values = template(text)
    translated = gettext_for(lang, domain(problem_set))(msgid)
    if translated == msgid:  # not a label of the set, or one the catalogue says as it is
        return text
    try:
        return translated.format_map(values)
    except (KeyError, IndexError, ValueError):  # a broken translation: the English says it right
        return text
