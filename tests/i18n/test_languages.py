"""Pages in the student's language: the language chosen per run, student, course and browser; the
feedback page, the service's pages and validate.py's report translated (Persian right to left,
code and numbers left to right inside); scores, statuses and exports the same in every language."""

from __future__ import annotations

import importlib.util
import json
import pickle
import sys

import pytest

from autograder.course import Course
from autograder.i18n import Message, choose_language, from_accept_language, say, translate
from autograder.i18n.language import UnknownLanguage
from autograder.intake.roster import Roster
from autograder.outputs.publish import Outputs, publish
from autograder.releasing.student_validate import CellReport
from autograder.releasing.validate_bundle import standalone_validate

RAISED = Message("`{answer}` on {where} raised {error}", answer="sdpa", where="probe 2", error="ValueError: 3 != 4")


def _record(ps1) -> dict:
    """Every question passed but two: one failed with a misconception, one raised."""
    wrong = next(Message(m.feedback, "problem-set") for q in ps1.questions for m in q.misconceptions)
    correct = Message("correct")
    questions = {
        q.grade_id: {"score": q.points, "max_score": q.points, "status": "passed", "feedback": str(correct)}
        | {"message": correct.to_json()}
        for q in ps1.questions
    }
    failed, raised = ps1.questions[0].grade_id, ps1.questions[1].grade_id
    questions[failed] |= {"score": 0.0, "status": "failed", "feedback": str(wrong), "message": wrong.to_json()}
    questions[raised] |= {"score": 0.0, "status": "error", "feedback": str(RAISED), "message": RAISED.to_json()}
    return {"score": sum(q["score"] for q in questions.values()), "max_score": ps1.max_score, "questions": questions}


def test_a_message_keeps_its_english_travels_and_is_said_in_each_language():
    nested = Message("{raised} — {diagnosis}", raised=RAISED, diagnosis="the shapes differ")
    assert nested == "`sdpa` on probe 2 raised ValueError: 3 != 4 — the shapes differ"
    again = pickle.loads(pickle.dumps(nested))
    assert isinstance(again, Message) and again.to_json() == nested.to_json()
    stored = json.loads(json.dumps(nested.to_json()))
    assert say(stored, "de") == "`sdpa` hat bei probe 2 ValueError: 3 != 4 ausgelöst — the shapes differ"
    assert say(stored, "en") == nested
    assert translate("Try again in {seconds} s.", "ko", seconds=5) == "5초 후에 다시 시도하세요."
    assert say("text nobody made a message of", "fa") == "text nobody made a message of"


def test_the_language_is_the_runs_else_the_students_else_the_courses(tmp_path):
    assert choose_language("de", "fa", "ko") == "de" and choose_language(None, "fa_IR", "ko") == "fa"
    assert choose_language(None, "", "ko") == "ko" and choose_language(None, None, None) == "en"
    with pytest.raises(UnknownLanguage):
        choose_language("xx")
    assert from_accept_language("fr-FR,fa;q=0.9,en;q=0.8") == "fa"
    assert from_accept_language("en;q=0.5, de-AT") == "de" and from_accept_language("fr") is None
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name,language\nalice,Alice A,de\nbob,Bob B,\n", encoding="utf-8")
    people = Roster.read(roster).people
    assert people["alice"].language == "de" and people["bob"].language == ""
    (tmp_path / "autograder.toml").write_text('[course]\nlanguage = "tr"\n', encoding="utf-8")
    assert Course.at(tmp_path).language == "tr"


def test_feedback_pages_speak_the_language_and_scores_and_exports_do_not(ps1, tmp_path):
    record = _record(ps1)
    results = {"assignment": ps1.name, "max_score": ps1.max_score, "students": {"alice": record}}
    shown = f"{record['score']:g} / {ps1.max_score:g}"
    out = {}
    for lang in ("de", "fa"):
        folder = tmp_path / lang
        publish(ps1, results, folder, Outputs(csv=folder / "grades.csv", language_of=lambda s, lang=lang: lang))
        out[lang] = (folder / "grades.csv").read_bytes(), (folder / "feedback" / "alice.html").read_text("utf-8")
    assert out["de"][0] == out["fa"][0]  # the export: language-neutral
    assert b"alice" in out["de"][0]
    german, persian = out["de"][1], out["fa"][1]
    assert '<html lang="de">' in german and f"Punktzahl: <b>{shown}</b>" in german and "hat bei probe 2" in german
    assert '<html lang="fa" dir="rtl">' in persian
    assert f'<bdi dir="ltr">{shown}</bdi>' in persian and '<code dir="ltr">sdpa</code>' in persian
    for page in (german, persian):
        assert 'class="status failed"' in page and 'class="status error"' in page  # statuses: the record's


def test_validate_py_reports_in_the_students_language(tmp_path, monkeypatch):
    path = tmp_path / "validate.py"
    path.write_text(standalone_validate("fa"), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("released_validate", path)
    released = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "released_validate", released)  # dataclasses look their module up
    spec.loader.exec_module(released)
    assert released.LANGUAGE == "fa" and set(released.TRANSLATIONS) == {"de", "fa", "pl", "tr", "ko"}
    reports = [
        CellReport(3, "sdpa", "check", True, ""),
        CellReport(4, "sdpa_tests", "check", False, "AssertionError: x"),
    ]
    ok, text = released.summarise(reports, "de")
    assert not ok and "FEHLER" in text and "1/2 sichtbare Tests bestanden" in text
    assert released.summarise(reports, "en")[1].endswith(
        "1/2 visible checks passed; fix the failures above before submitting"
    )
