"""Intake: every collection format finds the right students; unsafe archives are refused."""

from __future__ import annotations

import stat
import struct
import zipfile
import zlib
from pathlib import Path

import nbformat
import pytest

from autograder.intake.collect import IntakeError, collect, collect_folder
from autograder.intake.safe_unzip import Limits, UnsafeArchive, unpack
from autograder.intake.upload import one_upload
from autograder.releasing.sample_submissions import make_notebook


@pytest.fixture(scope="module")
def nb(ps1):
    return make_notebook(ps1)


def put(nb, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


def found(intake) -> dict[str, str]:
    return {s.student: s.notebook.name for s in intake.submissions if s.notebook}


# ---------------------------------------------------------------- folders


def test_nbgrader_layout_and_student_folders(ps1, nb, tmp_path):
    put(nb, tmp_path / "in/alice/ps1_attention/ps1_attention.ipynb")
    put(nb, tmp_path / "in/bob/ps1/renamed.ipynb")  # short ps folder, any name
    put(nb, tmp_path / "in/carol/ps1_attention.ipynb")  # no problem-set level
    (tmp_path / "in/dave/ps2_positional").mkdir(parents=True)  # handed in another ps only
    intake = collect(tmp_path / "in", ps1, tmp_path / "work")
    assert intake.layout == "folders"
    assert found(intake) == {"alice": "ps1_attention.ipynb", "bob": "renamed.ipynb", "carol": "ps1_attention.ipynb"}
    assert intake.graded_students == ["alice", "bob", "carol"]  # dave: graded 0, not a gradebook student
    dave = next(s for s in intake.submissions if s.student == "dave")
    assert dave.notebook is None and "ps1_attention/" in dave.problem
    assert intake.unmatched == []


def test_ids_that_differ_only_in_case_are_one_student(ps1, nb, tmp_path):
    """`Alice/` and `alice/` are one student, `alice` (the lower-case spelling, as JupyterHub spells
    user names); of her two notebooks the newer by nbgrader's timestamp.txt is graded, the other
    noted. `BOB/` and `Bob/` are `BOB` (none lower case: the first in sorted order); an id with no
    such twin is kept as written."""
    old = put(nb, tmp_path / "in/Alice/ps1_attention/ps1_attention.ipynb")
    (old.parent / "timestamp.txt").write_text("2026-11-20 10:00:00.000000 UTC")
    new = put(nb, tmp_path / "in/alice/ps1_attention/ps1_attention.ipynb")
    (new.parent / "timestamp.txt").write_text("2026-11-21 09:00:00.000000 UTC")
    bob = put(nb, tmp_path / "in/BOB/ps1_attention/ps1_attention.ipynb")
    (bob.parent / "timestamp.txt").write_text("2026-11-22 09:00:00.000000 UTC")
    put(nb, tmp_path / "in/Bob/ps1_attention/ps1_attention.ipynb")
    carol = put(nb, tmp_path / "in/Carol/ps1_attention/ps1_attention.ipynb")
    intake = collect(tmp_path / "in", ps1, tmp_path / "work")
    assert [(s.student, s.notebook) for s in intake.submissions] == [("BOB", bob), ("Carol", carol), ("alice", new)]
    assert any(str(old) in note and "older notebook of alice" in note for note in intake.notes), intake.notes


def test_flat_folder_default_pattern(ps1, nb, tmp_path):
    for name in (
        "alice.ipynb",
        "bob_ps1.ipynb",
        "ps1_attention-carol.ipynb",
        "dave.smith_ps1_attention.ipynb",
        "ps1_attention.ipynb",
    ):
        put(nb, tmp_path / "flat" / name)
    (tmp_path / "flat/notes.txt").write_text("not a notebook")
    intake = collect(tmp_path / "flat", ps1, tmp_path / "work")
    assert intake.layout == "flat"
    assert set(found(intake)) == {"alice", "bob", "carol", "dave.smith"}
    assert len(intake.unmatched) == 1 and intake.unmatched[0].startswith("ps1_attention.ipynb: no student id")
    assert any("notes.txt" in n for n in intake.notes)


def test_flat_folder_id_pattern_and_roster(ps1, nb, tmp_path):
    put(nb, tmp_path / "flat/HW1 - s1234567 - final.ipynb")
    put(nb, tmp_path / "flat/HW1 - s7654321 - v2.ipynb")
    intake = collect(tmp_path / "flat", ps1, tmp_path / "w", id_pattern=r"HW1 - (?P<id>s\d{7}) - .*\.ipynb")
    assert set(found(intake)) == {"s1234567", "s7654321"}
    with pytest.raises(IntakeError, match="needs a group"):
        collect(tmp_path / "flat", ps1, tmp_path / "w", id_pattern=r"HW1.*")
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name,email\ns1234567,Ann Lee,ann@uni.edu\n", encoding="utf-8")
    intake = collect(tmp_path / "flat", ps1, tmp_path / "w", roster=roster)
    assert set(found(intake)) == {"s1234567"}
    assert len(intake.unmatched) == 1 and "s7654321" not in found(intake)


def test_course_root_is_refused_and_creates_nobody(ps1, nb, tmp_path):
    course = tmp_path / "course"
    put(nb, course / "source/ps1_attention/ps1_attention.ipynb")
    put(nb, course / "release/ps1_attention/ps1_attention.ipynb")
    put(nb, course / "submitted/alice/ps1_attention/ps1_attention.ipynb")
    with pytest.raises(IntakeError, match=r"course directory.*pass .*submitted"):
        collect(course, ps1, tmp_path / "work")
    assert set(found(collect(course / "submitted", ps1, tmp_path / "work"))) == {"alice"}


def test_nothing_gradable_says_what_it_saw(ps1, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(IntakeError, match="no submissions recognised"):
        collect(tmp_path / "empty", ps1, tmp_path / "w")
    for student in ("alice", "bob"):
        (tmp_path / "nothing" / student / "ps1_attention").mkdir(parents=True)
    with pytest.raises(IntakeError, match="no ps1_attention notebook was found for anyone"):
        collect(tmp_path / "nothing", ps1, tmp_path / "w")
    with pytest.raises(IntakeError, match="no such"):
        collect(tmp_path / "absent", ps1, tmp_path / "w")


def test_symlinks_in_a_folder_are_not_followed(ps1, nb, tmp_path):
    put(nb, tmp_path / "in/alice/ps1_attention/ps1_attention.ipynb")
    (tmp_path / "in/mallory").symlink_to(tmp_path / "in/alice")
    (tmp_path / "in/bob/ps1_attention").mkdir(parents=True)
    (tmp_path / "in/bob/ps1_attention/ps1_attention.ipynb").symlink_to("/etc/passwd")
    intake = collect(tmp_path / "in", ps1, tmp_path / "w")
    assert set(found(intake)) == {"alice"}
    assert any(u.startswith("mallory: a symbolic link") for u in intake.unmatched)


# ---------------------------------------------------------------- LMS exports


def zip_of(folder: Path, target: Path, prefix: str = "") -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                z.write(p, prefix + p.relative_to(folder).as_posix())
    return target


def test_canvas_submissions_zip(ps1, nb, tmp_path):
    src = tmp_path / "canvas"
    put(nb, src / "smith_john_12345_67890_ps1_attention.ipynb")
    put(nb, src / "late_doe_jane_222_333_ps1_attention-1.ipynb")
    put(nb, src / "leeann_LATE_444_555_ps1.ipynb")
    put(nb, src / "leeann_444_554_ps1.ipynb")  # an earlier upload: the higher attachment id wins
    (src / "smith_john_12345_67891_notes.pdf").write_bytes(b"%PDF")
    intake = collect(zip_of(src, tmp_path / "submissions.zip"), ps1, tmp_path / "work")
    assert intake.layout == "canvas"
    assert found(intake) == {
        "12345": "smith_john_12345_67890_ps1_attention.ipynb",  # the Canvas user id
        "222": "late_doe_jane_222_333_ps1_attention-1.ipynb",
        "444": "leeann_LATE_444_555_ps1.ipynb",
    }
    # Canvas's LATE markers, either place, any case; the last upload's decides (444's earlier was not late)
    assert {s.student: s.late for s in intake.submissions} == {"12345": False, "222": True, "444": True}
    assert all(s.notebook.is_relative_to(tmp_path / "work") for s in intake.submissions)
    roster = tmp_path / "canvas_gradebook.csv"  # Canvas's own gradebook export as the roster
    roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,PS1 (99)\n"
        "    Points Possible,,,,,28\n"
        '"Smith, John",12345,S1,jsmith,A,\n"Doe, Jane",222,S2,jdoe,A,\n',
        encoding="utf-8",
    )
    intake = collect(tmp_path / "submissions.zip", ps1, tmp_path / "work", roster=roster)
    assert set(found(intake)) == {"jsmith", "jdoe"}
    assert intake.unmatched == [
        "leeann_444_554_ps1.ipynb: not in the roster (444)",
        "leeann_LATE_444_555_ps1.ipynb: not in the roster (444)",
    ]


def test_moodle_download_zip_with_a_top_folder(ps1, nb, tmp_path):
    src = tmp_path / "moodle"
    put(nb, src / "John Smith_1001_assignsubmission_file_/ps1_attention.ipynb")
    put(nb, src / "Ann Lee_1002_assignsubmission_file_/work/ps1_attention (1).ipynb")
    (src / "Bo Yu_1003_assignsubmission_onlinetext_").mkdir()
    intake = collect(zip_of(src, tmp_path / "moodle.zip", prefix="PS1-12345/"), ps1, tmp_path / "w")
    assert intake.layout == "moodle"
    assert found(intake) == {"1001": "ps1_attention.ipynb", "1002": "ps1_attention (1).ipynb"}


def test_gradescope_export(ps1, nb, tmp_path):
    src = tmp_path / "gs"
    put(nb, src / "submission_9001/ps1_attention.ipynb")
    put(nb, src / "submission_9002/ps1_attention.ipynb")
    put(nb, src / "submission_9003/ps1_attention.ipynb")
    (src / "submission_metadata.yml").write_text(
        "submission_9001:\n  :submitters:\n  - :name: Jane Doe\n    :sid: '1234'\n    :email: jane@uni.edu\n"
        "submission_9002:\n  :submitters:\n  - :name: Max Mu\n    :sid: ''\n    :email: max@uni.edu\n"
        "  - :name: Ida Ko\n    :sid: '77'\n    :email: ida@uni.edu\n",
        encoding="utf-8",
    )
    intake = collect(src, ps1, tmp_path / "w")
    assert intake.layout == "gradescope"
    assert set(found(intake)) == {"1234", "max@uni.edu", "77", "submission_9003"}  # group: both submitters


# ---------------------------------------------------------------- unsafe archives


def raw_zip(path: Path, entries: list[tuple[str, bytes, int, int, int]]) -> Path:
    """A zip written byte by byte: (name, raw deflate data, crc, declared size, unix mode)."""
    local, central = b"", b""
    for name, data, crc, size, mode in entries:
        n = name.encode()
        central += (
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                0x02014B50,
                0x031E,
                20,
                0,
                8,
                0,
                0,
                crc,
                len(data),
                size,
                len(n),
                0,
                0,
                0,
                0,
                mode << 16,
                len(local),
            )
            + n
        )
        local += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, len(data), size, len(n), 0) + n + data
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), len(local), 0)
    path.write_bytes(local + central + end)
    return path


def deflated_zeros(total: int, chunk: int = 1 << 20) -> tuple[bytes, int]:
    """Raw deflate of ``total`` zero bytes, built from one compressed chunk (fast), and its CRC."""
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = co.compress(b"\0" * chunk) + co.flush(zlib.Z_FULL_FLUSH)  # byte-aligned, state reset
    crc = 0
    for _ in range(total // chunk):
        crc = zlib.crc32(b"\0" * chunk, crc)
    return block * (total // chunk) + zlib.compressobj(9, zlib.DEFLATED, -15).flush(), crc


def tree(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


@pytest.mark.parametrize(
    "name,mode,message",
    [
        ("../escape.ipynb", stat.S_IFREG | 0o644, r"climbs out"),
        ("alice/../../escape.ipynb", stat.S_IFREG | 0o644, r"climbs out"),
        ("/tmp/escape.ipynb", stat.S_IFREG | 0o644, r"absolute path"),
        ("C:/escape.ipynb", stat.S_IFREG | 0o644, r"absolute path"),
        ("..\\escape.ipynb", stat.S_IFREG | 0o644, r"climbs out"),
        ("link.ipynb", stat.S_IFLNK | 0o777, r"symlink"),
    ],
)
def test_unsafe_entries_refused_nothing_written(ps1, tmp_path, name, mode, message):
    data = b"/etc/passwd" if stat.S_ISLNK(mode) else b"{}"
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    raw = co.compress(data) + co.flush()
    good = zlib.compressobj(9, zlib.DEFLATED, -15)
    archive = raw_zip(
        tmp_path / "evil.zip",
        [
            ("ok_1_2_ps1.ipynb", good.compress(b"{}") + good.flush(), zlib.crc32(b"{}"), 2, stat.S_IFREG | 0o644),
            (name, raw, zlib.crc32(data), len(data), mode),
        ],
    )
    before = tree(tmp_path)
    with pytest.raises(IntakeError, match=message):
        collect(archive, ps1, tmp_path / "work")
    assert tree(tmp_path) - before <= {"work"}  # not even the good entry was left behind
    assert not (tmp_path / "work" / "unpacked").exists()
    assert not Path("/tmp/escape.ipynb").exists()


def test_one_gigabyte_bomb_refused_before_writing(ps1, tmp_path):
    data, crc = deflated_zeros(1 << 30)
    assert len(data) < 2 << 20  # a 1 GiB entry in about 1 MiB
    archive = raw_zip(tmp_path / "bomb.zip", [("a_1_2_ps1_attention.ipynb", data, crc, 1 << 30, stat.S_IFREG | 0o644)])
    with pytest.raises(IntakeError, match=r"declares 1,073,741,824 bytes"):
        collect(archive, ps1, tmp_path / "work")
    assert not (tmp_path / "work" / "unpacked").exists()
    # a high ratio under the size limit, and a total over it, are refused the same way
    small, crc2 = deflated_zeros(32 << 20)
    ratio = raw_zip(tmp_path / "ratio.zip", [("a.ipynb", small, crc2, 32 << 20, stat.S_IFREG | 0o644)])
    with pytest.raises(UnsafeArchive, match="zip bomb"):
        unpack(ratio, tmp_path / "u")
    many = raw_zip(
        tmp_path / "many.zip", [(f"f{i}.ipynb", small, crc2, 32 << 20, stat.S_IFREG | 0o644) for i in range(3)]
    )
    with pytest.raises(UnsafeArchive, match="in all"):
        unpack(many, tmp_path / "u", Limits(max_total_bytes=64 << 20, max_ratio=1e9))


def test_lying_header_cannot_expand_past_its_declared_size(tmp_path):
    data, _ = deflated_zeros(64 << 20)
    archive = raw_zip(tmp_path / "liar.zip", [("x.ipynb", data, zlib.crc32(b"\0" * 1000), 1000, stat.S_IFREG | 0o644)])
    try:
        unpack(archive, tmp_path / "u")
    except UnsafeArchive:
        assert not (tmp_path / "u").exists()
    else:
        assert (tmp_path / "u" / "x.ipynb").stat().st_size <= 1000
    assert sum(p.stat().st_size for p in tmp_path.rglob("*") if p.is_file()) < 2 << 20


def test_count_limit_and_not_a_zip(ps1, tmp_path):
    with zipfile.ZipFile(tmp_path / "many.zip", "w") as z:
        for i in range(30):
            z.writestr(f"s{i}_1_2_ps1.ipynb", "{}")
    with pytest.raises(UnsafeArchive, match="30 entries"):
        unpack(tmp_path / "many.zip", tmp_path / "u", Limits(max_files=20))
    (tmp_path / "fake.zip").write_bytes(b"not a zip")
    with pytest.raises(IntakeError, match="not a readable zip"):
        collect(tmp_path / "fake.zip", ps1, tmp_path / "w")


def test_a_folder_the_kit_wrote_is_read_by_the_intakes_rules(ps1, nb, tmp_path):
    put(nb, tmp_path / "in" / "ana" / ps1.name / ps1.notebook)
    (tmp_path / "in" / "bo" / ps1.name).mkdir(parents=True)
    subs = {s.student: s for s in collect_folder(tmp_path / "in", ps1)}
    assert subs["ana"].notebook == tmp_path / "in" / "ana" / ps1.name / ps1.notebook
    assert subs["bo"].notebook is None and "no notebook was submitted" in subs["bo"].problem
    with pytest.raises(IntakeError, match="no such submissions folder"):
        collect_folder(tmp_path / "missing", ps1)


def test_one_upload_is_its_only_notebook_under_the_release_name(ps1, nb, tmp_path):
    put(nb, tmp_path / "upload" / "deep" / "my attempt.ipynb")
    sub = one_upload(tmp_path / "upload", ps1, "zoe", tmp_path / "work")
    assert sub.student == "zoe" and sub.notebook == tmp_path / "work" / "zoe" / ps1.name / ps1.notebook
    assert sub.notebook.read_bytes() == (tmp_path / "upload" / "deep" / "my attempt.ipynb").read_bytes()
    put(nb, tmp_path / "upload" / "second.ipynb")
    two = one_upload(tmp_path / "upload", ps1, "zoe", tmp_path / "work2")
    assert two.notebook is None and f"expected one notebook named {ps1.notebook}" in two.problem
    assert "found 2" in two.problem and not (tmp_path / "work2").exists()


def test_a_students_own_zip_in_an_export_is_unpacked_one_level(ps1, nb, tmp_path):
    """Canvas: `…_ps1_attention.zip` holding the student's folder; one holding no notebook is
    unmatched (the command exits 2), never a student who handed nothing in."""
    src = tmp_path / "canvas"
    put(nb, src / "smith_john_12345_67890_ps1_attention.ipynb")
    put(nb, tmp_path / "own/ps1_attention/ps1_attention.ipynb")
    zip_of(tmp_path / "own", src / "doe_jane_222_333_ps1_attention.zip")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty/readme.txt").write_text("oops")
    zip_of(tmp_path / "empty", src / "roe_rick_777_888_ps1_attention.zip")
    intake = collect(zip_of(src, tmp_path / "submissions.zip"), ps1, tmp_path / "work")
    assert intake.layout == "canvas"
    assert found(intake) == {"12345": "smith_john_12345_67890_ps1_attention.ipynb", "222": "ps1_attention.ipynb"}
    assert intake.unmatched == ["roe_rick_777_888_ps1_attention.zip: a zip inside the export that holds no notebook"]


class CodePageName(zipfile.ZipInfo):
    """An entry whose name is written as a Windows tool writes it: code-page bytes, no UTF-8 flag."""

    __slots__ = ("raw",)

    def _encodeFilenameFlags(self):  # noqa: N802 - zipfile's own name
        return self.raw, self.flag_bits


def test_zip_names_without_the_utf8_flag_are_decoded_as_windows_wrote_them(ps1, nb, tmp_path):
    """Windows tools write the code page's bytes without the UTF-8 flag: cp1252 (`José Núñez`),
    else cp437 (`Hank Müller`: ü is 0x81, no cp1252 character), not cp437 throughout."""
    body = nbformat.writes(nb).encode()
    archive = tmp_path / "moodle.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for name, encoding in (("José Núñez_1001", "cp1252"), ("Hank Müller_1002", "cp437")):
            info = CodePageName(f"{name}_assignsubmission_file_/ps1_attention.ipynb")
            info.raw = info.filename.encode(encoding)
            z.writestr(info, body)
    with zipfile.ZipFile(archive) as z:
        assert not any(i.flag_bits & 0x800 for i in z.infolist())  # read by Python as cp437
    intake = collect(archive, ps1, tmp_path / "work")
    assert sorted(p.name for p in (tmp_path / "work/unpacked").iterdir()) == [
        "Hank Müller_1002_assignsubmission_file_",
        "José Núñez_1001_assignsubmission_file_",
    ]
    assert set(found(intake)) == {"1001", "1002"}


def test_a_kernelspec_that_is_not_python_is_said(tmp_path, nb):
    from autograder.grading.notebook import read_notebook

    other = nbformat.from_dict(nb)
    other.metadata["kernelspec"] = {"name": "ir", "display_name": "R", "language": "R"}
    assert read_notebook(put(other, tmp_path / "r.ipynb")).foreign_kernel == "R (R)"
    assert read_notebook(put(nb, tmp_path / "py.ipynb")).foreign_kernel is None
