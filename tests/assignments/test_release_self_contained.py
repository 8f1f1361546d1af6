"""A release notebook names no file its students do not have: every file name it mentions is in
its release folder, and it points to neither the kit's solutions nor the source documents."""

import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RELEASES = sorted((REPO / "release").glob("*/*.ipynb"))


@pytest.mark.parametrize("notebook", RELEASES, ids=lambda p: p.parent.name)
def test_the_release_names_only_files_students_have(notebook):
    text = "\n".join("".join(c["source"]) for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"])
    assert not re.search(r"solutions/|seeds/|\.\./shared|assignments/", text)
    shipped = {p.name for p in notebook.parent.iterdir()}
    named = set(re.findall(r"\b[\w-]+\.(?:py|txt|csv|json|md)\b", text))
    assert named <= shipped, sorted(named - shipped)


def test_every_problem_set_is_released():
    english = [p for p in RELEASES if p.parent.name == p.stem]  # release/<ps>_<lang>/ are its translations
    assert len(english) == len([p for p in (REPO / "assignments").iterdir() if (p / "__init__.py").exists()])
