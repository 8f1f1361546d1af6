"""Grading: a cohort of submissions, each run in a warm sandboxed worker, judged, stored."""
