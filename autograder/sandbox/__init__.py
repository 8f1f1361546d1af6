"""The sandbox: the harness that runs inside it, the data-only wire, and the warm worker pool seen from the grader."""
