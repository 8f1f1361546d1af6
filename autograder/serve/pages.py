"""HTML for the service: the student's page (upload forms, their submissions), a submission's
feedback (the same page ``autograder grade`` writes), the instructors' queue view, and a
refusal (403, 404, 413, 429, ...) for a browser.

Rendered from ``templates/pages/serve_*.html`` (autoescaped, the kit's stylesheet inlined: the
service has no static route). A student's pages are in their language (``lang``: the browser's
Accept-Language, then the course's; ``app.BaseHandler.language``); the instructors' in English.
"""

from __future__ import annotations

import datetime as _dt
import json

from autograder.i18n import N_, Message, say, translate
from autograder.outputs.templating import render
from autograder.serve.handin import route


def _when(t: float | None) -> str:
    return _dt.datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M:%S") if t else ""


def home(
    user: str, problem_sets: list[str], jobs, base: str, xsrf: str, instructor: bool, rate: str, lang: str = "en"
) -> str:
    """The student's page; ``jobs`` newest first (the journal's order): each problem set's first
    is the hand-in that counts, and is marked so."""
    return render(
        "serve_home.html",
        lang=lang,
        title=say(Message("Grading — {user}", user=user), lang),
        problem_sets=problem_sets,
        jobs=jobs,
        base=base,
        xsrf=xsrf,
        instructor=instructor,
        rate=rate,
        when=_when,
        policy=translate(HANDIN_POLICY, lang),
        counting={next(j.id for j in jobs if j.ps == ps) for ps in {j.ps for j in jobs}},
    )


HANDIN_POLICY = N_(
    "Your latest hand-in of this problem set counts, whether it came through nbgrader "
    "(the Assignments tab's Submit, `nbgrader submit`) or through the upload form of the grading service; "
    "hidden inputs, not only the notebook's examples, are graded."
)


def handin_note(job, base: str, later: int = 0, lang: str = "en") -> dict:
    """What a feedback page says about the hand-in it belongs to: when, which one counts
    (``later``: how many submissions of the same problem set came after it), the way back; in the
    page's language."""
    return {
        "submission": job.id,
        "received": _when(job.received),
        "route": translate(route(job.origin), lang),
        "later": later,
        "policy": translate(HANDIN_POLICY, lang),
        "link": base,
    }


def not_graded(job, lang: str = "en") -> str:
    return render(
        "serve_submission.html",
        lang=lang,
        title=say(Message("{ps} — submission {id}", ps=job.ps, id=job.id), lang),
        job=job,
        waiting=job.state in ("queued", "running"),
    )


def instructor(stats: dict, queued, recent, base: str, results: int | None = None) -> str:
    """``results``: how many submissions have been graded in all (``recent`` holds the latest
    few), said beside an empty queue; by default those in ``recent``."""
    return render(
        "serve_instructor.html",
        title="Grading service — instructors",
        stats_json=json.dumps(stats, indent=1),
        latency=sorted(j.finished - j.received for j in recent if j.finished),
        queued=queued,
        recent=recent,
        results=len(recent) if results is None else results,
        base=base,
        when=_when,
    )


def error(status: int, reason: str, message: str, base: str, retry_after: int | None, lang: str = "en") -> str:
    """A refusal as a browser shows it (the API answers the same refusal as JSON); a refusal
    marked ``N_()`` where it is raised is said in ``lang``, others as they are."""
    return render(
        "serve_error.html",
        lang=lang,
        title=f"{status} {reason}",
        message=translate(message, lang),
        base=base,
        retry_after=retry_after,
    )
