"""The HTTP side of ``autograder serve`` (tornado), mounted under the service prefix.

=================================  ==========================================================
``GET  health``                    no login: ``{"ready": ...}`` once the workers are warm
``GET  ``                          the student's page: upload forms, their submissions
``POST api/submit/<ps>``           upload a notebook (multipart field ``notebook``, or the
                                   .ipynb JSON as the body); ``?wait=S`` answers once graded
                                   (at most S seconds), ``&redirect=1`` goes to its feedback page.
                                   202/200 JSON; 429 over the rate limit, 503 queue full
                                   (both with Retry-After), 404 unknown problem set, 413 over
                                   the upload limit (the body is read and dropped, so the
                                   client, or JupyterHub's proxy, gets the answer, not a reset)
``GET  api/submissions[/<id>]``    the user's submissions / one of them (``?wait=S``)
``GET  feedback/<id>``             the feedback page of one submission
``GET  api/queue``, ``instructor``  instructors: queue, rates, recent results
=================================  ==========================================================

A submission belongs to the user who sent it; anyone else but an instructor gets 403.
Every refusal is JSON ``{"error": ..., "status": ...}``, or an HTML page when the client asks
for one (``Accept: text/html``: a browser, the upload form).
"""

from __future__ import annotations

import asyncio
import json
import math
from concurrent.futures import ThreadPoolExecutor

from tornado import httputil, web
from tornado.ioloop import IOLoop

from autograder.i18n import N_, choose_language, from_accept_language
from autograder.serve import pages
from autograder.serve.auth import Policy, auth_mixin, oauth_callback_handler
from autograder.serve.engine import MAX_UPLOAD_BYTES, Engine, Refused

FINAL = ("done", "error", "refused")
MAX_WAIT_S = 120.0
MULTIPART_SLACK = 1 << 16  # the form's boundaries and headers around the notebook
DRAIN_MAX_BYTES = 256 << 20  # an oversized upload is read and dropped up to this; beyond, cut off
DEFAULT_RETRY_AFTER_S = 60  # a 429 or 503 always says when to come back


class Refusal(web.HTTPError):
    """An HTTP error that says when to try again (``Retry-After``): headers set before
    ``send_error`` are cleared, so ``write_error`` sets it from here."""

    def __init__(self, status: int, message: str, retry_after: float | None = None):
        super().__init__(status, "%s", message)
        self.retry_after = retry_after


def upload_limit_message() -> str:
    return f"the upload is too large: a notebook of at most {MAX_UPLOAD_BYTES >> 20} MB is accepted"


class Waiters:
    """Futures resolved (on the IOLoop) as the engine finishes jobs."""

    def __init__(self, engine: Engine, loop: IOLoop):
        self.engine, self.loop, self._waiting = engine, loop, {}
        engine.listeners.append(lambda job: loop.add_callback(self._resolve, job))

    def _resolve(self, job) -> None:
        for fut in self._waiting.pop(job.id, []):
            if not fut.done():
                fut.set_result(job)

    async def wait(self, job_id: int, timeout: float):
        job = self.engine.journal.get(job_id)
        if job is None or job.state in FINAL or timeout <= 0:
            return job
        fut = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(job_id, []).append(fut)
        job = self.engine.journal.get(job_id)  # finished between the first look and now?
        if job.state in FINAL:
            return job
        try:
            return await asyncio.wait_for(fut, timeout)
        except TimeoutError:
            return self.engine.journal.get(job_id)
        finally:
            if job_id in self._waiting and fut in self._waiting[job_id]:
                self._waiting[job_id].remove(fut)


class Base(web.RequestHandler):
    @property
    def engine(self) -> Engine:
        return self.settings["engine"]

    @property
    def policy(self) -> Policy:
        return self.settings["policy"]

    @property
    def base(self) -> str:
        return self.settings["prefix"]

    def user_name(self) -> str:
        name = self.policy.name(self.current_user)
        if name is None:
            raise web.HTTPError(403, N_("only users submit and read feedback"))
        return name

    def instructor(self) -> bool:
        return self.policy.is_instructor(self.current_user)

    def language(self) -> str:
        """The student's language: their browser's (Accept-Language), else the course's."""
        return choose_language(
            from_accept_language(self.request.headers.get("Accept-Language")), self.settings["language"]
        )

    def own(self, job_id: str):
        job = self.engine.journal.get(int(job_id))
        if job is None:
            raise web.HTTPError(404, N_("no such submission"))
        if job.student != self.user_name() and not self.instructor():
            raise web.HTTPError(403, N_("this submission is not yours"))
        return job

    def wait_seconds(self) -> float:
        try:
            return max(0.0, min(MAX_WAIT_S, float(self.get_argument("wait", "0"))))
        except ValueError:
            raise web.HTTPError(400, "wait: seconds expected") from None

    def view(self, job) -> dict:
        out = job.public()
        out["feedback_url"] = f"{self.base}feedback/{job.id}"
        if job.state == "done" and job.result:
            out["questions"] = {
                gid: {k: q[k] for k in ("score", "max_score", "status", "feedback")}
                for gid, q in json.loads(job.result)["questions"].items()
            }
        return out

    def write_json(self, data, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(data))

    def wants_html(self) -> bool:
        """A browser (or the upload form) asks for ``text/html``; curl, scripts and notebook
        servers for anything (``*/*``) or JSON."""
        return "text/html" in self.request.headers.get("Accept", "")

    def write_error(self, status_code: int, **kwargs) -> None:
        exc = kwargs.get("exc_info", (None, None, None))[1]
        if isinstance(exc, web.HTTPError) and exc.log_message:
            message = exc.log_message % exc.args if exc.args else exc.log_message
        else:
            message = self._reason
        retry_after = None
        if status_code in (429, 503):
            retry_after = max(1, math.ceil(getattr(exc, "retry_after", None) or DEFAULT_RETRY_AFTER_S))
            self.set_header("Retry-After", str(retry_after))
        if self.wants_html():
            self.set_header("Content-Type", "text/html; charset=UTF-8")
            return self.finish(pages.error(status_code, self._reason, message, self.base, retry_after, self.language()))
        self.set_header("Content-Type", "application/json")
        body = {"error": message, "status": status_code}
        if retry_after is not None:
            body["retry_after_s"] = retry_after
        self.finish(json.dumps(body))


class ApiLogin:
    """The JSON endpoints answer 403 to an unknown caller, never a redirect to a login page."""

    def get_login_url(self):
        if self.request.path.startswith(self.base + "api/"):
            raise web.HTTPError(403, "log in through JupyterHub, or send Authorization: token <token>")
        return super().get_login_url()


class Health:
    def get(self):
        self.write_json({"ready": self.engine.ready.is_set()})


class Home:
    @web.authenticated
    def get(self):
        user = self.user_name()
        jobs = self.engine.journal.of_student(user)
        xsrf = self.xsrf_token.decode() if self.settings["mode"] == "hub" else ""  # no cookies otherwise
        self.finish(
            pages.home(
                user,
                list(self.engine.assignments),
                jobs,
                self.base,
                xsrf,
                self.instructor(),
                self.engine.limiter.describe(),
                self.language(),
            )
        )


class Submit(ApiLogin):
    """Streams its body (``make_app`` marks it so): an upload over the limit is refused with a
    413 that says the limit, instead of tornado's bare 400 and a closed connection."""

    def prepare(self):
        self.chunks, self.received, self.too_large = [], 0, False
        self.request.connection.set_max_body_size(DRAIN_MAX_BYTES)
        length = self.request.headers.get("Content-Length", "")
        declared = int(length) if length.isdigit() else 0  # a malformed one: tornado refuses it next
        waiting = self.request.headers.get("Expect", "").lower() == "100-continue"
        if declared > MAX_UPLOAD_BYTES + MULTIPART_SLACK and (waiting or declared > DRAIN_MAX_BYTES):
            raise Refusal(413, upload_limit_message())  # the client has not sent it (or too much to read)

    def data_received(self, chunk: bytes) -> None:
        self.received += len(chunk)
        self.too_large = self.received > MAX_UPLOAD_BYTES + MULTIPART_SLACK
        if self.too_large:
            self.chunks.clear()  # read to the end and dropped: the answer then reaches the client
        else:
            self.chunks.append(chunk)

    def parse_body(self) -> None:
        """What tornado does for a buffered body: the form's fields and files."""
        self.request.body = b"".join(self.chunks)
        self.chunks = []
        content_type = self.request.headers.get("Content-Type", "")
        httputil.parse_body_arguments(
            content_type, self.request.body, self.request.body_arguments, self.request.files, self.request.headers
        )
        for name, values in self.request.body_arguments.items():
            self.request.arguments.setdefault(name, []).extend(values)

    async def post(self, ps: str):
        if self.too_large:
            raise Refusal(413, upload_limit_message())
        self.parse_body()  # before the login check: in hub mode the form's _xsrf field is in it
        await self.submit(ps)

    @web.authenticated
    async def submit(self, ps: str):
        user = self.user_name()
        files = self.request.files.get("notebook")
        data = files[0]["body"] if files else self.request.body
        try:
            job = await IOLoop.current().run_in_executor(
                self.settings["intake"], lambda: self.engine.submit(user, ps, data, limited=not self.instructor())
            )
        except Refused as exc:
            raise Refusal(exc.status, exc.message, exc.retry_after) from None
        job = await self.settings["waiters"].wait(job.id, self.wait_seconds())
        if self.get_argument("redirect", ""):
            return self.redirect(f"{self.base}feedback/{job.id}")
        self.write_json(self.view(job), 200 if job.state in FINAL else 202)


class Submissions(ApiLogin):
    @web.authenticated
    async def get(self, job_id: str | None = None):
        if job_id is None:
            return self.write_json([j.public() for j in self.engine.journal.of_student(self.user_name())])
        job = self.own(job_id)
        job = await self.settings["waiters"].wait(job.id, self.wait_seconds())
        self.write_json(self.view(job))


class Feedback:
    @web.authenticated
    def get(self, job_id: str):
        job = self.own(job_id)
        if job.state != "done":
            return self.finish(pages.not_graded(job, self.language()))
        from autograder.outputs.feedback_pages import feedback_page

        later = sum(1 for j in self.engine.journal.of_student(job.student) if j.ps == job.ps and j.id > job.id)
        lang = self.language()
        note = pages.handin_note(job, self.base, later, lang)
        result = json.loads(job.result)
        self.finish(feedback_page(self.engine.assignments[job.ps], job.student, result, handin=note, lang=lang))


class Instructors(ApiLogin):
    def check(self):
        if not self.instructor():
            raise web.HTTPError(403, "instructors only")

    @web.authenticated
    def get(self, what: str):
        self.check()
        queued = self.engine.journal.in_state("queued", "running")
        recent = self.engine.journal.recent(50)
        if what == "instructor":
            results = self.engine.journal.results_count()
            return self.finish(pages.instructor(self.engine.stats(), queued, recent, self.base, results))
        self.write_json(
            {
                **self.engine.stats(),
                "queued_jobs": [j.public() for j in queued],
                "recent": [
                    {**j.public(), "latency_s": round(j.finished - j.received, 3)} for j in recent if j.finished
                ],
            }
        )


class NotFound:
    """Any other path under the prefix: a 404 in the client's format, not tornado's own page."""

    def prepare(self):
        raise web.HTTPError(404, "no such page")


def make_app(
    engine: Engine,
    *,
    mode: str,
    policy: Policy,
    prefix: str = "/",
    tokens: dict | None = None,
    cookie_secret: bytes | None = None,
    language: str | None = None,
) -> web.Application:
    """``language``: the students' pages when their browser names none the kit speaks (default:
    the course's, ``autograder.toml``)."""
    import os

    from autograder.course import course_language

    prefix = prefix if prefix.endswith("/") else prefix + "/"
    mixin = auth_mixin(mode)

    def handler(logic):
        return type(logic.__name__, (logic, mixin, Base), {})

    routes = [
        (prefix + "health", handler(Health)),
        (prefix, handler(Home)),
        (prefix + r"api/submit/([^/]+)", web.stream_request_body(handler(Submit))),
        (prefix + r"api/submissions", handler(Submissions)),
        (prefix + r"api/submissions/(\d+)", handler(Submissions)),
        (prefix + r"feedback/(\d+)", handler(Feedback)),
        (prefix + r"(instructor|api/queue)", handler(Instructors)),
    ]
    if mode == "hub":
        routes.append((prefix + "oauth_callback", oauth_callback_handler()))
    return web.Application(
        routes,
        engine=engine,
        policy=policy,
        prefix=prefix,
        tokens=tokens or {},
        intake=ThreadPoolExecutor(4, thread_name_prefix="intake"),
        # in hub mode HubOAuth checks the XSRF token itself, for cookie-authenticated requests only
        # (token-authenticated API calls need none): tornado's own check stays off
        mode=mode,
        language=language or course_language(),
        cookie_secret=cookie_secret or os.urandom(32),
        xsrf_cookies=False,
        login_url=prefix,
        default_handler_class=handler(NotFound),
    )  # replaced by the Hub's OAuth login in hub mode


def attach_waiters(app: web.Application, loop: IOLoop) -> None:
    app.settings["waiters"] = Waiters(app.settings["engine"], loop)
