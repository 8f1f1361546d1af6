"""Comparators: does a returned value match the expected one (and the released check code for each)."""
