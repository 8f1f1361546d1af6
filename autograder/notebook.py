"""Reading a student's notebook in the trusted process: parse, never execute.

The notebook is only JSON here. Code cells become plain Python source (IPython magics are
rewritten by IPython's own text transformer, which does not run anything); nbgrader's
autograded test cells are left out — their points come from the hidden probes, judged here.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import nbformat

MAX_NOTEBOOK_BYTES = 50 << 20


class NotebookError(ValueError):
    """The file is not a notebook we can grade; the message is for the student."""


@dataclass(frozen=True)
class StudentNotebook:
    path: Path
    cells: list[str]  # code to run, in notebook order
    labels: list[str]  # how a student finds each of those cells ("cell sdpa_impl", "cell 7")
    grade_ids: list[str]  # nbgrader grade_ids seen (for messages about deleted cells)


def _is_test_cell(cell) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return bool(meta.get("grade")) and not meta.get("solution")


def _python_source(source: str) -> str:
    if "%" not in source and "!" not in source:
        return source
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return TransformerManager().transform_cell(source)
    except Exception:  # leave it; the sandbox reports the syntax error for this cell
        return source


def read_notebook(path: Path) -> StudentNotebook:
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise NotebookError(f"cannot read {path.name}: {exc.strerror}") from None
    if size == 0:
        raise NotebookError(f"{path.name} is empty")
    if size > MAX_NOTEBOOK_BYTES:
        raise NotebookError(f"{path.name} is {size / 2**20:.0f} MiB; notebooks over "
                            f"{MAX_NOTEBOOK_BYTES >> 20} MiB are not graded (clear large outputs)")
    try:
        raw = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NotebookError(f"{path.name} is not valid notebook JSON ({exc})") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("nbformat"), int):
        raise NotebookError(f"{path.name} is JSON but not a Jupyter notebook")
    try:
        nb = nbformat.reads(json.dumps(raw), as_version=4)
    except Exception as exc:
        raise NotebookError(f"{path.name} could not be read as a notebook ({exc})") from None
    cells, labels, grade_ids = [], [], []
    for position, cell in enumerate(nb.cells, start=1):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade_id"):
            grade_ids.append(str(meta["grade_id"]))
        if cell.get("cell_type") != "code" or _is_test_cell(cell):
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(source)
        if not isinstance(source, str):
            continue
        cells.append(_python_source(source))
        labels.append(f"cell {meta['grade_id']}" if meta.get("grade_id") else f"cell {position}")
    return StudentNotebook(path=path, cells=cells, labels=labels, grade_ids=grade_ids)
