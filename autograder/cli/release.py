"""`autograder release [PS...]`: source notebooks -> release/ through nbgrader (``--check``: exit 1 if stale).

English goes to ``release/<ps>/``; every language a set's notebook has a catalogue for to
``release/<ps>_<lang>/`` (``--lang de``: that one only). ``--extract --lang fa`` writes the sets'
notebook catalogues for a language (README: Languages) instead of releasing.
"""

from __future__ import annotations

import sys

from autograder.i18n.language import LANGUAGES


def add_parser(subparsers, parents) -> None:
    p = subparsers.add_parser("release", parents=parents, help="source notebooks -> release/ through nbgrader")
    p.add_argument("problem_sets", nargs="*", metavar="PS", help="e.g. ps1 (default: all)")
    p.add_argument("--check", action="store_true", help="exit 1 if release/ is stale; write nothing")
    p.add_argument(
        "--lang",
        choices=LANGUAGES,
        help="only this language's release (release/<ps>_<lang>/; en: release/<ps>/); "
        "default: English and every language the set's notebook has a catalogue for",
    )
    p.add_argument(
        "--extract",
        action="store_true",
        help="write --lang's notebook catalogues (<ps>/locale/<lang>/LC_MESSAGES/<ps>_notebook.po), no release",
    )
    p.set_defaults(run=run)


def extract(args, assignments) -> int:
    from autograder.releasing.notebook_catalogue import notebook_catalogue_problems, update_notebook_catalogue

    if not args.lang or args.lang == "en":
        print("--extract needs --lang (a language other than English)", file=sys.stderr)
        return 2
    for assignment in assignments:
        path = update_notebook_catalogue(assignment, args.lang)
        open_cells = notebook_catalogue_problems(assignment, args.lang)
        print(f"{path}: {len(open_cells)} cells to translate or check")
    return 0


def run(args) -> int:
    from autograder.releasing.notebook_catalogue import notebook_catalogue_problems
    from autograder.releasing.stages import course_release_dir, release_folder, release_languages, releases
    from autograder.spec import load_assignments

    assignments = load_assignments(args.problem_sets)
    if args.extract:
        return extract(args, assignments)
    stale = []
    release_dir = course_release_dir()
    for assignment in assignments:
        for lang, fresh in releases(assignment, release_languages(assignment, args.lang), check=args.check).items():
            state = "up to date" if fresh else ("STALE" if args.check else "written")
            print(f"{release_folder(release_dir, assignment, lang)}: {state}")
            if not fresh:
                stale.append(f"{assignment.name} ({lang})")
            if lang != "en":  # said in English until translated: shown, not a failure
                for problem in notebook_catalogue_problems(assignment, lang):
                    print(f"  - catalogue: {problem}")
    if args.check and stale:
        print("release/ is stale: run `autograder release` and commit the result", file=sys.stderr)
        return 1
    return 0
