"""PS5 — permutation equivariance: question specs.

The package the kit imports; its questions are in questions.py and the modules beside it."""

from .questions import ASSIGNMENT, EXTRA_MUTANTS  # noqa: F401 - read by release, the self-test and grading
