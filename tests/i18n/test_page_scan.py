"""No English sentence left on a translated page. Each problem set's feedback page is rendered
with everything a page can say — a verdict on every probe label its questions show, every
misconception, title and formula concept it writes, every flag and note the grader stores, the
formula grammar's refusals — and the service's pages beside them; the text is then scanned for
every English msgid (the engine's, the set's, its label templates: placeholders match any text)
whose translation differs. The same scan of the English page must find them all (it can fail)."""

from __future__ import annotations

import html
import re

import pytest

from autograder.grading.hand_graded import hand_graded, pending_entries
from autograder.grading.integrity import CODE_PATTERNS, WALL_PATTERNS
from autograder.i18n import Message, translate
from autograder.i18n.catalogue import gettext_for
from autograder.i18n.extract import TRANSLATED, engine_messages, problem_set_messages
from autograder.i18n.label_catalogue import hand_graded_templates, read_manifest
from autograder.i18n.labels import domain
from autograder.i18n.message import PROBLEM_SET, clauses
from autograder.judging.compare.symbolic import FormulaError, parse_formula
from autograder.outputs.feedback_pages import feedback_page
from autograder.serve import pages
from autograder.spec import load_assignment

FLAGS = [
    *(f"code {message.format('torch.allclose')}" for _, message in CODE_PATTERNS),
    *(message for _, message in WALL_PATTERNS),
    "locked cell 'sdpa_tests' was modified",
    "cell 'sdpa_impl' appears 2 times",
    "the notebook's kernel is R (r), not Python: it was run as Python",
]
BAD_FORMULAS = ("4d", "[d]", "foo(d)", "q", "d.x")
INLINE = re.compile(r"</?(?:code|bdi|b|i|em|strong|span|a)\b[^>]*>")


@pytest.fixture(scope="module")
def sets(ps1):
    return [ps1] + [load_assignment(f"ps{n}") for n in range(2, 8)]


@pytest.fixture(scope="module")
def engine():
    return list(engine_messages())


def _labels(assignment) -> dict[str, list[str]]:
    """grade id -> its label templates (the .pot: what the completeness check holds translated)."""
    return {gid: msgids for gid, (_, msgids) in read_manifest(assignment).items()}


def _instance(msgid: str) -> str:
    return msgid.format_map({f"v{i}": str(i + 2) for i in range(12)})


def _record(assignment) -> dict:
    """A record whose page says every text of the set: each question's labels in a verdict, each
    misconception and concept in a row of its own, the formula grammar's refusals, flags, notes."""
    labels = _labels(assignment)
    questions = {}

    def row(gid, message):
        questions[gid] = {"score": 0.0, "max_score": 1.0, "status": "failed", "feedback": str(message)}
        questions[gid]["message"] = message.to_json()

    for q in assignment.questions:
        shown = [_instance(m) for m in labels.get(q.grade_id, [])]
        if len(shown) > 1:
            row(
                q.grade_id,
                Message(
                    "right on {right} — but wrong on {wrong}: look at what your code does differently for those inputs",
                    right=clauses(shown[:1]),
                    wrong=clauses(shown[1:]),
                ),
            )
        else:
            where = shown[0] if shown else "your answer"
            row(q.grade_id, Message("`{answer}` on {where} raised {error}", answer=q.answer, where=where, error="E"))
        for k, mis in enumerate(q.misconceptions):
            row(f"{q.grade_id}/{k}", Message(mis.feedback, PROBLEM_SET))
        if getattr(q.compare, "concept", ""):
            row(f"{q.grade_id}/concept", Message(q.compare.concept, PROBLEM_SET))
    for k, text in enumerate(BAD_FORMULAS):
        with pytest.raises(FormulaError) as caught:
            parse_formula(text, ["d"])
        row(f"formula/{k}", Message("{where}: {problem}", where="your answer", problem=caught.value.args[0]))
    questions |= pending_entries(assignment)  # the hand-graded questions, their titles from the notebook
    return {
        "score": 0.0,
        "max_score": float(len(questions)),
        "questions": questions,
        "flags": FLAGS,
        "late": True,
        "late_submission_penalty": 2.0,
    }


def _flagged() -> dict:
    return {
        "score": 0.0,
        "max_score": 1.0,
        "questions": {},
        "flag": "wrong_assignment",
        "flag_reason": "ps2.ipynb is the ps2_positional notebook, not ps1_attention's: "
        "none of ps1_attention's graded cells is in it",
        "flags": [
            "another assignment's notebook: ps2.ipynb is the ps2_positional notebook, not ps1_attention's: "
            "none of ps1_attention's graded cells is in it"
        ],
    }


ANY = r"[^\n]+?"
CODE_WORDS = {"None", "True", "False"}  # "`{a}` is None" is one word of English
VALUE = r"(?:'[^']*'|\[[^\]]*\]|\([^)]*\)|[-−]?\d[\w.+−-]*|None|True|False)"  # what a label's {vN} holds


def _missing(assignment) -> dict:
    """No notebook handed in: every question says why, in the intake's words (plain English stored)."""
    why = f"no notebook was submitted (expected {assignment.notebook})"
    said = {"score": 0.0, "max_score": 1.0, "status": "missing", "feedback": why}
    return {"score": 0.0, "max_score": 1.0, "questions": {q.grade_id: said for q in assignment.questions}, "error": why}


def _english(msgid: str, said: str, words: int = 2, hole: str = ANY) -> tuple[str, str] | None:
    """``msgid`` as a pattern of the page's text when it is English (``words`` words or more
    outside its placeholders: a sentence; a label's one word) that the page's language says otherwise:
    (its longest literal stretch, the pattern)."""
    if said == msgid:
        return None
    parts = [re.sub(r"\s+", " ", p.replace("`", "")) for p in re.split(r"\{\w+\}", msgid)]
    if len([w for w in re.findall(r"[A-Za-z]{2,}", " ".join(parts)) if w not in CODE_WORDS]) < words:
        return None
    if hole == ANY:  # a sentence's edge placeholders hold anything: its literal text is what shows
        parts = [p for p in parts if p.strip()] if not parts[0].strip() or not parts[-1].strip() else parts
    inner = [p for p in parts if p] if hole == ANY else parts
    longest = max(parts, key=len)
    if hole != ANY:
        return longest, hole.join(re.escape(p) for p in parts)
    before = r"(?<!\w)" if inner[0][0].isalnum() else ""
    after = r"(?!\w)" if inner[-1][-1].isalnum() else ""
    return longest, before + hole.join(re.escape(p) for p in inner) + after


def _head(msgid: str) -> str:
    """What a feedback keeps when the page says its ending once, as a note (``said_once``)."""
    cut = min((i for i in (msgid.find(" — "), msgid.find(" (")) if i > 0), default=len(msgid))
    return msgid[:cut]


class Scan:
    """Many patterns, each tried only where its longest literal stretch is in the text."""

    def __init__(self, patterns):
        self.patterns = list(dict.fromkeys(p for p in patterns if p))  # compiled where needed: most are not

    def findall(self, text: str) -> list[str]:
        return [m.group(0) for literal, p in self.patterns if literal in text for m in re.finditer(p, text)]


def _scan_patterns(assignment, engine, lang) -> Scan:
    said_set = gettext_for(lang, assignment.name)
    said_labels = gettext_for(lang, domain(assignment.name))
    said = {m: translate(m, lang) for m in engine} | {m: said_set(m) for m in problem_set_messages(assignment)}
    patterns = [_english(text, translated) for m, translated in said.items() for text in {m, _head(m)}]
    labels = [m for msgids in _labels(assignment).values() for m in msgids] + hand_graded_templates(assignment)
    patterns += [_english(m, said_labels(m), 1, VALUE) for m in labels]
    return Scan(patterns)


def _text(page: str) -> str:
    page = re.sub(r"<style>.*?</style>", "\n", page, flags=re.S)
    return re.sub(r"[ \t]+", " ", html.unescape(re.sub(r"<[^>]+>", "\n", INLINE.sub("", page))))


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_english_sentence_is_left_on_a_translated_page(sets, engine, lang):
    job = type("Job", (), {"id": 7, "ps": "ps1_attention", "state": "queued", "error": "", "student": "alice"})()
    service = [
        pages.home("alice", ["ps1_attention"], [], "/", "", False, "5/min", lang),
        pages.not_graded(job, lang),
        pages.error(404, "Not Found", "no such submission", "/", 3, lang),
        feedback_page(sets[0], "alice", _flagged(), lang=lang),
        feedback_page(sets[0], "alice", _missing(sets[0]), lang=lang),
    ]
    for assignment in sets:
        scan = _scan_patterns(assignment, engine, lang)
        rendered = [feedback_page(assignment, "alice", _record(assignment), lang=lang)]
        for page in rendered + (service if assignment is sets[0] else []):
            left = sorted(set(scan.findall(_text(page))))
            assert not left, f"{lang}, {assignment.name}: English left: {left}"


def test_the_scan_finds_the_english_it_looks_for(sets, engine):
    """The English page scanned with the German page's patterns: every kind of text is found."""
    for assignment in sets:
        found = " | ".join(
            _scan_patterns(assignment, engine, "de").findall(
                _text(feedback_page(assignment, "alice", _record(assignment), lang="en"))
            )
        )
        labels = [_instance(m) for msgids in _labels(assignment).values() for m in msgids if " " in m.strip()]
        titles = [q.title for q in assignment.questions if q.title and " " in q.title]
        titles += [h.title.split(". ", 1)[-1] for h in hand_graded(assignment)]
        for wanted in (
            labels[:3]
            + titles[:2]
            + [q.misconceptions[0].feedback[:40] for q in assignment.questions if q.misconceptions][:2]
        ):
            assert wanted[:30] in found, (assignment.name, wanted)
    found = _scan_patterns(sets[0], engine, "de").findall(_text(feedback_page(sets[0], "alice", _record(sets[0]))))
    assert any("locked cell" in f for f in found) and any("handed in late" in f for f in found)
    missing = _scan_patterns(sets[0], engine, "de").findall(_text(feedback_page(sets[0], "alice", _missing(sets[0]))))
    assert any("no notebook was submitted" in f for f in missing)
    assert any("not a formula I can read" in f for f in found) and any(
        "is not allowed in a formula" in f for f in found
    )
