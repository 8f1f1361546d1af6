"""What nbgrader's own commands may do in a course graded with this kit: one source for both
nbgrader configs (the one ``autograder init`` writes and ``examples/nbgrader_config.py``).

- ``release_ignore``: ``nbgrader release_assignment`` copies release/<ps>/ to the exchange minus
  these names. Everything ``autograder release`` writes there must get through (the notebook,
  ``formula_check.py``, which the notebook imports for its formula checks, and ``validate.py``,
  the students' validate step), while caches,
  checkpoints and any problem-set module that strayed in (hidden probes, references, known
  mistakes) stay home.
- ``refuse_generate_assignment``: ``nbgrader generate_assignment`` (or formgrader's Generate
  button) writing the course's release would replace the visible checks ``autograder release``
  computed from the reference with empty placeholders, drop ``formula_check.py`` and copy the
  problem set's modules beside the notebook. It is refused before nbgrader writes anything.

nbgrader's config loader runs this, so it imports nbgrader only when the guard is installed.
"""

from __future__ import annotations

import os
from pathlib import Path

NBGRADER_DEFAULT_IGNORE = (".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback")
# What `autograder release` ships beside the notebook (releasing/stages.py add_formula_helper,
# add_validate_helper).
SHIPPED_BESIDE_NOTEBOOK = frozenset({"formula_check.py", "validate.py"})
# A problem set's modules that stay home even when no source folder is at hand to list them.
ALWAYS_KEPT_HOME = ("__init__.py", "questions.py")


def problem_set_modules(source_dir: Path) -> set[str]:
    """The file names of every module of the problem sets in a course's source folder."""
    if not source_dir.is_dir():
        return set()
    return {module.name for ps in source_dir.iterdir() if ps.is_dir() for module in ps.rglob("*.py")}


def release_ignore(course_root: str | Path) -> list[str]:
    """``CourseDirectory.ignore`` for the course at ``course_root``: nbgrader's defaults plus the
    name of every module of its problem sets (its source folder, as ``autograder.toml`` names it),
    less the files ``autograder release`` ships beside the notebook."""
    from autograder.course import Course

    course_root = Path(course_root)
    modules = problem_set_modules(Course.at(course_root).source) if course_root.is_dir() else set()
    kept_home = (modules | set(ALWAYS_KEPT_HOME)) - SHIPPED_BESIDE_NOTEBOOK
    return [*NBGRADER_DEFAULT_IGNORE, *sorted(kept_home)]


def refusal_message(release_dir: str | Path, course_dir: str | Path) -> str:
    return (
        f"nbgrader generate_assignment is not used in this course: it would overwrite {release_dir} "
        "(built by `autograder release`, visible checks computed from the reference) with unfilled "
        "placeholders, drop formula_check.py and publish the problem set's modules. Run "
        f"`autograder release <ps>` in {course_dir} instead (it runs nbgrader's generate_assignment "
        "itself), then `nbgrader release_assignment <ps>`."
    )


def refuse_generate_assignment(release_dir: str | Path, course_dir: str | Path) -> None:
    """From now on in this process, nbgrader's GenerateAssignment refuses to write ``release_dir``
    (with the command to run instead) before it touches anything; other destinations, such as the
    scratch course ``autograder release`` builds in, are left alone."""
    from nbgrader.converters import GenerateAssignment

    guarded = GenerateAssignment.__dict__.get("_autograder_guarded")
    if guarded is None:
        guarded = GenerateAssignment._autograder_guarded = {}
        GenerateAssignment.start = _refusing_start(GenerateAssignment.start, guarded)
    release_dir = os.path.realpath(release_dir)
    guarded[release_dir] = refusal_message(release_dir, course_dir)


def _refusing_start(original_start, guarded: dict[str, str]):
    from nbgrader.converters import NbGraderException

    def start(self):
        dest = os.path.realpath(os.path.join(self.coursedir.root, self.coursedir.release_directory))
        if dest in guarded:
            self.log.error(guarded[dest])
            raise NbGraderException(guarded[dest])
        return original_start(self)

    return start
