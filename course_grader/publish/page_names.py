"""A feedback page's file name: ``<student>_lab_11_3.html``, safe and distinct whatever the student id holds.

A student id comes from a folder or file name a learner chose: it must never
name a path outside the feedback folder, nor another student's page (even
where case does not count).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

STEM_LIMIT = 64
"""Characters of a student id kept in a page's file name."""

SAFE_STEM = re.compile(r"[^A-Za-z0-9._-]+")


def _stem(student: str) -> str:
    """A file name for a student id: its safe characters, plus a hash of the id if anything had to change."""
    stem = SAFE_STEM.sub("_", student).strip("._-")[:STEM_LIMIT] or "student"
    if stem == student:
        return stem
    digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{stem}~{digest}"  # "~" is never in a plain stem: no id can name another one's page


def page_names(students: Iterable[str]) -> dict[str, str]:
    """A distinct file-name stem per student id, also where case does not count (macOS, Windows).

    ``Alice`` and ``alice`` are two students: the first in sorted order keeps
    its plain name, the other gets its hashed one.
    """
    names: dict[str, str] = {}
    taken: set[str] = set()
    for student in sorted(set(students)):
        stem = _stem(student)
        if stem.casefold() in taken:
            digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:10]
            stem = f"{stem}~{digest}"
        taken.add(stem.casefold())
        names[student] = stem
    return names


def lab_suffix(lab: str | None) -> str:
    if lab is None:
        return "not_graded"
    return "capstone" if lab == "capstone" else f"lab_{lab.replace('.', '_')}"
