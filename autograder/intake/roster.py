"""A course roster (CSV): the course's student ids and the LMS identities that map to them.

Columns are found by header name, case-insensitively:

* the student id (what results, feedback and the gradebook use): the first of ``student_id``,
  ``username``, ``login``, ``SIS Login ID``, ``id``;
* LMS numbers that map to it: ``lms_id``, ``canvas_id``, ``moodle_id``, ``gradescope_sid``,
  ``sid``, ``ID``, ``SIS User ID`` (whichever are present and not the student id);
* ``name`` / ``Student`` (as the LMS spells it) and ``email``; ``section`` / ``Section``;
* ``language`` / ``lang`` / ``locale``: the language of the student's feedback pages (``de``,
  ``fa_IR``, …; empty: the course's).

A Canvas gradebook export is a roster as it stands (its "Points Possible" row is skipped).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from pathlib import Path

ID_COLUMNS = ("student_id", "username", "login", "sis login id", "id")
LMS_COLUMNS = ("lms_id", "canvas_id", "moodle_id", "gradescope_sid", "sid", "id", "sis user id")
NAME_COLUMNS = ("name", "student", "full name")
LANGUAGE_COLUMNS = ("language", "lang", "locale")


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9@.]+", "", text.lower())


@dataclass
class Person:
    id: str
    name: str = ""
    email: str = ""
    section: str = ""
    lms: dict[str, str] = field(default_factory=dict)  # column -> value (canvas "ID", SIS User ID, ...)
    language: str = ""  # their pages' language (autograder.i18n), "" for the course's

    @property
    def first_last(self) -> tuple[str, str]:
        """(first name, last name) as nbgrader's gradebook keeps them: ``"Smith, John"`` (Canvas)
        and ``"John Smith"`` are both John / Smith; a single word is the last name."""
        if "," in self.name:
            last, first = (part.strip() for part in self.name.split(",", 1))
            return first, last
        first, _, last = self.name.strip().rpartition(" ")
        return first.strip(), last.strip()

    def lms_id(self, *preferred: str) -> str:
        """The first of the ``preferred`` LMS columns present (case-insensitively), else any."""
        by_name = {k.lower(): v for k, v in self.lms.items()}
        for column in preferred:
            if by_name.get(column.lower()):
                return by_name[column.lower()]
        return ""


def _language(value: str | None, path: Path, student: str) -> str:
    from autograder.i18n.language import UnknownLanguage, normalise

    try:
        return normalise((value or "").strip()) or ""
    except UnknownLanguage as exc:
        raise ValueError(f"roster {path}: student {student}: {exc}") from None


class Roster:
    def __init__(self, people: list[Person]):
        self.people = {p.id: p for p in people}
        self._keys: dict[str, str | None] = {}
        for p in people:
            for key in (p.id, p.email, p.email.split("@")[0] if p.email else "", p.name, *p.lms.values()):
                k = _norm(key)
                if k:  # the same key for two people maps to nobody
                    self._keys[k] = p.id if self._keys.get(k, p.id) == p.id else None

    @property
    def ids(self) -> list[str]:
        return list(self.people)

    def lookup(self, *keys: str) -> str | None:
        for key in keys:
            found = self._keys.get(_norm(key or ""))
            if found:
                return found
        return None

    def in_text(self, text: str) -> list[str]:
        """Roster ids that occur in text as whole tokens (file names: ``ps1_alice_final``)."""
        tokens = text.lower()
        return sorted(i for i in self.people if re.search(rf"(?<![a-z0-9]){re.escape(i.lower())}(?![a-z0-9])", tokens))

    @classmethod
    def read(cls, path: Path) -> Roster:
        try:
            with open(path, newline="", encoding="utf-8-sig") as f:
                rows = list(csv.DictReader(f))
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise ValueError(f"roster {path}: not readable as CSV ({exc})") from None
        if not rows:
            raise ValueError(f"roster {path}: no rows")
        headers = {h.strip().lower(): h for h in rows[0].keys() if h}
        id_col = next((headers[c] for c in ID_COLUMNS if c in headers), None)
        if id_col is None:
            raise ValueError(
                f"roster {path}: no student id column (one of {', '.join(ID_COLUMNS)}); "
                f"it has {', '.join(headers.values())}"
            )
        lms_cols = [headers[c] for c in LMS_COLUMNS if c in headers and headers[c] != id_col]
        name_col = next((headers[c] for c in NAME_COLUMNS if c in headers), None)
        email_col, section_col = headers.get("email"), headers.get("section")
        language_col = next((headers[c] for c in LANGUAGE_COLUMNS if c in headers), None)
        people = []
        for row in rows:
            sid = (row.get(id_col) or "").strip()
            name = (row.get(name_col) or "").strip() if name_col else ""
            if not sid or "points possible" in name.lower() or "points possible" in sid.lower():
                continue
            people.append(
                Person(
                    sid,
                    name,
                    (row.get(email_col) or "").strip() if email_col else "",
                    (row.get(section_col) or "").strip() if section_col else "",
                    {c: (row.get(c) or "").strip() for c in lms_cols if (row.get(c) or "").strip()},
                    _language(row.get(language_col) if language_col else None, path, sid),
                )
            )
        if not people:
            raise ValueError(f"roster {path}: no students in it")
        return cls(people)
