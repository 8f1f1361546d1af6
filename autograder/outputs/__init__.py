"""Outputs of a graded cohort: exports (table, pages, CSV, JUnit), Canvas, nbgrader's gradebook,
the report, Gradescope.
"""
