"""The child side of the sandbox harness: what runs one student's notebook.

The warm worker (``harness.py``, the zygote) imports this module once, so numpy, torch and the
IPython shell are loaded before any fork; for every job it forks a child that calls
:func:`run_child`. The child closes every descriptor but its result pipe, drops to an
unprivileged uid under rlimits, executes the notebook's cells as a Jupyter kernel would, calls
the student's answers on the probe inputs and streams back *plain data* only (``wire.py``): what
each call returned and, when a call changed one of its arguments in place, which one
(``argument_changes.py``; the grader reaches the verdict).

Like the harness, this file runs inside the sandbox: standard library, numpy and (optional)
torch only, nothing from ``autograder``.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import os
import re
import resource
import signal
import sys
import time

import argument_changes
import numpy as np
import wire

try:  # torch is optional for the harness itself; problem sets that use it need it installed
    import torch

    torch.set_num_threads(int(os.environ.get("AUTOGRADER_THREADS", "1")))
    torch.softmax(torch.ones(2, 2) @ torch.ones(2, 2), -1)  # lazy init happens once, here
except ImportError:  # pragma: no cover
    torch = None

MAX_VALUE_BYTES = 16 << 20  # one returned value, before encoding


class SoftTimeout(BaseException):
    """Raised in the child when a cell or question runs past its time."""


class _CappedStream(io.TextIOBase):
    """sys.stdout/sys.stderr for student code: keeps the first `cap` characters, drops the rest,
    and never fails — printing a gigabyte costs time, not the question."""

    def __init__(self, fd: int, cap: int = 1 << 20):
        self.fd, self.left = fd, cap

    def writable(self):
        return True

    def write(self, text):
        text = str(text)
        if self.left > 0:
            chunk = text[: self.left]
            self.left -= len(chunk)
            try:
                os.write(self.fd, chunk.encode("utf-8", "replace"))
            except OSError:
                self.left = 0
        return len(text)


def _interactive_shell():
    """IPython's own shell, the code path a Jupyter kernel runs a cell through: input
    transformers, line and cell magics, ``display``, ``get_ipython()``, ``_``/``Out``, ``!``
    lines. Built once in the warm worker, never used there: each forked child inherits a
    pristine copy and runs one student's cells in it. No history database (no thread, no file)."""
    try:
        from IPython.core.interactiveshell import InteractiveShell
        from traitlets.config import Config
    except ImportError:  # pragma: no cover - IPython ships with ipykernel, a dependency
        return None

    class KernelLikeShell(InteractiveShell):
        def enable_gui(self, gui=None):
            """As ipykernel's shell for `%matplotlib inline`: no GUI event loop to start."""

    config = Config()
    config.HistoryManager.enabled = False
    config.InteractiveShell.colors = "nocolor"
    config.InteractiveShell.xmode = "Plain"
    return KernelLikeShell.instance(config=config)


SHELL = None  # set by build_shell(); None when IPython is missing (plain exec, no magics)
_PLAIN_NAMESPACE = {"__name__": "__main__", "__builtins__": builtins}


def build_shell() -> None:
    """Build the IPython shell in the warm worker, before any fork (see _interactive_shell)."""
    global SHELL
    SHELL = _interactive_shell()


def describe(exc: BaseException) -> str:
    """An exception as "Type: message", at most 500 characters, whatever its __str__ does."""
    if isinstance(exc, MemoryError):
        return "MemoryError: out of memory (the sandbox's memory limit was reached)"
    try:
        text = f"{type(exc).__name__}: {exc}"
    except BaseException:  # a hostile __str__
        text = type(exc).__name__ if isinstance(type(exc).__name__, str) else "Exception"
    return text[:500]


# IPython's execution number of each cell run -> the job's cell index (a cell's code carries the
# number in its file name, ``<ipython-input-N-…>``; plain exec names it ``<cell index>``)
_CELL_OF_RUN: dict[int, int] = {}
_CELL_FILE = re.compile(r"<(?:ipython-input-(\d+)-[0-9a-f]+|cell (\d+))>")
MAX_TRACE = 8


def cell_frames(exc: BaseException) -> list[list]:
    """Where an exception passed through the notebook's own cells: [cell index, function, line]
    for each frame whose code a cell defined, outermost first (the innermost MAX_TRACE). Library
    frames are left out; the grader tells the student's cells from the locked ones."""
    frames = []
    try:
        tb = exc.__traceback__
        while tb is not None:
            code = tb.tb_frame.f_code
            found = _CELL_FILE.fullmatch(code.co_filename) if isinstance(code.co_filename, str) else None
            if found:
                cell = _CELL_OF_RUN.get(int(found.group(1))) if found.group(1) else int(found.group(2))
                if cell is not None:
                    name = getattr(code, "co_qualname", code.co_name)
                    frames.append([cell, str(name)[:80], int(tb.tb_lineno or 0)])
            tb = tb.tb_next
    except BaseException:  # a traceback that cannot be read says nothing
        return []
    return frames[-MAX_TRACE:]


def _to_plain(value):
    if torch is not None and isinstance(value, torch.Tensor):
        value = value.detach().cpu()
        if value.dtype == torch.bfloat16:
            value = value.float()
        return value.numpy()
    if isinstance(value, (list, tuple)):
        return [_to_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_plain(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


def _to_args(args, args_as):
    if args_as == "torch" and torch is not None:
        return [torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in args]
    return list(args)


def _function(spec: dict):
    """A probe argument that is a function: instructor source sent as data, compiled here."""
    namespace = {"np": np, "torch": torch, "math": __import__("math")}
    exec(compile(spec["$fn"], f"<probe {spec['name']}>", "exec"), namespace)
    return namespace[spec["name"]]


def _alarm(seconds: float) -> None:
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.0))


def _cpu_seconds() -> float:
    """CPU time of this process, every thread included (what RLIMIT_CPU and ITIMER_PROF count)."""
    user, system = os.times()[:2]
    return user + system


def _cpu_alarm(seconds: float) -> None:
    signal.setitimer(signal.ITIMER_PROF, max(seconds, 0.0))


def _on_alarm(signum, frame):
    raise SoftTimeout("time limit reached")


def _limit_self(job: dict, baseline_vm: int) -> None:
    lim = job["limits"]
    os.setsid()
    mem = baseline_vm + lim["memory_mb"] * (1 << 20)
    cpu = int(job.get("cpu_s") or lim["cpu_s"])  # a problem set that trains models asks for more
    for name, value in (
        ("RLIMIT_AS", mem),
        ("RLIMIT_FSIZE", lim["fsize_mb"] << 20),
        ("RLIMIT_CPU", cpu),
        ("RLIMIT_CORE", 0),
        ("RLIMIT_NOFILE", 256),
    ):
        # CPU: SIGXCPU at the limit (reported as such), SIGKILL 5 s later if it is ignored; with
        # soft == hard the kernel sends SIGKILL at once and the cause is lost.
        hard = value + 5 if name == "RLIMIT_CPU" else value
        resource.setrlimit(getattr(resource, name), (value, hard))
    uid = job.get("uid")
    if uid is not None and os.getuid() == 0:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    resource.setrlimit(resource.RLIMIT_NPROC, (lim["nproc"], lim["nproc"]))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.signal(signal.SIGPROF, _on_alarm)


def _enter_sandbox(job: dict, scratch: str, res_w: int, baseline_vm: int) -> None:
    """Everything the child does before student code runs; a failure here ends the child."""
    try:
        # Only the result pipe may stay open: the zygote's own channel to the grader (and any
        # other descriptor) must be out of the student's reach.
        os.closerange(3, res_w)
        os.closerange(res_w + 1, 65536)
        out = os.open(os.path.join(scratch, ".output"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(out)
        os.close(null)
        os.chdir(scratch)
        os.environ["HOME"] = scratch
        os.environ["TMPDIR"] = scratch
        for key, value in (job.get("env") or {}).items():
            os.environ[str(key)] = str(value)
        _limit_self(job, baseline_vm)
        sys.stdout, sys.stderr = _CappedStream(1), _CappedStream(2)
    except BaseException as exc:  # pragma: no cover - setup failure is infrastructure
        wire.write_message(res_w, {"fatal": describe(exc)})
        os._exit(3)


def run_child(job: dict, scratch: str, res_w: int, baseline_vm: int) -> None:
    """Executes in the forked child; never returns."""
    _enter_sandbox(job, scratch, res_w, baseline_vm)
    me = os.getpid()

    def send(message):
        if os.getpid() != me:  # a process the student forked is unwinding through the harness
            os._exit(0)
        wire.write_message(res_w, message)

    sys.path.insert(0, "")  # as in a kernel: modules written into the working dir import
    _run_cells(job, send)
    namespace = SHELL.user_ns if SHELL is not None else _PLAIN_NAMESPACE
    trap = SHELL.builtin_trap if SHELL is not None else contextlib.nullcontext()
    with trap:  # answers run as if called from a cell: `display`, `get_ipython` in builtins
        for q in job["questions"]:
            send({"q": q["id"], "status": "start"})
            send(_answer_question(q, namespace))
    send({"done": True})
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    os._exit(0)


def _run_cells(job: dict, send) -> None:
    """The notebook's cells in order (but the skipped ones), each reported as it starts and ends."""
    skip = set(job.get("skip_cells", ()))
    for index, source in enumerate(job["cells"]):
        if index in skip:
            continue
        send({"cell": index, "status": "start"})
        status, error = "ok", None
        try:
            _alarm(job["cell_timeout_s"])
            failure = _run_cell(source, index)
        except BaseException as exc:  # SoftTimeout, or raised outside the student's code
            failure = exc
        finally:
            _alarm(0)
        if isinstance(failure, SoftTimeout):
            status, error = "timeout", f"the cell ran for more than {job['cell_timeout_s']:g} s"
        elif failure is not None:
            status, error = "error", describe(failure)
        send({"cell": index, "status": status, "error": error})


def _run_cell(source: str, index: int) -> BaseException | None:
    """Run one cell as a kernel would; the exception it ended with, if any (SystemExit
    included: a kernel survives it and reports the cell as failed)."""
    if SHELL is None:
        try:
            exec(compile(source, f"<cell {index}>", "exec"), _PLAIN_NAMESPACE)
        except BaseException as exc:
            return exc
        return None
    _CELL_OF_RUN[SHELL.execution_count] = index
    result = SHELL.run_cell(source, store_history=True)
    return result.error_before_exec or result.error_in_exec


_UNSET = object()


def _answer_question(q: dict, namespace: dict) -> dict:
    rebind = q.get("rebind") or {}
    if rebind:  # re-asked with another answer's name bound to a reference function (root cause)
        saved = {n: namespace.get(n, _UNSET) for n in rebind}
        try:
            namespace.update({n: _function(spec) for n, spec in rebind.items()})
            return _answer_question(dict(q, rebind=None), namespace)
        finally:
            for n, value in saved.items():
                if value is _UNSET:
                    namespace.pop(n, None)
                else:
                    namespace[n] = value
    name = q["answer"]
    if name not in namespace:
        return {"q": q["id"], "missing": f"`{name}` is not defined in the notebook"}
    target = namespace[name]
    if not q["call"]:
        return {"q": q["id"], "results": [_encoded(lambda: target)]}
    if not callable(target):
        return {"q": q["id"], "missing": f"`{name}` is not a function"}
    results = []
    # The soft limit runs on the process's CPU clock where the question states one (training:
    # the same verdict on a quiet and a saturated machine), else on the wall clock.
    cpu_s = q.get("cpu_s")
    clock, arm = (_cpu_seconds, _cpu_alarm) if cpu_s else (time.monotonic, _alarm)
    limit = float(cpu_s or q["timeout_s"])
    over = (
        f"used more than {limit:g} CPU-seconds (this question's limit)" if cpu_s else f"ran past the {limit:g} s limit"
    )
    deadline = clock() + limit
    for probe in q["probes"]:
        remaining = deadline - clock()
        if remaining <= 0:
            results.append({"timeout": over})
            continue
        args = _to_args(
            [_function(a) if isinstance(a, dict) and "$fn" in a else wire.decode_value(a) for a in probe["args"]],
            q["args_as"],
        )
        kwargs = wire.decode_value(probe.get("kwargs") or {"$dict": []})
        before = argument_changes.snapshot_call(args, kwargs)  # the in-place contract: compared after the call
        try:
            arm(remaining)
            results.append(_encoded(lambda: target(*args, **kwargs)))
        except SoftTimeout:
            results.append({"timeout": over})
            continue
        finally:
            arm(0)
        if "value" in results[-1]:
            changed = argument_changes.changed_argument(before, target, len(args))
            if changed is not None:
                results[-1]["modified"] = changed
    return {"q": q["id"], "results": results}


def _nbytes(value) -> int:
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (list, tuple)):
        return sum(_nbytes(v) for v in value) + 8 * len(value)
    if isinstance(value, dict):
        return sum(_nbytes(v) for v in value.values()) + 8 * len(value)
    if isinstance(value, str):
        return len(value)
    return 8


def _encoded(produce) -> dict:
    try:
        value = produce()
    except SoftTimeout:
        raise
    except BaseException as exc:
        frames = cell_frames(exc)
        return {"error": describe(exc), **({"trace": frames} if frames else {})}
    try:
        plain = _to_plain(value)
        size = _nbytes(plain)
        if size > MAX_VALUE_BYTES:
            return {
                "error": f"the returned value holds {size / 2**20:.0f} MiB; the limit is "
                f"{MAX_VALUE_BYTES >> 20} MiB (is it the right shape?)"
            }
        return {"value": wire.encode_value(plain)}
    except SoftTimeout:
        raise
    except BaseException as exc:
        return {"error": f"the returned value is not plain data ({describe(exc)})"}
