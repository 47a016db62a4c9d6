"""``python -m course_grader``: the same as the ``course-grade`` command."""

from .cli import main

raise SystemExit(main())
