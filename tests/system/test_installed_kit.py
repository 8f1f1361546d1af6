"""The kit as a course would use it: built as a wheel, installed (not editable) into a fresh venv,
working on a course directory outside this repo.

`autograder init` starts the course; the instructor adds a problem set of their own there
(the "Write a question" recipe of the README), releases it, self-tests it and grades two
submissions. Nothing is read from this checkout once the wheel is built.
"""

from __future__ import annotations

import json
import os
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


def write_problem_set(folder: Path) -> None:
    """A problem set of one function question, written as the README's recipe says: a notebook
    (question text, solution cell, grade cell holding the points) and a package."""
    folder.mkdir(parents=True)
    nb = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    )
    nb.cells = [
        _cell("markdown", "# PS7 — softmax\n\nWrite `softmax(x)` over the last axis.", grade_id="intro"),
        _cell("code", "import numpy as np\nimport torch", grade_id="imports"),
        _cell(
            "code",
            "def softmax(x):\n    ### BEGIN SOLUTION\n    return torch.softmax(x, dim=-1)\n    ### END SOLUTION",
            grade_id="softmax_impl",
            locked=False,
            solution=True,
        ),
        _cell("code", "# autograder: visible checks for softmax", grade_id="softmax", grade=True, points=2),
    ]
    nbformat.write(nb, folder / "ps7_softmax.ipynb")
    (folder / "__init__.py").write_text(
        textwrap.dedent("""
        from autograder.authoring import Assignment

        from . import softmax

        ASSIGNMENT = Assignment(name="ps7_softmax", notebook="ps7_softmax.ipynb", questions=softmax.QUESTIONS)
    """)
    )
    (folder / "softmax.py").write_text(
        textwrap.dedent('''
        """softmax over the last axis: reference, probes, worked example, known mistakes."""
        import numpy as np
        import torch

        from autograder.authoring import AllClose, Misconception, Probe, Question


        def reference(x):
            return torch.softmax(x, dim=-1)


        def probes(rng):
            shapes = [(4,), (2, 5), (2, 3, 6)]
            return [Probe((rng.standard_normal(s).astype(np.float32) * 3,), f"shape {s}") for s in shapes]


        QUESTIONS = [
            Question(grade_id="softmax", answer="softmax", reference=reference, probes=probes,
                     visible=[Probe((np.array([1.0, 2.0, 3.0], np.float32),), "x = [1, 2, 3]")],
                     compare=AllClose(atol=1e-5, rtol=1e-4),
                     misconceptions=[Misconception(
                         "first axis", "softmax normalises over the last axis (each row sums to 1), "
                         "not over the first.", lambda x: torch.softmax(x, dim=0))]),
        ]
    ''')
    )


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

    write_problem_set(course / "source" / "ps7_softmax")
    run([autograder, "release", "ps7"], cwd=course, env=env)
    released = course / "release" / "ps7_softmax" / "ps7_softmax.ipynb"
    assert released.is_file() and "BEGIN SOLUTION" not in released.read_text()
    assert not list((course / "release" / "ps7_softmax").glob("*.py")), "a problem set's modules were released"
    selftest = run([autograder, "selftest", "ps7"], cwd=course, env=env, timeout=900).stdout
    assert "mutants_killed:" in selftest, selftest

    # two students: one right, one who normalised over the wrong axis; and eve, whose answer is
    # right only if the sandbox lets her read the installed kit (references, problem sets)
    snoop = (
        "import glob, sys\n    leaked = [f for pattern in ('autograder/shipped_assignments/*/*.py', 'solutions/*.py')\n"
        "              for f in glob.glob(sys.prefix + '/lib/python*/site-packages/' + pattern)]\n"
        "    assert leaked, 'the installed kit is hidden'\n    return torch.softmax(x, dim=-1)"
    )
    submitted = course / "submitted"
    for student, body in (
        ("ada", "return torch.softmax(x, dim=-1)"),
        ("bob", "return torch.softmax(x, dim=0)"),
        ("eve", snoop),
    ):
        nb = nbformat.read(released, as_version=4)
        for cell in nb.cells:
            if "raise NotImplementedError" in cell.source:
                cell.source = f"def softmax(x):\n    {body}"
        (submitted / student / "ps7_softmax").mkdir(parents=True)
        nbformat.write(nb, submitted / student / "ps7_softmax" / "ps7_softmax.ipynb")
    # from another directory, the course named by the environment
    env_elsewhere = {**env, "AUTOGRADER_COURSE": str(course)}
    run(
        [autograder, "grade", "ps7", submitted, "--out", course / "autograded" / "ps7", "--quiet"],
        cwd=tmp_path,
        env=env_elsewhere,
        timeout=600,
    )
    results = json.loads((course / "autograded" / "ps7" / "results.json").read_text())["students"]
    assert results["ada"]["score"] == 2 and results["ada"]["max_score"] == 2
    bob = results["bob"]["questions"]["softmax"]
    assert results["bob"]["score"] == 0 and "last axis" in bob["feedback"], bob
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
    """Two courses may each have a problem set called ps7 with a module called softmax."""
    from autograder.spec import import_problem_set

    before = list(sys.path)
    a, b = tmp_path / "a" / "ps7_softmax", tmp_path / "b" / "ps7_softmax"
    write_problem_set(a)
    write_problem_set(b)
    (b / "softmax.py").write_text((b / "softmax.py").read_text().replace("shape {s}", "size {s}"))
    ma, mb = import_problem_set(a), import_problem_set(b)
    assert ma is not mb and ma.softmax is not mb.softmax and sys.path == before
    shutil.rmtree(tmp_path / "a")
