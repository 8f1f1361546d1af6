"""Probe labels in the page's language, translated when the page is written.

A problem set labels its probes in English ("unmasked, batch × heads", f"L = {n} rows, n_new =
{m}"), and the verdict quotes the label ("`sdpa` on unmasked, batch × heads raised …"). The
question modules keep writing plain English; a label is translated by its **template**: every
value in it (a number, a list or tuple of numbers, a quoted string, None/True/False) becomes a
placeholder ``{v1}``, ``{v2}``, … in order — ``"L = {v1} rows, n_new = {v2}"`` — so one
translation serves every drawn instance, and the values go back in where the translation puts them.

The templates of a set are gathered from its loaded questions' probes (``gather``: the labels
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

import hashlib
import inspect
import re
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from autograder.i18n.catalogue import LABELS_SUFFIX, gettext_for, po_path, read_po
from autograder.i18n.message import N_

_NUMBER = r"[-−]?\d+(?:\.\d+)?(?:e[-+−]?\d+)?"
VALUE = re.compile(
    rf"""(?<!\w)'[^']*'(?!\w)                                   # a quoted string
    |\[[^\[\]A-Za-z_]*\]                                       # a list of numbers
    |\((?:\s*{_NUMBER}\s*,)+\s*(?:{_NUMBER}\s*)?\)             # a tuple of numbers: (2, 3), (2,)
    |(?<![\w.]){_NUMBER}(?![\w])                               # a number
    |\b(?:None|True|False)\b""",
    re.X,
)
_WORD = re.compile(r"(?<![\w{])[^\W\d_]{2,}(?![\w}])")  # a word of a language, not an identifier
# the engine's own labels of a value question's single probe (spec.Question.probes_for)
ENGINE_LABELS = (N_("your parameters"), N_("your answer"))
GATHER_IDS = ("selftest-a", "selftest-b", "selftest-c", "labels-a", "labels-b", "labels-c")
CHECK_IDS = GATHER_IDS[:1]  # a question whose code changed since the .pot: drawn again for this id


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
    return bool(_WORD.search(re.sub(r"\{v\d+\}", " ", msgid)))


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


# ---- gathering: which templates a problem set's feedback may show


@cache
def _templating() -> bytes:
    """What turns a probe into its template: public_label, template, is_language, the ids drawn."""
    from autograder.judging.labels import public_label

    code = "".join(inspect.getsource(f) for f in (public_label, template, is_language))
    return (code + VALUE.pattern + _WORD.pattern + repr(GATHER_IDS)).encode()


def fingerprint(question) -> str:
    """The code that draws the question's probes (its module) and the templating."""
    h = hashlib.sha256(_templating())
    try:
        h.update(Path(inspect.getsourcefile(question.probes)).read_bytes())
    except (TypeError, OSError):
        h.update(repr(question.probes).encode())
    return h.hexdigest()[:16]


def question_templates(question, assignment, ids=GATHER_IDS) -> list[str]:
    """The templates of the labels the question's feedback may show, drawn for ``ids``."""
    from autograder.i18n.message import Message
    from autograder.judging.labels import public_label

    if not question.call or question.probes is None:
        return []
    found = []
    for student in ids:
        for i, probe in enumerate(question.probes_for(student, assignment)):
            label = public_label(probe, i)
            if isinstance(label, Message):  # "probe {n}": the engine's message
                continue
            msgid = template(label)[0]
            if is_language(msgid):
                found.append(msgid)
    return list(dict.fromkeys(found))


def pot_path(assignment) -> Path:
    return assignment.source_dir / "locale" / f"{domain(assignment.name)}.pot"


def read_manifest(assignment) -> dict[str, tuple[str, list[str]]]:
    """grade id -> (fingerprint, templates) as the ``.pot`` keeps them."""
    path = pot_path(assignment)
    if not path.is_file():
        return {}
    prints = dict(re.findall(r"^# question (\S+) (\w+)$", path.read_text("utf-8"), re.M))
    found: dict[str, list[str]] = {gid: [] for gid in prints}
    for entry in read_po(path):
        for gid in entry.auto_comments if entry.id else ():
            if gid == HAND_GRADED:
                continue
            found.setdefault(gid, []).append(entry.id)
    return {gid: (prints.get(gid, ""), msgids) for gid, msgids in found.items()}


HAND_GRADED = "hand-graded"  # the .pot's comment on a hand-graded question's title


def hand_graded_templates(assignment) -> list[str]:
    """The titles of the set's hand-graded questions (headings of its notebook, which no question
    module writes), as templates: the page shows them beside the autograded ones."""
    from autograder.grading.hand_graded import hand_graded

    return list(dict.fromkeys(m for m in (template(h.title)[0] for h in hand_graded(assignment)) if is_language(m)))


def needed(assignment) -> dict[str, list[str]]:
    """msgid -> the grade ids whose feedback may show it: from the ``.pot`` where a question's
    code is unchanged, else drawn again now (``CHECK_IDS``); hand-graded titles read now."""
    manifest = read_manifest(assignment)
    found: dict[str, list[str]] = {m: [HAND_GRADED] for m in hand_graded_templates(assignment)}
    for q in assignment.questions:
        if not q.call or q.probes is None:
            continue
        kept = manifest.get(q.grade_id)
        msgids = kept[1] if kept and kept[0] == fingerprint(q) else question_templates(q, assignment, CHECK_IDS)
        for msgid in msgids:
            found.setdefault(msgid, []).append(q.grade_id)
    return found


def gather(assignment) -> dict[str, list[str]]:
    """Write ``<ps>_labels.pot`` from the questions' probes drawn now; returns msgid -> grade ids."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    found: dict[str, list[str]] = {m: [HAND_GRADED] for m in hand_graded_templates(assignment)}
    prints = []
    for q in assignment.questions:
        if not q.call or q.probes is None:
            continue
        prints.append(f"question {q.grade_id} {fingerprint(q)}")
        for msgid in question_templates(q, assignment):
            found.setdefault(msgid, []).append(q.grade_id)
    catalog = Catalog(domain=domain(assignment.name), project="transformer-autograder", version="0.1", fuzzy=False)
    catalog.creation_date = catalog.revision_date = datetime(2026, 1, 1, tzinfo=UTC)  # no churn
    catalog.header_comment = "\n".join(
        [
            f"# {assignment.name}: the probe labels its feedback may show, as templates (autograder/i18n/labels.py).",
            f"# Written by `python -m autograder.i18n.extract {assignment.name.split('_')[0]}:labels`; do not edit.",
            "# Per question, a fingerprint of the code that draws its probes:",
            *(f"# {line}" for line in prints),
            "#",
        ]
    )
    for msgid, gids in found.items():
        catalog.add(msgid, "", auto_comments=gids)
    path = pot_path(assignment)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        write_po(f, catalog, width=100, omit_header=False, sort_output=False, no_location=True)
    return found


def label_po(assignment, lang: str) -> Path:
    return po_path(assignment.source_dir / "locale", lang, domain(assignment.name))
