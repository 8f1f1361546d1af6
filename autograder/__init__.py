"""The grading engine of the transformer coursework kit, in wings (README: Layout).

A problem set imports only :mod:`autograder.authoring`. A submission meets the wings in order:
``intake`` (what a course collected -> submissions), ``sandbox`` + ``grading`` (run and record),
``judging`` (the verdict and its diagnosis), ``outputs`` (the publish step); ``releasing`` makes
what students get and ``proving`` proves a problem set before they get it; ``serve``,
``similarity`` and ``cli`` are the service, the copying evidence and the command line.
"""
