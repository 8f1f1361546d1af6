"""Reading a student's notebook in the trusted process: parse, never execute.

The notebook is only JSON here. Code cells are kept as the student wrote them, magics and
``!`` lines included: the sandbox runs them through IPython's own shell, as a kernel would.
nbgrader's autograded test cells are left out — their points come from the hidden probes,
judged here.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.i18n import Message

MAX_NOTEBOOK_BYTES = 50 << 20


class NotebookError(ValueError):
    """The file is not a notebook we can grade; the message is for the student. ``reason`` is
    the message's first clause (what each question's feedback repeats), ``detail`` the rest."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason} ({detail})" if detail else reason)
        self.reason, self.detail = reason, detail


@dataclass(frozen=True)
class StudentNotebook:
    path: Path
    cells: list[str]  # cell sources to run, in notebook order (IPython syntax)
    labels: list[str]  # how a student finds each of those cells ("cell sdpa_impl", "cell 7")
    grade_ids: list[str]  # nbgrader grade_ids seen, in order (duplicates kept)
    sources: dict[str, str]  # grade_id -> source of the last cell carrying it
    released_as: str | None = None  # the problem set the release stamped in its metadata
    foreign_kernel: str | None = None  # the kernelspec's name and language where it is not Python
    locked: tuple[bool, ...] = ()  # per cell to run: nbgrader's locked, not a solution cell (given code)


def _nbgrader_meta(cell: dict) -> dict:
    metadata = cell.get("metadata")
    meta = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    return meta if isinstance(meta, dict) else {}


def read_notebook(path: Path) -> StudentNotebook:
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise NotebookError(f"cannot read {path.name}", str(exc.strerror)) from None
    if size > MAX_NOTEBOOK_BYTES:
        raise NotebookError(
            f"{path.name} is {size / 2**20:.0f} MiB; notebooks over {MAX_NOTEBOOK_BYTES >> 20} MiB are not graded",
            "clear large outputs",
        )
    nb = parse_notebook(path.read_bytes(), path.name)
    cells, labels, grade_ids, sources, locked = [], [], [], {}, []
    for position, cell in enumerate(nb.cells, start=1):
        if not isinstance(cell, dict):
            continue
        meta = _nbgrader_meta(cell)
        if meta.get("grade_id"):
            grade_ids.append(str(meta["grade_id"]))
            sources[str(meta["grade_id"])] = _text(cell.get("source", ""))
        if cell.get("cell_type") != "code" or (meta.get("grade") and not meta.get("solution")):
            continue
        cells.append(_text(cell.get("source", "")))
        locked.append(bool(meta.get("locked")) and not meta.get("solution"))
        labels.append(Message("cell {cell}", cell=meta["grade_id"] if meta.get("grade_id") else position))
    tag = nb.get("metadata", {}).get("autograder") if isinstance(nb.get("metadata"), dict) else None
    released_as = tag.get("assignment") if isinstance(tag, dict) and isinstance(tag.get("assignment"), str) else None
    return StudentNotebook(
        path, cells, labels, grade_ids, sources, released_as, _foreign_kernel(nb.get("metadata")), tuple(locked)
    )


def _foreign_kernel(metadata) -> str | None:
    """``"R (r)"`` for a notebook whose kernelspec (or language_info) says another language."""
    if not isinstance(metadata, dict):
        return None
    spec = metadata.get("kernelspec") if isinstance(metadata.get("kernelspec"), dict) else {}
    info = metadata.get("language_info") if isinstance(metadata.get("language_info"), dict) else {}
    language = str(spec.get("language") or info.get("name") or "")
    if not language or language.lower() in ("python", "python3", "ipython"):
        return None
    return f"{spec.get('display_name') or spec.get('name') or language} ({language})"


def parse_notebook(data: bytes, name: str = "the upload"):
    """``data`` as an nbformat v4 notebook, or a NotebookError that says in one line why not
    (empty, not UTF-8, not JSON — a truncated file —, JSON that is no notebook)."""
    if not data:
        raise NotebookError(f"{name} is empty")
    try:
        raw = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise NotebookError(f"{name} is not valid notebook JSON", "it is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        text = exc.doc
        ends_early = not text[exc.pos :].strip() or exc.msg.startswith("Unterminated string")
        cut = ": it ends too early, a truncated file" if ends_early else ""
        raise NotebookError(f"{name} is not valid notebook JSON", f"broken at line {exc.lineno}{cut}") from None
    version = raw.get("nbformat") if isinstance(raw, dict) else None
    if type(version) is not int or ("cells" if version >= 4 else "worksheets") not in raw:  # v3: worksheets
        raise NotebookError(f"{name} is JSON but not a Jupyter notebook", "it has no nbformat and cells")
    try:
        # v4 is read as the plain JSON it is (nbformat's full validation costs ~10 ms a notebook
        # and buys nothing here: every field is type-checked where it is used); older versions
        # go through nbformat's converter.
        nb = nbformat.from_dict(raw) if raw["nbformat"] == 4 else nbformat.reads(json.dumps(raw), as_version=4)
        if not isinstance(nb.get("cells"), list):
            raise ValueError("no list of cells")
    except Exception as exc:
        raise NotebookError(f"{name} could not be read as a notebook", str(exc)) from None
    return nb


def _text(source) -> str:
    if isinstance(source, list):
        source = "".join(s for s in source if isinstance(s, str))
    return source if isinstance(source, str) else ""


def _translations(release_path: Path) -> list[Path]:
    """The same notebook released in other languages (``release/<ps>_<lang>/``): a student of a
    mixed cohort hands in one of them; its markdown differs, its code cells are the same."""
    from autograder.i18n.language import LANGUAGES

    folder = release_path.parent
    return [
        path for lang in LANGUAGES if (path := folder.parent / f"{folder.name}_{lang}" / release_path.name).is_file()
    ]


def _is_translation(folder: Path) -> bool:
    """``release/ps4_alibi_de/``: another language's copy of ``release/ps4_alibi/``."""
    from autograder.i18n.language import LANGUAGES

    base, _, lang = folder.name.rpartition("_")
    return bool(base) and lang in LANGUAGES and (folder.parent / base).is_dir()


@functools.lru_cache(maxsize=32)
def _release_cells(release_path: str) -> tuple[tuple[tuple[str, frozenset[str]], ...], frozenset[str]]:
    """(locked cells as (grade_id, its sources in every language released), grade_ids of answer
    and check cells)."""
    nb = nbformat.read(release_path, as_version=4)
    metas = [(c.get("metadata", {}).get("nbgrader", {}), c.source) for c in nb.cells]
    said = {}
    for path in _translations(Path(release_path)):
        for cell in nbformat.read(path, as_version=4).cells:
            gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            said.setdefault(gid, set()).add(cell.source.strip())
    locked = tuple(
        (m["grade_id"], frozenset({src.strip(), *said.get(m["grade_id"], ())})) for m, src in metas if m.get("locked")
    )
    graded = frozenset(m["grade_id"] for m, _ in metas if m.get("solution") or m.get("grade"))
    return locked, graded


def _graded_ids(release_path: Path) -> frozenset[str]:
    """Another release's graded cells; none where it cannot be read (it names nobody then)."""
    try:
        return _release_cells(str(release_path))[1]
    except (OSError, ValueError, KeyError, AttributeError):
        return frozenset()


def foreign_notebook(nb: StudentNotebook, release_path: Path) -> str | None:
    """Why ``nb`` is another assignment's notebook (named), or None. None of this problem set's
    graded cells is in it, or fewer than half of them and more of another release's (problem
    sets share a few cell names: PS3's ``attention_impl`` is in PS4 too); that other release is
    the one whose grade ids it holds most of, or the one the release's stamp in its metadata names."""
    _, graded = _release_cells(str(release_path))
    this = Path(release_path).parent.name
    mine = len(graded & set(nb.grade_ids))
    if not graded or 2 * mine >= len(graded):
        return None
    overlap = {
        folder.name: len(_graded_ids(path) & set(nb.grade_ids))
        for folder in sorted(Path(release_path).parent.parent.iterdir())
        if folder.is_dir() and folder.name != this and not _is_translation(folder)
        for path in sorted(folder.glob("*.ipynb"))[:1]
    }
    stamped = nb.released_as if nb.released_as and nb.released_as != this else None
    best = max(overlap, key=overlap.get, default=None)
    other = stamped if stamped and (not mine or overlap.get(stamped, 0) > mine) else None
    if other is None and best and overlap[best] > mine:
        other = best
    if other is None:
        return None
    held = (
        f"none of {this}'s graded cells is in it"
        if not mine
        else f"it holds {mine} of {this}'s {len(graded)} graded cells"
    )
    return f"{nb.path.name} is the {other} notebook, not {this}'s: {held}"


def integrity_flags(nb: StudentNotebook, release_path: Path) -> list[str]:
    """What an instructor should know about the notebook's structure (graded regardless)."""
    locked, graded = _release_cells(str(release_path))
    if graded and not graded & set(nb.grade_ids):
        return ["none of this problem set's cells were found: is this the notebook of another assignment?"]
    flags = []
    for gid, sources in locked:
        if gid not in nb.sources:
            flags.append(f"locked cell {gid!r} was deleted")
        elif nb.sources[gid].strip() not in sources:
            flags.append(f"locked cell {gid!r} was modified")
    for gid in sorted({g for g in nb.grade_ids if nb.grade_ids.count(g) > 1}):
        flags.append(f"cell {gid!r} appears {nb.grade_ids.count(gid)} times")
    return flags
