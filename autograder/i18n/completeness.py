"""Is every catalogue complete? Every message translated into every language, every placeholder
kept (a translation may reorder ``{question}`` and ``{factor}``, never drop, add or rename one).
``autograder selftest`` and tests/i18n run it; a problem is one line naming the file and message.

* the engine's catalogues (``autograder/i18n/locale/<lang>/LC_MESSAGES/autograder.po``) against
  the messages its source uses (``extract.engine_messages``);
* a problem set's (``<ps>/locale/<lang>/LC_MESSAGES/<ps>.po``) against the texts it writes for
  students (``problem_set_messages``), each language it has a catalogue for; the languages it
  has none for (its texts said in English there) are ``missing_problem_set_languages``;
* a problem set's probe labels (``<ps>_labels.po`` beside it) against the label templates its
  questions' probes show (``labels.needed``: a question whose code changed is drawn again).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from autograder.i18n.catalogue import ENGINE_DOMAIN, ENGINE_LOCALE, po_path, read_po
from autograder.i18n.extract import TRANSLATED, engine_messages, problem_set_languages, problem_set_messages
from autograder.i18n.label_catalogue import label_po
from autograder.i18n.label_catalogue import needed as label_templates
from autograder.i18n.message import placeholders


def catalogue_problems(path: Path, messages: Iterable[str]) -> list[str]:
    """What is wrong with one ``.po`` against the messages it must translate."""
    if not path.is_file():
        return [f"{path}: missing"]
    try:
        catalog = read_po(path)
    except Exception as exc:  # noqa: BLE001 - a .po Babel cannot read is the problem to report
        return [f"{path}: not readable ({exc})"]
    problems = []
    for msgid in messages:
        entry = catalog.get(msgid)
        if entry is None or not entry.string:
            problems.append(f"{path}: not translated: {msgid!r}")
        elif entry.fuzzy:
            problems.append(f"{path}: fuzzy (unchecked) translation of {msgid!r}")
        elif placeholders(entry.string) != placeholders(msgid):
            problems.append(
                f"{path}: placeholders {sorted(placeholders(entry.string))} in the translation of {msgid!r}, "
                f"which has {sorted(placeholders(msgid))}"
            )
    return problems


def engine_problems(languages: Iterable[str] = TRANSLATED) -> list[str]:
    messages = list(engine_messages())
    return [p for lang in languages for p in catalogue_problems(po_path(ENGINE_LOCALE, lang, ENGINE_DOMAIN), messages)]


def problem_set_problems(assignment) -> list[str]:
    """Every catalogue the problem set has, complete; a language it has none for is said in
    English (``missing_problem_set_languages``)."""
    languages = problem_set_languages(assignment)
    if not languages:
        return []
    messages = problem_set_messages(assignment)
    locale = assignment.source_dir / "locale"
    labels = label_templates(assignment)  # its probe labels, a catalogue of their own beside it
    return [
        p
        for lang in languages
        for path, wanted in ((po_path(locale, lang, assignment.name), messages), (label_po(assignment, lang), labels))
        for p in catalogue_problems(path, wanted)
    ]


def missing_problem_set_languages(assignment) -> list[str]:
    return [lang for lang in TRANSLATED if lang not in problem_set_languages(assignment)]
