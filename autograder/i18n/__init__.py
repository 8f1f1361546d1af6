"""Messages in the course's languages: English (the source) and German, Persian, Polish, Turkish,
Korean (README: Languages).

* ``Message`` — English text that remembers its message id (the English with named placeholders,
  ``"`{answer}` on {where} raised {error}"``) and its arguments, so a page can say it again in
  another language; results.json keeps both (``feedback`` in English, ``message`` structured).
* ``translate(message_id, lang, **args)`` — one message in one language.
* ``say(message, lang)`` — a stored or live ``Message`` in ``lang``.
* ``choose_language`` / ``from_accept_language`` — which language a page is in: the run's
  ``--lang``, else the student's (roster column ``language``), else the course's
  (``autograder.toml``: ``language = "de"``), else English.

Catalogues are gettext ``.po`` files in ``autograder/i18n/locale/<lang>/LC_MESSAGES/`` (domain
``autograder``) and, per problem set, ``<ps>/locale/<lang>/LC_MESSAGES/<ps>.po``; the ``.mo``
beside each is compiled with Babel the first time it is needed (``catalogue.py``).
"""

from autograder.i18n.language import (
    LANGUAGES,
    RTL_LANGUAGES,
    choose_language,
    from_accept_language,
    text_direction,
)
from autograder.i18n.message import N_, Message, say, translate

__all__ = [
    "LANGUAGES",
    "RTL_LANGUAGES",
    "Message",
    "N_",
    "choose_language",
    "from_accept_language",
    "say",
    "text_direction",
    "translate",
]
