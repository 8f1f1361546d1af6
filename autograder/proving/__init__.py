"""Proving a problem set before students see it: the self-test, coverage rules, mutation analysis,
the feedback audit.
"""
