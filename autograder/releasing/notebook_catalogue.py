"""A problem set's notebook text in another language: one gettext catalogue per set and language,
``<ps>/locale/<lang>/LC_MESSAGES/<ps>_notebook.po``, whose message ids are the source notebook's
markdown cells, each whole and in English (README: Languages).

* ``notebook_messages``: what a catalogue must translate — every markdown cell of the source
  notebook except a student's answer cell (nbgrader writes its own prompt there). Code cells are
  never translated: grade ids, checksums, locked code and the answer key stay the English ones.
* ``update_notebook_catalogue`` (``autograder release --extract --lang fa``): writes the catalogue,
  new cells with an empty translation; a cell whose English changed keeps its old translation
  marked fuzzy, beside the English it translated (``#| msgid``); a removed cell's translation is
  kept as obsolete (``#~``). Babel's own merge, as ``msgmerge`` does it.
* ``cell_translations``: the translations a release uses; a cell missing from it, untranslated
  or fuzzy, is released in English, and ``notebook_catalogue_problems`` names it
  (``autograder release``/``--check``, ``selftest`` and a test list them).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from autograder.i18n.catalogue import po_path, read_po
from autograder.i18n.extract import TRANSLATED
from autograder.spec import Assignment

# the terminology each language's translation follows (the course's source documents, ../shared/seeds)
TERMINOLOGY = {
    "de": "Terminologie nach Dokument 001 (deutsches Lehrbuchkapitel zum Transformer): Aufmerksamkeit,\n"
    "Positionskodierung, Maske, Kopf, Schicht, Einbettung; Anrede „Sie“.",
    "fa": "Terminology: document 000 (Persian homework): توجه, ... (to be written with the translation).",
    "pl": "Terminology: document 002 (Polish lecture notes).",
    "tr": "Terminology: document 003 (Turkish notes).",
    "ko": "Terminology: document 004 (Korean notes).",
}


def notebook_domain(assignment: Assignment) -> str:
    return f"{assignment.name}_notebook"


def notebook_catalogue(assignment: Assignment, lang: str) -> Path:
    return po_path(assignment.source_dir / "locale", lang, notebook_domain(assignment))


def notebook_languages(assignment: Assignment) -> list[str]:
    """The languages this set's notebook has a catalogue for (its translated releases)."""
    if assignment.root is None:
        return []
    return [lang for lang in TRANSLATED if notebook_catalogue(assignment, lang).is_file()]


def translatable(cell) -> bool:
    return cell.cell_type == "markdown" and not cell.get("metadata", {}).get("nbgrader", {}).get("solution")


def _label(index: int, cell) -> str:
    grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
    return f"cell {index}" + (f" ({grade_id})" if grade_id else "")


def source_cells(assignment: Assignment) -> list[tuple[str, str]]:
    """(label, English text) of each cell to translate, in notebook order."""
    nb = nbformat.read(assignment.source_dir / assignment.notebook, as_version=4)
    return [(_label(i, c), c.source) for i, c in enumerate(nb.cells) if translatable(c)]


def notebook_messages(assignment: Assignment) -> list[str]:
    return list(dict.fromkeys(text for _label, text in source_cells(assignment) if text.strip()))


_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')


def read_catalogue(path: Path):
    """A notebook catalogue as Babel reads it, with each fuzzy entry's previous English (``#|``
    lines, which Babel's reader keeps as comments) restored as its ``previous_id``."""
    from babel.messages.pofile import unescape

    catalog = read_po(path)
    for message in catalog:
        previous = " ".join(c[1:].strip() for c in message.user_comments if c.startswith("|"))
        if previous:
            message.user_comments = [c for c in message.user_comments if not c.startswith("|")]
            if previous.startswith("msgid "):
                message.previous_id = ["".join(unescape(f'"{part}"') for part in _QUOTED.findall(previous))]
    return catalog


def cell_translations(assignment: Assignment, lang: str) -> dict[str, str]:
    """English cell text -> its translation (only complete, checked ones: not fuzzy, not empty)."""
    path = notebook_catalogue(assignment, lang)
    if not path.is_file():
        return {}
    return {m.id: m.string for m in read_catalogue(path) if m.id and isinstance(m.id, str) and m.string and not m.fuzzy}


def update_notebook_catalogue(assignment: Assignment, lang: str) -> Path:
    """Bring ``lang``'s catalogue in step with the source notebook (created when missing)."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    path = notebook_catalogue(assignment, lang)
    template = Catalog(domain=notebook_domain(assignment), project="transformer-autograder", fuzzy=False)
    for label, text in source_cells(assignment):
        if text.strip() and template.get(text) is None:
            template.add(text, auto_comments=[label])
    if path.is_file():
        catalog = read_catalogue(path)
        creation = catalog.creation_date
        previous = {m.id: m.previous_id for m in catalog if m.id and m.fuzzy and m.previous_id}
        catalog.update(template, no_fuzzy_matching=False, update_header_comment=False)
        for message in catalog:  # Babel's merge forgets it where the English did not change again
            if message.fuzzy and not message.previous_id and message.id in previous:
                message.previous_id = previous[message.id]
        catalog.creation_date = creation  # no churn: the file changes when its messages do
    else:
        catalog = Catalog(
            locale=lang, domain=template.domain, project=template.project, version="0.1", charset="utf-8", fuzzy=False
        )
        lines = [
            f"{assignment.name}'s notebook text, {lang}: each message is one markdown cell of {assignment.notebook},",
            "whole; code cells are never translated (their grade ids, checksums and answer key stay English).",
            *TERMINOLOGY.get(lang, "").splitlines(),
            f"Update: autograder release --extract --lang {lang} (a cell whose English changed turns fuzzy:",
            "check its translation against the new English, then drop its '#, fuzzy' line).",
        ]
        catalog.header_comment = "\n".join(f"# {line}" for line in lines) + "\n#"
        for message in template:
            if message.id:
                catalog.add(message.id, "", auto_comments=message.auto_comments)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        write_po(f, catalog, width=100, no_location=True, include_previous=True, sort_output=False)
    return path


# ---------------------------------------------------------------- what a translation must keep

_CODE = re.compile(r"`+[^`]+?`+")
_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$", re.S)
_LINK_TARGET = re.compile(r"\]\(([^)\s]+)\)|https?://[^\s)>\]]+")


def kept_parts(text: str) -> set[str]:
    """What a translation must carry over unchanged: code spans, formulas and link targets."""
    without_code = _CODE.sub(" ", text)
    found = {*_CODE.findall(text), *_MATH.findall(without_code), *_LINK_TARGET.findall(without_code)}
    return {" ".join(part.split()) for part in found} - {""}  # a line break inside is a space


def structure_problem(msgid: str, msgstr: str) -> str | None:
    lost, added = kept_parts(msgid) - kept_parts(msgstr), kept_parts(msgstr) - kept_parts(msgid)
    if not lost and not added:
        return None
    said = [f"lost {sorted(lost)[:4]}" if lost else "", f"added {sorted(added)[:4]}" if added else ""]
    return "; ".join(s for s in said if s)


def notebook_catalogue_problems(assignment: Assignment, lang: str) -> list[str]:
    """One line per cell that ``lang``'s release says in English (missing, untranslated or fuzzy
    in the catalogue) or whose translation dropped or changed code, a formula or a link."""
    path = notebook_catalogue(assignment, lang)
    if not path.is_file():
        return [f"{path}: missing (every cell said in English)"]
    catalog = read_catalogue(path)
    problems = []
    for label, text in source_cells(assignment):
        if not text.strip():
            continue
        entry = catalog.get(text)
        first = text.strip().splitlines()[0][:60]
        if entry is None or not entry.string:
            problems.append(f"{path.name}: {label} not translated (said in English): {first!r}")
        elif entry.fuzzy:
            problems.append(f"{path.name}: {label} changed in English, its translation is fuzzy: {first!r}")
        else:
            broken = structure_problem(text, entry.string)
            if broken:
                problems.append(f"{path.name}: {label} translation {broken}")
    return problems
