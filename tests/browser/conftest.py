"""The real-browser test runs through ``make test-browser`` (it needs Debian's chromium).

``make test`` collects ``tests`` too; without ``COURSE_BROWSER_TEST=1`` this folder is
not collected, so the normal run neither imports Playwright nor starts a browser.
(Naming the test file on the command line still runs it: that is asking for it.)
"""

import os

collect_ignore_glob = [] if os.environ.get("COURSE_BROWSER_TEST") == "1" else ["test_*.py"]
