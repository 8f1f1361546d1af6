"""The notebook reader (autograder/grading/notebook.py) on malformed notebooks: valid JSON whose
cells are not what nbformat promises is either read or refused with a clear NotebookError,
never a crash (the graded cases of broken notebooks are in tests/sandbox/test_catalogue.py)."""

import json

import pytest

from autograder.grading.notebook import NotebookError, read_notebook


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
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(raw))
    try:
        nb = read_notebook(path)
    except NotebookError as exc:
        assert "could not be read" in str(exc)
    else:
        assert isinstance(nb.cells, list)
