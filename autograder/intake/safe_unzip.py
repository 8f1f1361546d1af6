"""Unpack an uploaded archive (an LMS export) into a work directory, refusing anything unsafe.

Refused, with a message that names the entry: absolute paths and drive letters, ``..``
components, symlinks and other non-regular entries, more than ``max_files`` entries, a file
over ``max_file_bytes``, a total over ``max_total_bytes`` (declared sizes are checked before
anything is written; actual sizes are counted while writing, so a lying header does not help),
a compression ratio over ``max_ratio`` (zip bombs), encrypted entries. On refusal the partly
unpacked directory is removed; nothing is ever written outside it (every target path is
checked to lie under it after resolution).
"""

from __future__ import annotations

import os
import shutil
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath


class UnsafeArchive(ValueError):
    """The archive was refused; the message says which entry and why."""


@dataclass(frozen=True)
class Limits:
    max_files: int = 5000
    max_file_bytes: int = 64 << 20  # one notebook: nbgrader notebooks are far smaller
    max_total_bytes: int = 1 << 30  # the whole export
    max_ratio: float = 200.0  # uncompressed / compressed, for entries over 1 MiB


DEFAULT_LIMITS = Limits()
_CHUNK = 1 << 16


def decoded_name(info: zipfile.ZipInfo) -> str:
    """The entry's name. Without the UTF-8 flag Python reads the bytes as cp437 (the zip
    standard's); Windows tools write the system's code page, so the bytes are read again as
    UTF-8, then cp1252, then cp437 (``José Núñez`` not ``JosΘ N·±ez``)."""
    if info.flag_bits & 0x800:
        return info.filename
    try:
        raw = info.filename.encode("cp437")
    except UnicodeEncodeError:
        return info.filename
    for encoding in ("utf-8", "cp1252"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    return info.filename


def _member_path(info: zipfile.ZipInfo) -> PurePosixPath:
    name = decoded_name(info).replace("\\", "/")  # archives made on Windows use backslashes
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise UnsafeArchive(f"refused: entry {info.filename!r} has an absolute path")
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if ".." in parts:
        raise UnsafeArchive(f"refused: entry {info.filename!r} climbs out of the archive ('..')")
    if not parts:
        raise UnsafeArchive(f"refused: entry {info.filename!r} has no name")
    if any("\0" in p for p in parts):
        raise UnsafeArchive(f"refused: entry {info.filename!r} has a NUL byte in its name")
    return PurePosixPath(*parts)


def _check_member(info: zipfile.ZipInfo, limits: Limits) -> None:
    mode = info.external_attr >> 16
    if mode and stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
        kind = "a symlink" if stat.S_ISLNK(mode) else "not a regular file"
        raise UnsafeArchive(f"refused: entry {info.filename!r} is {kind}")
    if info.flag_bits & 0x1:
        raise UnsafeArchive(f"refused: entry {info.filename!r} is encrypted")
    if info.file_size > limits.max_file_bytes:
        raise UnsafeArchive(
            f"refused: entry {info.filename!r} declares {info.file_size:,} bytes "
            f"(limit {limits.max_file_bytes:,} per file)"
        )
    if info.file_size > (1 << 20) and info.file_size > limits.max_ratio * max(info.compress_size, 1):
        raise UnsafeArchive(
            f"refused: entry {info.filename!r} expands {info.file_size / max(info.compress_size, 1):,.0f}"
            f"-fold (limit {limits.max_ratio:.0f}): a zip bomb?"
        )


def _inside(root: Path, target: Path) -> bool:
    try:
        target.resolve().relative_to(root.resolve())
        return True
    except ValueError:
        return False


def unpack(archive: Path, dest: Path, limits: Limits = DEFAULT_LIMITS) -> Path:
    """Unpack ``archive`` into the new directory ``dest``; returns ``dest``. Raises UnsafeArchive."""
    archive, dest = Path(archive), Path(dest)
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise UnsafeArchive(f"{archive.name} is not a readable zip archive: {exc}") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > limits.max_files:
            raise UnsafeArchive(f"refused: {archive.name} has {len(infos):,} entries (limit {limits.max_files:,})")
        declared = 0
        plan = []
        for info in infos:
            path = _member_path(info)
            _check_member(info, limits)
            declared += info.file_size
            if declared > limits.max_total_bytes:
                raise UnsafeArchive(
                    f"refused: {archive.name} declares more than {limits.max_total_bytes:,} bytes in all"
                )
            plan.append((info, path))
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        try:
            _extract(zf, plan, dest, limits)
        except FileExistsError as exc:
            shutil.rmtree(dest, ignore_errors=True)
            raise UnsafeArchive(f"refused: {archive.name} holds {Path(exc.filename).name!r} twice") from None
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            shutil.rmtree(dest, ignore_errors=True)
            raise UnsafeArchive(f"refused: {archive.name} is damaged ({exc})") from None
        except BaseException:
            shutil.rmtree(dest, ignore_errors=True)
            raise
    return dest


def _extract(zf: zipfile.ZipFile, plan, dest: Path, limits: Limits) -> None:
    total = 0
    for info, path in plan:
        target = dest / path
        if not _inside(dest, target.parent if info.is_dir() else target):
            raise UnsafeArchive(f"refused: entry {info.filename!r} would land outside the work directory")
        if info.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if not _inside(dest, target.parent):  # a directory entry cannot be a link here, but be sure
            raise UnsafeArchive(f"refused: entry {info.filename!r} would land outside the work directory")
        written = 0
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "wb") as out, zf.open(info) as src:
            while chunk := src.read(_CHUNK):
                written += len(chunk)
                total += len(chunk)
                if written > info.file_size or written > limits.max_file_bytes:
                    raise UnsafeArchive(
                        f"refused: entry {info.filename!r} expands past its declared "
                        f"size ({info.file_size:,} bytes): a zip bomb?"
                    )
                if total > limits.max_total_bytes:
                    raise UnsafeArchive(f"refused: the archive expands past {limits.max_total_bytes:,} bytes")
                out.write(chunk)
