"""The course directory: how it is found, what `autograder init` writes, and the checks a
problem set's files must pass (points from the grade cells, no control characters in markdown)."""

from __future__ import annotations

import dataclasses

import nbformat
import pytest

from autograder import course as course_module
from autograder.course import Course, CourseNotFound, find_course, init_course, use_course
from autograder.releasing.nbgrader_safety import release_ignore
from autograder.spec import PointsMismatch, with_notebook_points


@pytest.fixture(autouse=True)
def no_chosen_course(monkeypatch):
    monkeypatch.delenv("AUTOGRADER_COURSE", raising=False)
    use_course(None)
    yield
    use_course(None)


def test_found_from_the_flag_then_the_environment_then_upward(tmp_path, monkeypatch):
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
        (d / "autograder.toml").write_text("[course]\n")
    (a / "source" / "deep").mkdir(parents=True)
    monkeypatch.chdir(a / "source" / "deep")
    assert find_course().root == a  # upward from the working directory
    monkeypatch.setenv("AUTOGRADER_COURSE", str(b))
    assert find_course().root == b  # the environment beats the working directory
    use_course(a)
    assert find_course().root == a  # --course beats both


def test_folders_can_be_renamed_in_the_course_file(tmp_path):
    (tmp_path / "autograder.toml").write_text('[course]\nsource = "problems"\n')
    c = Course.at(tmp_path)
    assert c.source == tmp_path / "problems" and c.release == tmp_path / "release"


def test_no_course_anywhere_says_how_to_start_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(course_module, "KIT_ROOT", tmp_path / "no-kit")
    with pytest.raises(CourseNotFound, match="autograder init"):
        find_course()


def test_init_writes_an_nbgrader_course_with_the_shipped_problem_sets(tmp_path):
    c = init_course(tmp_path / "course", "demo101")
    assert sorted(p.name for p in c.source.iterdir()) == [
        "ps1_attention",
        "ps2_positional",
        "ps3_rope",
        "ps4_alibi",
        "ps5_equivariance",
        "ps6_build",
        "ps7_tasks",
    ]
    assert all((c.root / d).is_dir() for d in ("release", "submitted", "autograded", "feedback"))
    assert not list(c.source.rglob("__pycache__"))
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(c.root)).load_config()
    assert config.CourseDirectory.course_id == "demo101" and config.CourseDirectory.root == str(c.root)
    # release_assignment: the problem sets' modules stay home, formula_check.py (PS1, PS4) goes out
    ignore = config.CourseDirectory.ignore
    assert ignore == release_ignore(c.root) and "formula_check.py" not in ignore
    assert {"__init__.py", "sdpa.py", "layer_norm.py", "__pycache__", ".ipynb_checkpoints"} <= set(ignore)
    with pytest.raises(CourseNotFound, match="not empty"):
        init_course(c.root)


def test_points_come_from_the_grade_cells(ps1, tmp_path):
    assert ps1.max_score == 47 and all(q.points is not None for q in ps1.questions)
    wrong = dataclasses.replace(ps1.questions[0], points=ps1.questions[0].points + 1)
    with pytest.raises(PointsMismatch, match="grade cell"):
        with_notebook_points(dataclasses.replace(ps1, questions=[wrong, *ps1.questions[1:]]))
    stray = dataclasses.replace(ps1.questions[0], grade_id="not_in_the_notebook", points=None)
    with pytest.raises(PointsMismatch, match="no grade cell"):
        with_notebook_points(dataclasses.replace(ps1, questions=[stray]))


def test_questions_follow_the_notebook_order(ps1):
    nb = nbformat.read(ps1.source_dir / ps1.notebook, as_version=4)
    graded = [
        c.metadata["nbgrader"]["grade_id"]
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("grade")
        and c.metadata["nbgrader"]["grade_id"] in {q.grade_id for q in ps1.questions}
    ]
    assert [q.grade_id for q in ps1.questions] == graded


def test_release_refuses_control_characters_in_markdown(ps1, tmp_path):
    import shutil

    from autograder.releasing.stages import build_release

    shutil.copytree(ps1.source_dir, tmp_path / "src" / ps1.name)
    path = tmp_path / "src" / ps1.name / ps1.notebook
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "markdown" and "\\times" in c.source)
    cell.source = cell.source.replace("\\times", "\times", 1)  # the escape that bit PS1
    nbformat.write(nb, path)
    with pytest.raises(RuntimeError, match="control characters"):
        build_release(dataclasses.replace(ps1, root=tmp_path / "src"), tmp_path / "work")


def test_a_new_question_needs_its_notebook_cells_and_one_module(ps1, tmp_path):
    """The README recipe on an existing problem set: cells added to the notebook (question text,
    answer cell, grade cell with the points) and one Question appended to one module's QUESTIONS;
    __init__.py and every other file untouched."""
    import shutil
    import textwrap

    from autograder.proving.selftest import check_misconceptions
    from autograder.releasing.stages import build_release
    from autograder.spec import import_problem_set

    course = tmp_path / "course"
    init_course(course, "recipe", with_problem_sets=False)
    folder = course / "source" / "ps4_alibi"
    shutil.copytree(
        import_problem_set(ps1.root / "ps4_alibi").__path__[0], folder, ignore=shutil.ignore_patterns("__pycache__")
    )
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}  # locale/: its catalogues

    nb = nbformat.read(folder / "ps4_alibi.ipynb", as_version=4)
    meta = {"grade": False, "locked": True, "solution": False, "task": False, "schema_version": 3}
    nb.cells += [
        nbformat.v4.new_markdown_cell(
            "## Extra. Write `row_softmax(x)`.", metadata={"nbgrader": {**meta, "grade_id": "x_md"}}
        ),
        nbformat.v4.new_code_cell(
            "def row_softmax(x):\n    ### BEGIN SOLUTION\n    return torch.softmax(x, dim=-1)\n    ### END SOLUTION",
            metadata={"nbgrader": {**meta, "grade_id": "row_softmax_impl", "locked": False, "solution": True}},
        ),
        nbformat.v4.new_code_cell(
            "# autograder: visible checks for row_softmax",
            metadata={"nbgrader": {**meta, "grade_id": "row_softmax", "grade": True, "points": 2}},
        ),
    ]
    nbformat.write(nb, folder / "ps4_alibi.ipynb")
    with open(folder / "profile.py", "a") as module:
        module.write(
            textwrap.dedent("""
            import numpy as np


            def _row_softmax_probes(rng):
                return [Probe((rng.standard_normal(s).astype(np.float32),), f"shape {s}") for s in ((2, 5), (3, 2, 4))]


            QUESTIONS.append(Question(
                grade_id="row_softmax", answer="row_softmax", reference=lambda x: torch.softmax(x, dim=-1),
                probes=_row_softmax_probes, visible=[Probe((np.array([1.0, 2.0, 3.0], np.float32),), "x = [1, 2, 3]")],
                misconceptions=[Misconception("first axis", "softmax normalises each row (the last axis).",
                                              lambda x: torch.softmax(x, dim=0))]))
        """)
        )
    changed = {p.name for p in folder.iterdir() if p.name in before and p.read_bytes() != before[p.name]}
    assert changed == {"ps4_alibi.ipynb", "profile.py"}

    from autograder.spec import load_assignment

    points_before = load_assignment("ps4_alibi").max_score  # the set as copied, before the new question
    use_course(course)
    ps4 = load_assignment("ps4")
    question = ps4.question("row_softmax")
    assert question.points == 2 and ps4.max_score == points_before + 2 and ps4.questions[-1] is question
    assert check_misconceptions(dataclasses.replace(ps4, questions=[question])) == []
    released = nbformat.read(build_release(ps4, tmp_path / "work") / "ps4_alibi.ipynb", as_version=4)
    check = next(c for c in released.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "row_softmax")
    assert "assert_allclose" in check.source and "BEGIN SOLUTION" not in "".join(c.source for c in released.cells)
