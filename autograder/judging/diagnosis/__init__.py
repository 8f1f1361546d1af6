"""Diagnosis: how a wrong answer relates to the reference, when no named misconception matches."""
