"""The error a graded submission gets when it calls the course's own answer to its lab.

While a lab is graded, the sandbox's copy of ``course_lib`` has the lab's
reference replaced by stubs (``course_lib.labs`` lists them); calling one raises
this. It is deliberately not a ``ValueError``: routing a bad input to a stub
must never look like a correct rejection.
"""

from __future__ import annotations


class NotAvailableWhileGrading(RuntimeError):
    def __init__(self, name: str, lab: str) -> None:
        super().__init__(
            f"{name} is not available while grading Lab {lab}: the grader runs your own code, so write it yourself"
        )
        self.name = name
        self.lab = lab
