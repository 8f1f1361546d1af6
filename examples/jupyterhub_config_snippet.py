# JupyterHub configuration for a course graded with this kit: add to jupyterhub_config.py.
#
# The formgrader (nbgrader's grading UI) runs as a JupyterHub *service*: a shared single-user
# server owned by the course's grader account, reachable by the instructors' group. The service
# name must equal the course id in nbgrader_config.py (examples/nbgrader_config.py), and the
# grader account's home holds that nbgrader_config.py (cwd below).
#
# JUPYTERHUB_USER — do not override it in Spawner.environment. JupyterHub sets it in every
# student's server, and the released notebooks read it: the "student parameters" cell computes
# each student's personal numbers (shapes, layer sizes, ...) from os.environ["JUPYTERHUB_USER"].
# `autograder grade` derives the same parameters from the student id in the submissions folder
# (nbgrader's submitted/{student_id}/), so the hub user name must be the nbgrader student id.
# nbgrader itself takes the student id from the OS user name, or from JUPYTERHUB_USER when the
# OS user is `jovyan` (DockerSpawner / KubeSpawner images) — either way the hub name.
# A student working outside the hub sets JUPYTERHUB_USER=<their hub name> before starting Jupyter.
c = get_config()  # noqa: F821 — provided by JupyterHub's config loader

COURSE = "transformers101"
INSTRUCTORS = ["instructor1", "instructor2"]

c.Authenticator.allowed_users = set(INSTRUCTORS) | {f"grader-{COURSE}"}  # plus students / an allow-all authenticator

c.JupyterHub.load_groups = {
    # nbgrader looks for groups named formgrade-<course> (graders) and nbgrader-<course> (students)
    f"formgrade-{COURSE}": INSTRUCTORS + [f"grader-{COURSE}"],
    f"nbgrader-{COURSE}": [],  # students: add them here (or with the hub's admin panel / API)
}

c.JupyterHub.load_roles = [
    {
        "name": f"formgrade-{COURSE}",
        "groups": [f"formgrade-{COURSE}"],
        "scopes": [f"access:services!service={COURSE}", "list:services", f"read:services!service={COURSE}"],
    },
    {
        "name": f"nbgrader-{COURSE}",
        "groups": [f"nbgrader-{COURSE}"],
        "scopes": ["list:services", f"read:services!service={COURSE}"],
    },
    {
        # the assignment-list / course-list extensions in user servers query the services API
        "name": "server",
        "scopes": ["inherit"],
    },
]

c.JupyterHub.services = [
    {
        "name": COURSE,  # must equal CourseDirectory.course_id
        "url": "http://127.0.0.1:9999",
        "command": ["jupyterhub-singleuser", "--debug"],
        "user": f"grader-{COURSE}",
        "cwd": f"/home/grader-{COURSE}",  # holds nbgrader_config.py for the course
        "environment": {"JUPYTERHUB_DEFAULT_URL": "/formgrader"},
    },
]
