"""The course directory: where a course keeps its problem sets, releases, submissions and grades.

It is found as nbgrader finds its course, first match wins:

1. ``--course DIR`` on the command line (``use_course``);
2. the ``AUTOGRADER_COURSE`` environment variable;
3. a course file (``autograder.toml``) in the working directory or any directory above it;
4. a checkout of the kit itself, which is one such course (its own ``autograder.toml``).

The layout is also an nbgrader course directory::

    autograder.toml        marks the course (and may name other folders, see COURSE_FOLDERS)
    nbgrader_config.py     written by ``autograder init`` for nbgrader's own commands
    source/<ps>/           a problem set: a Python package (questions) beside its notebook
    release/<ps>/          what students get (``autograder release``)
    submitted/<student>/<ps>/, autograded/, feedback/
    gradebook.db           nbgrader's gradebook (``autograder grade --db``)
"""

from __future__ import annotations

import importlib.resources
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from autograder.errors import AutograderError
from autograder.i18n.language import UnknownLanguage, normalise

CONFIG_NAME = "autograder.toml"
ENV_VAR = "AUTOGRADER_COURSE"
KIT_ROOT = Path(__file__).resolve().parent.parent
COURSE_FOLDERS = ("source", "release", "submitted", "autograded", "feedback")


class CourseNotFound(AutograderError):
    """No course directory: the message says where it was looked for and how to make one."""


@dataclass(frozen=True)
class Course:
    root: Path
    source: Path
    release: Path
    submitted: Path
    autograded: Path
    feedback: Path
    language: str = "en"  # the students' pages and reports (autograder.toml: language = "de"); README: Languages

    @property
    def gradebook_url(self) -> str:
        return f"sqlite:///{self.root / 'gradebook.db'}"

    @classmethod
    def at(cls, root: Path) -> Course:
        root = Path(root).resolve()
        config = root / CONFIG_NAME
        if not root.is_dir():
            raise CourseNotFound(f"course directory {root} does not exist (autograder init {root} makes one)")
        folders, language = {}, None
        if config.exists():
            try:
                table = tomllib.loads(config.read_text()).get("course", {})
            except tomllib.TOMLDecodeError as exc:
                raise CourseNotFound(f"{config}: not valid TOML ({exc})") from None
            folders = {k: v for k, v in table.items() if k in COURSE_FOLDERS}
            language = table.get("language")
        try:
            lang = normalise(language) or "en"
        except UnknownLanguage as exc:
            raise CourseNotFound(f"{config}: {exc}") from None
        return cls(root, **{k: root / folders.get(k, k) for k in COURSE_FOLDERS}, language=lang)


def course_language() -> str:
    """The current course's language, English where there is no course."""
    try:
        return find_course().language
    except CourseNotFound:
        return "en"


_chosen: Path | None = None


def use_course(root: str | Path | None) -> None:
    """The course named on the command line (None: forget it)."""
    global _chosen
    _chosen = None if root is None else Path(root)


def _upward(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        if (directory / CONFIG_NAME).is_file():
            return directory
    return None


def find_course(cwd: Path | None = None) -> Course:
    if _chosen is not None:
        return Course.at(_chosen)
    if os.environ.get(ENV_VAR):
        return Course.at(Path(os.environ[ENV_VAR]))
    found = _upward((cwd or Path.cwd()).resolve())
    if found is None and (KIT_ROOT / CONFIG_NAME).is_file():
        found = KIT_ROOT  # a checkout of the kit: its own problem sets
    if found is None:
        raise CourseNotFound(
            f"no course directory: none given with --course or ${ENV_VAR}, and no {CONFIG_NAME} in "
            f"{cwd or Path.cwd()} or above it. Start one with `autograder init DIR`."
        )
    return Course.at(found)


def shipped_problem_sets() -> Path:
    """The seven problem sets that ship with the kit (a course's source/ starts as a copy): the
    checkout's assignments/, installed as the package ``autograder.shipped_assignments``."""
    return Path(str(importlib.resources.files("autograder.shipped_assignments")))


def init_course(root: Path, course_id: str | None = None, *, with_problem_sets: bool = True) -> Course:
    """Start a course in ``root`` (new or empty): the course file, nbgrader's config, the folders,
    and a copy of the shipped problem sets in source/."""
    import shutil

    root = Path(root).resolve()
    if root.exists() and any(root.iterdir()):
        raise CourseNotFound(f"{root} is not empty: `autograder init` starts a course in a new or empty directory")
    course_id = course_id or root.name
    root.mkdir(parents=True, exist_ok=True)
    (root / CONFIG_NAME).write_text(
        "# An autograder course (and an nbgrader course directory). Folders may be renamed here:\n"
        "[course]\n" + "".join(f'# {k} = "{k}"\n' for k in COURSE_FOLDERS),
        encoding="utf-8",
    )
    template = (Path(__file__).resolve().parent / "templates" / "nbgrader_config.py.tmpl").read_text(encoding="utf-8")
    (root / "nbgrader_config.py").write_text(template.replace("{course_id!r}", repr(course_id)), encoding="utf-8")
    for folder in COURSE_FOLDERS:
        (root / folder).mkdir()
    if with_problem_sets:
        skip = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")
        for ps in sorted(shipped_problem_sets().iterdir()):
            if (ps / "__init__.py").is_file():
                shutil.copytree(ps, root / "source" / ps.name, ignore=skip)
    return Course.at(root)
