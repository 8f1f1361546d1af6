"""PS1 — attention: the question specs (one source of truth for checks, probes and feedback).

The package the kit imports; its questions are in questions.py and the modules beside it."""

from .questions import ASSIGNMENT  # noqa: F401 - the problem set
