"""The chapter's shorthand for a linear path, e.g. ``"u3 calls(read-1,test-1) r-test(test-1) a3"``.

Lab 11.2's table and the catalogue of broken tool facts write their paths this
way, so a row reads like the chapter's text and a case is one line.
"""

from __future__ import annotations

from typing import cast

from ...builders import PathBuilder
from ...models import MessageEntry


def shorthand_path(text: str) -> list[MessageEntry]:
    """A linear path from the shorthand.

    ``u…`` is a user message, ``sys…``/``patch…`` a system message, ``r-…(call)`` the
    result of ``call``, ``name(call,…)`` an assistant declaring those calls, and any
    other name an assistant answer. Tool names are the call id's prefix (``read-1`` → ``read``).
    """
    builder = PathBuilder()
    for token in text.split():
        name, _, rest = token.partition("(")
        calls = [call for call in rest.rstrip(")").split(",") if call]
        if name.startswith("u"):
            builder.user(name, "Read, then test.")
        elif name.startswith(("sys", "patch")):
            builder.system(name, "Prefer small diffs.")
        elif name.startswith("r-") and calls:
            builder.tool_result(name, calls[0], calls[0].split("-")[0], "Done.")
        elif calls:
            builder.assistant(name, "Checking.", tool_calls=[(c, c.split("-")[0], {}) for c in calls])
        else:
            builder.assistant(name, "Done.")
    return cast(list[MessageEntry], builder.entries)  # every entry built above is a message entry
