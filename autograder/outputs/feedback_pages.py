"""Student feedback pages: one self-contained HTML file per student (``OUT/feedback/<student>.html``),
handed to students as is (nbgrader's release_feedback, the grading service's feedback view).

The page shows each question's points, status and feedback in the problem set's order, then the
hand-graded questions: graded (with the grader's comment), unanswered (0), or still to come; and
the record's notes (an error, flags, the LMS's late marker). A final record (``autograder
final-grades``) shows the final score, hand-graded points and overrides included; never a probe
or a hidden test.

A page is in one language (``lang``; ``write_feedback_pages`` takes one per student: the run's
``--lang``, the roster's ``language`` column, the course's): the page's own words from the
engine's catalogue, each question's feedback from the structured ``message`` results.json keeps
beside the English ``feedback`` (``autograder.i18n``), titles from the problem set's catalogue.
Scores and statuses are the record's, whatever the language.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from autograder.grading.hand_graded import PENDING, hand_graded
from autograder.grading.storage import safe_name
from autograder.i18n import N_, Message, say, translate
from autograder.i18n.labels import say_label
from autograder.i18n.recognise import say_record_text
from autograder.outputs.exports import question_titles, record_notes
from autograder.outputs.templating import render
from autograder.spec import Assignment

NOT_GRADED = N_("not graded: see the flag above")


def feedback_text(question: dict, lang: str, problem_set: str) -> str:
    """A question's feedback in ``lang``: its stored message said there (a misconception in
    ``problem_set``'s catalogue), else the English text."""
    message = question.get("message")
    if message and lang != "en":
        return say(message, lang, problem_set)
    return say_record_text(question.get("feedback", ""), lang)  # plain English: an intake problem the engine knows


def flag_text(rec: dict, lang: str = "en") -> str:
    """What a flagged record's reader is told first: why the notebook was not graded."""
    reason = rec.get("flag_reason") or rec.get("error") or ""
    reason = say_record_text(reason, lang)  # stored in English: said in the page's language when the engine knows it
    if rec.get("flag") == "unreadable":
        return translate("the file handed in could not be read as a notebook ({reason}).", lang, reason=reason)
    if rec.get("flag") == "wrong_assignment":
        return translate("it is not this problem set's notebook: {reason}.", lang, reason=reason)
    return translate("flagged {flag}: {reason}.", lang, flag=rec.get("flag"), reason=reason) if rec.get("flag") else ""


def feedback_page(
    assignment: Assignment,
    student: str,
    rec: dict,
    *,
    final: bool = False,
    handin: dict | None = None,
    lang: str | None = None,
) -> str:
    """The page of one student's record (a results.json entry, a final record, or the service's
    student view), in ``lang`` (default English): a flag first, then the questions, the notes, and
    with ``handin`` (the grading service's, autograder/serve/pages.py) which hand-in this is and the
    way back to the others."""
    lang = lang or "en"
    titles = dict(question_titles(assignment)) | {h.grade_id: h.title for h in hand_graded(assignment)}
    order = list(titles)
    rows = [
        dict(q, title=titles.get(gid, gid))
        for gid, q in sorted(
            rec["questions"].items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)
        )
    ]
    for row in rows:
        row["feedback"] = feedback_text(row, lang, assignment.name)
        row["title"] = say(Message(row["title"], assignment.name), lang) if lang != "en" else row["title"]
        row["title"] = say_label(row["title"], lang, assignment.name)  # a hand-graded question's (labels.py)
    shared = said_once(rows, lang)
    graded = [row for row in rows if row.get("status") != PENDING]
    pending = [row for row in rows if row.get("status") == PENDING]
    flag = flag_text(rec, lang)
    notes = shared + ([rec["error"]] if rec.get("error") else []) + rec.get("flags", []) + record_notes(rec)
    if flag:  # said once, first: not again under the notes
        said = {rec.get("error"), rec.get("flag_reason")}
        notes = [n for n in notes if n not in said and not n.startswith(("flagged ", "another assignment's notebook"))]
        not_graded = translate(NOT_GRADED, lang)
        graded, pending = graded + [dict(row, status="not graded", feedback=not_graded) for row in pending], []
    notes = [say_record_text(note, lang) for note in notes]  # flags and notes: stored English, said in lang
    if final:
        title = Message("{ps} — final grade for {student}", ps=assignment.name, student=student)
    else:
        title = Message("{ps} — feedback for {student}", ps=assignment.name, student=student)
    return render(
        "feedback.html",
        lang=lang,
        title=say(title, lang),
        final=final,
        score=rec["score"],
        max_score=rec["max_score"],
        graded=graded,
        pending=pending,
        pending_points=sum(q["max_score"] for q in pending),
        notes=notes,
        flag=flag,
        handin=handin,
    )


def said_once(rows: list[dict], lang: str = "en") -> list[str]:
    """A context several questions' feedback ends with (a blank notebook's "— still `raise
    NotImplementedError()` in: …" list, a failed cell) is cut from each and returned once, as a note
    (on the feedback as the page says it, in its language)."""
    ends: dict[str, int] = {}
    for row in rows:
        text = row.get("feedback") or ""
        cut = min((i for i in (text.find(" — "), text.find(" (")) if i > 0), default=-1)
        if cut > 0:
            ends[text[cut:]] = ends.get(text[cut:], 0) + 1
    shared = [end for end, n in ends.items() if n > 1 and len(end) > 30]
    marker = translate("see the note below", lang)
    for row in rows:
        for end in shared:
            if (row.get("feedback") or "").endswith(end):
                row["feedback"] = row["feedback"][: -len(end)] + f" ({marker})"
    return [
        translate("for each question marked “{marker}”: {context}", lang, marker=marker, context=end.strip(" —()"))
        for end in shared
    ]


def write_feedback_pages(
    assignment: Assignment, results: dict, folder: Path, language_of: Callable[[str], str] | None = None
) -> None:
    """One page per student, each in ``language_of(student)`` (default: English)."""
    folder.mkdir(parents=True, exist_ok=True)
    final = bool(results.get("final"))
    for student, rec in results["students"].items():
        page = feedback_page(assignment, student, rec, final=final, lang=language_of(student) if language_of else None)
        (folder / f"{safe_name(student)}.html").write_text(page, encoding="utf-8")
