"""Intake: whatever a course collected -> one notebook per student, or a clear refusal.

Recognised (first match wins, on the folder given or on the zip unpacked into the work dir):
* an nbgrader course root (``nbgrader_config.py``, ``source/``, ``release/``, ...): refused,
  pointing at its ``submitted/`` — its folders are not students;
* Gradescope's export: ``submission_<id>/`` folders beside ``submission_metadata.yml``
  (student = the submitter's SID, else e-mail, else the submission id);
* Moodle's download: ``<Full Name>_<id>_assignsubmission_file_/`` folders (or files so prefixed);
  student = the Moodle participant id;
* Canvas's submissions zip: ``[late_]<name>_[late_]<userid>_<attachmentid>_<file>.ipynb``;
  student = the Canvas user id (the first number);
* folders per student: nbgrader's ``{student}/{ps}/*.ipynb`` or ``{student}/*.ipynb``;
* a flat folder of notebooks: the student id from the file name by ``DEFAULT_ID_PATTERN``
  (``alice_ps1.ipynb`` -> ``alice``), by ``--id-pattern REGEX`` (group ``id`` or the first group,
  on the whole file name), or by a roster (the file name contains exactly one roster id).
A student's own zip in a Canvas or Moodle export is unpacked one level (autograder/intake/nested.py).
A roster CSV (``--roster``) maps LMS numbers, names and e-mails to the course's student ids
(a Canvas gradebook export works as one); with a roster, a submission that maps to nobody in
it is unmatched. Unmatched entries are reported; the caller exits non-zero.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from autograder.errors import AutograderError
from autograder.intake.ids import compile_id_pattern, default_id_pattern
from autograder.intake.nested import notebooks_in_zips
from autograder.intake.roster import Roster
from autograder.intake.safe_unzip import DEFAULT_LIMITS, Limits, UnsafeArchive, unpack
from autograder.intake.submission import Submission
from autograder.spec import Assignment

COURSE_DIRS = {"source", "release", "submitted", "autograded", "feedback", "assignments", "exchange"}
IGNORED = {"__MACOSX", ".ipynb_checkpoints", ".DS_Store", "Thumbs.db", "timestamp.txt"}
CANVAS_RE = re.compile(r"(?P<late1>late_)?(?P<name>.+?)_(?P<late2>late_)?(?P<uid>\d+)_(?P<att>\d+)_(?P<orig>.+)", re.I)
MOODLE_RE = re.compile(r"(?P<name>.+)_(?P<uid>\d+)_assign(?:submission|feedback)_[a-z]+_?(?P<orig>.*)", re.I)
GRADESCOPE_DIR = re.compile(r"submission_\d+")


class IntakeError(AutograderError):
    """Nothing gradable (or the input refused): the message says what was found."""


@dataclass
class Intake:
    layout: str
    submissions: list[Submission]
    unmatched: list[str] = field(default_factory=list)  # "<entry>: <why>"
    notes: list[str] = field(default_factory=list)

    @property
    def graded_students(self) -> list[str]:
        """Students who handed in a notebook (only these belong in the gradebook)."""
        return [s.student for s in self.submissions if s.notebook is not None]

    def summary(self) -> str:
        n = len(self.graded_students)
        line = f"intake: {self.layout}, {n} submission{'s' * (n != 1)}"
        if len(self.submissions) > n:
            line += f", {len(self.submissions) - n} without a notebook"
        return line


def _visible(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name not in IGNORED and not p.name.startswith("."))


def _notebooks(entries: list[Path]) -> list[Path]:
    return [p for p in entries if p.suffix == ".ipynb" and p.is_file() and not p.is_symlink()]


def choose_notebook(candidates: list[Path], assignment: Assignment) -> tuple[Path | None, str]:
    """The assignment's notebook among a student's files, or a reason why there is none."""
    if not candidates:
        return None, f"no notebook was submitted (expected {assignment.notebook})"
    exact = [p for p in candidates if p.name == assignment.notebook]
    if len(exact) == 1 or len(candidates) == 1:
        return (exact or candidates)[0], ""
    if len(exact) > 1:  # the same student under two spellings (Alice/, alice/): the newest
        return max(exact, key=_handed_in_at), ""
    keys = (assignment.name.lower(), assignment.name.split("_", 1)[0].lower())
    named = [p for p in candidates if any(k in p.name.lower() for k in keys)]
    if len(named) == 1:
        return named[0], ""
    shown = ", ".join(p.name for p in candidates[:5])
    return None, f"expected {assignment.notebook}, found {len(candidates)} notebooks ({shown})"


def _handed_in_at(notebook: Path) -> tuple[str, float]:
    """nbgrader collect's ``timestamp.txt`` beside the notebook, else the file's time."""
    stamp = notebook.parent / "timestamp.txt"
    text = stamp.read_text(encoding="utf-8", errors="replace").strip() if stamp.is_file() else ""
    return text, notebook.stat().st_mtime


class _Collector:
    def __init__(self, assignment: Assignment, roster: Roster | None, work_dir: Path, limits: Limits):
        self.assignment, self.roster, self.work_dir, self.limits = assignment, roster, work_dir, limits
        self.by_student: dict[str, list[Path]] = {}
        self.problems: dict[str, str] = {}
        self.late: set[str] = set()
        self.unmatched: list[str] = []
        self.notes: list[str] = []

    def student(self, entry: Path, *keys: str, natural: str) -> str | None:
        """Map an LMS identity (numbers, name, e-mail) to a student id; None = unmatched. Ids
        are case-insensitive (``Alice`` and ``alice`` are one student, see ``spelling``)."""
        if self.roster is None:
            return natural
        found = self.roster.lookup(*keys, natural)
        if found is None:
            self.unmatched.append(f"{entry.name}: not in the roster ({natural})")
        return found

    def unzipped(self, entry: Path, archives: list[Path]) -> list[Path]:
        """The notebooks in a student's own zips; a zip refused or without one is unmatched."""
        found, problems = notebooks_in_zips(archives, self.work_dir, self.limits)
        self.unmatched += [f"{entry.name}: {why}" for why in problems]
        return found

    def add(self, student: str, notebooks: list[Path], problem: str = "", *, late: bool = False) -> None:
        if late:
            self.late.add(student)
        self.by_student.setdefault(student, []).extend(notebooks)
        if problem:
            self.problems.setdefault(student, problem)

    def submissions(self) -> list[Submission]:
        """Ids that differ only in case are one student (see README, Intake): under the lower-case
        spelling where one of them is lower case (as JupyterHub spells user names), else the
        first in sorted order; a roster gave its own spelling already."""
        twins: dict[str, list[str]] = {}
        for student in sorted(self.by_student):
            twins.setdefault(student.casefold(), []).append(student)
        for key, group in twins.items():
            new = key if key in group else group[0]
            for old in (s for s in group if s != new):
                self.by_student[new] += self.by_student.pop(old)
                self.late |= {new} if old in self.late else set()
        out = []
        for student in sorted(self.by_student):
            candidates = self.by_student[student]
            nb, why = choose_notebook(candidates, self.assignment)
            for other in (p for p in candidates if nb and p != nb and p.name == nb.name):
                self.notes.append(f"{other}: an older notebook of {student} (ids are case-insensitive), not graded")
            out.append(Submission(student, nb, "" if nb else self.problems.get(student) or why, student in self.late))
        return out


# ---------------------------------------------------------------- layouts


def _course_root(folder: Path, entries: list[Path]) -> str | None:
    dirs = {p.name for p in entries if p.is_dir()}
    if (folder / "nbgrader_config.py").is_file() or len(dirs & COURSE_DIRS) >= 2 or (dirs and dirs <= COURSE_DIRS):
        hint = f"; pass {folder / 'submitted'}" if (folder / "submitted").is_dir() else ""
        return (
            f"{folder} looks like a course directory (it has "
            f"{', '.join(sorted(dirs & COURSE_DIRS) or ['nbgrader_config.py'])}), "
            f"not a folder of submissions: its folders are not students{hint}"
        )
    return None


def _gradescope(c: _Collector, folder: Path, entries: list[Path]) -> None:
    import yaml

    meta_file = folder / "submission_metadata.yml"
    meta = {}
    if meta_file.is_file():
        try:
            meta = yaml.safe_load(meta_file.read_text(encoding="utf-8", errors="replace")) or {}
        except yaml.YAMLError as exc:
            raise IntakeError(f"{meta_file}: not readable YAML ({exc})") from None
    else:
        c.notes.append("no submission_metadata.yml: students are named by their submission ids")
    for entry in entries:
        if not (entry.is_dir() and GRADESCOPE_DIR.fullmatch(entry.name)):
            if entry.name != meta_file.name:
                c.notes.append(f"ignored {entry.name}")
            continue
        submitters = (meta.get(entry.name) or {}).get(":submitters") or [{}] if isinstance(meta, dict) else [{}]
        for who in submitters:
            sid, email, name = (str(who.get(k) or "") for k in (":sid", ":email", ":name"))
            natural = sid or email or entry.name
            student = c.student(entry, sid, email, name, natural=natural)
            if student:
                c.add(student, _notebooks(sorted(entry.rglob("*.ipynb"))))


def _moodle(c: _Collector, folder: Path, entries: list[Path]) -> None:
    for entry in entries:
        m = MOODLE_RE.fullmatch(entry.name)
        if not m:
            c.unmatched.append(
                f"{entry.name}: not a Moodle submission folder (<Full Name>_<id>_assignsubmission_file_)"
            )
            continue
        student = c.student(entry, m["uid"], m["name"], natural=m["uid"])
        if student is None:
            continue
        if entry.is_dir():
            zips = sorted(p for p in entry.rglob("*.zip") if p.is_file() and not p.is_symlink())
            c.add(student, _notebooks(sorted(entry.rglob("*.ipynb"))) + c.unzipped(entry, zips))
        elif entry.suffix in (".ipynb", ".zip"):
            c.add(student, _notebooks([entry]) if entry.suffix == ".ipynb" else c.unzipped(entry, [entry]))


def _canvas(c: _Collector, folder: Path, entries: list[Path]) -> None:
    latest: dict[str, tuple[int, Path, bool]] = {}  # several uploads: the highest attachment id is the last
    for entry in entries:
        m = CANVAS_RE.fullmatch(entry.name)
        if entry.suffix not in (".ipynb", ".zip"):
            c.notes.append(f"ignored {entry.name} (not a notebook)")
        elif not m:
            c.unmatched.append(f"{entry.name}: not named as Canvas names submissions (<name>_<userid>_<id>_<file>)")
        else:
            student = c.student(entry, m["uid"], m["name"], natural=m["uid"])
            if student and (student not in latest or int(m["att"]) > latest[student][0]):
                if student in latest:
                    c.notes.append(f"{latest[student][1].name}: an earlier upload by {student}, not graded")
                latest[student] = (int(m["att"]), entry, bool(m["late1"] or m["late2"]))
    for student, (_, entry, late) in latest.items():
        c.add(student, _notebooks([entry]) if entry.suffix == ".ipynb" else c.unzipped(entry, [entry]), late=late)


def _folders(c: _Collector, folder: Path, entries: list[Path]) -> None:
    """nbgrader's {student}/{ps}/*.ipynb, or {student}/*.ipynb."""
    a = c.assignment
    for entry in entries:
        if not entry.is_dir():
            if entry.suffix == ".ipynb":
                c.unmatched.append(f"{entry.name}: a notebook beside the student folders")
            continue
        student = c.student(entry, natural=entry.name)
        if student is None:
            continue
        ps = next((entry / n for n in (a.name, a.name.split("_", 1)[0]) if (entry / n).is_dir()), None)
        if ps is not None:
            c.add(student, _notebooks(_visible(ps)))
        else:
            direct = _notebooks(_visible(entry))
            c.add(student, direct, "" if direct else f"no {a.name}/ folder was submitted")


def _flat(c: _Collector, folder: Path, entries: list[Path], id_pattern: re.Pattern | None) -> None:
    a = c.assignment
    pattern = id_pattern or re.compile(default_id_pattern(a), re.I)
    for entry in entries:
        if entry.suffix != ".ipynb":
            c.notes.append(f"ignored {entry.name} (not a notebook)")
            continue
        if c.roster is not None and id_pattern is None:
            found = c.roster.in_text(entry.stem)
            if len(found) == 1:
                c.add(found[0], _notebooks([entry]))
            else:
                c.unmatched.append(
                    f"{entry.name}: its name holds {len(found)} roster ids"
                    + (f" ({', '.join(found[:3])})" if found else "")
                )
            continue
        names = {a.name.lower(), a.name.split("_", 1)[0].lower(), Path(a.notebook).stem.lower()}
        m = None if entry.stem.lower() in names else pattern.fullmatch(entry.name)
        sid = (m.groupdict().get("id") or (m.group(1) if m.re.groups else None)) if m else None
        if not sid or sid.lower() in names:
            c.unmatched.append(f"{entry.name}: no student id in its name (pattern {pattern.pattern})")
            continue
        student = c.student(entry, natural=sid)
        if student:
            c.add(student, _notebooks([entry]))


def _detect(folder: Path, entries: list[Path], id_pattern) -> str | None:
    dirs = [p for p in entries if p.is_dir()]
    files = [p for p in entries if p.is_file()]
    if (folder / "submission_metadata.yml").is_file() or any(GRADESCOPE_DIR.fullmatch(p.name) for p in dirs):
        return "gradescope"
    if any(MOODLE_RE.fullmatch(p.name) for p in entries):
        return "moodle"
    notebooks = [p for p in files if p.suffix == ".ipynb"]
    canvas_named = sum(bool(CANVAS_RE.fullmatch(p.name)) for p in files if p.suffix in (".ipynb", ".zip"))
    if id_pattern is None and canvas_named and 2 * canvas_named >= len(notebooks):  # the rest: unmatched
        return "canvas"
    if dirs and len(dirs) >= len(notebooks):
        return "folders"
    if notebooks:
        return "flat"
    return None


def collect(
    source: Path,
    assignment: Assignment,
    work_dir: Path,
    *,
    id_pattern: str | None = None,
    roster: Path | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Intake:
    """Find every student's notebook in ``source`` (a folder or a zip, unpacked under work_dir)."""
    source = Path(source)
    try:
        pattern = compile_id_pattern(id_pattern) if id_pattern else None
        roster_obj = Roster.read(Path(roster)) if roster else None
    except ValueError as exc:
        raise IntakeError(str(exc)) from None
    if source.is_file():
        if source.suffix.lower() != ".zip":
            raise IntakeError(f"{source} is a file but not a .zip export; pass a folder or an LMS zip")
        try:
            folder = unpack(source, Path(work_dir) / "unpacked", limits)
        except UnsafeArchive as exc:
            raise IntakeError(str(exc)) from None
    elif source.is_dir():
        folder = source
    else:
        raise IntakeError(f"no such submissions folder or zip: {source}")
    entries = _visible(folder)
    while _wrapper(folder, entries, assignment):  # a zip holding one top folder
        folder = entries[0]
        entries = _visible(folder)
    layout = _detect(folder, entries, pattern)
    refused = _course_root(folder, entries)
    if refused:
        raise IntakeError(refused)
    if layout is None:
        raise IntakeError(_nothing_found(folder, entries, assignment))
    c = _Collector(assignment, roster_obj, Path(work_dir), limits)
    for entry in entries:
        if entry.is_symlink():
            c.unmatched.append(f"{entry.name}: a symbolic link (not followed)")
    entries = [e for e in entries if not e.is_symlink()]
    {"gradescope": _gradescope, "moodle": _moodle, "canvas": _canvas, "folders": _folders}.get(
        layout, lambda c, f, e: _flat(c, f, e, pattern)
    )(c, folder, entries)
    intake = Intake(layout, c.submissions(), c.unmatched, c.notes)
    if roster_obj is not None:
        absent = sorted(set(roster_obj.ids) - set(intake.graded_students))
        if absent:
            intake.notes.append(f"{len(absent)} roster students handed nothing in: {', '.join(absent[:10])}")
    if not intake.graded_students:
        detail = "; ".join([s.problem for s in intake.submissions[:3]] + intake.unmatched[:5])
        raise IntakeError(
            f"{folder}: read as {layout}, but no {assignment.name} notebook was found for "
            f"anyone ({len(intake.submissions)} candidates){': ' + detail if detail else ''}"
        )
    return intake


def collect_folder(folder: Path, assignment: Assignment) -> list[Submission]:
    """The submissions in a folder the kit wrote itself (the demo's, the self-test's and the
    benchmarks' sample notebooks, laid out as nbgrader's ``{student}/{ps}/``), read by the same
    rules as ``collect``; a folder has nothing to unpack, so nothing is written."""
    folder = Path(folder)
    if not folder.is_dir():
        raise IntakeError(f"no such submissions folder: {folder}")
    return collect(folder, assignment, folder).submissions


def _wrapper(folder: Path, entries: list[Path], assignment: Assignment) -> bool:
    """One folder and nothing else, which is not itself a student's folder."""
    if len(entries) != 1 or not entries[0].is_dir() or entries[0].is_symlink():
        return False
    inner = _visible(entries[0])
    ps_names = {assignment.name, assignment.name.split("_", 1)[0]}
    return not _notebooks(inner) and not any(p.is_dir() and p.name in ps_names for p in inner)


def _nothing_found(folder: Path, entries: list[Path], assignment: Assignment) -> str:
    dirs = [p.name for p in entries if p.is_dir()]
    files = [p.name for p in entries if p.is_file()]
    return (
        f"{folder}: no submissions recognised ({len(dirs)} folders, {len(files)} files"
        + (f": {', '.join((dirs + files)[:6])}" if entries else "")
        + "). Expected "
        f"{{student}}/{assignment.name}/*.ipynb, {{student}}/*.ipynb, a flat folder of "
        "<student>.ipynb, or a Canvas / Moodle / Gradescope export"
    )
