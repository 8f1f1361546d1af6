"""`autograder validate NOTEBOOK`: what a student runs before submitting.

The same code as the ``validate.py`` that ``autograder release`` ships beside each released
notebook (``autograder/releasing/student_validate.py``), for a machine where the kit is installed.
"""

from __future__ import annotations

from autograder.releasing.student_validate import validate


def run(args) -> int:
    from autograder.course import course_language
    from autograder.i18n import choose_language

    return validate(args.notebook, args.timeout, choose_language(args.lang, course_language()))


def add_parser(subparsers, parents) -> None:
    p = subparsers.add_parser("validate", parents=parents, help="run a notebook's visible checks in a Jupyter kernel")
    p.add_argument("notebook")
    p.add_argument("--timeout", type=int, default=120, help="seconds per cell")
    p.add_argument("--lang", help="the report's language: en, de, fa, pl, tr, ko (default: the course's)")
    p.set_defaults(run=run)
