"""``course-grade SUBMISSION.ipynb``: one notebook graded, its Gradescope results.json written and its table printed.

Everything was checked before (``grade.py``); this is the run itself, the
files first: nothing the terminal cannot show may cost the results.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

from ..course.course import Course
from ..files import write_atomically
from ..judging.grade import grade_notebook
from ..judging.grade_options import GradeOptions
from ..judging.verdicts import format_table
from ..results.gradescope import to_gradescope
from ..results.scoring import score
from .feedback_pages import write_pages
from .refusals import writable


def run(parser: argparse.ArgumentParser, arguments: argparse.Namespace, course: Course, options: GradeOptions) -> int:
    writable(parser, arguments.results, "--results")
    if arguments.lab:
        options = replace(options, identity=replace(options.identity, expected_lab=arguments.lab))
    result = grade_notebook(arguments.target, options, student=arguments.student)
    names = options.identity.names
    course = course.speaking(names.roster if names is not None else None)  # the student's section's language
    # The files first: nothing the terminal cannot show (a lone surrogate in a message) may cost the results.
    write_atomically(arguments.results, json.dumps(to_gradescope(result, course), indent=2))
    write_pages(arguments, [result], lambda graded: score(graded, course), course.language, course.language_of)
    print(format_table(result))
    if course.path is not None:
        print(f"course score: {score(result, course).explanation}")
    print(f"wrote {arguments.results}")
    return 0
