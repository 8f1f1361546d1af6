"""gettext catalogues: the ``.po`` sources in the repository, the ``.mo`` compiled from them with
Babel when missing or older (first use after a fresh clone, an install, a release), in memory
when the folder is read-only.

Two kinds of catalogue, one lookup:

* the engine's, domain ``autograder``: ``autograder/i18n/locale/<lang>/LC_MESSAGES/autograder.po``;
* a problem set's, domain ``<ps>``: ``<course source>/<ps>/locale/<lang>/LC_MESSAGES/<ps>.po``
  (misconception feedback and other texts written in the problem set, English the source);
* a problem set's probe labels, domain ``<ps>_labels``, beside it (``labels.py``).

A message missing from a catalogue is said in English (gettext's fallback); the completeness
check (``autograder.i18n.completeness``, run by ``autograder selftest`` and a test) fails on it.
"""

from __future__ import annotations

import gettext
import io
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path

from autograder.i18n.language import SOURCE_LANGUAGE, normalise

ENGINE_DOMAIN = "autograder"
LABELS_SUFFIX = "_labels"  # a problem set's probe labels: domain ``<ps>_labels`` (autograder/i18n/labels.py)
ENGINE_LOCALE = Path(__file__).resolve().parent / "locale"
_LOCK = threading.Lock()


def N_(message_id: str) -> str:
    """Marks a literal as a message (the catalogue has it) where it is said later (a refusal)."""
    return message_id


def po_path(locale_dir: Path, lang: str, domain: str) -> Path:
    return Path(locale_dir) / lang / "LC_MESSAGES" / f"{domain}.po"


def read_po(path: Path):
    from babel.messages.pofile import read_po as babel_read_po

    lang = path.parent.parent.name if path.parent.name == "LC_MESSAGES" else None
    with open(path, "rb") as f:
        return babel_read_po(f, locale=lang, domain=path.stem)


def compile_po(path: Path) -> bytes:
    """The ``.mo`` of one ``.po``; written beside it when the folder allows (else kept in memory)."""
    from babel.messages.mofile import write_mo

    buffer = io.BytesIO()
    write_mo(buffer, read_po(path), use_fuzzy=False)
    data = buffer.getvalue()
    mo = path.with_suffix(".mo")
    try:
        tmp = mo.with_suffix(".mo.tmp")
        tmp.write_bytes(data)
        tmp.replace(mo)  # atomic: a concurrent reader sees the old file or the new one
    except OSError:
        pass
    return data


def _load(path: Path) -> gettext.NullTranslations:
    if not path.is_file():
        return gettext.NullTranslations()
    mo = path.with_suffix(".mo")
    if mo.is_file() and mo.stat().st_mtime >= path.stat().st_mtime:
        data = mo.read_bytes()
    else:
        data = compile_po(path)
    return gettext.GNUTranslations(io.BytesIO(data))


def domain_locale(domain: str | None) -> Path:
    """Where a domain's catalogues are: the engine's folder, or the problem set's ``locale/`` (its
    texts, domain ``<ps>``, and its probe labels, ``<ps>_labels``)."""
    if not domain or domain == ENGINE_DOMAIN:
        return ENGINE_LOCALE
    from autograder.course import find_course, shipped_problem_sets

    domain = domain.removesuffix(LABELS_SUFFIX)

    try:
        local = find_course().source / domain / "locale"
        if local.is_dir():
            return local
    except Exception:  # noqa: BLE001 - no course here (the service's worker): the shipped sets
        pass
    return shipped_problem_sets() / domain / "locale"


@cache
def translations(lang: str, domain: str | None = None) -> gettext.NullTranslations:
    if lang == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    name = domain or ENGINE_DOMAIN
    with _LOCK:
        return _load(po_path(domain_locale(domain), lang, name))


def gettext_for(lang: str, domain: str | None = None) -> Callable[[str], str]:
    return translations(normalise(lang) or SOURCE_LANGUAGE, domain).gettext
