"""The one base of the kit's domain errors: a problem the user can fix, with a message that says how.

Library code raises these and nothing else decides what they mean for a process: the command line
(``autograder.cli.main``) maps each to its exit code and message, the service to an HTTP answer or
a log line, and a caller in Python catches them like any exception.
"""

from __future__ import annotations


class AutograderError(Exception):
    """A domain error (a missing course, an unknown problem set, a busy output folder, ...)."""
