"""What reaches a page as stored English — probe labels, record flags and notes, the formula
grammar's refusals — is said in the page's language, and stays byte for byte the same in English
(autograder/i18n/labels.py, recognise.py; judging/compare/formula_messages.py)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from autograder.grading.integrity import CODE_PATTERNS, WALL_PATTERNS, code_flags, wall_flags
from autograder.grading.notebook import NotebookError, parse_notebook, read_notebook
from autograder.i18n import Message, say
from autograder.i18n.completeness import problem_set_problems
from autograder.i18n.extract import TRANSLATED
from autograder.i18n.label_catalogue import read_manifest
from autograder.i18n.labels import ENGINE_LABELS, is_language, say_label, template
from autograder.i18n.recognise import RECORD_TEXTS, recognise, say_record_text
from autograder.intake.collect import choose_notebook
from autograder.judging.compare import formula_grammar
from autograder.judging.compare.formula_messages import SYNTAX_ERRORS
from autograder.judging.compare.symbolic import FormulaError, parse_formula
from autograder.outputs.exports import record_notes
from autograder.spec import Probe, load_assignment


def test_a_label_is_translated_by_its_template_and_its_values_go_back_in(ps1):
    assert template("L = 12 rows, n_new = 21") == ("L = {v1} rows, n_new = {v2}", {"v1": "12", "v2": "21"})
    assert template("tiny model, prompt [1, 5], beam width 2, eos None")[0] == (
        "tiny model, prompt {v1}, beam width {v2}, eos {v3}"
    )
    assert template("a (16, 4) table: 16 buckets")[0] == "a {v1} table: {v2} buckets"
    assert not is_language(template("d_out = 12, num_heads = 4")[0]) and not is_language("{v1}")  # code
    assert say_label("L = 12 rows, n_new = 21", "de", "ps2_positional") == "L = 12 Zeilen, n_new = 21"
    assert say_label("unmasked, batch × heads", "ko", ps1.name) == "마스크 없음, 배치 × 헤드"
    assert say_label("unmasked, batch × heads", "en", ps1.name) == "unmasked, batch × heads"
    assert say_label("not a label anywhere", "fa", ps1.name) == "not a label anywhere"
    assert say_label("your answer", "tr", None) == "cevabınız"
    raised = Message("`{answer}` on {where} raised {error}", answer="sdpa", where="causal mask", error="E")
    assert say(raised.to_json(), "pl", ps1.name) == say(raised, "pl", ps1.name)
    assert "maska przyczynowa" in say(raised.to_json(), "pl", ps1.name)
    assert say(raised, "en", ps1.name) == raised == "`sdpa` on causal mask raised E"  # English: unchanged


def test_a_label_added_later_fails_the_completeness_check_until_translated():
    ps2 = load_assignment("ps2")
    assert problem_set_problems(ps2) == []
    manifest = read_manifest(ps2)
    assert manifest and all(fp for fp, _ in manifest.values())  # every question's fingerprint kept
    q = next(q for q in ps2.questions if q.grade_id in manifest and manifest[q.grade_id][1])
    drawn = q.probes

    def with_a_new_label(rng):  # another engineer's new probe: code the .pot has not seen
        return [*drawn(rng), Probe((), "a brand-new probe on 7 rows")]

    changed = dataclasses.replace(ps2, questions=[dataclasses.replace(q, probes=with_a_new_label)])
    problems = problem_set_problems(changed)
    assert len(problems) == len(TRANSLATED), problems
    assert all("_labels.po: not translated: 'a brand-new probe on {v1} rows'" in p for p in problems)


def _every_flag(tmp_path: Path) -> list[str]:
    """Every flag and note the grader writes, by its own code where it is reachable cheaply."""
    flags = [f"code {message.format('torch.allclose')}" for _, message in CODE_PATTERNS]
    flags += code_flags(["import builtins\nbuiltins.print = None\nnp.allclose = lambda *a: True"])
    flags += wall_flags(["PermissionError: Permission denied", "ModuleNotFoundError: No module named 'solutions'"])
    flags += [message for _, message in WALL_PATTERNS]
    flags += [
        "locked cell 'sdpa_tests' was deleted",  # grading/notebook.integrity_flags
        "locked cell 'sdpa_tests' was modified",
        "cell 'sdpa_impl' appears 2 times",
        "none of this problem set's cells were found: is this the notebook of another assignment?",
        "another assignment's notebook: ps2.ipynb is the ps2_positional notebook, not ps1_attention's: "
        "it holds 3 of ps1_attention's 40 graded cells",  # grading/submission.py with foreign_notebook's reason
        "another assignment's notebook: ps2.ipynb is the ps2_positional notebook, not ps1_attention's: "
        "none of ps1_attention's graded cells is in it",
        "the notebook's kernel is R (r), not Python: it was run as Python",
        "ps1.ipynb holds none of ps1_attention's cells and scored 0: another assignment's?",
        "expected one notebook named ps1_attention.ipynb in the submission, found 0: none",
        "no ps1_attention/ folder was submitted",  # intake/collect.py
    ]
    ps1 = type("A", (), {"notebook": "ps1_attention.ipynb", "name": "ps1_attention"})()
    flags += [choose_notebook([], ps1)[1], choose_notebook([Path("a.ipynb"), Path("b.ipynb")], ps1)[1]]
    flags += record_notes({"late": True, "flag": "unreadable", "flag_reason": "x", "late_submission_penalty": 2})
    flags += record_notes({"flag": "wrong_assignment"})
    for data in (b"", b"\xff", b'{"cells": [', b'{"a" 1}', b"[]", b'{"nbformat": 4, "cells": 3}'):
        with pytest.raises(NotebookError) as caught:
            parse_notebook(data, "x.ipynb")
        flags.append(str(caught.value))
    with pytest.raises(NotebookError) as caught:
        read_notebook(tmp_path / "gone.ipynb")
    flags.append(str(caught.value))
    return flags


def test_every_flag_and_note_is_recognised_said_in_each_language_and_kept_in_english(tmp_path):
    flags = _every_flag(tmp_path)
    assert len(flags) > 30
    for flag in flags:
        found = recognise(flag)
        assert found is not None, f"no msgid in autograder/i18n/recognise.py says {flag!r}"
        assert found == flag and say_record_text(flag, "en") == flag  # the stored English, unchanged
        for lang in TRANSLATED:
            said = say_record_text(flag, lang)
            assert said != flag and "{" not in said, (lang, flag, said)
    # a flag's reason is a message too: nothing English left inside
    german = say_record_text(
        "another assignment's notebook: ps2.ipynb is the ps2_positional notebook, not ps1_attention's: "
        "none of ps1_attention's graded cells is in it",
        "de",
    )
    assert german == (
        "Notebook einer anderen Aufgabe: ps2.ipynb ist das Notebook von ps2_positional, nicht das von ps1_attention: "
        "es enthält keine der bewerteten Zellen von ps1_attention"
    )
    assert len(RECORD_TEXTS) == len(set(RECORD_TEXTS))


def test_every_refusal_of_the_formula_grammar_is_a_message_in_each_language():
    bad = {
        4: "the answer must be a formula",
        "x" * 501: "longer than",
        " ": "empty",
        "4d": "write multiplication explicitly",
        "d +": "not a formula I can read",
        "-" * 50 + "d": "nested too deeply",
        "'d'": "is not a number",
        "q": "unknown symbol",
        "~d": "the operator Invert is not allowed",
        "d @ d": "use + - * / ** or ^",
        "foo(d)": "function foo is not allowed (allowed",
        "sqrt(d, d)": "takes exactly one argument",
        "[d]": "a list is not allowed",
        "d.x": "attribute access (a.b) is not allowed",
    }
    seen = set()
    for text, english in bad.items():
        with pytest.raises(FormulaError) as caught:
            parse_formula(text, ["d"])
        said = caught.value.args[0]
        assert english in said and isinstance(said, Message), (text, said)
        seen.add(said.msgid)
        for lang in TRANSLATED:
            assert say(said.to_json(), lang) != said and english not in say(said, lang), (lang, text)
    for text, symbols, functions in (("q", [], None), ("foo(d)", ["d"], ())):  # "use none", no functions allowed
        with pytest.raises(FormulaError) as caught:
            parse_formula(text, symbols, *([] if functions is None else [functions]))
        seen.add(caught.value.args[0].msgid)
    assert seen == set(SYNTAX_ERRORS), sorted(set(SYNTAX_ERRORS) - seen)
    # the shipped grammar's 12 refusals (3 with two wordings) are all above: a new one needs its msgid
    raises = len(re.findall(r"raise FormulaSyntaxError\(", Path(formula_grammar.__file__).read_text("utf-8")))
    assert raises == 12 == len(SYNTAX_ERRORS) - 3


def test_engine_labels_are_in_the_engine_catalogue():
    for label in ENGINE_LABELS:
        assert all(say_label(label, lang, None) != label for lang in TRANSLATED)
