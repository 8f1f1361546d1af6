"""The course content that ships with the kit: seven problem sets, one package each beside its notebook.

Installed as ``autograder.shipped_assignments`` (a package-dir mapping in pyproject.toml), so that
``autograder init`` can copy them into a new course's ``source/``; nothing imports them by that
name: a course's problem sets are loaded by path from its source folder (``autograder.spec``).
"""
