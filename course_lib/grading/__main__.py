"""``python -m course_lib.grading``: the same as the ``course-grade`` command."""

from .cli import main

raise SystemExit(main())
