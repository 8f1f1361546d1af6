"""The HTTP side of ``autograder serve`` (tornado), mounted under the service prefix.

=================================  ==========================================================
``GET  health``                    no login: ``{"ready": ...}`` once the workers are warm
``GET  ``                          the student's page: upload forms, their submissions
``POST api/submit/<ps>``           upload a notebook (multipart field ``notebook``, or the
                                   .ipynb JSON as the body); ``?wait=S`` answers once graded
                                   (at most S seconds), ``&redirect=1`` goes to its feedback page.
                                   202/200 JSON; 429 over the rate limit, 503 queue full
                                   (both with Retry-After), 404 unknown problem set
``GET  api/submissions[/<id>]``    the user's submissions / one of them (``?wait=S``)
``GET  feedback/<id>``             the feedback page of one submission
``GET  api/queue``, ``instructor``  instructors: queue, rates, recent results
=================================  ==========================================================

A submission belongs to the user who sent it; anyone else but an instructor gets 403.
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor

from tornado import web
from tornado.ioloop import IOLoop

from autograder.serve import pages
from autograder.serve.auth import Policy, auth_mixin, oauth_callback_handler
from autograder.serve.engine import Engine, Refused

FINAL = ("done", "error", "refused")
MAX_WAIT_S = 120.0


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
            raise web.HTTPError(403, "only users submit and read feedback")
        return name

    def instructor(self) -> bool:
        return self.policy.is_instructor(self.current_user)

    def own(self, job_id: str):
        job = self.engine.journal.get(int(job_id))
        if job is None:
            raise web.HTTPError(404, "no such submission")
        if job.student != self.user_name() and not self.instructor():
            raise web.HTTPError(403, "this submission is not yours")
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

    def write_error(self, status_code: int, **kwargs) -> None:
        exc = kwargs.get("exc_info", (None, None, None))[1]
        message = exc.log_message if isinstance(exc, web.HTTPError) and exc.log_message else self._reason
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"error": message, "status": status_code}))


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
            )
        )


class Submit(ApiLogin):
    @web.authenticated
    async def post(self, ps: str):
        user = self.user_name()
        files = self.request.files.get("notebook")
        data = files[0]["body"] if files else self.request.body
        try:
            job = await IOLoop.current().run_in_executor(
                self.settings["intake"], lambda: self.engine.submit(user, ps, data, limited=not self.instructor())
            )
        except Refused as exc:
            if exc.retry_after:
                self.set_header("Retry-After", str(int(exc.retry_after + 0.999)))
            raise web.HTTPError(exc.status, exc.message) from None
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
            return self.finish(pages.not_graded(job))
        from autograder.outputs.feedback_pages import feedback_page

        self.finish(feedback_page(self.engine.assignments[job.ps], job.student, json.loads(job.result)))


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
            return self.finish(pages.instructor(self.engine.stats(), queued, recent, self.base))
        self.write_json(
            {
                **self.engine.stats(),
                "queued_jobs": [j.public() for j in queued],
                "recent": [
                    {**j.public(), "latency_s": round(j.finished - j.received, 3)} for j in recent if j.finished
                ],
            }
        )


def make_app(
    engine: Engine,
    *,
    mode: str,
    policy: Policy,
    prefix: str = "/",
    tokens: dict | None = None,
    cookie_secret: bytes | None = None,
) -> web.Application:
    import os

    prefix = prefix if prefix.endswith("/") else prefix + "/"
    mixin = auth_mixin(mode)

    def handler(logic):
        return type(logic.__name__, (logic, mixin, Base), {})

    routes = [
        (prefix + "health", handler(Health)),
        (prefix, handler(Home)),
        (prefix + r"api/submit/([^/]+)", handler(Submit)),
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
        cookie_secret=cookie_secret or os.urandom(32),
        xsrf_cookies=False,
        login_url=prefix,
    )  # replaced by the Hub's OAuth login in hub mode


def attach_waiters(app: web.Application, loop: IOLoop) -> None:
    app.settings["waiters"] = Waiters(app.settings["engine"], loop)
