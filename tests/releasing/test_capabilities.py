"""The same release on every processor.

A course releases on one machine (an instructor's laptop) and grades on others (CI runners,
JupyterHub nodes, Dask workers of several processor generations). PyTorch picks its CPU kernels
by the processor's vector unit, and ``ATEN_CPU_CAPABILITY=default|avx2|avx512`` makes one machine
compute as each of them would: float32 results differ in their last bits between the three.
Every release — notebook and helper files, byte for byte — must be the committed one under each
(``autograder release --check`` builds all seven, and their translations, and compares whole folders), so a student who
fetched it is never flagged for a "modified" locked cell on a grader with another processor.
The answer key's digest is part of the notebook, so it is compared too.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CAPABILITIES = ("default", "avx2", "avx512")


def run_under(capability: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ATEN_CPU_CAPABILITY": capability}
    return subprocess.run(
        [sys.executable, "-m", "autograder", *args], capture_output=True, text=True, env=env, timeout=900
    )


@pytest.mark.parametrize("capability", CAPABILITIES)
def test_every_release_is_the_committed_one_under(capability):
    r = run_under(capability, "release", "--check")
    assert r.returncode == 0, f"under ATEN_CPU_CAPABILITY={capability}:\n{r.stdout}{r.stderr}"
    released = [line for line in r.stdout.splitlines() if not line.startswith("  ")]  # "  - catalogue: …" aside
    assert len(released) >= 7 and all(line.endswith(": up to date") for line in released), r.stdout


def test_the_capability_changes_what_torch_computes():
    """The test above means something only if the capabilities really compute differently here:
    a float32 reduction whose last bits follow the vector unit."""
    code = (
        "import torch; g = torch.Generator().manual_seed(0); "
        "x = torch.randn(4096, 64, generator=g); w = torch.randn(64, 64, generator=g); "
        "print(torch.__config__.show().count('CPU capability'), float((x @ w).sum()), float(x.exp().sum()))"
    )
    seen = set()
    for capability in CAPABILITIES:
        env = {**os.environ, "ATEN_CPU_CAPABILITY": capability}
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
        assert r.returncode == 0, r.stderr
        seen.add(r.stdout.split(" ", 1)[1])
    if len(seen) == 1:
        pytest.skip("this processor computes the same float32 bits under every capability")
