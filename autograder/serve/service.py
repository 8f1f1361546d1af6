"""The long-running grading service that `autograder serve` starts (see autograder/serve/__init__.py).

As a JupyterHub managed service (examples/jupyterhub/jupyterhub_config.py) it listens where the
Hub's ``JUPYTERHUB_SERVICE_URL`` says, under ``JUPYTERHUB_SERVICE_PREFIX``, and logs users in
through the Hub's OAuth. Standalone it listens on ``--ip``/``--port`` and checks ``--tokens``.
SIGTERM or Ctrl-C: the jobs being graded finish, queued ones stay in the journal for the next
start.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from urllib.parse import urlparse

from autograder.errors import AutograderError


class ServeConfigError(AutograderError):
    """The service cannot start as configured (no token file outside JupyterHub, or one that is
    unreadable, malformed or holds a short token; a bad rate)."""


def _split(values) -> list[str]:
    return [v.strip() for item in (values or []) for v in item.split(",") if v.strip()]


def _start_engine(args, prefix: str = "/"):
    """The warm workers for the problem sets served, started: from here the service owns the
    state folder (its lock and each problem set's store). With ``--exchange`` every upload is
    filed as an nbgrader submission and feedback is published where ``nbgrader fetch_feedback``
    looks (autograder/serve/handin.py); pages link back to ``prefix``."""
    from autograder.sandbox.pool import SandboxConfig
    from autograder.serve.engine import Engine
    from autograder.serve.exchange import inbound_folder
    from autograder.serve.handin import HandIn
    from autograder.serve.ratelimit import parse_rate
    from autograder.spec import list_assignments, load_assignment

    try:
        rate = parse_rate(args.rate)
    except ValueError as exc:
        raise ServeConfigError(str(exc)) from None
    handin = HandIn(inbound_folder(Path(args.exchange), args.course_id)) if args.exchange else None
    if handin is not None:
        try:
            handin.ensure_feedback_folder()
        except OSError as exc:  # the exchange may come later (mounted, made by nbgrader): say so, go on
            print(f"serve: cannot make {handin.feedback} yet ({exc.strerror})", file=sys.stderr, flush=True)
    engine = Engine(
        [load_assignment(n) for n in (args.problem_sets or list_assignments())],
        Path(args.out),
        workers=args.workers,
        sandbox=SandboxConfig(mode=args.sandbox),
        rate=rate,
        max_queue=args.queue_max,
        max_per_student=args.per_student_max,
        db=args.db,
        course_id=args.course_id,
        scheduler=args.scheduler,
        handin=handin,
        service_url=prefix if prefix.endswith("/") else prefix + "/",
    )
    engine.start()
    return engine


def _watch_exchange(args, engine, app, loop):
    """Scan nbgrader's exchange every ``--exchange-poll`` seconds (never two scans at once)."""
    from tornado.ioloop import PeriodicCallback

    from autograder.serve.exchange import ExchangeWatcher, inbound_folder

    watcher = ExchangeWatcher(engine, inbound_folder(Path(args.exchange), args.course_id))
    scanning = []

    async def scan():
        if not scanning:
            scanning.append(1)
            try:
                await loop.run_in_executor(app.settings["intake"], watcher.scan)
            finally:
                scanning.clear()

    PeriodicCallback(scan, args.exchange_poll * 1000).start()
    return watcher


async def serve(args) -> None:
    """Run the service until SIGTERM or Ctrl-C; ``args`` holds `autograder serve`'s options
    (autograder/cli/serve.py). Raises ``ServeConfigError``, or ``OutputBusy`` when another
    service or grade run owns the state folder."""
    from tornado.httpserver import HTTPServer
    from tornado.ioloop import IOLoop

    from autograder.serve.app import attach_waiters, make_app
    from autograder.serve.auth import Policy, in_hub, load_tokens
    from autograder.serve.engine import MAX_UPLOAD_BYTES

    mode = "hub" if in_hub() else "token"
    tokens = None
    if mode == "token":
        if not args.tokens:
            raise ServeConfigError("outside JupyterHub, --tokens FILE is needed (JSON {token: user})")
        try:
            tokens = load_tokens(Path(args.tokens))
        except ValueError as exc:
            raise ServeConfigError(f"--tokens {exc}") from None
    if mode == "hub":
        url = urlparse(os.environ.get("JUPYTERHUB_SERVICE_URL", f"http://{args.ip}:{args.port}"))
        ip, port, prefix = url.hostname or args.ip, url.port or args.port, os.environ["JUPYTERHUB_SERVICE_PREFIX"]
    else:
        ip, port, prefix = args.ip, args.port, args.prefix
    engine = _start_engine(args, prefix)
    policy = Policy(_split(args.instructors), _split(args.instructor_group))
    app = make_app(engine, mode=mode, policy=policy, prefix=prefix, tokens=tokens)
    loop = IOLoop.current()
    attach_waiters(app, loop)
    server = HTTPServer(app, max_body_size=MAX_UPLOAD_BYTES + (1 << 16), xheaders=True)
    server.listen(port, ip)
    watcher = _watch_exchange(args, engine, app, loop) if args.exchange else None
    print(
        f"serve: {', '.join(engine.assignments)} on http://{ip}:{port}{prefix} "
        f"({'JupyterHub OAuth' if mode == 'hub' else 'token file'}; state in {args.out}; "
        f"rate limit {engine.limiter.describe()}" + (f"; watching {watcher.inbound}" if watcher else "") + ")",
        file=sys.stderr,
        flush=True,
    )

    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    await stop.wait()
    print("serve: stopping (queued submissions stay in the journal)", file=sys.stderr, flush=True)
    server.stop()
    await loop.run_in_executor(None, engine.stop)
