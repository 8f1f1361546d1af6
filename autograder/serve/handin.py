"""One hand-in of record: the service's uploads filed in nbgrader's exchange, and feedback
where nbgrader's Assignments tab fetches it (see :class:`HandIn`)."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import secrets
import shutil
from pathlib import Path

from autograder.i18n import N_

UPLOAD_MARK = "upload-"  # starts the random part of the folder name of a submission the service filed


def route(origin: str | None) -> str:
    """How a journaled submission came: through ``nbgrader submit`` or the service's upload."""
    name = (origin or "").removeprefix("exchange:")
    if (origin or "").startswith("exchange:") and not name.split("+")[-1].startswith(UPLOAD_MARK):
        return "nbgrader submit"
    return N_("the service's upload")  # said in the page's language (autograder.i18n)


class HandIn:
    """One hand-in of record, and feedback where nbgrader's Assignments tab fetches it.

    An upload to the service is filed in the exchange's inbound folder exactly as ``nbgrader
    submit`` files it (``<student>+<ps>+<timestamp>+<random>/`` with the notebook,
    ``submission_secret.txt`` and, last, ``timestamp.txt``), so ``nbgrader collect`` and
    ``autograder grade`` see every route, and the latest submission counts whichever way it came.
    Each graded exchange submission's feedback page is written to ``<course>/feedback/<hash>.html``,
    the file ``nbgrader fetch_feedback`` (the tab's *Fetch Feedback*) looks for: the md5 of the
    submission's secret and the notebook's name.
    """

    def __init__(self, inbound: Path):
        self.inbound = Path(inbound)
        self.feedback = self.inbound.parent / "feedback"

    def ensure_feedback_folder(self) -> None:
        """``<course>/feedback/`` (0711, as ``release_feedback`` makes it: a student reads only the
        file they can name): made at start-up too, so *Fetch Feedback* before the first result
        finds nothing rather than failing with "Assignment not found"."""
        self.feedback.mkdir(exist_ok=True)
        with contextlib.suppress(OSError):
            os.chmod(self.feedback, 0o711)

    def file(self, student: str, ps: str, notebook_name: str, data: bytes, received: float) -> tuple[str, Path, str]:
        """Write the submission's folder, all but ``timestamp.txt`` (see :meth:`complete`):
        (the journal's origin, the folder, nbgrader's timestamp)."""
        from autograder.serve.journal import nbgrader_timestamp

        stamp = nbgrader_timestamp(received)
        random = UPLOAD_MARK + base64.urlsafe_b64encode(os.urandom(9)).decode("ascii")
        folder = self.inbound / f"{student}+{ps}+{stamp}+{random}"
        folder.mkdir(mode=0o777)
        try:
            (folder / notebook_name).write_bytes(data)
            (folder / "submission_secret.txt").write_text(secrets.token_hex(64), encoding="utf-8")
        except BaseException:
            self.withdraw(folder)
            raise
        return f"exchange:{folder.name}", folder, stamp

    @staticmethod
    def withdraw(folder: Path) -> None:
        """A folder filed for a submission that was not taken after all: removed."""
        shutil.rmtree(folder, ignore_errors=True)

    @staticmethod
    def complete(folder: Path, stamp: str) -> None:
        """``timestamp.txt`` last, as ``nbgrader submit`` writes it: the folder is complete."""
        (folder / "timestamp.txt").write_text(stamp, encoding="utf-8")
        with contextlib.suppress(OSError):
            os.chmod(folder, 0o777)  # as nbgrader leaves it: the instructor may delete it later

    def publish_feedback(self, origin: str | None, notebook_name: str, page: str) -> Path | None:
        """The page where ``nbgrader fetch_feedback`` finds it; None for a submission that did
        not come through the exchange (or whose folder is gone)."""
        if not origin or not origin.startswith("exchange:"):
            return None
        try:
            secret = (self.inbound / origin.split(":", 1)[1] / "submission_secret.txt").read_text(encoding="utf-8")
        except OSError:
            return None
        digest = hashlib.md5(secret.encode() + Path(notebook_name).stem.encode()).hexdigest()
        self.ensure_feedback_folder()
        path = self.feedback / f"{digest}.html"
        path.write_text(page, encoding="utf-8")
        with contextlib.suppress(OSError):
            os.chmod(path, 0o644)
        return path
