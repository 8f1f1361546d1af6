"""The grader runs a notebook as Jupyter does.

Differential: each notebook below uses one IPython feature (cell and line magics, `display`,
`get_ipython()`, `_`/`Out`, `!` lines, `%%writefile` + import, `%run`, `%timeit`, plots, cells
that raise); it is run in a real kernel (nbclient) and by the grader (read_notebook → runner →
sandboxed worker), and the names it defines must have the same values in both.

Then, per problem set, the solution notebook sprinkled with such cells gets full marks.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import nbformat
import pytest
from conftest import problem_set_params
from nbformat.v4 import new_code_cell, new_notebook

from autograder.grading.notebook import read_notebook
from autograder.grading.runner import execute
from autograder.sandbox.pool import SandboxConfig, Worker
from autograder.spec import Assignment, Question, load_assignment

# name -> cells; every name listed in NAMES[feature] must agree between kernel and grader
FEATURES: dict[str, list[str]] = {
    "cell_magic_time": ["%%time\nx = 6 * 7\ny = [x, x + 1]"],
    "cell_magic_capture": [
        "%%capture captured\nprint('hidden')\nz = 3\nimport torch\nt = torch.arange(4.0)",
        "seen = captured.stdout.strip()",
    ],
    "line_magic_assign": [
        "import numpy as np",
        "%time scores = np.arange(6.0).reshape(2, 3) @ np.ones((3, 2))",
        "%time total = float(scores.sum())",
    ],
    "timeit": [
        "def f(v):\n    return v * 2",
        "%timeit -n1 -r1 f(3)",
        "r = f(21)",
        "t_res = %timeit -o -n1 -r1 -q f(3)\nhas_best = t_res.best >= 0",
    ],
    "display_and_print": [
        "import torch\na = torch.ones(2, 3)",
        "display(a)\nprint(a)",
        "from IPython.display import display as d2\nd2(a.sum())\nb = int(a.sum())",
        "def show_and_return(v):\n    display(v)\n    return v + 1",
        "c = show_and_return(1)",
    ],
    "get_ipython": [
        "ip = get_ipython()\nhas_shell = ip is not None",
        "n_user = len([k for k in ip.user_ns if k == 'ip'])",
        "ip.run_cell('made_by_run_cell = 5')",
    ],
    "out_history": ["10 + 5", "last = _", "2 * 3", "prev = _ + __", "from_out = Out[max(Out)]"],
    "shell_lines": [
        "!echo hello > note.txt",
        "with open('note.txt') as fh:\n    note = fh.read().strip()",
        "lines = !echo one; echo two\nn_lines = len(lines)",
        "listing = !ls\nhas_note = 'note.txt' in listing",
    ],
    "writefile_import_run": [
        "%%writefile helper_mod.py\nSCALE = 3\ndef triple(v):\n    return SCALE * v\n",
        "import helper_mod\nw = helper_mod.triple(4)",
        "%run helper_mod.py\nv = triple(5)",
    ],
    "raising_cells": [
        "before = 1",
        "raise ValueError('a student left this error in')",
        "after = before + 1",
        "undefined_name_here",
        "def g():\n    return after * 10",
        "gv = g()",
        "import sys\nsys.exit(2)",
        "still_running = True",
    ],
    "matplotlib": [
        "%matplotlib inline\nimport matplotlib.pyplot as plt",
        "fig, ax = plt.subplots()\nax.plot([0, 1], [1, 0])\nplt.show()",
        "n_axes = len(fig.axes)",
        "plotted = 7",
    ],
    "ipython_syntax": [
        "import math",
        "math.sqrt?",
        "who = %who_ls\nwho = sorted(who)",
        "%%bash\necho from bash",
        "q = %sx echo 9\nq0 = int(q[0])",
        "%config InlineBackend.figure_format = 'png'\ncfg_ok = True",
    ],
}
NAMES = {
    "cell_magic_time": ["x", "y"],
    "cell_magic_capture": ["z", "t", "seen"],
    "line_magic_assign": ["scores", "total"],
    "timeit": ["r", "has_best"],
    "display_and_print": ["b", "c"],
    "get_ipython": ["has_shell", "n_user", "made_by_run_cell"],
    "out_history": ["last", "prev", "from_out"],
    "shell_lines": ["note", "n_lines", "has_note"],
    "writefile_import_run": ["w", "v"],
    "raising_cells": ["before", "after", "gv", "still_running"],
    "matplotlib": ["n_axes", "plotted"],
    "ipython_syntax": ["who", "q0", "cfg_ok"],
}


def _plain(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _kernel_values(cells: list[str], names: list[str], tmp: Path) -> dict:
    from nbclient import NotebookClient

    dump = (
        "import json as _json\n_vals = {}\nfor _n in %r:\n    _v = globals().get(_n, '<undefined>')\n"
        "    _vals[_n] = _v.tolist() if hasattr(_v, 'tolist') else _v\n"
        "open('values.json', 'w').write(_json.dumps(_vals, default=str))"
    ).replace("%r", repr(names))
    nb = new_notebook(cells=[new_code_cell(c) for c in cells + [dump]])
    NotebookClient(
        nb, timeout=60, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(tmp)}}
    ).execute()
    return json.loads((tmp / "values.json").read_text())


def _grader_values(worker: Worker, cells: list[str], names: list[str], tmp: Path) -> dict:
    path = tmp / "student.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell(c) for c in cells]), path)
    questions = [Question(grade_id=n, answer=n, points=1, reference=lambda: None, call=False) for n in names]
    assignment = Assignment(name="semantics", notebook="student.ipynb", questions=questions, cell_timeout_s=30)
    run = execute(worker, read_notebook(path), assignment, {n: [] for n in names}, "semantics-student")
    values = {}
    for n in names:
        outcome = run.outcomes[n]
        values[n] = (
            _plain(outcome.results[0]["value"]) if outcome.results and "value" in outcome.results[0] else "<undefined>"
        )
    return values


@pytest.fixture(scope="module")
def worker():
    w = Worker(0, SandboxConfig())
    yield w
    w.stop()


@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_grader_defines_what_the_kernel_defines(feature, worker, tmp_path):
    names = NAMES[feature]
    (tmp_path / "kernel").mkdir()
    (tmp_path / "grader").mkdir()
    kernel = _kernel_values(FEATURES[feature], names, tmp_path / "kernel")
    assert "<undefined>" not in kernel.values(), f"the fixture itself is wrong in a kernel: {kernel}"
    grader = _grader_values(worker, FEATURES[feature], names, tmp_path / "grader")
    assert grader == kernel


# ------------------------------------------------------------- honest notebooks with magics


def sprinkle(nb) -> None:
    """Turn the solution notebook into one a Jupyter-heavy student would hand in: answer cells
    under `%%time`, `%%capture`, `%time` assignments, displays, a plot, a helper module written
    with `%%writefile` and imported, a `!` line, a cell left failing."""
    extra = [
        "%matplotlib inline\nimport matplotlib.pyplot as plt",
        "%%writefile my_helpers.py\ndef double(v):\n    return 2 * v\n",
        "import my_helpers\n%time doubled = my_helpers.double(21)\n!echo checking\ndisplay(doubled)",
        "raise RuntimeError('a scratch cell the student left failing')",
        "fig, ax = plt.subplots()\nax.plot([1, 2, 3])\nplt.show()\n_ = display('plotted')",
    ]
    solution_cells = [
        i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code"
    ]
    for k, index in enumerate(solution_cells):
        cell = nb.cells[index]
        if k % 3 == 0:
            cell.source = "%%time\n" + cell.source
        elif k % 3 == 1:
            cell.source = "%%capture out_" + str(k) + "\n" + cell.source + "\nprint('captured')"
        else:
            cell.source = cell.source + "\n_last = %time 1 + 1\ndisplay(_last)"
    first = solution_cells[0] if solution_cells else 0
    for offset, source in enumerate(extra):
        nb.cells.insert(first + offset, new_code_cell(source))


TRAINING = ("train_copy", "train_addition")  # graded by training: see test_training_determinism


@pytest.mark.parametrize("name", problem_set_params())
def test_honest_notebook_with_magics_gets_full_marks(name, tmp_path):
    from autograder.grading.cohort import grade_cohort
    from autograder.intake.collect import collect_folder
    from autograder.releasing.sample_submissions import make_notebook, write_submission

    assignment = load_assignment(name)
    # training questions cost a minute of CPU and are covered elsewhere; their cells still run
    assignment = dataclasses.replace(
        assignment, questions=[q for q in assignment.questions if q.grade_id not in TRAINING]
    )
    nb = make_notebook(assignment)
    sprinkle(nb)
    write_submission(tmp_path / "submitted", "jupyter-student", assignment, nb)
    submissions = collect_folder(tmp_path / "submitted", assignment)
    results = grade_cohort(assignment, submissions, tmp_path / "out", workers=1, progress=False)
    student = results["students"]["jupyter-student"]
    lost = {g: q["feedback"] for g, q in student["questions"].items() if q["status"] not in ("passed", "pending")}
    assert not lost and student["score"] == student["max_score"] == assignment.max_score


def test_sprinkled_cells_do_run(worker, tmp_path):
    """The sprinkle above is not a no-op: each of its three wrappings (`%%time`, `%%capture`, a
    trailing `%time` + `display`) still defines the answer cell's names, and the helper module
    written with `%%writefile` is imported and called, past the cell left failing."""
    answers = {f"answer_{k}": 5 + k for k in range(3)}
    nb = new_notebook(cells=[new_code_cell(f"{name} = {value}") for name, value in answers.items()])
    for cell in nb.cells:
        cell.metadata["nbgrader"] = {"solution": True, "grade_id": cell.source.split()[0]}
    sprinkle(nb)
    wrapped = [c.source for c in nb.cells if c.metadata.get("nbgrader")]
    assert [w.split("\n", 1)[0] for w in wrapped[:2]] == ["%%time", "%%capture out_1"] and "%time" in wrapped[2]
    values = _grader_values(worker, [c.source for c in nb.cells], [*answers, "doubled"], tmp_path)
    assert values == {**answers, "doubled": 42}
