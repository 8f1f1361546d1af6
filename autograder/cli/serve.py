"""`autograder serve [PS...] --out STATE_DIR`: grade on submit, as a JupyterHub service or standalone
(the service is ``autograder.serve.service.serve``)."""

from __future__ import annotations


def add_parser(subparsers, parents) -> None:
    p = subparsers.add_parser(
        "serve",
        parents=parents,
        help="grade on submit: a long-running service (JupyterHub service or standalone)",
    )
    p.add_argument("problem_sets", nargs="*", metavar="PS", help="problem sets to accept (default: all)")
    p.add_argument(
        "--out",
        required=True,
        metavar="STATE_DIR",
        help="journal, spooled notebooks and STATE_DIR/<ps>/ results (as `grade --out`)",
    )
    p.add_argument(
        "--workers", type=int, default=2, help="warm sandboxed workers (default 2; with --scheduler the cluster's)"
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="grade on a Dask cluster: its scheduler's address (tcp://host:8786) or scheduler file",
    )
    p.add_argument("--sandbox", choices=["auto", "bwrap", "rlimits"], default="auto")
    p.add_argument("--ip", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--prefix", default="/", help="URL prefix when standalone (the Hub sets its own)")
    p.add_argument("--tokens", metavar="FILE", help='standalone: JSON {"<token>": "<user>"}')
    p.add_argument("--instructors", action="append", metavar="NAMES", help="comma-separated user names")
    p.add_argument("--instructor-group", action="append", metavar="GROUP", help="a JupyterHub group of instructors")
    p.add_argument("--rate", default="30/h", help="gradings per student and problem set, e.g. 10/h, 0 for none")
    p.add_argument("--queue-max", type=int, default=1000, help="queued submissions in all (default 1000)")
    p.add_argument("--per-student-max", type=int, default=50, help="queued submissions of one student (default 50)")
    p.add_argument(
        "--exchange", metavar="DIR", help="nbgrader exchange (root with --course-id, or the course's folder)"
    )
    p.add_argument("--exchange-poll", type=float, default=0.5, metavar="S", help="seconds between scans (0.5)")
    p.add_argument("--course-id", metavar="ID", help="nbgrader course id (exchange folder, gradebook course)")
    p.add_argument("--db", metavar="URL", help="also record results in an nbgrader gradebook")
    p.set_defaults(run=run)


def run(args) -> int:
    import asyncio

    from autograder.serve.service import serve

    asyncio.run(serve(args))
    return 0
