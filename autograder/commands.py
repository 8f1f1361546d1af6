"""Registry of the subcommands that live in their own modules."""

from __future__ import annotations

from autograder import bench, gradescope, report, selftest, validate
from autograder.serve import command as serve
from autograder.similarity import command as similarity

REGISTRY: list = [
    selftest.register,
    validate.register,
    bench.register,
    report.register,
    gradescope.register,
    similarity.register,
    serve.register,
]
