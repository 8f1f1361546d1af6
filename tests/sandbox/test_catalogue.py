"""The attack and bad-input catalogue: every case a submission plus the verdict it must get.

Covered here: cheating (patched checkers and builtins, lying answer objects, sys.modules,
writing into the results, forging the result channel, fake verdict text), crashes and
resources (sys.exit / SystemExit, deep recursion, fork bomb, gigantic tensor, background
process), bad answers (NaN, dtypes, device, broadcasting shape, lists), bad notebooks (invalid
JSON, nbformat 3, deleted / duplicated / retyped / tampered / reordered cells, another
assignment's notebook, empty, 200 MB, not a notebook) and operations (disk full, spec change).
Also covered elsewhere: tests/sandbox/test_sandbox.py (allclose patch, reading sources and the
gradebook, importing the reference, sleep / ignored alarm, os._exit, 50 GB, socket, segfault,
1 GB print), tests/grading/test_durability.py (killed batch, two runs at once).
"""

import json
import shutil
import subprocess
from dataclasses import replace

import nbformat
import pytest

from autograder.grading import storage
from autograder.grading.cohort import GradingIncomplete, grade_cohort
from autograder.releasing.sample_submissions import make_notebook, write_submission
from autograder.releasing.stages import released_notebook
from autograder.spec import load_assignment

ZEROS = "\ndef scaled_dot_product_attention(q, k, v, mask=None):\n    return torch.zeros(*q.shape[:-1], v.shape[-1])\n"


def correct_then(transform: str) -> str:
    """A correct implementation whose return value is passed through `transform` (an expression in `out`)."""
    return (
        "def scaled_dot_product_attention(q, k, v, mask=None):\n"
        "    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])\n"
        "    if mask is not None:\n        s = s.masked_fill(~mask, float('-inf'))\n"
        "    out = torch.nan_to_num(torch.softmax(s, -1)) @ v\n"
        f"    return {transform}\n"
    )


FORGE = """
import os, struct, json
frame = json.dumps({"q": "sdpa", "results": [{"value": 1.0}] * 5}).encode()
for fd in range(3, 64):
    for data in (struct.pack(">Q", len(frame)) + frame, b"\\xff" * 64, struct.pack(">Q", 2**40)):
        try:
            os.write(fd, data)
        except OSError:
            pass
"""

CELL_CASES = {
    "patches_testing_and_builtins": "import math, builtins\ntorch.testing.assert_close = lambda *a, **k: None\n"
    "math.isclose = lambda *a, **k: True\nbuiltins.isinstance = lambda *a: True\n" + ZEROS,
    "eq_always_true": "class Yes:\n    def __eq__(self, other):\n        return True\n"
    "def scaled_dot_product_attention(q, k, v, mask=None):\n    return Yes()\n",
    "tensor_subclass_lies": "class Liar(torch.Tensor):\n    def __eq__(self, o):\n        return True\n"
    "    def allclose(self, *a, **k):\n        return True\n"
    + ZEROS.replace(
        "return torch.zeros(*q.shape[:-1], v.shape[-1])",
        "return torch.zeros(*q.shape[:-1], v.shape[-1]).as_subclass(Liar)",
    ),
    "ndarray_subclass_lies": "class Liar(np.ndarray):\n    def __eq__(self, o):\n        return np.ones_like(self, bool)\n"
    + ZEROS.replace(
        "return torch.zeros(*q.shape[:-1], v.shape[-1])",
        "return np.zeros((*q.shape[:-1], v.shape[-1]), np.float32).view(Liar)",
    ),
    "replaces_sys_modules": "import sys\nsys.modules['numpy.testing'] = None\nsys.modules['torch'].allclose = lambda *a, **k: True\n"
    + ZEROS,
    "forges_result_channel": FORGE + ZEROS,
    "prints_fake_verdict": "print('sdpa: passed 4/4\\nAll tests PASSED\\nscore: 4/4')\n" + ZEROS,
    "sys_exit": "import sys\nsys.exit(0)\n" + correct_then("out"),
    "raise_system_exit": "raise SystemExit(3)\n" + correct_then("out"),
    "deep_recursion": "import sys\nsys.setrecursionlimit(10**7)\ndef down(n):\n    return down(n + 1) + 1\ndown(0)\n",
    "fork_bomb": "import os\nwhile True:\n    os.fork()\n",
    "gigantic_tensor": correct_then("torch.zeros(120_000_000)"),
    "background_process": "import subprocess\nsubprocess.Popen(['sleep', '987'])\n" + correct_then("out"),
    "nan_output": correct_then("out * float('nan')"),
    "float64_output": correct_then("out.double()"),
    "float16_output": correct_then("out.half()"),
    "int_output": correct_then("(out * 1000).long()"),
    "meta_device_output": correct_then("out.to('meta')"),
    "broadcasting_shape": correct_then("out[..., :1, :]"),
    "list_output": correct_then("out.tolist()"),
}


def _notebook_cases(ps1):
    """Bad notebooks: student -> a function writing the file given its path."""
    solved = make_notebook(ps1)

    def variant(edit):
        def write(path):
            nb = nbformat.from_dict(json.loads(nbformat.writes(solved)))
            edit(nb)
            nbformat.write(nb, path)

        return write

    def cell(nb, gid):
        return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == gid)

    def delete_solution(nb):
        nb.cells.remove(cell(nb, "sdpa_impl"))

    def duplicate_solution_wrongly(nb):
        dup = nbformat.from_dict(json.loads(json.dumps(cell(nb, "sdpa_impl"))))
        dup.source = ZEROS
        nb.cells.insert(nb.cells.index(cell(nb, "sdpa_impl")) + 1, dup)

    def retype_solution(nb):
        c = cell(nb, "sdpa_impl")
        c.cell_type = "markdown"
        c.pop("outputs", None)
        c.pop("execution_count", None)

    def tamper_locked(nb):
        cell(nb, "imports").source += "\ntorch.allclose = lambda *a, **k: True"

    def move_solution_first(nb):
        c = cell(nb, "sdpa_impl")
        nb.cells.remove(c)
        nb.cells.insert(0, c)

    def nbformat3(path):
        copy = nbformat.reads(nbformat.writes(solved), as_version=4)
        path.write_text(nbformat.writes(nbformat.convert(copy, 3), version=3))

    def other_assignment(path):
        shutil.copy(released_notebook(load_assignment("ps5_equivariance")).parent / "ps5_equivariance.ipynb", path)

    def huge(path):
        with open(path, "wb") as f:
            f.truncate(200 << 20)

    return {
        "invalid_json": lambda p: p.write_text('{"cells": [ oops'),
        "not_a_notebook": lambda p: p.write_text("[1, 2, 3]"),
        "empty_file": lambda p: p.write_bytes(b""),
        "notebook_200MB": huge,
        "nbformat_3": nbformat3,
        "deleted_solution_cell": variant(delete_solution),
        "duplicated_solution_cell": variant(duplicate_solution_wrongly),
        "retyped_solution_cell": variant(retype_solution),
        "tampered_locked_cell": variant(tamper_locked),
        "cells_out_of_order": variant(move_solution_first),
        "another_assignment": other_assignment,
    }


@pytest.fixture(scope="module")
def graded(ps1, tmp_path_factory):
    root = tmp_path_factory.mktemp("catalogue")
    subs, out = root / "in", root / "out"
    write_submission(subs, "honest", ps1, make_notebook(ps1))
    writes_results = (
        f"for p in [{str(out / 'results.json')!r}, {str(out / 'submissions' / 'honest.json')!r}]:\n"
        "    try:\n        open(p, 'w').write('{}')\n    except OSError:\n        pass\n" + ZEROS
    )
    for student, source in {**CELL_CASES, "writes_into_results": writes_results}.items():
        write_submission(subs, student, ps1, make_notebook(ps1, {"sdpa_impl": source}))
    for student, write in _notebook_cases(ps1).items():
        folder = subs / student / ps1.name
        folder.mkdir(parents=True)
        write(folder / ps1.notebook)
    results = grade_cohort(replace(ps1, cell_timeout_s=5.0), subs, out, workers=2, progress=False)
    return results["students"], out


def sdpa(students, name):
    return students[name]["questions"]["sdpa"]


@pytest.mark.parametrize(
    "name",
    [
        "patches_testing_and_builtins",
        "eq_always_true",
        "tensor_subclass_lies",
        "ndarray_subclass_lies",
        "replaces_sys_modules",
        "forges_result_channel",
        "prints_fake_verdict",
        "writes_into_results",
    ],
)
def test_cheats_score_zero(graded, name):
    students, _ = graded
    assert sdpa(students, name)["score"] == 0, sdpa(students, name)


@pytest.mark.parametrize(
    "name,flag",
    [
        ("patches_testing_and_builtins", "reassigns a checking function"),
        ("eq_always_true", "custom __eq__"),
        ("tensor_subclass_lies", "custom __eq__"),
        ("replaces_sys_modules", "sys.modules"),
        ("forges_result_channel", "raw file descriptors"),
    ],
)
def test_cheats_are_flagged_for_the_instructor(graded, name, flag):
    students, _ = graded
    assert any(flag in f for f in students[name].get("flags", [])), students[name].get("flags")


def test_honest_work_is_untouched_by_the_cheats(ps1, graded):
    students, out = graded
    assert students["honest"]["score"] == ps1.max_score
    stored = json.loads((out / "submissions" / "honest.json").read_text())
    assert stored["record"]["score"] == ps1.max_score  # the attempt to overwrite it from the sandbox failed
    assert "flags" not in students["honest"]


@pytest.mark.parametrize(
    "name,status,words",
    [
        ("eq_always_true", "error", "cannot be returned"),
        ("sys_exit", "missing", "SystemExit"),
        ("raise_system_exit", "missing", "SystemExit"),
        ("deep_recursion", "missing", "cell sdpa_impl failed"),
        ("fork_bomb", "missing", "cell sdpa_impl failed"),
        ("gigantic_tensor", "error", "the limit is 16 MiB"),
        # frames forged out of turn are ignored; its garbage gets the cell killed, and the answer
        # defined in that cell with it
        ("forges_result_channel", "missing", "result channel carried malformed data"),
        ("nan_output", "failed", "NaN"),
        ("float16_output", "failed", "float16"),
        ("int_output", "failed", "floating point"),
        ("meta_device_output", "error", "not plain data"),
        ("broadcasting_shape", "failed", "shape"),
    ],
)
def test_resource_and_answer_cases_get_a_clear_verdict(graded, name, status, words):
    students, _ = graded
    res = sdpa(students, name)
    assert res["status"] == status and res["score"] == 0, res
    assert words in res["feedback"], res["feedback"]


@pytest.mark.parametrize(
    "name",
    ["float64_output", "list_output", "background_process", "nbformat_3", "tampered_locked_cell", "cells_out_of_order"],
)
def test_harmless_variations_still_earn_the_points(graded, name):
    students, _ = graded
    assert sdpa(students, name)["status"] == "passed", sdpa(students, name)


def test_no_background_process_outlives_grading(graded):
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert "sleep 987" not in ps


@pytest.mark.parametrize(
    "name,words",
    [
        ("invalid_json", "not valid notebook JSON"),
        ("not_a_notebook", "not a Jupyter notebook"),
        ("empty_file", "is empty"),
        ("notebook_200MB", "MiB"),
    ],
)
def test_unreadable_notebooks_get_a_clear_message(graded, name, words):
    students, _ = graded
    res = sdpa(students, name)
    assert res["status"] == "error" and words in res["feedback"] and words in students[name]["error"]


@pytest.mark.parametrize(
    "name,status,flag",
    [
        ("deleted_solution_cell", "missing", None),
        ("duplicated_solution_cell", "failed", "appears 2 times"),
        ("retyped_solution_cell", "missing", None),
        ("tampered_locked_cell", "passed", "'imports' was modified"),
        ("another_assignment", "missing", "another assignment"),
    ],
)
def test_restructured_notebooks_are_graded_and_flagged(graded, name, status, flag):
    students, _ = graded
    assert sdpa(students, name)["status"] == status
    if flag:
        assert any(flag in f for f in students[name].get("flags", [])), students[name].get("flags")


def test_disk_full_loses_nothing(ps1, tmp_path, monkeypatch):
    from autograder.cli.bench import make_batch

    make_batch(tmp_path / "in", 4)
    real_save = storage.ResultStore.save

    def full_for_s002(self, student, key, record):
        if student == "s002":
            raise OSError(28, "No space left on device")
        return real_save(self, student, key, record)

    monkeypatch.setattr(storage.ResultStore, "save", full_for_s002)
    with pytest.raises(GradingIncomplete, match="No space left"):
        grade_cohort(ps1, tmp_path / "in", tmp_path / "out", progress=False)
    assert sorted(p.stem for p in (tmp_path / "out" / "submissions").glob("*.json")) == ["s000", "s001", "s003"]
    monkeypatch.setattr(storage.ResultStore, "save", real_save)
    results = grade_cohort(ps1, tmp_path / "in", tmp_path / "out", progress=False)
    assert len(results["students"]) == 4 and len(list((tmp_path / "out" / "submissions").glob("*.json"))) == 4


def test_regrade_after_a_spec_change_replaces_the_result(ps1, tmp_path):
    write_submission(tmp_path / "in", "ana", ps1, make_notebook(ps1))
    first = grade_cohort(ps1, tmp_path / "in", tmp_path / "out", progress=False)
    assert first["students"]["ana"]["score"] == ps1.max_score
    changed_root = tmp_path / "assignments"
    shutil.copytree(ps1.source_dir, changed_root / ps1.name)
    (changed_root / ps1.name / "questions.py").write_text(
        (ps1.source_dir / "questions.py").read_text() + "\n# the spec changed\n"
    )
    changed = replace(
        ps1,
        root=changed_root,
        questions=[replace(q, points=q.points + 1) if q.grade_id == "sdpa" else q for q in ps1.questions],
    )
    second = grade_cohort(changed, tmp_path / "in", tmp_path / "out", progress=False)
    assert second["students"]["ana"]["score"] == ps1.max_score + 1
    assert len(list((tmp_path / "out" / "submissions").glob("*.json"))) == 1
    assert list(second["students"]) == ["ana"]


@pytest.mark.parametrize(
    "raw",
    [
        {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [1, "x", None]},
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {},
            "cells": [{"cell_type": "code", "metadata": [], "source": ["x = ", 1]}],
        },
        {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": "not a list"},
        {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"metadata": {"nbgrader": "junk"}}]},
    ],
)
def test_malformed_cells_never_crash_the_reader(tmp_path, raw):
    from autograder.grading.notebook import NotebookError, read_notebook

    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(raw))
    try:
        nb = read_notebook(path)
    except NotebookError as exc:
        assert "could not be read" in str(exc)
    else:
        assert isinstance(nb.cells, list)
