"""The attack and bad-input catalogue: every case a submission plus the verdict it must get.

Cheating (patched checkers and builtins, lying answer objects, sys.modules, reading the sources
or the gradebook, importing the reference, writing into the results, forging the result channel,
fake verdict text, a socket to the host), crashes and resources (sys.exit / SystemExit / os._exit,
sleep, ignored alarm, deep recursion, fork bomb, segfault, 50 GB, gigantic tensor, 200 MB of
print, background process), bad answers (NaN, dtypes, device, broadcasting shape, lists), bad
notebooks (invalid JSON, nbformat 3, deleted / duplicated / retyped / tampered / reordered cells,
another assignment's, empty, 200 MB, not a notebook), operations (disk full, spec change).
Elsewhere: a worker killed between submissions (test_sandbox.py), a killed batch and two runs at
once (tests/grading/test_durability.py), malformed cells (tests/grading/test_notebook.py).
"""

import json
import shutil
import socket
import subprocess
import threading
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import nbformat
import pytest

from autograder.grading import storage
from autograder.grading.cohort import GradingIncomplete, grade_cohort
from autograder.intake.collect import collect_folder
from autograder.releasing.sample_submissions import make_notebook, solution_sources, write_submission
from autograder.releasing.stages import released_notebook
from autograder.spec import load_assignment

CELL_TIMEOUT_S = 5.0
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
        "notebook_200mb": huge,
        "nbformat_3": nbformat3,
        "deleted_solution_cell": variant(delete_solution),
        "duplicated_solution_cell": variant(duplicate_solution_wrongly),
        "retyped_solution_cell": variant(retype_solution),
        "tampered_locked_cell": variant(tamper_locked),
        "cells_out_of_order": variant(move_solution_first),
        "another_assignment": other_assignment,
    }


def guarded(secret_path: str) -> str:
    """A cell that earns full marks only if it can read `secret_path` (it must not)."""
    return f"""
try:
    open({secret_path!r}, "rb").read(10)
    CAN_READ = True
except Exception:
    CAN_READ = False
""" + correct_then("out if CAN_READ else q[..., :1] * 0")


def _host_cases(ps1, out, gradebook, port: int) -> dict:
    """Cases aimed at the grader's host: its files, its network, its memory, its patience."""
    correct = solution_sources(ps1)["sdpa_impl"]
    return {
        "writes_into_results": f"for p in [{str(out / 'results.json')!r}, {str(out / 'submissions' / 'honest.json')!r}]:\n"
        "    try:\n        open(p, 'w').write('{}')\n    except OSError:\n        pass\n" + ZEROS,
        "honest_too": correct,  # graded among the attacks, it still passes
        "patches_allclose": "torch.allclose = lambda *a, **k: True\nimport numpy\n"
        "numpy.allclose = lambda *a, **k: True\n" + ZEROS,
        "reads_source_abs": guarded(str(ps1.source_dir / ps1.notebook)),
        "reads_source_rel": guarded(f"../../assignments/{ps1.name}/{ps1.notebook}"),
        "reads_gradebook": guarded(str(gradebook)),
        "imports_reference": "from solutions.attention import scaled_dot_product_attention\n",
        "sleeps_forever": "import time\ntime.sleep(10**6)\n" + correct,
        "ignores_alarm": "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nwhile True:\n    pass\n",
        "os_exit_first_cell": "import os\nos._exit(0)\n",
        "allocates_50gb": "x = bytearray(50 * 2**30)\n" + correct,
        "opens_socket": f"import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=2)\n" + correct,
        "segfaults": "import ctypes\nctypes.string_at(0)\n",
        "huge_output": "import sys\nfor _ in range(200):\n    sys.stdout.write('x' * 10**6)\n" + correct,
    }


class Graded(NamedTuple):
    students: dict  # results.json's students
    out: Path  # the output folder
    reached: list  # connections a sandboxed cell made to a socket on the grader's host


@pytest.fixture(scope="module")
def graded(ps1, tmp_path_factory):
    root = tmp_path_factory.mktemp("catalogue")
    subs, out = root / "in", root / "out"
    gradebook = root / "gradebook.db"
    gradebook.write_bytes(b"SQLite format 3\0 pretend gradebook")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    reached = []
    threading.Thread(target=lambda: reached.append(listener.accept()), daemon=True).start()
    write_submission(subs, "honest", ps1, make_notebook(ps1))
    cells = {**CELL_CASES, **_host_cases(ps1, out, gradebook, listener.getsockname()[1])}
    for student, source in cells.items():
        write_submission(subs, student, ps1, make_notebook(ps1, {"sdpa_impl": source}))
    # an answer cell that does not compile, beside answer cells the student has not reached yet
    broken = {"sdpa_impl": "def scaled_dot_product_attention(q, k, v, mask=None):\n    return {'out': q  # }\n"}
    unreached = {"shapes_answer": "# YOUR CODE HERE\nraise NotImplementedError()"}
    write_submission(subs, "syntax_error_beside_unanswered", ps1, make_notebook(ps1, broken | unreached))
    for student, write in _notebook_cases(ps1).items():
        folder = subs / student / ps1.name
        folder.mkdir(parents=True)
        write(folder / ps1.notebook)
    fast = replace(ps1, cell_timeout_s=CELL_TIMEOUT_S)
    results = grade_cohort(fast, collect_folder(subs, fast), out, workers=2, progress=False)
    listener.close()
    return Graded(results["students"], out, reached)


def sdpa(students, name):
    return students[name]["questions"]["sdpa"]


# every cheat scores zero; those the instructor should hear about are flagged with these words
CHEATS = {
    "patches_testing_and_builtins": "reassigns a checking function",
    "patches_allclose": "reassigns a checking function",
    "eq_always_true": "custom __eq__",
    "tensor_subclass_lies": "custom __eq__",
    "ndarray_subclass_lies": None,
    "replaces_sys_modules": "sys.modules",
    "forges_result_channel": "raw file descriptors",
    "prints_fake_verdict": None,
    "writes_into_results": None,
    "reads_source_abs": "private files",
    "reads_source_rel": "private files",
    "reads_gradebook": "private files",
    "imports_reference": "import the grader's reference",
    "opens_socket": "network",
}


@pytest.mark.parametrize("name", list(CHEATS))
def test_cheats_score_zero(graded, name):
    assert sdpa(graded.students, name)["score"] == 0, sdpa(graded.students, name)


@pytest.mark.parametrize("name,flag", [(name, flag) for name, flag in CHEATS.items() if flag])
def test_cheats_are_flagged_for_the_instructor(graded, name, flag):
    flags = graded.students[name].get("flags", [])
    assert any(flag in f for f in flags), flags


def test_honest_work_is_untouched_by_the_cheats(ps1, graded):
    students, out, _ = graded
    assert students["honest"]["score"] == ps1.max_score
    assert students["honest"]["sandbox"] in ("bwrap", "rlimits")
    stored = json.loads((out / "submissions" / "honest.json").read_text())
    assert stored["record"]["score"] == ps1.max_score  # the attempt to overwrite it from the sandbox failed
    assert "flags" not in students["honest"]
    assert sdpa(students, "honest_too")["status"] == "passed"


def test_no_network_out_of_the_sandbox(graded):
    assert graded.reached == [], "a sandboxed cell reached a socket on the grader's host"
    res = sdpa(graded.students, "opens_socket")
    assert res["score"] == 0 and res["status"] == "missing"
    assert "sdpa_impl" in res["feedback"] and "Connection refused" in res["feedback"]


@pytest.mark.parametrize(
    "name,status,words",
    [
        ("eq_always_true", "error", "cannot be returned"),
        ("sys_exit", "missing", "SystemExit"),
        ("raise_system_exit", "missing", "SystemExit"),
        ("os_exit_first_cell", "missing", "exit"),
        ("sleeps_forever", "missing", f"more than {CELL_TIMEOUT_S:g} s"),
        ("ignores_alarm", "missing", "time limit"),
        ("deep_recursion", "missing", "cell sdpa_impl failed"),
        ("fork_bomb", "missing", "cell sdpa_impl failed"),
        ("segfaults", "missing", "SIGSEGV"),
        ("allocates_50gb", "missing", "MemoryError"),
        ("gigantic_tensor", "error", "the limit is 16 MiB"),
        # frames forged out of turn are ignored; its garbage gets the cell killed, and the answer
        # defined in that cell with it
        ("forges_result_channel", "missing", "result channel carried malformed data"),
        ("nan_output", "failed", "NaN"),
        ("float16_output", "failed", "float16"),
        ("int_output", "failed", "floating point"),
        ("meta_device_output", "error", "not plain data"),
        ("broadcasting_shape", "failed", "a single entry along axis -2"),
    ],
)
def test_resource_and_answer_cases_get_a_clear_verdict(graded, name, status, words):
    res = sdpa(graded.students, name)
    assert res["status"] == status and res["score"] == 0, res
    assert words in res["feedback"], res["feedback"]


def test_an_answer_cell_that_does_not_compile_is_named_not_the_unanswered_cells(graded):
    res = sdpa(graded.students, "syntax_error_beside_unanswered")
    assert res["status"] == "missing" and "cell sdpa_impl failed: SyntaxError" in res["feedback"], res
    assert "NotImplementedError" not in res["feedback"] and "shapes_answer" not in res["feedback"]
    others = graded.students["syntax_error_beside_unanswered"]["questions"].values()
    unanswered = [q["feedback"] for q in others if "still `raise NotImplementedError()`" in q["feedback"]]
    assert unanswered and all("cell shapes_answer" in f and "sdpa_impl" not in f for f in unanswered)


@pytest.mark.parametrize(
    "name",
    [
        "float64_output",
        "list_output",
        "background_process",
        "huge_output",  # 200 MB of print() is capped, not an error
        "nbformat_3",
        "tampered_locked_cell",
        "cells_out_of_order",
    ],
)
def test_harmless_variations_still_earn_the_points(graded, name):
    assert sdpa(graded.students, name)["status"] == "passed", sdpa(graded.students, name)


def test_no_background_process_outlives_grading(graded):
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert "sleep 987" not in ps


@pytest.mark.parametrize(
    "name,words",
    [
        ("invalid_json", "not valid notebook JSON"),
        ("not_a_notebook", "not a Jupyter notebook"),
        ("empty_file", "is empty"),
        ("notebook_200mb", "MiB"),
    ],
)
def test_unreadable_notebooks_get_a_clear_message(graded, name, words):
    students = graded.students
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
    students = graded.students
    assert sdpa(students, name)["status"] == status
    if flag:
        assert any(flag in f for f in students[name].get("flags", [])), students[name].get("flags")


def test_disk_full_loses_nothing(ps1, tmp_path, monkeypatch):
    from autograder.cli.bench_scale import make_batch

    make_batch(tmp_path / "in", 4)
    real_save = storage.ResultStore.save

    def full_for_s002(self, student, key, record):
        if student == "s002":
            raise OSError(28, "No space left on device")
        return real_save(self, student, key, record)

    monkeypatch.setattr(storage.ResultStore, "save", full_for_s002)
    with pytest.raises(GradingIncomplete, match="No space left"):
        grade_cohort(ps1, collect_folder(tmp_path / "in", ps1), tmp_path / "out", progress=False)
    assert sorted(p.stem for p in (tmp_path / "out" / "submissions").glob("*.json")) == ["s000", "s001", "s003"]
    monkeypatch.setattr(storage.ResultStore, "save", real_save)
    results = grade_cohort(ps1, collect_folder(tmp_path / "in", ps1), tmp_path / "out", progress=False)
    assert len(results["students"]) == 4 and len(list((tmp_path / "out" / "submissions").glob("*.json"))) == 4


def test_regrade_after_a_spec_change_replaces_the_result(ps1, tmp_path):
    write_submission(tmp_path / "in", "ana", ps1, make_notebook(ps1))
    first = grade_cohort(ps1, collect_folder(tmp_path / "in", ps1), tmp_path / "out", progress=False)
    assert first["students"]["ana"]["score"] == ps1.max_score
    changed_root = tmp_path / "assignments"
    shutil.copytree(ps1.source_dir, changed_root / ps1.name)
    (changed_root / ps1.name / "sdpa.py").write_text(
        (ps1.source_dir / "sdpa.py").read_text() + "\n# the spec changed\n"
    )
    changed = replace(
        ps1,
        root=changed_root,
        questions=[replace(q, points=q.points + 1) if q.grade_id == "sdpa" else q for q in ps1.questions],
    )
    second = grade_cohort(changed, collect_folder(tmp_path / "in", changed), tmp_path / "out", progress=False)
    assert second["students"]["ana"]["score"] == ps1.max_score + 1
    assert len(list((tmp_path / "out" / "submissions").glob("*.json"))) == 1
    assert list(second["students"]) == ["ana"]
