"""The problem sets that ship with the kit. `autograder init` copies them into a course's source/;
the kit's own checkout uses them in place (autograder.toml: source = "autograder/problem_sets")."""
