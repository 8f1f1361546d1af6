"""A real Dask cluster on this machine: one ``dask scheduler`` and ``dask worker`` processes.

What `autograder bench serve --scheduler local`, `autograder bench scale` and the tests start:
the same command-line programs a course runs on its own machines (no ``LocalCluster`` inside the
grader's process), each worker its own process without a nanny, so killing one takes it out of
the cluster as a crashed machine would.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def dask_command(*args: str) -> list[str]:
    exe = Path(sys.executable).parent / "dask"  # the console script beside this interpreter
    return [str(exe), *args] if exe.is_file() else [sys.executable, "-m", "dask", *args]


class DaskProcesses:
    def __init__(self, folder: Path, workers: int = 2, threads: int = 1):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.n_workers, self.threads = workers, threads
        self.scheduler_file = self.folder / "scheduler.json"
        self.scheduler: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []
        self._logs: list = []

    @property
    def address(self) -> str:
        return json.loads(self.scheduler_file.read_text())["address"]

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen:
        log = open(self.folder / f"{name}.log", "ab")
        self._logs.append(log)
        env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        return subprocess.Popen(
            dask_command(*args), stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )

    def start(self, timeout: float = 120.0) -> DaskProcesses:
        self.scheduler_file.unlink(missing_ok=True)
        self.scheduler = self._spawn(
            "scheduler",
            [
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(self.scheduler_file),
            ],
        )
        deadline = time.monotonic() + timeout
        while not self.scheduler_file.is_file():
            self._check(deadline, self.scheduler, "scheduler")
        for i in range(self.n_workers):
            self.workers.append(
                self._spawn(
                    f"worker-{i}",
                    [
                        "worker",
                        "--scheduler-file",
                        str(self.scheduler_file),
                        "--nthreads",
                        str(self.threads),
                        "--no-nanny",
                        "--no-dashboard",
                        "--name",
                        f"w{i}",
                        "--memory-limit",
                        "0",
                        "--local-directory",
                        str(self.folder / f"worker-{i}"),
                    ],
                )
            )
        self.wait_for_workers(self.n_workers, deadline)
        return self

    def _check(self, deadline: float, proc: subprocess.Popen, name: str) -> None:
        if proc.poll() is not None or time.monotonic() > deadline:
            log = (self.folder / f"{name}.log").read_text(errors="replace")[-3000:]
            self.stop()
            raise RuntimeError(f"dask {name} did not start:\n{log}")
        time.sleep(0.2)

    def wait_for_workers(self, n: int, deadline: float) -> None:
        from distributed import Client

        with Client(self.address, timeout=30) as client:
            while len(client.nthreads()) < n:
                for i, proc in enumerate(self.workers):
                    if proc.poll() is not None:
                        self._check(0, proc, f"worker-{i}")
                self._check(deadline, self.scheduler, "scheduler")

    def pids(self) -> dict[str, int]:
        """Role -> process id, for peak-memory reports."""
        out = {"dask scheduler": self.scheduler.pid} if self.scheduler else {}
        out.update({f"dask worker {i}": p.pid for i, p in enumerate(self.workers)})
        return out

    def kill_worker(self, index: int) -> None:
        """SIGKILL a worker and everything it started (its sandboxed workers): a machine lost."""
        proc = self.workers[index]
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def stop(self) -> None:
        for proc in [*self.workers, self.scheduler]:
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in [*self.workers, self.scheduler]:
            if proc is None:
                continue
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        for log in self._logs:
            log.close()
        self._logs.clear()

    def __enter__(self) -> DaskProcesses:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
