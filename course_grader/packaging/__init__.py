"""Stage 9, packaging: the grader carried elsewhere — ``wheel`` (both packages as one wheel), ``bundle`` (a Gradescope autograder)."""
