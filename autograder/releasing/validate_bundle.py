"""The ``validate.py`` a release ships: ``student_validate.py`` with its report's messages in
every language the kit speaks written into it (``TRANSLATIONS``) and the course's language as its
default (``LANGUAGE``), so a student's install needs no catalogue files and no ``autograder``."""

from __future__ import annotations

import json
from pathlib import Path

from autograder.i18n.catalogue import translations
from autograder.i18n.language import LANGUAGES, SOURCE_LANGUAGE
from autograder.releasing import student_validate

LANGUAGE_LINE = 'LANGUAGE = "en"\n'
TABLE_LINE = "TRANSLATIONS: dict[str, dict[str, str]] = {}"


def validate_messages() -> list[str]:
    """The message ids of the student's report (every ``_t("…")`` in student_validate.py)."""
    from babel.messages.extract import extract_from_file

    found = extract_from_file("python", student_validate.__file__, keywords={"_t": None})
    return list(dict.fromkeys(message for _line, message, _comments, _context in found))


def standalone_validate(lang: str | None = None, notebook: str | None = None) -> str:
    """validate.py's text: its report in ``lang`` by default (default: the course's), its
    docstring naming ``notebook`` (the problem set's)."""
    from autograder.course import course_language

    source = Path(student_validate.__file__).read_text(encoding="utf-8")
    if notebook:
        source = source.replace("THE_NOTEBOOK.ipynb", notebook, 1)
    messages = validate_messages()
    table = {}
    for code in LANGUAGES:
        if code != SOURCE_LANGUAGE:
            said = translations(code).gettext
            table[code] = {m: said(m) for m in messages if said(m) != m}
    literal = json.dumps(table, ensure_ascii=False, indent=1, sort_keys=True)
    if LANGUAGE_LINE not in source or TABLE_LINE not in source:
        raise RuntimeError(f"{student_validate.__file__}: no {LANGUAGE_LINE.strip()!r} / {TABLE_LINE!r} line to fill")
    source = source.replace(LANGUAGE_LINE, f"LANGUAGE = {json.dumps(lang or course_language())}\n", 1)
    return source.replace(TABLE_LINE, f"TRANSLATIONS: dict[str, dict[str, str]] = {literal}", 1)
