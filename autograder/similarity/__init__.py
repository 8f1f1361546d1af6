"""Evidence of copying for the instructor: similar solution code, and personal answers computed
for another student's parameters. Never a score change.

* :mod:`autograder.similarity.code` — the students' own code (release and locked cells left
  out), normalised, fingerprinted by winnowing, compared pair by pair; clusters of copies.
* :mod:`autograder.similarity.personal` — what each personal question returned, matched
  against the reference for every classmate's parameters.
* :mod:`autograder.similarity.page` — the HTML report (``OUT/similarity/index.html``).
* :mod:`autograder.similarity.evidence` — the evidence of one graded cohort (what
  ``autograder similarity PS OUT`` writes) and the summary that ``autograder report`` shows.
"""
