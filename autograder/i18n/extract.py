"""The engine's messages, found in its source (Babel's extractors): every ``Message("…")``,
``_t("…")`` and ``N_("…")`` with a literal id in ``autograder/``, and every ``_("…")`` and
``{% trans %}`` in the page templates. What a catalogue must translate, and what
``python -m autograder.i18n.extract`` writes into the ``.po`` files (new ids with an empty
translation, vanished ones dropped, translations kept)."""

from __future__ import annotations

import sys
from pathlib import Path

from autograder.i18n.catalogue import ENGINE_DOMAIN, ENGINE_LOCALE, po_path, read_po
from autograder.i18n.language import LANGUAGES, SOURCE_LANGUAGE

PACKAGE = Path(__file__).resolve().parent.parent
KEYWORDS = {"Message": None, "translate": None, "_t": None, "N_": None, "_": None, "gettext": None}
METHODS = [
    ("**/templates/pages/**.html", "jinja2.ext:babel_extract"),
    ("**.py", "python"),
]
OPTIONS = {"**/templates/pages/**.html": {"extensions": "jinja2.ext.i18n", "newstyle_gettext": "true"}}
SKIP = ("/shipped_assignments/",)  # the i18n package too is scanned: message.clauses says its joints
TRANSLATED = tuple(lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE)


def engine_messages() -> dict[str, list[str]]:
    """msgid -> where it is used (``path:line``), from the kit's source and templates."""
    from babel.messages.extract import extract_from_dir

    found: dict[str, list[str]] = {}
    for filename, lineno, message, _comments, _context in extract_from_dir(
        str(PACKAGE), method_map=METHODS, options_map=OPTIONS, keywords=KEYWORDS, strip_comment_tags=True
    ):
        if any(part in f"/{filename}" for part in SKIP) or not isinstance(message, str) or not message.strip():
            continue
        found.setdefault(message, []).append(f"{filename}:{lineno}")
    return found


def update_catalogue(path: Path, messages: dict[str, list[str]], header: str = "") -> None:
    """Make ``path`` (a .po) hold exactly ``messages``, keeping translations already there."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    old = read_po(path) if path.is_file() else None
    lang = path.parent.parent.name
    catalog = Catalog(
        locale=lang, domain=path.stem, project="transformer-autograder", version="0.1", charset="utf-8", fuzzy=False
    )
    if old is not None:
        catalog.header_comment = old.header_comment
        catalog.creation_date = old.creation_date  # no churn: the file changes when its messages do
    elif header:
        catalog.header_comment = header
    for msgid, locations in messages.items():
        kept = old.get(msgid) if old is not None else None
        catalog.add(
            msgid,
            kept.string if kept is not None else "",
            auto_comments=sorted({loc.split(":")[0] for loc in locations}),
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:  # where it is used, without line numbers (they move with every edit)
        write_po(f, catalog, width=100, omit_header=False, sort_output=False, no_location=True)


def problem_set_messages(assignment) -> list[str]:
    """The texts a problem set writes for students that the feedback page says: its questions'
    titles, its misconceptions' feedback and its formulas' concepts (English, the source)."""
    found: list[str] = []
    for q in assignment.questions:
        found += [q.title] if q.title else []
        found += [mis.feedback for mis in q.misconceptions]
        found += [q.compare.concept] if getattr(q.compare, "concept", "") else []  # a formula's concept
    return list(dict.fromkeys(found))


def problem_set_languages(assignment) -> list[str]:
    """The languages a problem set has catalogues for (English, the source, needs none); one not
    loaded from a course (a test's synthetic set) has none."""
    if assignment.root is None:
        return []
    return [lang for lang in TRANSLATED if po_path(assignment.source_dir / "locale", lang, assignment.name).is_file()]


# the header of a new problem-set catalogue: which document's terminology a translator follows
TERMINOLOGY = {
    "de": "German. Terminology from document 001 (Lehrbuchkapitel zum Transformer): Aufmerksamkeit, Kopf/Köpfe,\n"
    "Schicht, Abfrage/Schlüssel/Wert, Maske, Positionskodierung, Encoder/Decoder; Anrede „Sie“.",
    "fa": "Persian. Terminology from document 000 (the Persian homework): توجه، خودتوجه، سر (هد)، ماتریس،\n"
    "پارامتر، رمزگذار/رمزگشا، امبدینگ، ماسک; code, formulas and numbers stay left to right.",
    "pl": "Polish. Terminology from document 002 (lecture notes): atencja, zapytania/klucze/wartości,\n"
    "macierz, warstwa, głowa (head), notatnik.",
    "tr": "Turkish. Terminology from document 003 (notes): dikkat, kendine dikkat, sorgu/anahtar/değer,\n"
    "bağlam vektörü, gömme, katman, maske, not defteri.",
    "ko": "Korean. Terminology from document 004 (notes, which keep many English terms): 어텐션,\n"
    "쿼리/키/값, 헤드, 레이어, 임베딩, 인코더/디코더; 합니다체.",
}


def problem_set_header(name: str, lang: str) -> str:
    short = name.split("_")[0]
    text = (
        f"{short.upper()}: titles, misconception feedback and formula concepts in {TERMINOLOGY[lang]}\n"
        f"Source: English texts in assignments/ (python -m autograder.i18n.extract {short}:{lang} updates this file)."
    )
    return "\n".join(f"# {line}" for line in text.splitlines()) + "\n#"


def update_problem_set(assignment, languages) -> Path:
    """Write the problem set's catalogues (``<ps>/locale/<lang>/LC_MESSAGES/<ps>.po``) for
    ``languages``: its titles, misconception feedback and formula concepts, translations already
    there kept; a new catalogue's header names the language's terminology document."""
    locale = assignment.source_dir / "locale"
    messages = {m: [] for m in problem_set_messages(assignment)}
    for lang in languages:
        update_catalogue(
            po_path(locale, lang, assignment.name), messages, header=problem_set_header(assignment.name, lang)
        )
    return locale


def update_labels(assignment, languages=TRANSLATED) -> str:
    """Gather the set's probe-label templates (``labels.gather``: its ``<ps>_labels.pot``) and
    bring each language's ``<ps>_labels.po`` in step, translations already there kept."""
    from autograder.i18n.label_catalogue import gather, label_po

    found = gather(assignment)
    for lang in languages:
        header = (
            problem_set_header(assignment.name, lang)
            .replace(
                "titles, misconception feedback and formula concepts", "probe labels (templates: {v1} … are values)"
            )
            .replace(f"{assignment.name.split('_')[0]}:{lang}", f"{assignment.name.split('_')[0]}:labels")
        )
        update_catalogue(label_po(assignment, lang), found, header=header)
    return f"{len(found)} label templates"


def main(argv: list[str] | None = None) -> int:
    """``python -m autograder.i18n.extract [PS[:lang,lang]...] [PS:labels]``: the engine's
    catalogues, and the named problem sets' (their existing languages, or those named; ``labels``:
    their probe labels in every language, ``autograder/i18n/labels.py``)."""
    messages = engine_messages()
    for lang in LANGUAGES:
        if lang != SOURCE_LANGUAGE:
            update_catalogue(po_path(ENGINE_LOCALE, lang, ENGINE_DOMAIN), messages)
    print(f"{len(messages)} messages in {ENGINE_LOCALE}", file=sys.stderr)
    from autograder.spec import load_assignment

    for arg in sys.argv[1:] if argv is None else argv:
        name, _, langs = arg.partition(":")
        assignment = load_assignment(name)
        if langs == "labels":  # its probe labels: the .pot drawn again, each language's .po updated
            print(f"{assignment.name}: {update_labels(assignment)}", file=sys.stderr)
            continue
        chosen = langs.split(",") if langs else problem_set_languages(assignment)
        print(f"{assignment.name}: {', '.join(chosen)} in {update_problem_set(assignment, chosen)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
