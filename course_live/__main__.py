"""``python -m course_live …`` is ``course-live …``."""

from .cli import main

raise SystemExit(main())
