"""Released notebooks in other languages (issue 37): ``autograder release --lang de`` replaces the
markdown from the set's notebook catalogue and nothing else. A cell whose English changed is
released in English and listed, never silently kept in its old translation."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from autograder.releasing.notebook_catalogue import (
    cell_translations,
    notebook_catalogue,
    notebook_catalogue_problems,
    notebook_languages,
    structure_problem,
    update_notebook_catalogue,
)
from autograder.releasing.stages import SOURCE_TEXT, mark_source_text, translate_released_markdown
from autograder.spec import Assignment

REPO = Path(__file__).resolve().parents[2]
INTRO = "# PS0\n\nCompute `softmax(x)` with $\\sum_j p_j = 1$; see [the docs](https://pytorch.org)."
ASK = "Answer in the symbols `d`, `h`."


def synthetic_set(root: Path) -> Assignment:
    nb = nbformat.v4.new_notebook()
    answer = nbformat.v4.new_markdown_cell("the instructor's model answer")
    answer.metadata["nbgrader"] = {"grade_id": "essay", "solution": True, "grade": True, "points": 1}
    nb.cells = [
        nbformat.v4.new_markdown_cell(INTRO),
        nbformat.v4.new_code_cell("# the checks say this in English\nx = 1"),
        nbformat.v4.new_markdown_cell(ASK),
        answer,
    ]
    (root / "ps0").mkdir()
    nbformat.write(nb, root / "ps0" / "ps0.ipynb")
    return Assignment(name="ps0", notebook="ps0.ipynb", questions=[], root=root)


def translate(assignment: Assignment, entries: dict[str, str]) -> None:
    """Fill the German catalogue as a translator would."""
    from babel.messages.pofile import read_po, write_po

    path = notebook_catalogue(assignment, "de")
    catalog = read_po(path.open("rb"))
    for msgid, msgstr in entries.items():
        catalog[msgid].string = msgstr
    write_po(path.open("wb"), catalog, width=100, no_location=True)


def test_markdown_is_translated_code_and_answer_cells_are_not(tmp_path):
    ps0 = synthetic_set(tmp_path)
    update_notebook_catalogue(ps0, "de")
    assert notebook_languages(ps0) == ["de"]
    assert len(notebook_catalogue_problems(ps0, "de")) == 2  # both cells untranslated, said in English
    german = INTRO.replace("Compute", "Berechnen Sie").replace("see", "siehe")
    translate(ps0, {INTRO: german})
    ctx = SimpleNamespace(assignment=ps0, lang="de", notebook=tmp_path / "work.ipynb")
    ctx.notebook.write_bytes((ps0.source_dir / "ps0.ipynb").read_bytes())
    mark_source_text(ctx)  # before the English stages rewrite anything
    translate_released_markdown(ctx)  # after nbgrader generated the English release
    cells = nbformat.read(ctx.notebook, as_version=4).cells
    assert [SOURCE_TEXT in c.metadata for c in cells] == [True, False, True, False]
    assert [c.source for c in cells] == [german, "# the checks say this in English\nx = 1", ASK, cells[3].source]
    assert cells[3].source == "the instructor's model answer"  # nbgrader replaces it, in every language alike
    problems = notebook_catalogue_problems(ps0, "de")
    assert len(problems) == 1 and "cell 2 not translated (said in English)" in problems[0]


def test_a_changed_english_cell_falls_back_to_english_and_is_listed(tmp_path):
    ps0 = synthetic_set(tmp_path)
    update_notebook_catalogue(ps0, "de")
    translate(ps0, {INTRO: INTRO.replace("Compute", "Berechnen Sie"), ASK: "Antworten Sie in den Symbolen `d`, `h`."})
    assert notebook_catalogue_problems(ps0, "de") == []
    nb = nbformat.read(ps0.source_dir / "ps0.ipynb", as_version=4)
    nb.cells[2].source = "Answer in the symbols `d`, `h`, `d_ff`."  # someone edits the English
    nbformat.write(nb, ps0.source_dir / "ps0.ipynb")
    assert nb.cells[2].source not in cell_translations(ps0, "de")  # released in English
    assert "not translated" in notebook_catalogue_problems(ps0, "de")[0]
    update_notebook_catalogue(ps0, "de")  # re-extracted: the old translation offered, marked fuzzy
    text = notebook_catalogue(ps0, "de").read_text(encoding="utf-8")
    assert "#, fuzzy" in text and '#| msgid "Answer in the symbols `d`, `h`."' in text
    assert nb.cells[2].source not in cell_translations(ps0, "de")
    assert "fuzzy" in notebook_catalogue_problems(ps0, "de")[0]
    update_notebook_catalogue(ps0, "de")  # re-extracted before anyone checked it: unchanged
    assert notebook_catalogue(ps0, "de").read_text(encoding="utf-8") == text


def test_a_translation_keeps_code_formulas_and_links():
    assert structure_problem(INTRO, INTRO.replace("Compute", "Berechnen Sie")) is None
    assert "lost" in structure_problem(INTRO, INTRO.replace("`softmax(x)`", "softmax(x)"))
    assert "lost" in structure_problem(INTRO, INTRO.replace("(https://pytorch.org)", "(https://pytorch.de)"))
    assert "added" in structure_problem(ASK, ASK + " $d$")


TRANSLATED_RELEASES = sorted(p for p in (REPO / "release").glob("*_*/*.ipynb") if p.parent.name != p.stem)


@pytest.mark.parametrize("translated", TRANSLATED_RELEASES, ids=lambda p: p.parent.name)
def test_a_translated_release_has_the_english_code_cells_and_metadata(translated):
    """One gradebook grades a mixed cohort: every code cell (source, grade id, checksum, id) and the
    notebook's metadata (the answer key's fingerprint) are the English release's, byte for byte;
    a markdown cell differs in its text and in nbgrader's checksum of that text only."""
    english = json.loads((REPO / "release" / translated.stem / translated.name).read_text(encoding="utf-8"))
    other = json.loads(translated.read_text(encoding="utf-8"))
    assert other["metadata"] == english["metadata"] and len(other["cells"]) == len(english["cells"])
    for mine, theirs in zip(other["cells"], english["cells"], strict=True):
        if theirs["cell_type"] == "code":
            assert mine == theirs
        else:
            for cell in (mine, theirs):
                cell["metadata"].get("nbgrader", {}).pop("checksum", None)
            assert (mine["id"], mine["metadata"]) == (theirs["id"], theirs["metadata"])
    assert other["cells"] != english["cells"]  # it is translated
    from nbgrader.utils import compute_checksum

    for cell in nbformat.read(translated, as_version=4).cells:  # what `nbgrader validate` checks of locked text
        if "checksum" in cell.metadata.get("nbgrader", {}):
            assert compute_checksum(cell) == cell.metadata.nbgrader.checksum, cell.metadata.nbgrader.grade_id
    shipped = {p.name for p in translated.parent.iterdir()}
    assert shipped == {p.name for p in (REPO / "release" / translated.stem).iterdir()}
    language = translated.parent.name.rpartition("_")[2]
    assert f'LANGUAGE = "{language}"' in (translated.parent / "validate.py").read_text(encoding="utf-8")


def answered(release_notebook: Path, answers: dict[str, str]):
    """A released notebook with its solution cells replaced, as a student hands it in."""
    nb = nbformat.read(release_notebook, as_version=4)
    for cell in nb.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if cell.get("metadata", {}).get("nbgrader", {}).get("solution") and grade_id in answers:
            cell.source = answers[grade_id]
    return nb


GRADED_IN_GERMAN = "ps5_equivariance"  # a small set: one notebook run per language
TIMING = ("notebook", "sandbox_seconds", "sandbox_cpu_seconds", "attempts", "seconds")


@pytest.mark.skipif(not (REPO / "release" / f"{GRADED_IN_GERMAN}_de").is_dir(), reason="no German release of the set")
def test_the_same_answers_from_the_german_release_get_the_same_results(tmp_path):
    """One gradebook, a mixed cohort: a student's answers in the German release are graded against
    the course's (English) release exactly as in the English one — scores, statuses, feedback,
    no "locked cell modified" flag for the translated text. A known-wrong student's answers, so
    that the feedback has something to say."""
    from autograder.grading.submission import grade_one
    from autograder.intake.submission import Submission
    from autograder.releasing.sample_submissions import write_submission
    from autograder.sandbox.pool import SandboxConfig, Worker
    from autograder.spec import load_assignment

    assignment = load_assignment(GRADED_IN_GERMAN)
    student = (
        REPO
        / "tests/assignments/students"
        / assignment.name
        / "wrong_mc_invariant"
        / assignment.name
        / assignment.notebook
    )
    answers = {
        c["metadata"]["nbgrader"]["grade_id"]: "".join(c["source"])
        for c in json.loads(student.read_text(encoding="utf-8"))["cells"]
        if c.get("metadata", {}).get("nbgrader", {}).get("solution")
    }
    records = {}
    worker = Worker(0, SandboxConfig())
    try:
        for folder in (assignment.name, f"{assignment.name}_de"):
            nb = answered(REPO / "release" / folder / assignment.notebook, answers)
            path = write_submission(tmp_path / folder, "mia", assignment, nb)
            record = grade_one(worker, assignment, Submission("mia", path))
            records[folder] = {k: v for k, v in record.items() if k not in TIMING}
    finally:
        worker.stop()
    english, german = records.values()
    assert german == english
    assert "flags" not in german and 0 < german["score"] < assignment.max_score


@pytest.mark.skipif(not (REPO / "release" / f"{GRADED_IN_GERMAN}_de").is_dir(), reason="no German release of the set")
def test_the_solved_german_notebook_validates(tmp_path, capsys):
    """The shipped validate step (validate.py's code) passes on the German release with the
    solution filled in, and reports in German (the release's LANGUAGE)."""
    from autograder.releasing import student_validate
    from autograder.releasing.sample_submissions import solution_sources
    from autograder.spec import load_assignment

    assignment = load_assignment(GRADED_IN_GERMAN)
    german = REPO / "release" / f"{assignment.name}_de"
    nbformat.write(answered(german / assignment.notebook, solution_sources(assignment)), tmp_path / assignment.notebook)
    assert student_validate.validate(str(tmp_path / assignment.notebook), lang="de") == 0
    assert "sichtbare Tests bestanden" in capsys.readouterr().out


@pytest.mark.parametrize("lang", ["de", "fa"])
def test_nbgrader_validate_passes_on_the_solved_translated_notebook(tmp_path, lang):
    """nbgrader's own `validate` (a kernel runs every cell, locked-cell checksums are read) on the
    German and the Persian release with the solution filled in."""
    import subprocess
    import sys

    from autograder.releasing.sample_submissions import solution_sources
    from autograder.spec import load_assignment

    assignment = load_assignment(GRADED_IN_GERMAN)
    release = REPO / "release" / f"{assignment.name}_{lang}"
    solved = answered(release / assignment.notebook, solution_sources(assignment))
    nbformat.write(solved, tmp_path / assignment.notebook)
    said = subprocess.run(
        [str(Path(sys.executable).parent / "nbgrader"), "validate", assignment.notebook],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Success! Your notebook passes all the tests." in said.stdout, said.stdout[-2000:] + said.stderr[-2000:]
