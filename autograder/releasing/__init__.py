"""Releasing: source notebook -> student release (stages), its visible checks, formula symbols and
sample submissions.
"""
