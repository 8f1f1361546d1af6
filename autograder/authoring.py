"""What a problem set's author imports: the question model and the engine's comparators.

A problem set (``source/<ps>/`` in a course, ``assignments/<ps>/`` in the kit) is a package
beside its notebook; each of its modules builds :class:`Question` objects from these names and
nothing else of the engine::

    from autograder.authoring import AllClose, Misconception, Probe, Question

* :class:`Question`, :class:`Assignment`: one autograded question, one problem set (fields
  documented in ``autograder.spec``); :class:`Probe`: one call of the student's answer;
  :class:`Misconception`: a known-wrong answer and its feedback; :class:`FunctionSource`: a
  function handed to the student's code as an argument (``FunctionSource.of(fn)``);
  :class:`StatedRange`: a range of an argument that the notebook's text names.
* Comparators, one behaviour each, each writing its own released check: :class:`AllClose`,
  :class:`Exact`, :class:`IntegerArray`, :class:`Scalar`, :class:`Choice`, :class:`Formula`,
  :class:`TaskAccuracy`. A new kind of comparison is added to the engine
  (``autograder/judging/compare/``), never to a problem set.
"""

from autograder.judging.compare.comparators import AllClose, Choice, Comparator, Exact, Formula, IntegerArray, Scalar
from autograder.judging.compare.task_accuracy import TaskAccuracy
from autograder.spec import Assignment, FunctionSource, Misconception, Probe, Question, StatedRange

__all__ = [
    "AllClose",
    "Assignment",
    "Choice",
    "Comparator",
    "Exact",
    "Formula",
    "FunctionSource",
    "IntegerArray",
    "Misconception",
    "Probe",
    "Question",
    "Scalar",
    "StatedRange",
    "TaskAccuracy",
]
