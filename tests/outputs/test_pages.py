"""The HTML pages (student feedback, cohort report, similarity report, the service's pages) render
from templates: student-controlled text is escaped, every page inlines the one shared stylesheet."""

from __future__ import annotations

import re
from types import SimpleNamespace

from autograder.outputs.feedback_pages import feedback_page
from autograder.outputs.report import question_stats, render_page
from autograder.serve import pages
from autograder.similarity import code as sc
from autograder.similarity.page import render as similarity_page
from autograder.similarity.personal import PersonalFlag

SCRIPT = "<script>alert(1)</script>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;"


def _results(ps1) -> dict:
    gid = ps1.questions[0].grade_id
    student = {
        "score": 0,
        "max_score": 1,
        "error": f"the notebook printed {SCRIPT}",
        "questions": {
            gid: {
                "score": 0,
                "max_score": 1,
                "status": "failed",
                "feedback": f"you returned {SCRIPT}",
                "misconception": "tag_soup",
            }
        },
    }
    return {"assignment": ps1.name, "max_score": 1, "students": {SCRIPT: student, "bob": {**student, "error": None}}}


def _stylesheet(page: str) -> str:
    styles = re.findall(r"<style>(.*?)</style>", page, re.S)
    assert len(styles) == 1 and "<link" not in page  # one self-contained file
    return styles[0]


def _escaped(page: str) -> None:
    assert SCRIPT not in page and "<script" not in page
    assert ESCAPED in page


def test_feedback_page_escapes_the_student_id_and_their_answer(ps1):
    results = _results(ps1)
    page = feedback_page(ps1, SCRIPT, results["students"][SCRIPT])
    _escaped(page)
    assert f"feedback for {ESCAPED}" in page and f"you returned {ESCAPED}" in page
    assert f"Note: the notebook printed {ESCAPED}" in page
    assert 'class="status failed"' in page


def test_report_escapes_feedback_and_keeps_the_similarity_section(ps1):
    results = _results(ps1)
    section = '<h2 id="similarity">Similarity (evidence, not scores)</h2>'
    page = render_page(results, question_stats(results, ps1), False, section)
    _escaped(page)
    assert section in page  # built, and escaped, by the similarity command
    assert re.search(r'<td class="feedback">you returned &lt;script&gt;', page)


def test_similarity_page_escapes_ids_and_code_and_marks_the_matches():
    unit = sc.Unit(label="answer", source=f"x = '{SCRIPT}'\ny = 2\n", tokens=(), spans=())
    region = sc.Region(unit_a=unit, spans_a=((0, 5),), unit_b=unit, spans_b=((0, 5),), shared=3)
    pair = sc.Pair(SCRIPT, "bob", 0.9, 30, 0.9, 0.8, regions=(region,))
    comparison = sc.Comparison(pairs=[pair], clusters=[[SCRIPT, "bob"]], common=0, students=2, threshold=0.5)
    flags = [PersonalFlag(SCRIPT, "shapes", ("bob",))]
    page = similarity_page("ps", comparison, flags, personal_available=True, unreadable={SCRIPT: SCRIPT})
    _escaped(page)
    assert f"<pre><mark>x = &#39;</mark>{ESCAPED}&#39;\ny = 2\n</pre>" in page
    assert f'<tr data-student="{ESCAPED}" data-question="shapes">' in page


def test_service_pages_escape_the_user_and_keep_the_upload_form():
    job = SimpleNamespace(id=7, student=SCRIPT, ps="ps1", received=1.7e9, finished=1.7e9 + 2, state="done")
    job.score, job.max_score, job.error = 3, 4, None
    home = pages.home(SCRIPT, ["ps1"], [job], "/services/autograder/", "token", False, "3 per minute")
    _escaped(home)
    form = re.search(r'<form method="post" action="([^"]+)".*?name="_xsrf" value="([^"]+)"', home)
    assert form.groups() == ("/services/autograder/api/submit/ps1?wait=10&amp;redirect=1", "token")
    assert 'href="/services/autograder/feedback/7"' in home and "3 / 4" in home
    assert "(counts: your latest)" in home and "latest hand-in of this problem set counts" in home
    queue = pages.instructor({"served": 1}, [], [job], "/services/autograder/")
    _escaped(queue)
    refused = SimpleNamespace(id=8, ps="ps1", state="refused", error=SCRIPT)
    _escaped(pages.not_graded(refused))
    running = pages.not_graded(SimpleNamespace(id=9, ps="ps1", state="running", error=None))
    assert 'http-equiv="refresh"' in running


def test_every_page_inlines_the_same_stylesheet(ps1):
    results = _results(ps1)
    comparison = sc.Comparison(pairs=[], clusters=[], common=0, students=2, threshold=0.5)
    rendered = [
        feedback_page(ps1, "bob", results["students"]["bob"]),
        render_page(results, question_stats(results, ps1), False),
        similarity_page("ps", comparison, [], personal_available=False, unreadable={}),
        pages.instructor({}, [], [], "/"),
    ]
    assert len({_stylesheet(page) for page in rendered}) == 1


def test_feedback_markdown_is_rendered_and_repeated_context_said_once(ps1):
    why = " — still `raise NotImplementedError()` in: cell sdpa_impl, cell mask_impl, cell heads_impl"
    questions = {
        q.grade_id: {"score": 0, "max_score": 1, "status": "missing", "feedback": "`q` is not defined" + why}
        for q in ps1.questions[:5]
    }
    page = feedback_page(ps1, "amy", {"score": 0, "max_score": 5, "questions": questions})
    assert "<code>q</code> is not defined (see the note below)" in page and "`" not in page.split("<body")[1]
    assert page.count("cell heads_impl") == 1  # the list is said once
    flagged = {"score": 0, "max_score": 5, "questions": questions, "flag": "wrong_assignment"}
    flagged |= {"flag_reason": f"x.ipynb is the ps3_rope notebook, not {ps1.name}'s", "error": "x"}
    page = feedback_page(ps1, "amy", flagged)
    assert page.index("ps3_rope notebook") < page.index("Score:") and page.count("ps3_rope") == 1
    from autograder.serve.engine import student_view  # the service's page shows the flag too

    assert student_view(flagged)["flag"] == "wrong_assignment" and "ps3_rope" in student_view(flagged)["flag_reason"]
