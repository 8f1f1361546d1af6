"""Registry of the subcommands that live in their own modules."""

from __future__ import annotations

from autograder.cli import bench, validate
from autograder.outputs import gradescope, report
from autograder.proving import selftest
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
