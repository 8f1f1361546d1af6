"""Warm sandboxed workers, seen from the trusted grader.

Each :class:`Worker` is one long-lived harness process (see ``harness.py``) started inside
bubblewrap when it is usable: no network, its own pid/ipc/uts namespaces, a read-only view of
the system and of the Python environment only (not the course tree, the solutions, the
gradebook or the grader's code), a private /tmp, a scrubbed environment and capabilities cut
down to what the harness needs to drop each child to an unprivileged uid. Where bubblewrap is
not usable the worker runs with rlimits and a scrubbed environment only, and says so
(``sandbox_mode`` is written into every result).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from autograder.sandbox import wire

HARNESS_DIR = Path(__file__).resolve().parent
SANDBOX_HARNESS = "/opt/autograder-harness"
BASE_UID = 61000  # worker i's children run as uid BASE_UID + i (when the grader is root)


@dataclass
class Limits:
    memory_mb: int = 2048  # address space on top of the warm worker's own
    fsize_mb: int = 64
    cpu_s: int = 300
    nproc: int = 64  # processes + threads for the child's uid


@dataclass
class SandboxConfig:
    mode: str = "auto"  # "auto" | "bwrap" | "rlimits"
    limits: Limits = field(default_factory=Limits)
    threads: int = 1


_BWRAP_OK: bool | None = None


def bwrap_usable() -> bool:
    global _BWRAP_OK
    if _BWRAP_OK is None:
        exe = shutil.which("bwrap")
        _BWRAP_OK = (
            bool(exe)
            and subprocess.run(
                [exe, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "true"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            ).returncode
            == 0
        )
    return _BWRAP_OK


def resolve_mode(mode: str) -> str:
    if mode == "auto":
        return "bwrap" if bwrap_usable() else "rlimits"
    if mode == "bwrap" and not bwrap_usable():
        raise RuntimeError("bubblewrap was requested but is not usable here (apt-get install bubblewrap)")
    return mode


def _sandbox_env(threads: int) -> dict[str, str]:
    # PyTorch's CPU kernels as the grader's own (``ATEN_CPU_CAPABILITY``, where a course pins it
    # or a test computes as another processor would): the student's code and the reference then
    # run on the same kernels
    pinned = {k: os.environ[k] for k in ("ATEN_CPU_CAPABILITY",) if os.environ.get(k)}
    return {
        **pinned,
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "OMP_NUM_THREADS": str(threads),
        "MKL_NUM_THREADS": str(threads),
        "AUTOGRADER_THREADS": str(threads),
        "MPLBACKEND": "Agg",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
    }


def kit_inside(roots: list[str]) -> list[str]:
    """The kit's own packages (``autograder``: grader and shipped problem sets; ``solutions``: the
    reference) where they lie inside a Python tree the sandbox binds — a regular install puts
    them in site-packages. The harness needs neither: it is bound on its own."""
    import importlib.util

    found = []
    for package in ("autograder", "solutions"):
        spec = importlib.util.find_spec(package)
        for location in (spec.submodule_search_locations or []) if spec else []:
            real = os.path.realpath(location)
            if any(real == r or real.startswith(r + os.sep) for r in roots):
                found.append(real)
    return sorted(set(found))


def bwrap_command(threads: int) -> list[str]:
    python_roots = sorted({os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)})
    # /tmp, /proc and /dev first: bwrap mounts in order, so a Python tree that lives under /tmp
    # (a venv in a scratch clone) must be bound after the tmpfs, not hidden by it.
    cmd = ["bwrap", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--ro-bind", "/usr", "/usr"]
    for path in ("/bin", "/sbin", "/lib", "/lib64", "/lib32"):
        if os.path.islink(path):
            cmd += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            cmd += ["--ro-bind", path, path]
    for path in (
        "/etc/ld.so.cache",
        "/etc/ld.so.conf",
        "/etc/ld.so.conf.d",
        "/etc/localtime",
        "/etc/passwd",
        "/etc/group",
        "/etc/nsswitch.conf",
        "/etc/fonts",
    ):
        cmd += ["--ro-bind-try", path, path]
    for root in python_roots:
        if root.startswith("/usr/"):
            continue
        # Parents of the bound Python trees must be traversable by the unprivileged child
        # (e.g. /root is 0700 on the host); inside the sandbox they are fresh empty dirs.
        parents = [str(p) for p in reversed(Path(root).parents) if str(p) != "/"]
        for parent in parents:
            cmd += ["--perms", "0755", "--dir", parent]
        cmd += ["--ro-bind", root, root]
    for hidden in kit_inside(python_roots):  # an installed kit: its references and problem sets
        cmd += ["--tmpfs", hidden]  # sit in site-packages, bound above; hide them
    cmd += [
        "--ro-bind",
        str(HARNESS_DIR),
        SANDBOX_HARNESS,
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
    ]
    if os.geteuid() == 0:
        cmd += ["--cap-drop", "ALL"]
        for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_KILL", "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER"):
            cmd += ["--cap-add", cap]
    for key, value in {**_sandbox_env(threads), "AUTOGRADER_PID_NS": "1"}.items():
        cmd += ["--setenv", key, value]
    cmd += ["--chdir", "/tmp", sandbox_python(), "-I", f"{SANDBOX_HARNESS}/harness.py"]
    return cmd


def sandbox_python() -> str:
    """The interpreter by a path that exists inside the sandbox: the directories resolved
    (a venv reached through a symlink, ``venv-link/bin/python``, is bound at its real path),
    the file name kept (resolving ``bin/python`` itself would leave the venv)."""
    return os.path.join(
        os.path.realpath(os.path.dirname(os.path.abspath(sys.executable))), os.path.basename(sys.executable)
    )


class WorkerDied(RuntimeError):
    pass


class Worker:
    """One warm harness process. ``run(job)`` is serialised by a lock; a dead worker restarts."""

    def __init__(self, index: int, config: SandboxConfig):
        self.index = index
        self.config = config
        self.mode = resolve_mode(config.mode)
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._scratch: str | None = None
        self._stderr = None
        self.restarts = 0

    # -- life cycle
    def start(self) -> None:
        if self.mode == "bwrap":
            cmd, env, cwd = bwrap_command(self.config.threads), None, "/"
        else:
            self._scratch = tempfile.mkdtemp(prefix="autograder-worker-")
            os.chmod(self._scratch, 0o711)
            cmd = [sys.executable, "-I", str(HARNESS_DIR / "harness.py")]
            env, cwd = _sandbox_env(self.config.threads), self._scratch
        # The worker's stderr goes to a file read only when it fails to start: a worker that
        # cannot start says why (the sandbox's own error, a missing module) instead of dying mute.
        self._stderr = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        try:
            hello = self._read()
        except (WorkerDied, wire.WireError) as exc:
            hello = exc
        if not (isinstance(hello, dict) and hello.get("ready")):
            self._proc.kill()
            self._proc.wait()
            raise WorkerDied(
                f"the sandbox worker ({self.mode}) did not start: {self._stderr_tail()}\ncommand: {' '.join(cmd)}"
            )
        self._stderr.truncate(0)  # from here on it only collects noise; keep it small

    def _stderr_tail(self, limit: int = 2000) -> str:
        try:
            self._stderr.seek(0)
            text = self._stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return "(its error output could not be read)"
        return text[-limit:] or "(it wrote nothing to stderr)"

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._scratch:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _read(self):
        msg = wire.read_message(self._proc.stdout.fileno(), max_bytes=512 << 20)
        if msg is None:
            raise WorkerDied(f"sandbox worker exited: {self._stderr_tail()}")
        return msg

    # -- work
    def run(self, job: dict) -> dict:
        job = dict(job)
        job["limits"] = vars(self.config.limits)
        if os.geteuid() == 0:
            job["uid"] = BASE_UID + self.index
        if self._scratch:
            job["scratch_root"] = self._scratch
        with self._lock:
            for attempt in range(2):
                try:
                    if self._proc is None or self._proc.poll() is not None:
                        if self._proc is not None:
                            self.restarts += 1
                        self.stop()
                        self.start()
                    self._proc.stdin.write(wire.dumps(job))
                    self._proc.stdin.flush()
                    reply = self._read()
                    if not (isinstance(reply, dict) and isinstance(reply.get("events"), list)):
                        raise WorkerDied("the worker's channel is out of step")  # restart it
                    return reply
                except (WorkerDied, BrokenPipeError, OSError, wire.WireError):
                    self.stop()
                    if attempt:
                        raise
        raise WorkerDied("unreachable")
