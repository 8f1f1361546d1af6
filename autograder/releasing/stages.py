"""Source notebook -> student release, as ordered, named, replaceable stages.

1. ``copy_source``           the notebook (and listed extra files only) into a scratch course dir
   ``check_formula_symbols`` fails when a formula question accepts other symbols than its text offers
   ``add_formula_helper``    ships the formula grammar (``formula_check.py``) beside the notebook
   ``add_validate_helper``   ships ``validate.py`` (a student's validate step, nothing of the grader)
   ``student_commands``      the notebook's text names the command students have (``python
                             validate.py``), not the instructor's ``autograder validate``
   ``add_handin_instructions`` a "Handing in" cell after the introduction: how to submit, the
                             latest counts, hidden inputs, where feedback appears (handin_cell.py)
2. ``fill_visible_checks``   placeholder grade cells get checks whose expected values are
                             computed from the reference now (nothing typed in by hand)
3. ``nbgrader_generate``     nbgrader's own GenerateAssignment: strips solutions, locks cells,
                             computes checksums (we do not re-implement any of it)
4. ``normalise``             deterministic JSON (stable ids, no volatile metadata), stamped with
                             the problem set's name and its answer key's fingerprint
5. ``verify_clean``          refuses a release that still holds solution code or hidden material

A release in another language (``--lang de``, ``TRANSLATION_STAGES``) starts from the English one
as nbgrader generated it: ``mark_source_text`` left each translatable markdown cell's English in its
metadata, ``translate_released_markdown`` puts the set's notebook catalogue's translation there
(notebook_catalogue.py) and recomputes nbgrader's checksum of that text, the hand-in cell and
``validate.py`` speak the language, then ``normalise`` and ``verify_clean`` as above. Code cells,
grade ids, their checksums and the answer key are the English release's by construction, and
nbgrader runs once per set, not once per language.

The result is byte-identical on every run; ``release/`` is committed and ``--check`` compares.
English goes to ``release/<ps>/``, another language to ``release/<ps>_<lang>/`` (same notebook name).
"""

from __future__ import annotations

import dataclasses
import filecmp
import hashlib
import inspect
import io
import logging
import os
import re
import shutil
import sys
import tempfile
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.judging.compare import formula_grammar
from autograder.judging.compare.comparators import Formula
from autograder.releasing.answer_key import answer_key_digest
from autograder.releasing.handin_cell import add_handin_instructions, handin_in_language
from autograder.releasing.notebook_catalogue import cell_translations, notebook_languages, translatable
from autograder.releasing.visible_checks import HELPER_MODULE, array_literal, visible_check_source  # noqa: F401
from autograder.spec import Assignment, ProblemSetError

PLACEHOLDER = "# autograder: visible checks for "
PARAMS_PLACEHOLDER = "# autograder: student parameters"
SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION", "### BEGIN HIDDEN TESTS", "### BEGIN MARK SCHEME")


# ---------------------------------------------------------------- stages


@dataclass
class ReleaseContext:
    assignment: Assignment
    workdir: Path  # a scratch nbgrader course directory
    notebook: Path | None = None  # the source notebook being prepared
    release: Path | None = None  # the generated release folder
    db_url: str | None = None  # gradebook that records the assignment (default: a scratch one)
    lang: str = "en"  # the markdown's language (README: Languages); the code is the same in every one
    answer_key: str | None = None  # the answer key's digest, computed once for every language
    generated: Path | None = None  # the English notebook as nbgrader generated it (translations start there)


def alembic_on_path() -> None:
    """nbgrader's Gradebook shells out to `alembic`, which lives beside this interpreter."""
    bindir = str(Path(sys.executable).parent)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")


def copy_source(ctx: ReleaseContext) -> None:
    target = ctx.workdir / "source" / ctx.assignment.name
    target.mkdir(parents=True)
    for name in (ctx.assignment.notebook, *ctx.assignment.extra_files):
        if not (ctx.assignment.source_dir / name).is_file():
            raise ProblemSetError(
                f"{ctx.assignment.name}: {ctx.assignment.source_dir / name} is missing "
                "(the source notebook and the extra files its Assignment names)"
            )
        shutil.copy2(ctx.assignment.source_dir / name, target / name)
    ctx.notebook = target / ctx.assignment.notebook


def student_params_source(assignment: Assignment) -> str:
    """The cell that gives a student their personal parameters: the spec's own function, copied."""
    fn = assignment.student_params
    return "\n".join(
        [
            "# Your personal parameters. The grader derives the same ones from the id your notebook is",
            "# collected under (your JupyterHub user name): it runs this cell with JUPYTERHUB_USER set to",
            "# that id. This cell is locked: do not edit it. Working off the Hub? Start Jupyter with your",
            "# id in the environment (JUPYTERHUB_USER=<your id> jupyter lab) and check the printed id.",
            "import os",
            "",
            'STUDENT_ID = os.environ.get("JUPYTERHUB_USER", "your-student-id")',
            "",
            textwrap.dedent(inspect.getsource(fn)).strip(),
            "",
            f"PARAMS = {fn.__name__}(STUDENT_ID)",
            "print(STUDENT_ID, PARAMS)",
        ]
    )


def fill_visible_checks(ctx: ReleaseContext) -> None:
    nb = nbformat.read(ctx.notebook, as_version=4)
    for cell in nb.cells:
        source = cell.source.strip()
        if cell.cell_type != "code":
            continue
        if source.startswith(PLACEHOLDER):
            grade_id = source[len(PLACEHOLDER) :].split("\n", 1)[0].strip()
            cell.source = visible_check_source(ctx.assignment.question(grade_id), ctx.assignment)
        elif source.startswith(PARAMS_PLACEHOLDER):
            cell.source = student_params_source(ctx.assignment)
    nbformat.write(nb, ctx.notebook)


def nbgrader_generate(ctx: ReleaseContext) -> None:
    from nbgrader.apps.generateassignmentapp import GenerateAssignment
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config

    alembic_on_path()
    config = Config()
    config.CourseDirectory.root = str(ctx.workdir)
    config.CourseDirectory.assignment_id = ctx.assignment.name
    # nbgrader's Gradebook() defaults to this course; with '' no `course` row is created and
    # PostgreSQL (unlike SQLite) enforces the assignment -> course foreign key.
    config.CourseDirectory.course_id = "default_course"
    config.CourseDirectory.db_url = ctx.db_url or f"sqlite:///{ctx.workdir / 'gradebook.db'}"
    app = GenerateAssignment(coursedir=CourseDirectory(config=config), config=config)
    log = io.StringIO()
    app.log.addHandler(logging.StreamHandler(log))
    app.log.propagate = False
    try:
        app.start()
    except Exception as exc:
        raise RuntimeError(
            f"nbgrader generate_assignment failed for {ctx.assignment.name}:\n{log.getvalue()[-4000:]}"
        ) from exc
    ctx.release = ctx.workdir / "release" / ctx.assignment.name


SOURCE_TEXT = "autograder_source_text"  # a markdown cell's English, kept through nbgrader for the translations


def mark_source_text(ctx: ReleaseContext) -> None:
    """Each translatable markdown cell remembers its English (the catalogue's msgid) in its
    metadata, before any stage rewrites it; ``normalise`` removes the mark."""
    nb = nbformat.read(ctx.notebook, as_version=4)
    for cell in nb.cells:
        if translatable(cell):
            cell.metadata[SOURCE_TEXT] = cell.source
    nbformat.write(nb, ctx.notebook)


def keep_generated(ctx: ReleaseContext) -> None:
    ctx.generated = ctx.workdir / f"generated-{ctx.assignment.notebook}"
    shutil.copy2(ctx.release / ctx.assignment.notebook, ctx.generated)


def normalise(ctx: ReleaseContext) -> None:
    path = ctx.release / ctx.assignment.notebook
    nb = nbformat.read(path, as_version=4)
    for index, cell in enumerate(nb.cells):
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", f"cell-{index}")
        cell["id"] = hashlib.sha1(f"{index}:{grade_id}".encode()).hexdigest()[:8]
        cell.get("metadata", {}).pop("execution", None)
        cell.get("metadata", {}).pop(SOURCE_TEXT, None)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.metadata.pop("widgets", None)
    ctx.answer_key = ctx.answer_key or answer_key_digest(ctx.assignment)
    nb.metadata["autograder"] = {"assignment": ctx.assignment.name, "answer_key": ctx.answer_key}
    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")


def verify_clean(ctx: ReleaseContext) -> None:
    text = (ctx.release / ctx.assignment.notebook).read_text(encoding="utf-8")
    for marker in SOLUTION_MARKERS:
        if marker in text:
            raise RuntimeError(f"release of {ctx.assignment.name} still contains {marker!r}")
    if PLACEHOLDER in text or PARAMS_PLACEHOLDER in text:
        raise RuntimeError(f"release of {ctx.assignment.name} has an unfilled visible-check cell")


def add_formula_helper(ctx: ReleaseContext) -> None:
    """Formula answers: ship the grader's grammar (stdlib only) beside the notebook, so the
    visible check refuses what the grader refuses."""
    if any(isinstance(q.compare, Formula) for q in ctx.assignment.questions):
        grammar = Path(formula_grammar.__file__).read_text(encoding="utf-8")
        (ctx.notebook.parent / f"{HELPER_MODULE}.py").write_text(grammar, encoding="utf-8")


STUDENT_VALIDATE = "validate.py"
INSTRUCTOR_VALIDATE = re.compile(r"`autograder validate ")


def add_validate_helper(ctx: ReleaseContext) -> None:
    """Students' validate step, with what they have installed: ``python validate.py NOTEBOOK``,
    its docstring naming this set's notebook and its report's messages in every language written
    into it (no catalogue files to ship)."""
    from autograder.releasing.validate_bundle import standalone_validate

    text = standalone_validate(lang=None if ctx.lang == "en" else ctx.lang, notebook=ctx.assignment.notebook)
    (ctx.notebook.parent / STUDENT_VALIDATE).write_text(text, encoding="utf-8")


def student_commands(ctx: ReleaseContext) -> None:
    """A student's install has no ``autograder``: the text points them at ``python validate.py``."""
    nb = nbformat.read(ctx.notebook, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = INSTRUCTOR_VALIDATE.sub(f"`python {STUDENT_VALIDATE} ", cell.source)
    nbformat.write(nb, ctx.notebook)


def check_formula_symbols(ctx: ReleaseContext) -> None:
    """The symbols each formula question accepts are exactly those its text offers."""
    from autograder.releasing.formula_symbols import symbol_mismatches

    problems = symbol_mismatches(ctx.assignment, nbformat.read(ctx.notebook, as_version=4))
    if problems:
        raise RuntimeError(
            f"{ctx.assignment.name}: formula symbols do not match the notebook:\n  " + "\n  ".join(problems)
        )


CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]|\t")


def check_markdown_text(ctx: ReleaseContext) -> None:
    """Markdown holds no control character: a TAB where ``\\to`` or ``\\times`` was meant is a
    ``\\t`` escape that a string turned into a tab (the cell renders "d o d_ff", not d → d_ff)."""
    problems = []
    for number, cell in enumerate(nbformat.read(ctx.notebook, as_version=4).cells, 1):
        if cell.cell_type != "markdown":
            continue
        for match in CONTROL_CHARACTERS.finditer(cell.source):
            around = cell.source[max(0, match.start() - 12) : match.end() + 12]
            problems.append(f"markdown cell {number}: {match.group()!r} in {around!r}")
    if problems:
        raise RuntimeError(
            f"{ctx.assignment.name}: control characters in the notebook's markdown "
            f"(write \\t as a backslash and a t):\n  " + "\n  ".join(problems[:20])
        )


STAGES: list[tuple[str, Callable[[ReleaseContext], None]]] = [
    ("copy_source", copy_source),
    ("check_markdown_text", check_markdown_text),
    ("check_formula_symbols", check_formula_symbols),
    ("add_formula_helper", add_formula_helper),
    ("add_validate_helper", add_validate_helper),
    ("mark_source_text", mark_source_text),
    ("student_commands", student_commands),
    ("add_handin_instructions", add_handin_instructions),
    ("fill_visible_checks", fill_visible_checks),
    ("nbgrader_generate", nbgrader_generate),
    ("keep_generated", keep_generated),
    ("normalise", normalise),
    ("verify_clean", verify_clean),
]


def translate_released_markdown(ctx: ReleaseContext) -> None:
    """Each marked markdown cell in ``ctx.lang`` from the set's notebook catalogue (English where
    it has no checked translation: listed by the completeness check); a locked cell gets
    nbgrader's checksum of its new text, so ``nbgrader validate`` finds it unchanged."""
    from nbgrader.utils import compute_checksum

    from autograder.i18n.language import text_direction

    table = cell_translations(ctx.assignment, ctx.lang)
    right_to_left = text_direction(ctx.lang) == "rtl"
    nb = nbformat.read(ctx.notebook, as_version=4)
    for cell in nb.cells:
        english = cell.metadata.get(SOURCE_TEXT)
        if english in table:
            text = INSTRUCTOR_VALIDATE.sub(f"`python {STUDENT_VALIDATE} ", table[english])
            # Jupyter lays markdown out left to right unless told: an HTML block around the cell
            # (blank lines keep its inside Markdown) sets the direction; code spans stay LTR runs
            cell.source = f'<div dir="rtl">\n\n{text}\n\n</div>' if right_to_left else text
            if "checksum" in cell.metadata.get("nbgrader", {}):
                cell.metadata.nbgrader.checksum = compute_checksum(cell)
    nbformat.write(nb, ctx.notebook)


TRANSLATION_STAGES: list[tuple[str, Callable[[ReleaseContext], None]]] = [
    ("translate_released_markdown", translate_released_markdown),
    ("check_markdown_text", check_markdown_text),
    ("handin_in_language", handin_in_language),
    ("add_validate_helper", add_validate_helper),
    ("normalise", normalise),
    ("verify_clean", verify_clean),
]


def translate_release(english: ReleaseContext, lang: str, stages=TRANSLATION_STAGES) -> Path:
    """The English release in ``lang``: a copy of its folder, the notebook nbgrader generated."""
    folder = english.workdir / "translations" / lang / english.assignment.name
    shutil.copytree(english.release, folder)
    shutil.copy2(english.generated, folder / english.assignment.notebook)
    ctx = dataclasses.replace(english, release=folder, notebook=folder / english.assignment.notebook, lang=lang)
    for _name, stage in stages:
        stage(ctx)
    return folder


def build_releases(assignment: Assignment, workdir: Path, languages=("en",), stages=STAGES) -> dict[str, Path]:
    """Run the stages in a scratch course directory; the generated release folder per language."""
    ctx = ReleaseContext(assignment, workdir)
    for _name, stage in stages:
        stage(ctx)
    return {lang: ctx.release if lang == "en" else translate_release(ctx, lang) for lang in languages}


def build_release(assignment: Assignment, workdir: Path, stages=STAGES, lang: str = "en") -> Path:
    return build_releases(assignment, workdir, (lang,), stages)[lang]


def _same_tree(a: Path, b: Path) -> bool:
    files_a = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file()) if b.exists() else None
    return files_a == files_b and all(filecmp.cmp(a / f, b / f, shallow=False) for f in files_a)


def course_release_dir() -> Path:
    from autograder.course import find_course

    return find_course().release


def release_folder(release_dir: Path, assignment: Assignment, lang: str = "en") -> Path:
    """``release/<ps>/`` in English, ``release/<ps>_<lang>/`` in another language."""
    return Path(release_dir) / (assignment.name if lang == "en" else f"{assignment.name}_{lang}")


def release_languages(assignment: Assignment, lang: str | None = None) -> list[str]:
    """What ``autograder release`` writes: English and every language the set's notebook has a
    catalogue for, or only ``lang``."""
    return [lang] if lang else ["en", *notebook_languages(assignment)]


def releases(assignment: Assignment, languages, *, check: bool = False, release_dir: Path | None = None):
    """Write the course's release/<name>/ and release/<name>_<lang>/ for ``languages`` (or, with
    check, report whether each is up to date): {lang: up to date}."""
    release_dir = release_dir or course_release_dir()
    fresh = {}
    with tempfile.TemporaryDirectory(prefix="autograder-release-") as tmp:
        for lang, built in build_releases(assignment, Path(tmp), tuple(languages)).items():
            target = release_folder(release_dir, assignment, lang)
            fresh[lang] = _same_tree(built, target)
            if not fresh[lang] and not check:
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(built, target)
    return fresh


def release(assignment: Assignment, *, check: bool = False, release_dir: Path | None = None, lang: str = "en") -> bool:
    """One language's release (English: release/<name>/); True = it was up to date."""
    return releases(assignment, [lang], check=check, release_dir=release_dir)[lang]


def released_notebook(assignment: Assignment, release_dir: Path | None = None) -> Path:
    return (release_dir or course_release_dir()) / assignment.name / assignment.notebook
