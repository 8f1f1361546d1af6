"""Similar solution code: what each student wrote, normalised and fingerprinted, compared in pairs.

1. **What is compared.** The code cells of a submission (parsed, never run, by
   ``autograder.grading.notebook.read_notebook``), less the locked cells of the release; the release's
   own code (the function signatures and docstrings it hands out) is subtracted as boilerplate.
2. **Units.** Each cell is split at the top level: every function or class is a unit of its
   own, the other statements of a cell form one more. Fingerprints never span two units, so
   moving cells or reordering functions changes nothing.
3. **Normalisation.** Pygments' Python lexer (the tokenizer copydetect uses) splits a unit into
   tokens; every identifier becomes one placeholder, every number another, every string a
   third; comments, docstrings and whitespace are dropped; keywords, builtins and operators
   keep their own codes. Renaming
   variables, editing comments or re-indenting leaves the sequence unchanged.
4. **Fingerprints.** copydetect's robust winnowing (Schleimer, Wilkerson & Aiken 2003, the
   algorithm behind MOSS) picks hashes of k-token windows; any copied run of at least
   ``k + window - 1`` tokens is guaranteed to share a fingerprint. The window hashes are this
   module's own (``kgram_hashes``), so a cohort gives the same report in every process.
5. **Cohort-common code is not evidence.** A fingerprint found in at least half the cohort
   (``COMMON_FRACTION``, and at least ``MIN_COMMON`` students) is what the question forces
   everyone to write (``scores_002 = Q @ K.T``); it is left out, as MOSS does.
6. **Score.** For a pair, the shared distinctive fingerprints as a fraction of the smaller of
   the two students' distinctive fingerprints; flagged at ``THRESHOLD`` with at least
   ``MIN_SHARED`` fingerprints in common. Flagged pairs form clusters (connected components).
"""

from __future__ import annotations

import ast
import functools
import itertools
import math
import zlib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import numpy as np
from pygments import token as tok
from pygments.lexers import PythonLexer

from autograder.grading.notebook import read_notebook

K = 10  # tokens per hashed window ("noise threshold": shorter matches are ignored)
WINDOW = 4  # winnowing window: every match of K + WINDOW - 1 = 13 tokens is found
THRESHOLD = 0.5
MIN_SHARED = 8
COMMON_FRACTION = 0.5
MIN_COMMON = 3
MAX_DETAILED = 100  # flagged pairs whose matching code the page shows side by side


@dataclass(frozen=True)
class Unit:
    """One function, class, or the remaining statements of one cell."""

    label: str  # "sdpa_impl: def scaled_dot_product_attention", "counts_answer"
    source: str
    tokens: tuple[int, ...]  # normalised, one code per token
    spans: tuple[tuple[int, int], ...]  # (start, end) in source of each token


@dataclass
class StudentCode:
    student: str
    units: list[Unit]
    fingerprints: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # hash -> (unit, token)


# ---------------------------------------------------------------- what the release hands out


@dataclass(frozen=True)
class Release:
    locked: frozenset[str]  # grade ids of locked cells (the instructor's code, not the student's)
    known: frozenset[str]  # every grade id of the release
    code_cells: tuple[str, ...]  # all code cell sources (stripped): boilerplate


@functools.lru_cache(maxsize=8)
def read_release(path: str) -> Release:
    nb = nbformat.read(path, as_version=4)
    locked, known, code = set(), set(), []
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade_id"):
            known.add(meta["grade_id"])
            if meta.get("locked"):
                locked.add(meta["grade_id"])
        if cell.cell_type == "code":
            code.append(cell.source.strip())
    return Release(frozenset(locked), frozenset(known), tuple(code))


# ---------------------------------------------------------------- normalisation

_LEXER = PythonLexer()
IDENTIFIER, NUMBER, STRING = 1, 2, 3  # the placeholders


def _symbol(text: str) -> int:
    """A keyword, builtin or operator: its own code, the same in every process."""
    return zlib.crc32(text.encode()) | (1 << 32)


def normalise(source: str) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """Source -> (one code per token, source span per token)."""
    codes, spans = [], []
    in_string = False
    for start, ttype, text in _LEXER.get_tokens_unprocessed(source):
        end = start + len(text)
        if ttype in tok.Comment or ttype in tok.Text or ttype in tok.String.Doc or not text.strip():
            in_string = False
            continue
        if ttype in tok.String or (in_string and ttype in tok.Name):  # an f-string is one string
            if in_string:
                spans[-1] = (spans[-1][0], end)
                continue
            in_string = True
            codes.append(STRING)
            spans.append((start, end))
            continue
        in_string = False
        if ttype in tok.Number:
            codes.append(NUMBER)
        elif ttype in tok.Name and ttype not in tok.Name.Builtin and ttype not in tok.Name.Exception:
            codes.append(IDENTIFIER)
        else:  # keywords, builtins, operators, punctuation: the structure of the code
            codes.append(_symbol(text))
        spans.append((start, end))
    return tuple(codes), tuple(spans)


def _pieces(cell: str) -> list[tuple[str, str]]:
    """(name, source) for each top-level function/class, then the rest of the cell as one piece."""
    try:
        body = ast.parse(cell).body
    except SyntaxError:
        return [("", cell)]
    lines = cell.splitlines(keepends=True)
    pieces, rest = [], []
    for node in body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        text = "".join(lines[first - 1 : node.end_lineno])
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            pieces.append((f"{'class' if isinstance(node, ast.ClassDef) else 'def'} {node.name}", text))
        else:
            rest.append(text)
    if rest:
        pieces.append(("", "".join(rest)))
    return pieces


def units_of(cells: list[tuple[str, str]]) -> list[Unit]:
    """(cell label, source) -> units with at least K tokens."""
    units = []
    for label, cell in cells:
        for name, text in _pieces(cell):
            tokens, spans = normalise(text)
            if len(tokens) >= K:
                units.append(Unit(f"{label}: {name}" if name else label, text, tokens, spans))
    return units


def student_cells(notebook: Path, release: Release) -> list[tuple[str, str]]:
    """The student's own code cells: answer cells and cells they added; locked cells left out."""
    nb = read_notebook(notebook)
    cells = []
    for label, source in zip(nb.labels, nb.cells):
        grade_id = label.removeprefix("cell ")
        if grade_id in release.locked or source.strip() in release.code_cells:
            continue
        cells.append((grade_id if grade_id in release.known else label, source))
    return cells


# ---------------------------------------------------------------- fingerprints


def kgram_hashes(tokens: tuple[int, ...]) -> np.ndarray:
    """A 64-bit polynomial hash of every K-token window. Not Python's ``hash()`` (what copydetect
    hashes with): that changes with PYTHONHASHSEED, and the same cohort must give the same report."""
    codes = np.array(tokens, dtype=np.uint64)
    n = len(codes) - K + 1
    if n <= 0:
        return np.array([], dtype=np.int64)
    h = np.zeros(n, dtype=np.uint64)
    for j in range(K):  # wraps modulo 2**64, as intended
        h = h * np.uint64(1_000_003) + codes[j : j + n]
    return h.view(np.int64)


def _winnowed(tokens: tuple[int, ...], boilerplate: frozenset[int] = frozenset()) -> dict[int, list[int]]:
    """hash -> token positions of the fingerprints copydetect's robust winnowing selects."""
    from copydetect.utils import winnow  # imports matplotlib: only when used

    hashes = kgram_hashes(tokens)
    if len(hashes) == 0:
        return {}
    selected, positions = winnow(hashes, WINDOW, remove_duplicates=False)
    out: dict[int, list[int]] = {}
    for h, i in zip(selected.tolist(), positions.tolist()):
        if h not in boilerplate:
            out.setdefault(h, []).append(i)
    return out


def boilerplate_of(release: Release) -> frozenset[int]:
    hashes: set[int] = set()
    for unit in units_of([("release", c) for c in release.code_cells]):
        hashes.update(_winnowed(unit.tokens))
    return frozenset(hashes)


def fingerprint(student: str, units: list[Unit], boilerplate: frozenset[int]) -> StudentCode:
    code = StudentCode(student, units)
    for u, unit in enumerate(units):
        for h, idx in _winnowed(unit.tokens, boilerplate).items():
            code.fingerprints.setdefault(h, []).extend((u, i) for i in idx)
    return code


# ---------------------------------------------------------------- pairs and clusters


@dataclass(frozen=True)
class Region:
    """Matching code, side by side: a unit of each student with the copied spans marked."""

    unit_a: Unit
    spans_a: tuple[tuple[int, int], ...]
    unit_b: Unit
    spans_b: tuple[tuple[int, int], ...]
    shared: int  # fingerprints these two units have in common


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    score: float  # shared / min(distinctive fingerprints of a, of b)
    shared: int
    coverage_a: float  # shared / a's distinctive fingerprints
    coverage_b: float
    regions: tuple[Region, ...] = ()


@dataclass
class Comparison:
    pairs: list[Pair]  # flagged, highest score first
    clusters: list[list[str]]  # connected components of flagged pairs, largest first
    common: int  # fingerprints left out as cohort-common
    students: int
    threshold: float
    top_unflagged: list[Pair] = field(default_factory=list)  # the closest pairs below the threshold


def _source_spans(unit: Unit, token_positions: list[int]) -> tuple[tuple[int, int], ...]:
    """Token positions of matching windows -> merged character spans in the unit's source."""
    from copydetect.utils import get_copied_slices

    slices = get_copied_slices(np.array(sorted(set(token_positions)), dtype=np.int64), K)
    spans = []
    for start, end in zip(slices[0], slices[1]):
        first, last = unit.spans[int(start)], unit.spans[min(int(end), len(unit.spans)) - 1]
        if spans and first[0] <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], last[1]))
        else:
            spans.append((first[0], last[1]))
    return tuple(spans)


def _regions(a: StudentCode, b: StudentCode, shared: set[int]) -> tuple[Region, ...]:
    by_units: dict[tuple[int, int], list[int]] = defaultdict(list)
    for h in shared:
        ua = {u for u, _ in a.fingerprints[h]}
        ub = {u for u, _ in b.fingerprints[h]}
        for key in itertools.product(ua, ub):
            by_units[key].append(h)
    best: dict[int, tuple[int, int]] = {}  # each of a's units beside the unit of b it shares most with
    for (ua, ub), hashes in sorted(by_units.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        best.setdefault(ua, (ub, len(hashes)))
    regions = []
    for ua, (ub, shared_hashes) in sorted(best.items()):  # in a's notebook order
        pos_a, pos_b = _matching_windows(a.units[ua], b.units[ub])
        regions.append(
            Region(
                a.units[ua],
                _source_spans(a.units[ua], pos_a),
                b.units[ub],
                _source_spans(b.units[ub], pos_b),
                shared_hashes,
            )
        )
    return tuple(regions)


def _matching_windows(a: Unit, b: Unit) -> tuple[list[int], list[int]]:
    """Every K-token window the two units have in common (not only the winnowed ones), so the
    page marks the whole copied run."""
    ha, hb = kgram_hashes(a.tokens), kgram_hashes(b.tokens)
    both = set(ha.tolist()) & set(hb.tolist())
    return ([i for i, h in enumerate(ha.tolist()) if h in both], [i for i, h in enumerate(hb.tolist()) if h in both])


def _clusters(pairs: list[Pair]) -> list[list[str]]:
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for p in pairs:
        parent[root(p.a)] = root(p.b)
    groups: dict[str, list[str]] = defaultdict(list)
    for x in parent:
        groups[root(x)].append(x)
    return sorted((sorted(g) for g in groups.values()), key=lambda g: (-len(g), g))


def compare(
    codes: list[StudentCode],
    *,
    threshold: float = THRESHOLD,
    min_shared: int = MIN_SHARED,
    common_fraction: float = COMMON_FRACTION,
    min_common: int = MIN_COMMON,
) -> Comparison:
    holders: dict[int, list[str]] = defaultdict(list)
    for code in codes:
        for h in code.fingerprints:
            holders[h].append(code.student)
    common_at = max(min_common, math.ceil(common_fraction * len(codes)))
    common = {h for h, who in holders.items() if len(who) >= common_at}
    by_name = {c.student: c for c in codes}
    distinctive = {c.student: set(c.fingerprints) - common for c in codes}
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for h, who in holders.items():
        if h not in common:
            for a, b in itertools.combinations(sorted(who), 2):
                counts[a, b] += 1
    flagged, below = [], []
    for (a, b), shared in counts.items():
        na, nb = len(distinctive[a]), len(distinctive[b])
        score = shared / min(na, nb)
        pair = Pair(a, b, round(score, 4), shared, round(shared / na, 4), round(shared / nb, 4))
        (flagged if score >= threshold and shared >= min_shared else below).append(pair)
    flagged.sort(key=lambda p: (-p.score, p.a, p.b))
    below.sort(key=lambda p: (-p.score, p.a, p.b))
    flagged[:MAX_DETAILED] = [  # the matching code, side by side, for the closest pairs
        Pair(**{**p.__dict__, "regions": _regions(by_name[p.a], by_name[p.b], distinctive[p.a] & distinctive[p.b])})
        for p in flagged[:MAX_DETAILED]
    ]
    return Comparison(flagged, _clusters(flagged), len(common), len(codes), threshold, below[:10])
