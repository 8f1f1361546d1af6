"""`autograder init DIR`: start a course directory with the shipped problem sets."""

from __future__ import annotations

from pathlib import Path


def add_parser(subparsers, parents) -> None:
    p = subparsers.add_parser("init", parents=parents, help="start a course directory with the shipped problem sets")
    p.add_argument("directory", metavar="DIR")
    p.add_argument("--course-id", metavar="ID", help="nbgrader course id (default: the directory's name)")
    p.add_argument("--empty", action="store_true", help="no problem sets in source/")
    p.set_defaults(run=run)


def run(args) -> int:
    from autograder.course import init_course

    course = init_course(Path(args.directory), args.course_id, with_problem_sets=not args.empty)
    names = sorted(p.name for p in course.source.iterdir())
    print(f"course {course.root}: {len(names)} problem sets in source/ ({', '.join(names) or 'none'})")
    print(f"next: cd {course.root} && autograder release && autograder selftest")
    return 0
