"""PS1 — attention: the question specs (one source of truth for checks, probes and feedback).

The package the kit imports; its questions are in questions.py and the modules beside it."""

from .questions import ASSIGNMENT, DOCUMENT_VALUES  # noqa: F401 - read by release, the self-test and grading
