# JupyterHub configuration: `autograder serve` as a managed service (grade on submit).
#
# The Hub starts the service with the command below (and stops it with the Hub), routes
# https://<hub>/services/autograder/ to it through configurable-http-proxy, and logs students in
# to it with its own OAuth: each student sees only their own submissions and feedback; the
# instructors (names below, or the course's formgrade-<course> group) see the queue.
#
# Students submit by either
#   * `nbgrader submit ps1` (or the Assignments tab): lands in the exchange's inbound folder,
#     which the service watches (--exchange), or
#   * the upload form at /services/autograder/, or from a script or notebook:
#       curl -H "Authorization: token $JUPYTERHUB_API_TOKEN" --data-binary @ps1_attention.ipynb \
#            "$JUPYTERHUB_URL/services/autograder/api/submit/ps1?wait=30"
# Both are one hand-in: the service files an upload in the exchange's inbound folder as
# `nbgrader submit` would, so `nbgrader collect` takes the latest of either; the feedback of a
# submission made through nbgrader is also where the Assignments tab's Fetch Feedback finds it.
#
# Every setting below can be set through the environment, so this file is used as it stands
# (tests/system/test_serve_hub.py starts a real Hub with it on loopback). Use it as the Hub's
# jupyterhub_config.py, or include it in yours with `load_subconfig("/path/to/this/file")`.
import os
import sys

c = get_config()  # noqa: F821 — provided by JupyterHub's config loader

COURSE = os.environ.get("COURSE_ID", "transformers101")
COURSE_ROOT = os.environ.get("COURSE_ROOT", f"/srv/{COURSE}")  # the course directory (autograder.toml)
STATE = os.environ.get("AUTOGRADER_STATE", os.path.join(COURSE_ROOT, "serve"))  # journal + results
EXCHANGE = os.environ.get("NBGRADER_EXCHANGE", "/srv/nbgrader/exchange")  # c.Exchange.root
INSTRUCTORS = os.environ.get("AUTOGRADER_INSTRUCTORS", "instructor1,instructor2")
PORT = int(os.environ.get("AUTOGRADER_SERVICE_PORT", "10101"))
RATE = os.environ.get("AUTOGRADER_RATE", "10/h")  # gradings per student and problem set
PROBLEM_SETS = os.environ.get("AUTOGRADER_PROBLEM_SETS", "").split()  # default: all of the course's
# a Dask cluster to grade on (tcp://scheduler:8786 or a scheduler file); empty: on this node
SCHEDULER = os.environ.get("AUTOGRADER_SCHEDULER", "")
EXTRA = os.environ.get("AUTOGRADER_SERVE_ARGS", "").split()  # e.g. --db sqlite:////srv/course/gradebook.db

c.JupyterHub.services = [
    {
        "name": "autograder",
        "url": f"http://127.0.0.1:{PORT}",
        "command": [
            sys.executable,
            "-m",
            "autograder",
            "serve",
            *PROBLEM_SETS,
            "--out",
            STATE,
            "--exchange",
            EXCHANGE,
            "--course-id",
            COURSE,
            "--rate",
            RATE,
            "--instructors",
            INSTRUCTORS,
            "--instructor-group",
            f"formgrade-{COURSE}",
            *(["--scheduler", SCHEDULER] if SCHEDULER else []),
            *EXTRA,
        ],
        "cwd": COURSE_ROOT,
        "environment": {"AUTOGRADER_COURSE": COURSE_ROOT},
        "oauth_no_confirm": True,  # students are not asked "authorize autograder?" on first visit
        # the user model the service receives carries the user's groups (for --instructor-group)
        "oauth_client_allowed_scopes": ["read:users:groups!user"],
        "display": True,
    },
]

c.JupyterHub.load_roles = [
    # every user may reach the service (it decides what each one sees); JupyterHub's default
    # `user` role is ["self"], which does not include access to services
    {"name": "user", "scopes": ["self", "access:services!service=autograder"]},
]
c.JupyterHub.load_groups = {f"formgrade-{COURSE}": {"users": INSTRUCTORS.split(",")}}
