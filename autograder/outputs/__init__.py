"""Outputs of a graded cohort: exports (table, CSV, JUnit), the student feedback pages, Canvas,
nbgrader's gradebook, the report, Gradescope; the pages render from autograder/templates/pages/
(templating.py).
"""
