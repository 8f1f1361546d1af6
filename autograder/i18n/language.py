"""Which language a page is in, and which way it runs."""

from __future__ import annotations

SOURCE_LANGUAGE = "en"
LANGUAGES = ("en", "de", "fa", "pl", "tr", "ko")  # English is the source; the rest have catalogues
RTL_LANGUAGES = frozenset({"fa"})


class UnknownLanguage(ValueError):
    pass


def normalise(lang: str | None) -> str | None:
    """``"de-AT"``, ``"de_DE.UTF-8"`` -> ``"de"``; None or "" -> None; a language without a
    catalogue raises UnknownLanguage (a typo in ``--lang`` should not silently mean English)."""
    if not lang:
        return None
    code = lang.strip().replace("_", "-").split(".")[0].split("-")[0].lower()
    if code not in LANGUAGES:
        raise UnknownLanguage(f"language {lang!r}: the kit speaks {', '.join(LANGUAGES)}")
    return code


def choose_language(*preferences: str | None) -> str:
    """The first preference that is set, most specific first: ``choose_language(args.lang,
    roster_language, course.language)``; English when none is."""
    for lang in preferences:
        code = normalise(lang)
        if code:
            return code
    return SOURCE_LANGUAGE


def from_accept_language(header: str | None) -> str | None:
    """The browser's most preferred language the kit speaks (``Accept-Language: fa-IR,fa;q=0.9,
    en;q=0.8``), or None when it names none of them."""
    ranked = []
    for position, part in enumerate((header or "").split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        code = tag.strip().split("-")[0].lower()
        if code in LANGUAGES and quality > 0:
            ranked.append((-quality, position, code))
    return min(ranked)[2] if ranked else None


def text_direction(lang: str) -> str:
    return "rtl" if lang in RTL_LANGUAGES else "ltr"
