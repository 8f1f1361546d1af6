"""`autograder serve`: grade on submit, with warm sandboxed workers.

One concept per module:

- ``journal``   the durable queue (SQLite journal + spooled notebooks): what was received, claimed,
                finished; a restart re-queues unfinished work and never grades a finished one again
- ``fairqueue`` the in-memory scheduler over the journal: fewest served first across students, bounded
- ``ratelimit`` N gradings per student and problem set in a sliding window (counted in the journal)
- ``engine``    the warm workers that take jobs, grade them with ``grading.submission.grade_one``,
                store the result as ``autograder grade`` does and publish it (feedback page, ``--db``)
- ``dispatch``  ``--scheduler``: the engine's grading handed to a Dask cluster (``dask_plugin`` keeps
                its workers warm, ``warm`` is the warm-up both use)
- ``exchange``  watches nbgrader's exchange inbound folder (``nbgrader submit``)
- ``auth``      who is asking: JupyterHub OAuth (as a Hub service) or a token file (standalone)
- ``app``       the tornado HTTP app (upload, feedback pages, the instructors' queue view)
- ``service``   the service's start and stop (``autograder serve``, autograder/cli/serve.py, calls
                it); ``bench`` is ``autograder bench serve``
"""
