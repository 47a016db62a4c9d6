"""Real agent logs as the course's sessions: ``load_session(path)`` → ``ImportedSession``.

One module per format (``course``, ``pi``, ``claude_code``, ``codex``) maps its
log onto the course's entries through the shared ``assemble.Assembler``, which
keeps the course's rules (whole interaction groups, compactions that keep from a
user message). Nothing is dropped silently: every line that is not carried over
is in ``.skipped`` with its reason, every change in ``.notes``.

With ``format="auto"`` the first JSON object of the file decides:

| first object | format |
|---|---|
| ``type: "session"`` (a header) | ``pi`` |
| ``type: "session_meta"``, a ``payload`` next to a ``type``, or an older rollout's ``id`` + ``instructions`` | ``codex`` |
| ``uuid``/``parentUuid``/``sessionId`` keys, or a Claude Code record type | ``claude-code`` |
| ``type`` ``message``/``metadata``/``compaction`` with a ``parentId`` key | ``course`` |
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

from ..errors import OptionError
from . import claude_code, codex, course, pi
from .lines import first_record
from .report import FORMATS, Format, ImportedSession, Note, SessionImportError, Skip

LOADERS: dict[Format, Callable[[Path], ImportedSession]] = {
    "course": course.load,
    "pi": pi.load,
    "claude-code": claude_code.load,
    "codex": codex.load,
}
CLAUDE_TYPES = frozenset(
    {"summary", "file-history-snapshot", "queue-operation", "user", "assistant", "system", "progress"}
)


def load_session(path: str | os.PathLike[str], *, format: str = "auto") -> ImportedSession:
    """The active path of the log at ``path`` as course entries, with every skipped line reported."""
    source = Path(path)
    if format == "auto":
        format = detect_format(source)
    if format not in LOADERS:
        raise OptionError(f"unknown format {format!r}; expected auto or one of {', '.join(FORMATS)}")
    return LOADERS[format](source)


SAMPLE_LANGUAGES: dict[str, tuple[Format, ...]] = {"en": FORMATS, "zh": ("pi",)}
"""The sample logs that ship, by language: one per format in English (a few interactions and every
messy case), and a pi session in Chinese with English code, commands and tool output, on which
``calibration`` measures what a CJK character costs."""


def sample_path(fmt: Format, *, language: str = "en") -> Path:
    """The small sample log of ``fmt`` in ``language`` that ships with the package (``SAMPLE_LANGUAGES``)."""
    if fmt not in LOADERS:
        raise OptionError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if fmt not in SAMPLE_LANGUAGES.get(language, ()):
        shipped = ", ".join(f"{lang}: {' '.join(fmts)}" for lang, fmts in SAMPLE_LANGUAGES.items())
        raise OptionError(f"no {fmt} sample in language {language!r}; the samples are {shipped}")
    name = fmt if language == "en" else f"{fmt}-{language}"
    return Path(str(files(__name__) / "samples" / f"{name}.jsonl"))


def detect_format(path: str | os.PathLike[str]) -> Format:
    """The format of the file's first JSON object (table in the module docstring)."""
    first = first_record(path)
    if first is None:
        raise SessionImportError(f"{path}: no JSON object to tell the format from")
    found = _format_of(first.value)
    if found is None:
        raise SessionImportError(
            f"{path}: line {first.line} does not look like a course, pi, Claude Code or Codex log", line=first.line
        )
    return found


def _format_of(value: dict[str, Any]) -> Format | None:
    kind = value.get("type")
    if kind == "session":
        return "pi"
    if kind == "session_meta" or ("payload" in value and "type" in value) or {"id", "instructions"} <= value.keys():
        return "codex"
    if kind in ("message", "metadata", "compaction") and "parentId" in value:
        return "course"
    if {"uuid", "parentUuid", "sessionId"} & value.keys() or kind in CLAUDE_TYPES:
        return "claude-code"
    return None


__all__ = [
    "FORMATS",
    "SAMPLE_LANGUAGES",
    "ImportedSession",
    "Note",
    "SessionImportError",
    "Skip",
    "detect_format",
    "load_session",
    "sample_path",
]
