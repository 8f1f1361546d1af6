"""A problem set's probe-label catalogue: which label templates its feedback may show.

``gather`` draws the set's probes for a few ids, turns every label ``public_label`` shows into its
template (``labels.template``) and writes ``<ps>/locale/<ps>_labels.pot`` with, per question, a
fingerprint of the code that draws its probes; the hand-graded questions' titles (notebook
headings) join them. ``needed`` (the completeness check, ``autograder selftest``) takes a question's
templates from the ``.pot`` while its fingerprint holds and draws its probes again (one id) when its
code changed: a label another engineer adds fails the check until ``<ps>_labels.po`` translates it.
``python -m autograder.i18n.extract psN:labels`` gathers again and updates every language's ``.po``.
"""

from __future__ import annotations

import hashlib
import inspect
import re
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from autograder.i18n.catalogue import po_path, read_po
from autograder.i18n.labels import VALUE, WORD, domain, is_language, template

GATHER_IDS = ("selftest-a", "selftest-b", "selftest-c", "labels-a", "labels-b", "labels-c")
CHECK_IDS = GATHER_IDS[:1]  # a question whose code changed since the .pot: drawn again for this id


@cache
def _templating() -> bytes:
    """What turns a probe into its template: public_label, template, is_language, the ids drawn."""
    from autograder.judging.labels import public_label

    code = "".join(inspect.getsource(f) for f in (public_label, template, is_language))
    return (code + VALUE.pattern + WORD.pattern + repr(GATHER_IDS)).encode()


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
