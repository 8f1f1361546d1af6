"""Intake: whatever a course collected (nbgrader exchange, LMS zip, flat folder) -> one notebook per student."""
