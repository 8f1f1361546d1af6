"""PS6 — build a transformer: question specs.

The package the kit imports; its questions are in questions.py and the modules beside it."""

from .questions import ASSIGNMENT, COVERAGE_TOGETHER, MUTATION_EXEMPT  # noqa: F401 - read by release, the self-test and grading
