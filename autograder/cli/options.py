"""Options shared by the subcommands that grade (``grade``, ``demo``) or write students' pages
(``grade``, ``final-grades``: ``--lang``)."""

from __future__ import annotations

import argparse


def add_grading_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=int, default=2, help="parallel sandboxed workers (default 2)")
    p.add_argument(
        "--sandbox",
        choices=["auto", "bwrap", "rlimits"],
        default="auto",
        help="bubblewrap when usable (auto), or rlimits only (weaker)",
    )


def sandbox_config(args):
    from autograder.sandbox.pool import SandboxConfig

    return SandboxConfig(mode=args.sandbox)


def add_language_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--lang",
        metavar="LANG",
        help="students' feedback pages in en, de, fa, pl, tr or ko (default: each student's roster "
        "`language` column, else the course's autograder.toml `language`, else English); scores never change",
    )


def student_languages(args, roster_path=None):
    """student id -> the language of their pages: ``--lang``, else the roster's ``language``
    column, else the course's."""
    from autograder.course import course_language
    from autograder.i18n import choose_language

    course = course_language()
    people = {}
    if roster_path and not getattr(args, "lang", None):
        from autograder.intake.roster import Roster

        people = Roster.read(roster_path).people
    return lambda student: choose_language(
        getattr(args, "lang", None), people[student].language if student in people else None, course
    )
