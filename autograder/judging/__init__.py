"""The verdict: comparators (compare/), diagnoses of wrong answers (diagnosis/), and the verdict itself (verdict)."""
