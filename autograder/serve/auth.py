"""Who is asking: JupyterHub OAuth when run as a Hub service, a token file when standalone.

As a JupyterHub managed service (``JUPYTERHUB_API_TOKEN`` and friends in the environment, set
by the Hub), handlers mix in ``jupyterhub.services.auth.HubOAuthenticated``: a browser is sent
through the Hub's OAuth login and comes back with a cookie; scripts (and a student's notebook
server) send ``Authorization: token <JupyterHub API token>``. The Hub says who the user is; the
service only decides what that user may see: a student their own submissions, an instructor
(``--instructors`` names, or membership of ``--instructor-group``) everything.

Standalone (``--tokens FILE``, JSON ``{"<token>": "<user>"}``), the same header is checked
against the file: for ``autograder bench serve``, tests, or behind another authenticating proxy.
"""

from __future__ import annotations

import hmac
import json
import os
from pathlib import Path

from tornado import web


def in_hub() -> bool:
    return bool(os.environ.get("JUPYTERHUB_API_TOKEN") and os.environ.get("JUPYTERHUB_SERVICE_PREFIX"))


class Policy:
    """What an identified user may do."""

    def __init__(self, instructors=(), instructor_groups=()):
        self.instructors = {i for i in instructors if i}
        self.instructor_groups = {g for g in instructor_groups if g}

    def name(self, model: dict | None) -> str | None:
        if not isinstance(model, dict) or model.get("kind", "user") != "user":
            return None  # a service's token is nobody's submission
        name = model.get("name")
        return name if isinstance(name, str) and name else None

    def is_instructor(self, model: dict | None) -> bool:
        name = self.name(model)
        if name is None:
            return False
        groups = set(model.get("groups") or [])
        return name in self.instructors or bool(groups & self.instructor_groups)


def bad_student_id(name: str) -> str | None:
    """Why ``name`` cannot be a student id here, or None. Submissions are filed under the id as
    nbgrader files them (``<exchange>/inbound/<id>+<ps>+<time>/``, ``submitted/<id>/``): no
    ``/`` or ``\\``, no ``..``, no ``+`` (nbgrader's separator), no control characters."""
    if not name or not name.strip():
        return "an empty user name"
    if "/" in name or "\\" in name or ".." in name:
        return f"{name!r} holds a path ('/', '\\' or '..')"
    if "+" in name:
        return f"{name!r} holds '+', which separates nbgrader's submission names"
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return f"{name!r} holds a control character"
    return None


def load_tokens(path: Path) -> dict[str, str]:
    """The token file's ``{token: user}``; ``ValueError`` with a one-line reason (naming the file,
    never a token) when it cannot be read, is not that JSON object, is empty, or has a short token."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the token file ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: the token file is not UTF-8 text") from None
    try:
        tokens = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{path}: not JSON ({exc}); expected {{token: user name}}") from None
    if not isinstance(tokens, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in tokens.items()):
        raise ValueError(f"{path}: expected a JSON object {{token: user name}}")
    if not tokens:
        raise ValueError(f"{path}: no tokens in it, so nobody could log in")
    short = [v for k, v in tokens.items() if len(k) < 16]
    if short:
        raise ValueError(f"{path}: tokens of 16 characters at least (too short for {short[0]!r})")
    for user in tokens.values():
        why = bad_student_id(user)
        if why:
            raise ValueError(f"{path}: user {why}: not usable as a student id")
    return tokens


class TokenAuthenticated:
    """Mixin for tornado handlers: ``Authorization: token <t>`` against ``settings['tokens']``."""

    def get_current_user(self):
        header = self.request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() not in ("token", "bearer") or not token.strip():
            return None
        token = token.strip().encode()
        for known, name in self.settings["tokens"].items():
            if hmac.compare_digest(known.encode(), token):
                return {"kind": "user", "name": name}
        return None

    def get_login_url(self):
        raise web.HTTPError(403, "send Authorization: token <your token>")

    def check_xsrf_cookie(self):
        return None  # no cookies are ever accepted here, so there is nothing to forge


def auth_mixin(mode: str):
    """The handler mixin for ``mode`` ("hub" or "token")."""
    if mode == "hub":
        from jupyterhub.services.auth import HubOAuthenticated

        return HubOAuthenticated
    return TokenAuthenticated


def oauth_callback_handler():
    from jupyterhub.services.auth import HubOAuthCallbackHandler

    return HubOAuthCallbackHandler
