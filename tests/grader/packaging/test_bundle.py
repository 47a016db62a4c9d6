"""The autograder's refusal names the copies an instructor must close, the grader's own first (issue 27's dry run).

A machine may hold many readable copies of the reference (clones, virtual
environments, unpacked wheels): the message shows ten, in a fixed order, and the
package the grader itself imports is always among them.
"""

from __future__ import annotations

from pathlib import Path

from course_grader.packaging.bundle import _copies
from course_grader.sandbox.view import PACKAGE


def test_the_graders_own_package_is_named_first_then_path_order() -> None:
    others = [Path(f"/srv/clone-{n:02}/course_lib/context.py") for n in range(12, 0, -1)]
    wheel = Path("/srv/dist/course_lib-0.1.0-py3-none-any.whl")
    text = _copies([*others, wheel, PACKAGE / "context.py", PACKAGE / "lifecycle" / "budget.py"])
    places = text.split("; ")
    assert places[0] == str(PACKAGE)
    assert places[1:10] == [f"/srv/clone-{n:02}/course_lib" for n in range(1, 10)]
    assert places[10] == "14 places in all"
