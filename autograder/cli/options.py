"""Options shared by the subcommands that grade (``grade``, ``demo``)."""

from __future__ import annotations

import argparse


def add_grading_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=int, default=2, help="parallel sandboxed workers (default 2)")
    p.add_argument(
        "--sandbox",
        choices=["auto", "bwrap", "rlimits"],
        default="auto",
        help="bubblewrap when usable (auto), or rlimits only (weaker)",
    )


def sandbox_config(args):
    from autograder.sandbox.pool import SandboxConfig

    return SandboxConfig(mode=args.sandbox)
