# nbgrader course configuration for a course graded with this kit (a course started with
# `autograder init DIR` gets its own nbgrader_config.py, written for it).
# Put it in the grader account's home (the formgrader service's cwd, see
# jupyterhub_config_snippet.py) or the course root; students need only course_id and
# Exchange.root (e.g. in /etc/jupyter/nbgrader_config.py).
#
# The workflow, all on nbgrader's exchange:
#   instructor  nbgrader release_assignment ps1_attention     (from the kit's committed release/)
#   students    nbgrader fetch_assignment / submit            (or the Assignments tab in Jupyter)
#   instructor  nbgrader collect ps1_attention                -> submitted/{student}/ps1_attention/
#               autograder grade ps1 $COURSE/submitted --out graded --db sqlite:///$COURSE/gradebook.db
#               autograder report ps1 graded                  -> graded/report/index.html
#               formgrader: hand-grade the written answers (the gradebook already has auto-scores)
#   feedback    copy graded/feedback/<student>.html to feedback/<student>/ps1_attention/ps1_attention.html
#               (beside that submission's timestamp.txt and submission_secret.txt), then
#               nbgrader release_feedback ps1_attention; students: nbgrader fetch_feedback.
#
# Do not run `nbgrader autograde`/`generate_feedback` on submissions: they execute the student's
# notebook (tests included) in one process, which is what this kit's sandboxed grader replaces.
import os
import sys

KIT = os.environ.get("AUTOGRADER_KIT", "/srv/transformer-autograder")  # a checkout of this kit
try:
    from autograder.releasing.nbgrader_safety import refuse_generate_assignment, release_ignore
except ImportError:  # nbgrader runs where the kit is not installed: use the checkout's own code
    sys.path.insert(0, KIT)
    from autograder.releasing.nbgrader_safety import refuse_generate_assignment, release_ignore

c = get_config()  # noqa: F821 — provided by nbgrader's (traitlets') config loader

COURSE_ID = "transformers101"
COURSE_ROOT = os.environ.get("COURSE_ROOT", f"/srv/nbgrader/{COURSE_ID}")

c.CourseDirectory.course_id = COURSE_ID
c.CourseDirectory.root = COURSE_ROOT
# Student notebooks: the kit's release/<ps>/, built by `autograder release` through nbgrader's own
# generate_assignment with the visible checks filled in (so never run generate_assignment on the
# kit's problem sets (assignments/): its check cells are placeholders until `autograder release`).
c.CourseDirectory.release_directory = os.path.join(KIT, "release")
# The gradebook formgrader shows; pass the same URL to `autograder grade --db`.
# PostgreSQL works as well: "postgresql+psycopg2://grader@dbhost/transformers101".
c.CourseDirectory.db_url = f"sqlite:///{os.path.join(COURSE_ROOT, 'gradebook.db')}"

# release_assignment copies release/<ps>/ minus these: the notebook and formula_check.py (which it
# imports) reach the exchange; the problem sets' modules, caches and checkpoints never do.
c.CourseDirectory.ignore = release_ignore(KIT)

c.Exchange.root = os.environ.get(
    "NBGRADER_EXCHANGE", "/srv/nbgrader/exchange"
)  # shared by instructors and students (mode 0777 + sticky)
c.Exchange.timezone = "UTC"
c.ExchangeSubmit.strict = True  # refuse a submission that lacks the released notebook


# `nbgrader generate_assignment` (or formgrader's "Generate" button) must not write the kit's
# release/: it would replace the filled-in visible checks with placeholders and copy the problem
# set's modules (hidden probes, references, known mistakes) beside the notebook, to be handed out.
# So it is refused, with the command to run instead, before nbgrader touches anything.
refuse_generate_assignment(os.path.join(KIT, "release"), KIT)
