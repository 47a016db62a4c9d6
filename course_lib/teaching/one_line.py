"""An error as one line, for a table cell or a lab cell's verdict (R2's field paths kept).

A table row holds one line; pydantic's report on a learner's own model lists
every error over several lines and made the row unreadably wide.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError


def one_line(error: BaseException, limit: int = 160) -> str:
    """An error as one line: pydantic's many-line report becomes its first error with the field path.

    A table row holds one line; pydantic's report on a learner's own model lists
    every error over several lines and made the row unreadably wide.
    """
    if isinstance(error, ValidationError):
        errors = error.errors(include_url=False)
        if errors:
            first = errors[0]
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            where = _field_path(first.get("loc", ()))
            text = f"{type(error).__name__}, {where or 'the value'}: {first.get('msg', '')}{more}"
            return _clip(text, limit)
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    if not lines:
        return type(error).__name__
    return _clip(lines[0] + (" …" if len(lines) > 1 else ""), limit)


_UNION_MEMBER = re.compile(r"^(constrained-)?(int|float|str|bool|list|dict|tuple|none)$|\[")


def _field_path(location: Sequence[Any]) -> str:
    """pydantic's ``("summary", "decisions", 1)`` as R2 writes it: ``summary.decisions[1]``.

    A union's member tags (``tokensBefore.constrained-int``) are pydantic's, not the data's: left out.
    """
    path = ""
    for part in location:
        if isinstance(part, str) and _UNION_MEMBER.search(part):
            continue
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
