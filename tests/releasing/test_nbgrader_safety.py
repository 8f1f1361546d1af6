"""Under examples/nbgrader_config.py, and under the nbgrader_config.py that `autograder init`
writes, nbgrader's own commands cannot spoil the release: `nbgrader generate_assignment` is
refused with the command to use instead (before anything is written), and exactly the files
`autograder release` wrote (the notebook and formula_check.py, never a problem-set module) reach
the exchange."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.course import find_course, init_course
from autograder.spec import REPO_ROOT

BIN = Path(sys.executable).parent


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_generate_assignment_refused_and_only_notebooks_published(tmp_path):
    kit, course, exchange = tmp_path / "kit", tmp_path / "course", tmp_path / "exchange"
    shutil.copytree(REPO_ROOT / "release" / "ps1_attention", kit / "release" / "ps1_attention")
    # what an instructor would naturally put in nbgrader's source/: the kit's problem-set folder
    shutil.copytree(
        find_course().source / "ps1_attention",
        course / "source" / "ps1_attention",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    shutil.copy(REPO_ROOT / "examples" / "nbgrader_config.py", course / "nbgrader_config.py")
    env = {
        **os.environ,
        "COURSE_ROOT": str(course),
        "AUTOGRADER_KIT": str(kit),
        "NBGRADER_EXCHANGE": str(exchange),
        "HOME": str(tmp_path),
        "PATH": f"{BIN}:{os.environ['PATH']}",
    }
    before = snapshot(kit)

    def nbgrader(*args):
        return subprocess.run(
            [str(BIN / "nbgrader"), *args], cwd=course, env=env, capture_output=True, text=True, timeout=180
        )

    for args in (
        ["generate_assignment", "ps1_attention"],
        ["generate_assignment", "ps1_attention", "--force"],
        ["assign", "ps1_attention", "--force"],
    ):
        r = nbgrader(*args)
        assert r.returncode != 0, r.stdout + r.stderr
        assert "autograder release" in r.stdout + r.stderr
        assert snapshot(kit) == before  # not one byte of the kit's release changed, nothing added

    r = nbgrader("release_assignment", "ps1_attention")
    assert r.returncode == 0, r.stdout + r.stderr
    outbound = exchange / "transformers101" / "outbound" / "ps1_attention"
    released = snapshot(kit / "release" / "ps1_attention")  # the notebook (and a student-side helper, if any)
    assert snapshot(outbound) == released and "ps1_attention.ipynb" in released
    assert not {p.name for p in (course / "source" / "ps1_attention").glob("*.py")} & set(released)

    # a stray spec file in the release folder still stays home
    (kit / "release" / "ps1_attention" / "questions.py").write_text("SECRET = 1\n")
    r = nbgrader("release_assignment", "ps1_attention", "--force")
    assert r.returncode == 0, r.stdout + r.stderr
    assert snapshot(outbound) == released


def test_the_kits_own_release_is_not_refused_in_a_process_that_loaded_the_config(ps1, tmp_path):
    """The guard is installed by loading the config (formgrader does, so do tests); the kit's
    release writes into a scratch directory and must still work there."""
    from traitlets.config.loader import PyFileConfigLoader

    from autograder.releasing.stages import build_release

    old = dict(os.environ)
    os.environ.update(AUTOGRADER_KIT=str(REPO_ROOT), COURSE_ROOT=str(tmp_path / "course"))
    try:
        PyFileConfigLoader("nbgrader_config.py", path=str(REPO_ROOT / "examples")).load_config()
    finally:
        os.environ.clear()
        os.environ.update(old)
    built = build_release(ps1, tmp_path / "scratch")
    text = (built / ps1.notebook).read_text()  # build_release's verify_clean stage also ran
    assert "visible checks passed for" in text and "# autograder: visible checks for" not in text


def test_an_init_course_releases_formula_check_and_refuses_generate_assignment(tmp_path):
    """PS1's notebook imports formula_check.py: in a course made by `autograder init`, nbgrader's
    release_assignment must hand it out, and generate_assignment must not overwrite release/."""
    course, exchange = init_course(tmp_path / "course", "demo101").root, tmp_path / "exchange"
    env = {
        **os.environ,
        "NBGRADER_EXCHANGE": str(exchange),
        "HOME": str(tmp_path),
        "PATH": f"{BIN}:{os.environ['PATH']}",
    }
    env.pop("AUTOGRADER_COURSE", None)

    def run(*command):
        return subprocess.run(command, cwd=course, env=env, capture_output=True, text=True, timeout=300)

    r = run(sys.executable, "-m", "autograder", "release", "ps1")
    assert r.returncode == 0, r.stdout + r.stderr
    release = course / "release" / "ps1_attention"
    released = snapshot(release)
    assert {"ps1_attention.ipynb", "formula_check.py", "validate.py"} <= set(released)
    before = snapshot(course / "release")

    for args in (
        ["generate_assignment", "ps1_attention"],
        ["generate_assignment", "ps1_attention", "--force"],
        ["assign", "ps1_attention", "--force"],
    ):
        r = run(str(BIN / "nbgrader"), *args)
        assert r.returncode != 0, r.stdout + r.stderr
        assert "autograder release" in r.stdout + r.stderr
        assert snapshot(course / "release") == before  # not one byte of the release changed, nothing added

    # a stray problem-set module in the release folder stays home
    shutil.copy(course / "source" / "ps1_attention" / "sdpa.py", release / "sdpa.py")
    r = run(str(BIN / "nbgrader"), "release_assignment", "ps1_attention")
    assert r.returncode == 0, r.stdout + r.stderr
    assert snapshot(exchange / "demo101" / "outbound" / "ps1_attention") == released


def test_the_example_config_takes_the_same_ignore_list_from_the_kit(tmp_path, monkeypatch):
    from traitlets.config.loader import PyFileConfigLoader

    from autograder.releasing.nbgrader_safety import SHIPPED_BESIDE_NOTEBOOK, release_ignore
    from autograder.releasing.stages import STUDENT_VALIDATE
    from autograder.releasing.visible_checks import HELPER_MODULE

    monkeypatch.setenv("AUTOGRADER_KIT", str(REPO_ROOT))
    monkeypatch.setenv("COURSE_ROOT", str(tmp_path / "course"))
    config = PyFileConfigLoader("nbgrader_config.py", path=str(REPO_ROOT / "examples")).load_config()
    assert config.CourseDirectory.ignore == release_ignore(REPO_ROOT)
    # what add_formula_helper and add_validate_helper write
    assert SHIPPED_BESIDE_NOTEBOOK == {f"{HELPER_MODULE}.py", STUDENT_VALIDATE}
