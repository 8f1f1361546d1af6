"""Final grades (issue 26): the kit's results joined with nbgrader's gradebook after graders
worked in it — hand-graded scores, an override, an unanswered paragraph, a student who handed
nothing in — equal `nbgrader export`'s numbers everywhere they are written (final results,
Canvas CSV, Moodle worksheet, feedback page, report); the gradebook itself records no SAWarning,
the roster's names, and formgrader's notebooks carry the grader's verdict on each test cell."""

from __future__ import annotations

import csv
import json
import re
import warnings

import nbformat
import pytest

from autograder.cli.main import main
from autograder.grading.hand_graded import PENDING, UNANSWERED, left_unanswered, pending_entries
from autograder.outputs.feedback_pages import feedback_page
from autograder.outputs.final_grades import GRADED, final_results
from autograder.outputs.formgrader_notebooks import verdict_text
from autograder.outputs.gradebook import record_results
from autograder.releasing.sample_submissions import make_notebook, write_submission
from autograder.spec import load_assignment

COURSE = "transformers101"


@pytest.fixture(scope="module")
def ps4():
    return load_assignment("ps4_alibi")


WRONG = {"alice": set(), "bob": {"alibi_attention", "bias_difference"}, "carol": set()}
REASON = "The bias must grow with the distance to the key, not with the key's position."
PARAGRAPH = "extrapolation"
HAND = 3.0  # its points


def kit_results(ps4, *, nothing_from: str = "carol") -> dict:
    """results.json as `autograder grade` writes it (carol handed nothing in; bob is late)."""
    students = {}
    for student, wrong in WRONG.items():
        qs = {
            q.grade_id: {
                "score": 0.0 if q.grade_id in wrong or student == nothing_from else float(q.points),
                "max_score": float(q.points),
                "status": "failed" if q.grade_id in wrong else ("missing" if student == nothing_from else "passed"),
                "feedback": REASON if q.grade_id in wrong else "",
            }
            for q in ps4.questions
        }
        qs.update(pending_entries(ps4))
        students[student] = {
            "score": sum(q["score"] for q in qs.values() if q["status"] != PENDING),
            "max_score": ps4.max_score,
            "questions": qs,
        }
    students[nothing_from]["error"] = "no ps4_alibi/ folder was submitted"
    students["bob"]["late"] = True
    return {"assignment": ps4.name, "max_score": ps4.max_score, "students": students}


@pytest.fixture
def course(ps4, tmp_path, monkeypatch):
    """A PS4 course whose gradebook `grade --db` filled: alice answered the paragraph, bob left it
    as released; then a TA graded alice's paragraph (with a comment) and overrode bob's alibi_attention."""
    from nbgrader.api import Gradebook

    root = tmp_path / "course"
    root.mkdir()
    (root / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.course_id = {COURSE!r}\nc.CourseDirectory.root = {str(root)!r}\n",
        encoding="utf-8",
    )
    roster = tmp_path / "roster.csv"
    roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,moodle_id,email\n"
        '"Lee, Alice",101,S1,alice,A,9001,alice@uni.edu\n"Bob Stone",102,S2,bob,A,9002,bob@uni.edu\n'
        '"Cho, Carol",103,S3,carol,B,9003,carol@uni.edu\n',
        encoding="utf-8",
    )
    released = {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in make_notebook(ps4, solved=False).cells
        if c.get("metadata", {}).get("nbgrader", {}).get("solution")
    }
    nb_bob = make_notebook(ps4, {PARAGRAPH: released[PARAGRAPH]})  # "YOUR ANSWER HERE", unchanged
    notebooks = {
        "alice": write_submission(tmp_path / "submitted", "alice", ps4, make_notebook(ps4)),
        "bob": write_submission(tmp_path / "submitted", "bob", ps4, nb_bob),
    }
    monkeypatch.chdir(root)
    results = kit_results(ps4)
    db = f"sqlite:///{root / 'gradebook.db'}"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # issue 26: SAWarnings on every --db run
        record_results(ps4, results, db, notebooks=notebooks, roster=roster)
    with Gradebook(db, COURSE) as gb:
        paragraph = gb.find_grade(PARAGRAPH, ps4.name, ps4.name, "alice")
        paragraph.manual_score = 1.5
        comment = gb.find_comment(PARAGRAPH, ps4.name, ps4.name, "alice")
        comment.manual_comment = "Good on the distances; the training length is missing."
        attention = gb.find_grade("alibi_attention", ps4.name, ps4.name, "bob")
        attention.manual_score = 3.0
        gb.db.commit()
    return {"root": root, "db": db, "roster": roster, "results": results, "tmp": tmp_path}


def nbgrader_export(db: str, ps: str) -> dict[str, dict]:
    """`nbgrader export`'s rows (its CSV plugin on the same gradebook), by student."""
    import tempfile
    from pathlib import Path

    from nbgrader.api import Gradebook
    from nbgrader.plugins.export import CsvExportPlugin

    with tempfile.TemporaryDirectory() as tmp, Gradebook(db, COURSE) as gb:
        dest = Path(tmp) / "grades.csv"
        CsvExportPlugin(to=str(dest), assignment=[ps]).export(gb)
        rows = {row["student_id"]: row for row in csv.DictReader(open(dest, encoding="utf-8"))}
    # who handed nothing in is no gradebook student; export would give them 0 of the maximum
    top = next(iter(rows.values()))["max_score"]
    return {s: rows.get(s, {"score": "0.0", "max_score": top}) for s in WRONG}


def test_gradebook_as_nbgrader_would_leave_it(ps4, course):
    from nbgrader.api import Gradebook

    with Gradebook(course["db"], COURSE) as gb:
        blank = gb.find_grade(PARAGRAPH, ps4.name, ps4.name, "bob")
        assert blank.auto_score == 0 and not blank.needs_manual_grade  # no response: 0, out of the queue
        alice = gb.find_student("alice")
        assert (alice.first_name, alice.last_name, alice.email, alice.lms_user_id) == (
            "Alice",
            "Lee",
            "alice@uni.edu",
            "101",
        )
        assert (gb.find_student("bob").first_name, gb.find_student("bob").last_name) == ("Bob", "Stone")
    # formgrader opens autograded/<student>/<ps>/: each test cell says the grader's verdict
    nb = nbformat.read(course["root"] / "autograded/bob" / ps4.name / ps4.notebook, as_version=4)
    outputs = {
        c.metadata["nbgrader"]["grade_id"]: c.outputs
        for c in nb.cells
        if c.cell_type == "code"
        and c.metadata.get("nbgrader", {}).get("grade")
        and not c.metadata["nbgrader"].get("solution")
    }
    assert "alibi_attention" in outputs and set(outputs) <= {q.grade_id for q in ps4.questions}
    assert all(len(out) == 1 for out in outputs.values())  # every test cell: the verdict, only it
    (attention,) = outputs["alibi_attention"]
    assert attention.name == "stderr" and REASON in attention.text and "failed — 0 / 3 points" in attention.text
    assert all(
        out[0].name == "stdout" and "passed" in out[0].text for gid, out in outputs.items() if gid not in WRONG["bob"]
    )


def test_final_grades_are_nbgrader_exports(ps4, course):
    final = final_results(ps4, course["results"], course["db"], roster=course["roster"])
    exported = nbgrader_export(course["db"], ps4.name)
    assert set(final["students"]) == set(WRONG)
    for student, rec in final["students"].items():
        assert rec["score"] == pytest.approx(float(exported[student]["score"])), student
        assert rec["max_score"] == pytest.approx(float(exported[student]["max_score"])) == ps4.max_score + HAND
        assert rec["score"] == pytest.approx(sum(q["score"] for q in rec["questions"].values())) or student == "carol"
    alice, bob, carol = (final["students"][s] for s in ("alice", "bob", "carol"))
    assert alice["score"] == ps4.max_score + 1.5 and alice["questions"][PARAGRAPH]["status"] == GRADED
    assert "training length is missing" in alice["questions"][PARAGRAPH]["feedback"]
    lost = sum(q.points for q in ps4.questions if q.grade_id in WRONG["bob"])
    assert bob["autograded_score"] == ps4.max_score - lost
    assert bob["score"] == ps4.max_score - lost + 3.0  # the override counts; the blank paragraph is 0
    assert bob["questions"]["alibi_attention"]["override"] and bob["questions"]["alibi_attention"]["auto_score"] == 0
    assert bob["questions"][PARAGRAPH]["status"] == UNANSWERED and bob["late"] is True
    assert carol["score"] == 0 and carol["questions"][PARAGRAPH]["status"] == UNANSWERED
    assert alice["name"] == "Lee, Alice" and final["incomplete"] == [] and final["stale"] == []


def test_final_feedback_page_shows_the_complete_total(ps4, course):
    final = final_results(ps4, course["results"], course["db"])
    page = feedback_page(ps4, "bob", final["students"]["bob"], final=True)
    bob = final["students"]["bob"]
    assert f"Final score: <b>{bob['score']:g} / {ps4.max_score + HAND:g}</b>" in page
    assert "still to come" not in page and 'class="status unanswered"' in page
    assert "Score set by a grader (the autograder gave 0)" in page and "LATE" in page


def add_flagged_and_a_comment(ps4, course) -> None:
    """dave's truncated notebook and erin's PS3 notebook handed in for PS4, graded as `grade`
    grades them (flagged, so never run: no worker) and recorded with `--db`; a TA's comment under
    alice's autograded answer `attention_impl` in formgrader."""
    from types import SimpleNamespace

    from nbgrader.api import Gradebook

    from autograder.grading.submission import grade_one
    from autograder.intake.submission import Submission
    from autograder.releasing.stages import released_notebook

    folder = course["tmp"] / "flagged"
    trunc = write_submission(folder, "dave", ps4, make_notebook(ps4))
    trunc.write_bytes(trunc.read_bytes()[:2000])
    wrong = write_submission(
        folder, "erin", ps4, nbformat.read(released_notebook(load_assignment("ps3")), as_version=4)
    )
    results = course["results"]
    for student, path in (("dave", trunc), ("erin", wrong)):
        results["students"][student] = grade_one(SimpleNamespace(mode="none"), ps4, Submission(student, path))
    assert "the ps3_rope notebook" in results["students"]["erin"]["flag_reason"]
    record_results(ps4, results, course["db"], notebooks={"dave": trunc, "erin": wrong}, students=["dave", "erin"])
    with Gradebook(course["db"], COURSE) as gb:
        for student in ("dave", "erin"):  # formgrader's manual queue holds neither
            grade = gb.find_grade(PARAGRAPH, ps4.name, ps4.name, student)
            assert not grade.needs_manual_grade and grade.auto_score == 0, student
            assert "not graded" in gb.find_comment(PARAGRAPH, ps4.name, ps4.name, student).auto_comment
        gb.find_comment("attention_impl", ps4.name, ps4.name, "alice").manual_comment = "Neat use of `tril`."
        gb.db.commit()


def test_final_grades_command_writes_canvas_moodle_pages_report(ps4, course, capsys):
    """... and with them a TA's comment and two flagged notebooks (issue 34): the comment reaches
    final/results.json, the final page and Moodle's worksheet; the flagged wait in no queue, are
    listed (PS3 named), get no 0 in Canvas and stay out of the report's statistics."""
    add_flagged_and_a_comment(ps4, course)
    out = course["tmp"] / "graded"
    out.mkdir()
    (out / "results.json").write_text(json.dumps(course["results"]), encoding="utf-8")
    canvas = course["tmp"] / "canvas.csv"
    argv = ["final-grades", "ps4", str(out), "--db", course["db"], "--roster", str(course["roster"])]
    assert main([*argv, "--canvas", str(canvas), "--canvas-column", "PS4 (4567)"]) == 0
    exported = nbgrader_export(course["db"], ps4.name)
    rows = list(csv.reader(open(canvas, encoding="utf-8")))
    assert rows[0][-1] == "PS4 (4567)" and rows[1] == [
        "    Points Possible",
        "",
        "",
        "",
        "",
        f"{ps4.max_score + HAND:g}",
    ]
    by_login = {row[3]: row for row in rows[2:]}
    assert by_login["alice"][:2] == ["Lee, Alice", "101"]
    for student in WRONG:
        assert float(by_login[student][-1]) == pytest.approx(float(exported[student]["score"]))
    moodle = list(csv.DictReader(open(out / "final/moodle_worksheet.csv", encoding="utf-8")))
    assert [m["Identifier"] for m in moodle] == ["Participant 9001", "Participant 9002", "Participant 9003"]
    for m, student in zip(moodle, ("alice", "bob", "carol")):
        assert float(m["Grade"]) == pytest.approx(float(exported[student]["score"]))
        assert float(m["Maximum Grade"]) == ps4.max_score + HAND
    assert moodle[1]["Status"].endswith("Late") and "LATE" in moodle[1]["Feedback comments"]
    page = (out / "final/feedback/alice.html").read_text(encoding="utf-8")
    assert f"Final score: <b>{ps4.max_score + 1.5:g} / {ps4.max_score + HAND:g}</b>" in page
    report = (out / "final/report/index.html").read_text(encoding="utf-8")
    assert f"{ps4.max_score + HAND:g}" in report and "final grades" in report and "Late (LMS marker)" in report
    printed = capsys.readouterr().out
    assert "Lee, Alice" in printed and "alibi_attention overridden" in printed
    assert "FLAGGED dave: unreadable" in printed and "FLAGGED erin: wrong_assignment: " in printed
    final = json.loads((out / "final/results.json").read_text())
    assert final["students"]["alice"]["questions"]["alibi_attention"]["grader_comment"] == "Neat use of `tril`."
    assert "Neat use of" in page
    assert "alibi_attention: Neat use of `tril`." in moodle[0]["Feedback comments"]
    assert by_login["dave"][-1] == by_login["erin"][-1] == ""  # no grade, never a 0
    flagged_page = (out / "final/feedback/erin.html").read_text()
    assert flagged_page.index("not graded: it is not this problem set") < flagged_page.index("Final score")
    assert "ps3_rope" in flagged_page and "still to come" not in flagged_page
    assert "still to come" not in (out / "final/feedback/dave.html").read_text()
    assert re.search(r"Students</t[dh]>\s*<td[^>]*>3<", report), report[:3000]  # dave and erin left out
    assert "Flagged submissions" in report


def test_a_hand_graded_cell_still_waiting_makes_the_grades_incomplete(ps4, course, capsys):
    from nbgrader.api import Gradebook

    with Gradebook(course["db"], COURSE) as gb:
        gb.find_grade(PARAGRAPH, ps4.name, ps4.name, "alice").manual_score = None
        gb.find_grade("alibi_slopes", ps4.name, ps4.name, "alice").auto_score = 0.0  # not results.json's
        gb.db.commit()
    final = final_results(ps4, course["results"], course["db"])
    assert final["incomplete"] == [f"alice: {PARAGRAPH}"]
    (stale,) = final["stale"]
    points = next(q.points for q in ps4.questions if q.grade_id == "alibi_slopes")
    assert stale == f"alice: alibi_slopes: the gradebook's auto score 0 is not results.json's {points:g}"
    assert final["students"]["alice"]["questions"][PARAGRAPH]["status"] == PENDING
    out = course["tmp"] / "graded"
    out.mkdir()
    (out / "results.json").write_text(json.dumps(course["results"]), encoding="utf-8")
    argv = ["final-grades", "ps4", str(out), "--db", course["db"]]
    assert main(argv) == 1
    assert "1 hand-graded cells still wait for a grader" in capsys.readouterr().err
    assert main([*argv, "--allow-pending"]) == 0


def test_verdict_text_is_the_students_feedback():
    text = verdict_text({"status": "failed", "score": 0, "max_score": 2, "feedback": REASON})
    assert text == f"autograder: failed — 0 / 2 points\n{REASON}\n"


def test_results_entries_say_unanswered_for_a_cell_handed_in_as_released(ps4, tmp_path):
    blank = write_submission(tmp_path, "bob", ps4, make_notebook(ps4, solved=False))
    answered = write_submission(tmp_path, "alice", ps4, make_notebook(ps4))
    assert left_unanswered(blank) >= {PARAGRAPH} and PARAGRAPH not in left_unanswered(answered)
    entry = pending_entries(ps4, blank)[PARAGRAPH]
    assert (entry["status"], entry["score"], entry["max_score"]) == (UNANSWERED, 0.0, HAND)
    assert pending_entries(ps4, answered)[PARAGRAPH]["status"] == PENDING
    assert pending_entries(ps4)[PARAGRAPH]["status"] == PENDING  # no notebook: nothing to tell
    page = feedback_page(ps4, "bob", {"score": 0, "max_score": ps4.max_score, "questions": pending_entries(ps4, blank)})
    assert "still to come" not in page and 'class="status unanswered"' in page


def test_record_notes_say_late_and_flag_once():
    from autograder.outputs.exports import record_notes

    assert record_notes({"late": True})[0].startswith("handed in late")
    unreadable = {"flag": "unreadable", "flag_reason": "not JSON", "error": "not JSON"}
    assert record_notes(unreadable) == ["flagged unreadable"]  # the error note already says why
    other = {"flag": "wrong_assignment", "flag_reason": "the ps3 notebook"}
    assert record_notes(other) == ["flagged wrong_assignment: the ps3 notebook"]
    assert record_notes({"late": False, "flag": None}) == []
