"""The student image: a fresh venv with exactly student-requirements.txt runs every released
problem set (solved as the instructor's solution) in a real Jupyter kernel — every visible
check passes through nbclient (`jupyter execute`), through `nbgrader validate` and through the
`validate.py` the release ships (the students' validate step) — and the unsolved release fails
validation. Nothing of the grader (autograder, solutions) is installed.

Slow: installs torch, matplotlib and nbgrader (Jupyter) into a new venv (about 2.5 minutes on
the 2-core machine from the local wheel cache), then runs six notebooks twice.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.releasing.sample_submissions import make_notebook
from autograder.releasing.stages import released_notebook
from autograder.spec import REPO_ROOT, list_assignments, load_assignment

pytestmark = pytest.mark.slow
REQUIREMENTS = REPO_ROOT / "student-requirements.txt"


def run(cmd, cwd=None, timeout=600, **env):
    r = subprocess.run(
        [str(c) for c in cmd],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "JUPYTERHUB_USER": "student-image-test", **env},
    )
    return r.returncode, r.stdout + r.stderr


@pytest.fixture(scope="module")
def student_venv(tmp_path_factory) -> Path:
    venv = tmp_path_factory.mktemp("student") / "venv"
    rc, out = run([sys.executable, "-m", "venv", venv])
    assert rc == 0, out
    rc, out = run([venv / "bin" / "pip", "install", "-q", "-r", REQUIREMENTS], timeout=1200)
    assert rc == 0, out[-4000:]
    return venv


def test_requirements_are_pinned_and_grader_free():
    lines = [l.split("#")[0].strip() for l in REQUIREMENTS.read_text().splitlines()]
    pins = [l for l in lines if l]
    assert all("==" in p for p in pins), pins
    names = {p.split("==")[0].lower() for p in pins}
    assert {"torch", "numpy", "matplotlib", "ipykernel", "nbgrader"} <= names
    assert not names & {"transformer-autograder", "sympy"}


def test_every_released_notebook_passes_its_visible_checks_in_the_student_image(student_venv, tmp_path):
    bin_ = student_venv / "bin"
    rc, out = run([bin_ / "python", "-c", "import autograder"], cwd=tmp_path)
    assert rc != 0 and "ModuleNotFoundError" in out, "the grader must not be importable in a student's kernel"
    rc, out = run([bin_ / "jupyter", "kernelspec", "list", "--json"])
    specs = json.loads(out[out.index("{") :])["kernelspecs"]
    assert Path(specs["python3"]["resource_dir"]).is_relative_to(student_venv), specs  # this venv's kernel

    for name in list_assignments():
        ps = load_assignment(name)
        folder = tmp_path / name
        shutil.copytree(released_notebook(ps).parent, folder)  # the notebook and any student-side helper
        solved = make_notebook(ps)
        checks = sum(c.cell_type == "code" and "visible checks passed for" in c.source for c in solved.cells)
        nbformat.write(solved, folder / "solved.ipynb")

        rc, out = run([bin_ / "jupyter", "execute", "--inplace", "solved.ipynb"], cwd=folder)
        assert rc == 0, f"{name}: {out[-3000:]}"
        ran = nbformat.read(folder / "solved.ipynb", as_version=4)
        printed = "".join(o.get("text", "") for c in ran.cells if c.cell_type == "code" for o in c.outputs)
        assert checks > 0 and printed.count("visible checks passed for") == checks, name

        nbformat.write(solved, folder / "solved.ipynb")
        rc, out = run([bin_ / "nbgrader", "validate", "solved.ipynb"], cwd=folder)
        assert rc == 0 and "Success! Your notebook passes all the tests." in out, f"{name}: {out[-3000:]}"
        rc, out = run([bin_ / "python", "validate.py", "solved.ipynb"], cwd=folder)  # shipped with the release
        graded = sum(  # every grade cell that is not an answer (training checks print no "passed" line)
            bool(c.metadata.get("nbgrader", {}).get("grade")) and not c.metadata.get("nbgrader", {}).get("solution")
            for c in solved.cells
        )
        assert rc == 0 and f"{graded}/{graded} visible checks passed" in out, f"{name}: {out[-3000:]}"

    ps1 = load_assignment("ps1")
    rc, out = run([bin_ / "nbgrader", "validate", ps1.notebook], cwd=tmp_path / ps1.name)
    assert "VALIDATION FAILED" in out and "Success!" not in out  # the unsolved release does not pass
    rc, out = run([bin_ / "python", "validate.py", ps1.notebook], cwd=tmp_path / ps1.name)
    assert rc == 1 and "NotImplementedError" in out, out[-3000:]
