"""Free-text compaction summaries as the course's seven-field summary.

The agents store their summary as one piece of text; the course's compaction
entry holds seven fields. The text is split so that nothing is lost and the
common structure lands in the matching field:

* Markdown headings pick the field for the lines below them (pi's compaction
  prompt writes ``## Goal``, ``## Constraints & Preferences``, ``### Done``,
  ``### In Progress``, ``### Blocked``, ``## Key Decisions``, ``## Next Steps``,
  ``## Critical Context``); pi's ``<modified-files>`` / ``<read-files>`` blocks
  go to ``changed_files`` and ``completed``.
* ``goal`` is the Goal section joined into one line, or else the first line of
  the text; every other line is one list item, with its list marker (``-``,
  ``*``, ``1.``, ``[x]``) removed and an unknown heading kept as a prefix.
* Lines under no known heading go to ``completed``; ``(none)`` items are dropped
  because the course renders an empty list as ``- (none)`` itself.
"""

from __future__ import annotations

import re

from ..models import CompactionSummary

_FIELDS = {
    "goal": "goal",
    "constraints": "constraints",
    "constraints & preferences": "constraints",
    "done": "completed",
    "completed": "completed",
    "progress": "completed",
    "in progress": "unresolved",
    "blocked": "unresolved",
    "unresolved": "unresolved",
    "key decisions": "decisions",
    "decisions": "decisions",
    "next steps": "next",
    "next": "next",
    "changed files": "changed_files",
    "modified-files": "changed_files",
    "read-files": "completed",
}
_HEADING = re.compile(r"^\s*#{1,6}\s+(?P<title>.+?)\s*#*\s*$")
_TAG = re.compile(r"^\s*<(?P<close>/?)(?P<name>[a-z-]+)>\s*$")
_MARKER = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\[[ xX]\]\s+)?")


def summary_from_text(text: str, *, fallback_goal: str = "(summary without text)") -> CompactionSummary:
    """The seven fields of a free-text summary (the rules are in the module docstring)."""
    fields: dict[str, list[str]] = {name: [] for name in CompactionSummary.model_fields}
    current = "completed"
    prefix = ""
    for raw in text.splitlines():
        heading = _HEADING.match(raw) or _TAG.match(raw)
        if heading:
            title = heading.group("title") if "title" in heading.groupdict() else heading.group("name")
            if heading.groupdict().get("close"):
                current, prefix = "completed", ""
                continue
            key = title.strip().lower().rstrip(":")
            current = _FIELDS.get(key, "completed")
            prefix = "" if key in _FIELDS else f"{title.strip()}: "
            if key == "read-files":
                prefix = "read: "
            continue
        item = _MARKER.sub("", raw, count=1).strip()
        if not item or item.lower() in {"(none)", "none"}:
            continue
        fields[current].append(prefix + item)
    goal_lines = fields.pop("goal")
    if goal_lines:
        goal = "; ".join(goal_lines)
    elif fields["completed"]:
        goal = fields["completed"].pop(0)
    else:
        goal = fallback_goal
    return CompactionSummary(goal=goal, **{name: tuple(items) for name, items in fields.items()})
