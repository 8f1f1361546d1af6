"""The message catalogues (autograder/i18n): every engine message translated into de, fa, pl, tr
and ko with its placeholders kept, and a catalogue that lacks a message or breaks a placeholder
is caught (what `autograder selftest` runs)."""

from __future__ import annotations

import shutil

from babel.messages.pofile import write_po

from autograder.i18n import Message, say
from autograder.i18n.catalogue import ENGINE_LOCALE, po_path, read_po
from autograder.i18n.completeness import (
    TRANSLATED,
    catalogue_problems,
    engine_problems,
    problem_set_languages,
    problem_set_problems,
)
from autograder.i18n.extract import engine_messages
from autograder.i18n.message import PROBLEM_SET
from autograder.spec import load_assignment


def test_every_engine_message_is_translated_with_its_placeholders():
    assert set(TRANSLATED) == {"de", "fa", "pl", "tr", "ko"}
    messages = engine_messages()
    assert len(messages) > 60 and "`{answer}` on {where} raised {error}" in messages
    assert "Graded by the course autograder; hidden tests are not shown." in messages  # the templates'
    assert "{passed}/{total} visible checks passed" in messages  # validate.py's
    assert engine_problems() == []


def test_a_missing_message_and_a_broken_placeholder_are_caught(tmp_path):
    source = po_path(ENGINE_LOCALE, "de", "autograder")
    broken = tmp_path / "autograder.po"
    shutil.copy(source, broken)
    catalog = read_po(broken)
    catalog["`{answer}` on {where} raised {error}"].string = "`{antwort}` hat bei {where} {error} ausgelöst"
    catalog["Score"].string = ""
    del catalog["Question"]
    with open(broken, "wb") as f:
        write_po(f, catalog)
    problems = catalogue_problems(broken, engine_messages())
    assert len(problems) == 3, problems
    assert any("placeholders ['answer'" in p or "['antwort'" in p for p in problems)
    assert any("'Score'" in p for p in problems) and any("'Question'" in p for p in problems)


def test_a_problem_sets_own_texts_are_translated_beside_it():
    ps5 = load_assignment("ps5")
    assert problem_set_languages(ps5) == list(TRANSLATED)  # assignments/ps5_equivariance/locale/
    assert problem_set_problems(ps5) == []  # every title and misconception, placeholders kept
    mistake = next(m for q in ps5.questions for m in q.misconceptions)
    stored = Message("{mistake} ({raised})", mistake=Message(mistake.feedback, PROBLEM_SET), raised="x").to_json()
    german = say(stored, "de", problem_set=ps5.name)
    assert german.startswith("Ihr Tester") and german.endswith("(x)")
    korean = say(stored, "ko", problem_set=ps5.name)
    assert korean.endswith("(x)") and korean != f"{mistake.feedback} (x)"
    assert say(stored, "en", problem_set=ps5.name) == f"{mistake.feedback} (x)"  # English: the text itself


def test_every_problem_set_is_translated_into_every_language(ps1):
    """Every set's titles, misconception feedback and formula concepts, in all five languages;
    a diagnosis said inside a verdict comes out translated to the last word."""
    for assignment in [ps1] + [load_assignment(f"ps{n}") for n in range(2, 8)]:
        assert problem_set_languages(assignment) == list(TRANSLATED), assignment.name
        assert problem_set_problems(assignment) == [], assignment.name
    concept = next(q.compare.concept for q in ps1.questions if getattr(q.compare, "concept", ""))
    assert say(Message(concept, PROBLEM_SET), "tr", problem_set=ps1.name) != concept
    from autograder.judging.diagnosis.relations import SHIFTS

    verdict = Message("`{answer}` does not match the reference: {diagnosis}", answer="sdpa", diagnosis=SHIFTS[False])
    assert say(verdict, "de") == (
        "`sdpa` stimmt nicht mit der Referenz überein: Ihre Ausgabe ist die Referenz um eine Position verschoben "
        "(jeder Eintrag steht eine Stelle früher): ein Off-by-one-Fehler in einem Index"
    )
