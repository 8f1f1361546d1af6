"""PS5 — permutation equivariance: question specs.

The package the kit imports; its questions are in questions.py and the modules beside it."""

from .questions import ASSIGNMENT  # noqa: F401 - the problem set
