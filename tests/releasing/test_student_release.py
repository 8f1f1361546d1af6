"""What a release hands students (issue 26, items 5, 8, 9): check cells that leave nothing in the
student's namespace (an answer that leans on an import it never made fails in Jupyter as in the
grader), a validate step that needs only the student's install (``validate.py``, pointed at by
the notebook's text), and an answer-key fingerprint, so ``release --check`` calls a release
stale when only the hidden expectations changed."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from autograder.judging.compare.comparators import AllClose
from autograder.releasing import student_validate
from autograder.releasing.answer_key import answer_key_digest, canonical
from autograder.releasing.stages import STUDENT_VALIDATE, build_release, release
from autograder.releasing.validate_bundle import TABLE_LINE, standalone_validate
from autograder.releasing.visible_checks import visible_check_source
from autograder.spec import Probe, Question, load_assignment


def softmax_question() -> Question:
    return Question(
        grade_id="softmax",
        answer="softmax",
        title="softmax",
        points=2,
        reference=lambda x: torch.softmax(x, dim=-1),
        probes=lambda rng: [Probe((rng.standard_normal((2, 5)).astype(np.float32),), "2x5")],
        compare=AllClose(atol=1e-5, rtol=1e-4),
        visible=[Probe((np.array([1.0, 2.0, 3.0], np.float32),), "x = [1, 2, 3]")],
        args_as="torch",
    )


def run_cell(source: str, namespace: dict) -> None:
    exec(compile(source, "<check cell>", "exec"), namespace)


def test_a_check_cell_leaves_nothing_in_the_students_namespace():
    student: dict = {}
    run_cell("import torch\ndef softmax(x):\n    return torch.softmax(x, dim=-1)", student)
    before = set(student)
    run_cell(visible_check_source(softmax_question()), student)
    assert set(student) == before  # no np, no inspect, no _got, no check function


def test_an_answer_without_its_import_fails_the_check_as_in_the_grader():
    """The README's recipe without its imports cell: `torch` is nowhere in the student's namespace,
    so the check cell (which imports torch for itself) must fail, as the grader's run does."""
    student: dict = {}
    run_cell("def softmax(x):\n    return torch.softmax(x, dim=-1)", student)
    with pytest.raises(NameError, match="torch"):
        run_cell(visible_check_source(softmax_question()), student)


def test_a_check_with_a_string_over_several_lines_is_refused():
    from autograder.releasing.visible_checks import as_function_body

    with pytest.raises(ValueError, match="several lines"):
        as_function_body(['x = """a', 'b"""'])


@pytest.fixture(scope="module")
def ps4_release(tmp_path_factory) -> Path:
    return build_release(load_assignment("ps4"), tmp_path_factory.mktemp("release"))


def test_the_release_ships_validate_py_and_points_students_at_it(ps4_release):
    shipped = ps4_release / STUDENT_VALIDATE
    source = Path(student_validate.__file__).read_text()
    # the same code, its own set's name, its report's translations and the course's language written in
    assert shipped.read_text() == standalone_validate(notebook="ps4_alibi.ipynb")
    source = source.replace("THE_NOTEBOOK.ipynb", "ps4_alibi.ipynb", 1)
    head, tail = source.split('LANGUAGE = "en"\n')[0], source.split(TABLE_LINE)[1]
    assert shipped.read_text().startswith(head) and shipped.read_text().endswith(tail)
    text = (ps4_release / "ps4_alibi.ipynb").read_text()
    assert "autograder validate" not in text and f"python {STUDENT_VALIDATE} ps4_alibi.ipynb" in text
    # the introduction is followed by how to hand in (issue 34): submit, the latest counts, feedback
    cells = json.loads(text)["cells"]
    handin = "".join(cells[1]["source"])
    assert handin.startswith("## Handing in") and "nbgrader submit ps4_alibi" in handin
    assert "latest submission is the one that counts" in handin and "Fetch Feedback" in handin
    assert "hidden inputs" in handin and "nbgrader" not in cells[1]["metadata"]  # nothing locked or graded
    assert "autograder" not in {
        line.split()[1] for line in shipped.read_text().splitlines() if line.startswith(("import ", "from "))
    }


def test_the_release_is_stamped_with_its_name_and_answer_key(ps4_release):
    ps4 = load_assignment("ps4")
    meta = json.loads((ps4_release / "ps4_alibi.ipynb").read_text())["metadata"]["autograder"]
    assert meta == {"assignment": "ps4_alibi", "answer_key": answer_key_digest(ps4)}


def test_the_answer_key_digest_follows_hidden_expectations_only():
    ps4 = load_assignment("ps4")
    base = answer_key_digest(ps4)
    assert answer_key_digest(ps4) == base
    target = next(q for q in ps4.questions if q.call and q.visible)
    visible_inputs = {canonical(p.args) for p in target.visible}

    def off_on_hidden(*args, **kwargs):  # the same visible values, another answer on hidden probes
        value = target.reference(*args, **kwargs)
        return value if canonical(args) in visible_inputs else np.asarray(value, dtype=np.float64) * 1.01

    changed = dataclasses.replace(
        ps4, questions=[dataclasses.replace(q, reference=off_on_hidden) if q is target else q for q in ps4.questions]
    )
    assert answer_key_digest(changed) != base
    assert visible_check_source(target, ps4) == visible_check_source(
        dataclasses.replace(target, reference=off_on_hidden), changed
    )  # the checks a student sees are the same: only the stamp can tell


def test_release_check_sees_an_answer_key_change(tmp_path, ps4_release):
    ps4 = load_assignment("ps4")
    (tmp_path / "ps4_alibi").mkdir()
    for path in ps4_release.iterdir():
        (tmp_path / "ps4_alibi" / path.name).write_bytes(path.read_bytes())
    assert release(ps4, check=True, release_dir=tmp_path)  # up to date
    q = next(q for q in ps4.questions if q.call)
    edited = dataclasses.replace(
        ps4,
        questions=[
            dataclasses.replace(q, probes=lambda rng, p=q.probes: list(p(rng))[:-1]) if x is q else x
            for x in ps4.questions
        ],
    )
    assert not release(edited, check=True, release_dir=tmp_path)  # a hidden probe dropped: stale
