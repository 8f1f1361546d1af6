"""The kit's HTML pages from Jinja2 templates (``autograder/templates/pages/``), autoescaped.

Every value a page shows (student ids, feedback, code excerpts, problem set names) goes through
Jinja2's autoescaping, so student-controlled text is shown, never run or rendered as HTML. The
templates share one stylesheet, inlined by ``base.html``: each page is still one file.

Pages are rendered in a language (``render(..., lang="de")``, English by default): Jinja2's i18n
extension (``{% trans %}…{% endtrans %}``) and ``_("… {name} …", name=value)`` read the engine's
catalogue (``autograder.i18n``); the page gets ``lang`` and ``dir`` for its ``<html>`` element,
and ``ltr(value)`` / ``bidi(text)`` keep numbers, formulas and code left to right inside a
right-to-left page (bidi isolation: ``<bdi dir="ltr">``, ``<code dir="ltr">``).
"""

from __future__ import annotations

import re
from functools import cache

import jinja2
import markupsafe
from markupsafe import Markup, escape

from autograder.i18n import choose_language, text_direction, translate

_CODE = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"\*\*([^*\n]+)\*\*")


def _number(value: float) -> str:
    """A score as ``f"{value:g}"`` prints it: 4, 2.5, 0.333333."""
    return f"{value:g}"


def _fixed(value: float | None, digits: int) -> str:
    """A statistic to ``digits`` places, or — where it is undefined."""
    return "—" if value is None else f"{value:.{digits}f}"


def _inline_markdown(text, rtl: bool = False) -> markupsafe.Markup:
    """Feedback and graders' comments as Markdown writes them inline: `code` and **bold**; the
    text is escaped first, so nothing a student or grader wrote becomes HTML. In a right-to-left
    page (``rtl``) code runs left to right (``<code dir="ltr">``)."""
    escaped = str(markupsafe.escape(text))
    escaped = _CODE.sub(r'<code dir="ltr">\1</code>' if rtl else r"<code>\1</code>", escaped)
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
        extensions=["jinja2.ext.i18n"],
    )
    env.newstyle_gettext = True  # {% trans %} blocks call the context's gettext, which formats
    env.filters["g"] = _number
    env.filters["fixed"] = _fixed
    env.filters["md"] = _inline_markdown
    return env


def language_helpers(lang: str) -> dict:
    """What a template needs to speak ``lang``: ``_``/``gettext`` (the catalogue), ``lang`` and
    ``dir`` (the ``<html>`` element), ``ltr`` and ``bidi`` (isolation in a right-to-left page)."""
    rtl = text_direction(lang) == "rtl"

    def _(message_id: str, **args) -> str:
        return translate(message_id, lang, **args)

    def gettext(message_id: str, **args) -> str:  # {% trans %}: newstyle, placeholders %(name)s
        text = translate(message_id, lang)
        return text % args if args else text

    def ltr(value) -> Markup:
        """A number, formula or code left to right inside the page (isolated in a RTL page)."""
        return Markup('<bdi dir="ltr">{}</bdi>').format(value) if rtl else escape(value)

    def bidi(text) -> Markup:
        """Free text (feedback, comments) as inline Markdown (the ``md`` filter); in a RTL page its
        code spans run left to right."""
        return _inline_markdown(text, rtl)

    return {
        "_": _,
        "gettext": gettext,
        "ngettext": lambda one, many, n, **args: gettext(one if n == 1 else many, **args),
        "lang": lang,
        "dir": text_direction(lang),
        "ltr": ltr,
        "bidi": bidi,
    }


def render(template: str, lang: str | None = None, **context) -> str:
    """The page ``template`` (a file name under templates/pages/) filled with ``context``, in
    ``lang`` (default English)."""
    return environment().get_template(template).render(**language_helpers(choose_language(lang)), **context)
