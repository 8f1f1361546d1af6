"""The warm worker that runs inside the sandbox (a "zygote").

Started once per worker (inside bubblewrap when available), it imports numpy and torch once,
then for every job forks a fresh child (``harness_child.py``: drops privileges and limits itself,
executes the student's notebook cells, calls the student's answers on the probe inputs it is
given and streams back *plain data* only). The zygote relays the child's events to the grader,
enforces wall-time limits by killing, and cleans up after the child (scratch files, stray
processes).

No verdict is reached here: the grader compares the returned data with the reference in its
own process. This file imports nothing from ``autograder`` (the sandbox cannot see it). It runs
as a script under ``python -I``, which leaves its own directory off ``sys.path``: that directory
(read-only inside the sandbox) is put first explicitly so that its siblings ``wire`` and
``harness_child`` import.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness_child as child  # noqa: E402 - imports numpy and torch once, before any fork
import wire  # noqa: E402

MAX_STREAM = 64 << 20  # bytes a child may send back in one job
OUTPUT_HEAD = 4000  # characters of a child's stdout/stderr kept for feedback
IN_PID_NAMESPACE = os.environ.get("AUTOGRADER_PID_NS") == "1" and os.getpid() <= 3  # bwrap --unshare-pid


def _kill_strays() -> None:
    """Kill every process in our pid namespace except pid 1 and ourselves (bwrap only)."""
    if not IN_PID_NAMESPACE:
        return
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in (1, me):
            try:
                os.kill(int(entry), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG) == (0, 0):
                break
        except ChildProcessError:
            break


def _phase_timeout(job: dict, phase) -> float:
    if phase is None:
        return job["cell_timeout_s"]
    kind, key = phase
    if kind == "cell":
        return job["cell_timeout_s"] + 2.0  # soft timeout first, hard kill after a grace period
    return job["question_timeouts"].get(key, job["cell_timeout_s"]) + 2.0


def run_job(job: dict, counter: int, baseline_vm: int) -> dict:
    scratch = os.path.join(job.get("scratch_root", "/tmp"), f"sub-{os.getpid()}-{counter}")
    os.makedirs(scratch, mode=0o700)
    if job.get("uid") is not None and os.getuid() == 0:
        os.chown(scratch, job["uid"], job["uid"])
    res_r, res_w = os.pipe()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(res_r)
        child.run_child(job, scratch, res_w, baseline_vm)
    os.close(res_w)
    try:
        events, reason = _relay(job, res_r, started)
    finally:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _, status, usage = os.wait4(pid, 0)  # the child's own CPU time, for the instructor
        os.close(res_r)
        _kill_strays()
    output = _read_head(os.path.join(scratch, ".output"))
    shutil.rmtree(scratch, ignore_errors=True)
    if reason is None and not (events and events[-1].get("done")):
        reason = _ended_early(status)
    return {
        "events": events,
        "reason": reason,
        "output": output,
        "seconds": round(time.monotonic() - started, 4),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 4),
    }


def _relay(job: dict, res_r: int, started: float) -> tuple[list[dict], str | None]:
    """The child's events until its pipe closes, and why it must be killed (None: it need not):
    no progress within the phase's time, too much data, or a malformed frame."""
    events, received, buffer = [], 0, b""
    phase, phase_start = None, started
    while True:
        timeout = phase_start + _phase_timeout(job, phase) - time.monotonic()
        ready, _, _ = select.select([res_r], [], [], max(timeout, 0))
        if not ready:
            where = f"{phase[0]} {phase[1]}" if phase else "start-up"
            return events, f"killed: no progress for {_phase_timeout(job, phase):g} s in {where}"
        chunk = os.read(res_r, 1 << 20)
        if not chunk:
            return events, None
        received += len(chunk)
        if received > MAX_STREAM:
            return events, "killed: returned more than 64 MiB of data"
        buffer += chunk
        while len(buffer) >= wire.HEADER.size:
            (length,) = wire.HEADER.unpack(buffer[: wire.HEADER.size])
            if length > MAX_STREAM:
                return events, "killed: the result channel carried malformed data"
            if len(buffer) < wire.HEADER.size + length:
                break
            body, buffer = buffer[wire.HEADER.size : wire.HEADER.size + length], buffer[wire.HEADER.size + length :]
            try:
                event = wire.json.loads(body)
            except ValueError:
                event = None
            if not isinstance(event, dict):
                return events, "killed: the result channel carried malformed data"
            events.append(event)
            if event.get("status") == "start":
                phase = ("cell", str(event.get("cell"))) if "cell" in event else ("question", str(event.get("q")))
                phase_start = time.monotonic()


def _ended_early(status: int) -> str:
    """Why a child that was not killed stopped before its last event: a signal, or an exit."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.valid_signals() else str(sig)
        return f"crashed: killed by {name}" + (" (CPU time limit)" if sig == signal.SIGXCPU else "")
    return f"exited with status {os.WEXITSTATUS(status)} before finishing"


def _read_head(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(OUTPUT_HEAD).decode("utf-8", "replace")
    except OSError:
        return ""


def _virtual_memory() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def main() -> None:
    # Jobs arrive on stdin; replies leave on a private duplicate of stdout, and fd 1 itself is
    # pointed at stderr so nothing printed by accident can corrupt the channel.
    reply_fd = os.dup(1)
    os.dup2(2, 1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    child.build_shell()
    baseline_vm = _virtual_memory()
    wire.write_message(
        reply_fd, {"ready": True, "pid_namespace": IN_PID_NAMESPACE, "torch": getattr(child.torch, "__version__", None)}
    )
    counter = 0
    while True:
        job = wire.read_message(0, max_bytes=256 << 20)
        if job is None:
            return
        counter += 1
        try:
            reply = run_job(job, counter, baseline_vm)
        except Exception as exc:  # infrastructure failure: report it, keep serving
            reply = {
                "events": [],
                "reason": f"infrastructure: {child.describe(exc)}",
                "output": "",
                "infrastructure": True,
            }
        wire.write_message(reply_fd, reply)


if __name__ == "__main__":
    main()
