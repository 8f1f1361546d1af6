"""Mutation analysis: mutants of a reference (operators -> mutants) and whether the hidden probes
kill them (analysis).
"""
