"""The kit as a course would use it: built as a wheel, installed (not editable) into a fresh venv,
working on a course directory outside this repo.

`autograder init` starts the course; the instructor adds a problem set of their own there
(the "Write a question" recipe of the README, its code blocks read from the README itself),
releases it, self-tests it and grades: the solution gets full marks, and a notebook whose answer
leans on an import it never made fails alike in Jupyter (the shipped `validate.py`) and in the
grader. Nothing but the README is read from this checkout once the wheel is built.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from autograder.spec import REPO_ROOT

pytestmark = pytest.mark.slow  # builds a wheel and a venv: a few minutes

TORCH_PIN = "torch==2.13.0"  # first, as ./dev does: a bare torch would pull a CUDA build


def run(cmd, cwd, env=None, timeout=900):
    r = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{cmd} exited {r.returncode}\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}"
    return r


def _cell(cell_type, source, **nbgrader):
    make = nbformat.v4.new_markdown_cell if cell_type == "markdown" else nbformat.v4.new_code_cell
    meta = {"grade": False, "locked": True, "solution": False, "task": False, "schema_version": 3, **nbgrader}
    return make(source, metadata={"nbgrader": meta})


def readme_recipe() -> dict[str, str]:
    """The code blocks of the README's "Write a question", by what each is: the imports, answer
    and check cells, the module and the package (in the order the recipe gives them)."""
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Write a question\n", 1)[1].split("\n## ", 1)[0]
    blocks = [textwrap.dedent(b).strip("\n") + "\n" for b in re.findall(r"```python\n(.*?)\n\s*```", section, re.S)]
    names = ["imports", "answer", "check", "module", "package"]
    assert len(blocks) >= len(names), f"the recipe has {len(blocks)} code blocks"
    recipe = dict(zip(names, blocks, strict=False))
    for said in ("grade id `imports`", "grade id `softmax_impl`", "**points 2**", "grade id `softmax`"):
        assert said in section, f"the recipe no longer says {said}: update this test"
    assert "`source/hw1_softmax/softmax.py`" in section and "`source/hw1_softmax/__init__.py`" in section
    assert "autograder release hw1" in section and "autograder selftest hw1" in section
    return recipe


def write_problem_set(folder: Path) -> None:
    """The README's "Write a question", to the letter: the notebook's cells (a question, the
    imports, the answer with its solution, the check placeholder holding the points) and the
    package, each from the README's own code blocks."""
    recipe = readme_recipe()
    folder.mkdir(parents=True)
    nb = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    )
    nb.cells = [
        _cell("markdown", "# HW1 — softmax\n\nWrite `softmax(x)` over the last axis.", grade_id="intro"),
        _cell("code", recipe["imports"].strip(), grade_id="imports"),
        _cell("code", recipe["answer"].strip(), grade_id="softmax_impl", locked=False, solution=True),
        _cell("code", recipe["check"].strip(), grade_id="softmax", grade=True, points=2),
    ]
    nbformat.write(nb, folder / "hw1_softmax.ipynb")
    (folder / "__init__.py").write_text(recipe["package"])
    (folder / "softmax.py").write_text(recipe["module"])


def test_wheel_init_add_release_selftest_grade(tmp_path):
    dist, venv, course = tmp_path / "dist", tmp_path / "venv", tmp_path / "course"
    run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", dist, REPO_ROOT],
        cwd=tmp_path,
    )
    wheel = next(dist.glob("transformer_autograder-*.whl"))
    run([sys.executable, "-m", "venv", venv], cwd=tmp_path)
    pip = [venv / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    run([*pip, TORCH_PIN], cwd=tmp_path)
    run([*pip, wheel], cwd=tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "AUTOGRADER_COURSE", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}:{env['PATH']}"
    autograder = venv / "bin" / "autograder"

    where = run(
        [venv / "bin" / "python", "-c", "import autograder, solutions; print(autograder.__file__)"],
        cwd=tmp_path,
        env=env,
    ).stdout
    assert str(venv) in where and str(REPO_ROOT) not in where, where

    run([autograder, "init", course, "--course-id", "demo101"], cwd=tmp_path, env=env)
    assert {p.name for p in (course / "source").iterdir()} >= {"ps1_attention", "ps6_build"}
    assert (course / "nbgrader_config.py").is_file() and (course / "autograder.toml").is_file()

    write_problem_set(course / "source" / "hw1_softmax")
    run([autograder, "release", "hw1"], cwd=course, env=env)
    released = course / "release" / "hw1_softmax" / "hw1_softmax.ipynb"
    assert released.is_file() and "BEGIN SOLUTION" not in released.read_text()
    shipped = {p.name for p in (course / "release" / "hw1_softmax").glob("*.py")}
    assert shipped == {"validate.py"}, f"a problem set's modules were released: {shipped}"
    selftest = run([autograder, "selftest", "hw1"], cwd=course, env=env, timeout=900).stdout
    assert "mutants_killed:" in selftest, selftest

    # ada: the recipe's solution; bob normalised over the wrong axis; cy emptied the imports cell
    # (his answer leans on an import he never made); eve's answer is right only if the sandbox
    # lets her read the installed kit (references, problem sets)
    snoop = (
        "import glob, sys\n    leaked = [f for pattern in ('autograder/shipped_assignments/*/*.py', 'solutions/*.py')\n"
        "              for f in glob.glob(sys.prefix + '/lib/python*/site-packages/' + pattern)]\n"
        "    assert leaked, 'the installed kit is hidden'\n    return torch.softmax(x, dim=-1)"
    )
    submitted = course / "submitted"
    solution = "".join(line for line in readme_recipe()["answer"].splitlines(True) if "### " not in line)
    for student, answer in (
        ("ada", solution),
        ("bob", "def softmax(x):\n    return torch.softmax(x, dim=0)"),
        ("cy", solution),
        ("eve", f"def softmax(x):\n    {snoop}"),
    ):
        nb = nbformat.read(released, as_version=4)
        for cell in nb.cells:
            if cell.metadata.get("nbgrader", {}).get("solution"):
                cell.source = answer
            if student == "cy" and cell.metadata.get("nbgrader", {}).get("grade_id") == "imports":
                cell.source = ""
        (submitted / student / "hw1_softmax").mkdir(parents=True)
        nbformat.write(nb, submitted / student / "hw1_softmax" / "hw1_softmax.ipynb")
        shutil.copy(released.parent / "validate.py", submitted / student / "hw1_softmax")
    validate = [venv / "bin" / "python", "validate.py", "hw1_softmax.ipynb"]
    ok = subprocess.run(validate, cwd=submitted / "ada" / "hw1_softmax", capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0 and "1/1 visible checks passed" in ok.stdout, ok.stdout + ok.stderr
    cy = subprocess.run(validate, cwd=submitted / "cy" / "hw1_softmax", capture_output=True, text=True, timeout=300)
    assert cy.returncode == 1 and "NameError" in cy.stdout, cy.stdout + cy.stderr
    # from another directory, the course named by the environment
    env_elsewhere = {**env, "AUTOGRADER_COURSE": str(course)}
    run(
        [autograder, "grade", "hw1", submitted, "--out", course / "autograded" / "hw1", "--quiet"],
        cwd=tmp_path,
        env=env_elsewhere,
        timeout=600,
    )
    results = json.loads((course / "autograded" / "hw1" / "results.json").read_text())["students"]
    assert results["ada"]["score"] == 2 and results["ada"]["max_score"] == 2
    bob = results["bob"]["questions"]["softmax"]
    assert results["bob"]["score"] == 0 and "last axis" in bob["feedback"], bob
    assert results["cy"]["score"] == 0 and "torch" in results["cy"]["questions"]["softmax"]["feedback"]
    assert results["eve"]["score"] == 0 and "hidden" in results["eve"]["questions"]["softmax"]["feedback"]


def test_no_course_is_a_clear_message(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "AUTOGRADER_COURSE"}
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from autograder.course import find_course, KIT_ROOT;"
            "import autograder.course as c; c.KIT_ROOT = c.Path('/nonexistent'); find_course()",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode != 0 and "autograder init" in r.stderr, r.stderr


def test_a_missing_course_directory_is_named(tmp_path):
    from autograder.cli.main import main
    from autograder.course import find_course

    assert main(["--course", str(tmp_path / "nope"), "release", "--check"]) == 2
    assert find_course().root != tmp_path / "nope"  # the flag held for that command only


def test_problem_set_folder_needs_no_prefix_and_no_sys_path(tmp_path):
    """Two courses may each have a problem set called hw1 with a module called softmax."""
    from autograder.spec import import_problem_set

    before = list(sys.path)
    a, b = tmp_path / "a" / "hw1_softmax", tmp_path / "b" / "hw1_softmax"
    write_problem_set(a)
    write_problem_set(b)
    (b / "softmax.py").write_text((b / "softmax.py").read_text().replace("shape {s}", "size {s}"))
    ma, mb = import_problem_set(a), import_problem_set(b)
    assert ma is not mb and ma.softmax is not mb.softmax and sys.path == before
    shutil.rmtree(tmp_path / "a")
