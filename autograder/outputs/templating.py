"""The kit's HTML pages from Jinja2 templates (``autograder/templates/pages/``), autoescaped.

Every value a page shows (student ids, feedback, code excerpts, problem set names) goes through
Jinja2's autoescaping, so student-controlled text is shown, never run or rendered as HTML. The
templates share one stylesheet, inlined by ``base.html``: each page is still one file.
"""

from __future__ import annotations

import re
from functools import cache

import jinja2
import markupsafe

_CODE = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"\*\*([^*\n]+)\*\*")


def _number(value: float) -> str:
    """A score as ``f"{value:g}"`` prints it: 4, 2.5, 0.333333."""
    return f"{value:g}"


def _fixed(value: float | None, digits: int) -> str:
    """A statistic to ``digits`` places, or — where it is undefined."""
    return "—" if value is None else f"{value:.{digits}f}"


def _inline_markdown(text) -> markupsafe.Markup:
    """Feedback and graders' comments as Markdown writes them inline: `code` and **bold**; the
    text is escaped first, so nothing a student or grader wrote becomes HTML."""
    escaped = str(markupsafe.escape(text))
    escaped = _CODE.sub(r"<code>\1</code>", escaped)
    return markupsafe.Markup(_BOLD.sub(r"<b>\1</b>", escaped))


@cache
def environment() -> jinja2.Environment:
    """One environment for the process (Jinja2 caches compiled templates in it; rendering is
    thread-safe, which the grading service relies on)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("autograder", "templates/pages"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,  # a misspelt name fails loudly instead of rendering blank
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["g"] = _number
    env.filters["fixed"] = _fixed
    env.filters["md"] = _inline_markdown
    return env


def render(template: str, **context) -> str:
    """The page ``template`` (a file name under templates/pages/) filled with ``context``."""
    return environment().get_template(template).render(**context)
