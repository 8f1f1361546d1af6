"""HTML for the service: the student's page (upload forms, their submissions), a submission's
feedback (the same page ``autograder grade`` writes), the instructors' queue view."""

from __future__ import annotations

import datetime as _dt
import json
from html import escape

STYLE = """<style>body{font-family:sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}.done{color:#060}.error,.refused{color:#a00}
.queued,.running{color:#a60}form{margin:.5em 0}</style>"""


def _when(t: float | None) -> str:
    return _dt.datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M:%S") if t else ""


def _page(title: str, body: str, refresh: bool = False) -> str:
    meta = '<meta http-equiv="refresh" content="1">' if refresh else ""
    return (
        f'<!doctype html><html><head><meta charset="utf-8">{meta}<title>{escape(title)}</title>{STYLE}</head>'
        f"<body><h1>{escape(title)}</h1>{body}</body></html>"
    )


def submissions_table(jobs, base: str, show_student: bool = False) -> str:
    if not jobs:
        return "<p>No submissions yet.</p>"
    head = (
        "<tr><th>#</th>"
        + ("<th>student</th>" if show_student else "")
        + "<th>problem set</th><th>received</th><th>state</th><th>score</th><th></th></tr>"
    )
    rows = []
    for j in jobs:
        score = f"{j.score:g} / {j.max_score:g}" if j.state == "done" else ""
        link = f'<a href="{base}feedback/{j.id}">feedback</a>' if j.state in ("done", "error", "refused") else ""
        rows.append(
            f"<tr><td>{j.id}</td>"
            + (f"<td>{escape(j.student)}</td>" if show_student else "")
            + f"<td>{escape(j.ps)}</td><td>{_when(j.received)}</td>"
            f'<td class="{escape(j.state)}">{escape(j.state)}</td><td>{score}</td><td>{link}</td></tr>'
        )
    return f"<table>{head}{''.join(rows)}</table>"


def home(user: str, problem_sets: list[str], jobs, base: str, xsrf: str, instructor: bool, rate: str) -> str:
    forms = "".join(
        f'<form method="post" action="{base}api/submit/{escape(ps)}?wait=10&amp;redirect=1" '
        f'enctype="multipart/form-data"><input type="hidden" name="_xsrf" value="{escape(xsrf)}">'
        f'<b>{escape(ps)}</b> <input type="file" name="notebook" accept=".ipynb"> '
        f'<button type="submit">Submit for grading</button></form>'
        for ps in problem_sets
    )
    extra = f'<p><a href="{base}instructor">Queue and recent results (instructors)</a></p>' if instructor else ""
    return _page(
        f"Grading — {user}",
        f"{extra}<h2>Submit</h2><p>Rate limit: {escape(rate)} per problem set.</p>{forms}"
        f"<h2>Your submissions</h2>{submissions_table(jobs, base)}",
    )


def not_graded(job) -> str:
    if job.state in ("queued", "running"):
        return _page(
            f"{job.ps} — submission {job.id}",
            f"<p>Your submission is {job.state}; this page reloads itself.</p>",
            refresh=True,
        )
    return _page(
        f"{job.ps} — submission {job.id}",
        f'<p class="{escape(job.state)}">Not graded: {escape(job.error or job.state)}</p>',
    )


def instructor(stats: dict, queued, recent, base: str) -> str:
    latency = [j.finished - j.received for j in recent if j.finished]
    body = (
        f"<h2>Service</h2><pre>{escape(json.dumps(stats, indent=1))}</pre>"
        + (
            f"<p>Submit-to-feedback over the last {len(latency)} results: median "
            f"{sorted(latency)[len(latency) // 2]:.2f} s, max {max(latency):.2f} s</p>"
            if latency
            else ""
        )
        + f"<h2>Queue ({len(queued)})</h2>{submissions_table(queued, base, show_student=True)}"
        + f"<h2>Recent results</h2>{submissions_table(recent, base, show_student=True)}"
    )
    return _page("Grading service — instructors", body)
