"""System-prompt replay (chapter 03's rule, used by chapter 11: R5, R6).

The system prompt lives in the session as system messages. Replaying all of them
in order gives the prompt in force, which is why ``build_context`` never needs a
prompt option and why compaction never has to store one.
"""

from __future__ import annotations

from collections.abc import Iterable

from .models import SystemMessage

PARAGRAPH = "\n\n"


def current_system_message(messages: Iterable[object]) -> SystemMessage | None:
    """Replay every system message in order (R5).

    Non-empty contents are appended, sections override by name and ``None``
    deletes a section; the first system message gives the timestamp.
    """
    systems = [m for m in messages if isinstance(m, SystemMessage)]
    if not systems:
        return None
    contents = [m.content for m in systems if m.content]
    sections: dict[str, str | None] = {}
    for message in systems:
        for name, text in (message.sections or {}).items():
            if text is None:
                sections.pop(name, None)
            else:
                sections[name] = text
    return SystemMessage(
        content=PARAGRAPH.join(contents),
        sections=sections or None,
        timestamp=systems[0].timestamp,
    )


def system_message_text(message: SystemMessage) -> str:
    """The prompt text: content, then section values, empty parts skipped (R6)."""
    parts = [message.content, *(message.sections or {}).values()]
    return PARAGRAPH.join(part for part in parts if part)


def current_system_prompt(messages: Iterable[object]) -> str | None:
    """The replayed system message as text, or ``None`` when the path has none."""
    replayed = current_system_message(messages)
    return None if replayed is None else system_message_text(replayed)
