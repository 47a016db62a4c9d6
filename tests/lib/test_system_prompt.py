"""System-prompt replay (R5, R6)."""

from __future__ import annotations

from course_lib import (
    SystemMessage,
    TextContent,
    UserMessage,
    current_system_message,
    current_system_prompt,
    system_message_text,
    to_json_dict,
)


def _system(content: str, ts: float, sections: dict[str, str | None] | None = None) -> SystemMessage:
    return SystemMessage(content=content, sections=sections, timestamp=ts)


def test_r6_worked_example_replays_to_the_chapter_message_and_text() -> None:
    """R6, word for word: sys + patch-1 (section override) + patch-2 (appended content)."""
    messages = [
        _system("BASE", 1, {"rules": "RULE v1"}),
        UserMessage(content=(TextContent(text="hi"),), timestamp=2),
        _system("", 3, {"rules": "RULE v2"}),
        _system("Prefer small diffs.", 4),
    ]
    replayed = current_system_message(messages)
    assert replayed is not None
    assert to_json_dict(replayed) == {
        "role": "system",
        "content": "BASE\n\nPrefer small diffs.",
        "sections": {"rules": "RULE v2"},
        "timestamp": 1,
    }
    assert system_message_text(replayed) == "BASE\n\nPrefer small diffs.\n\nRULE v2"
    assert current_system_prompt(messages) == "BASE\n\nPrefer small diffs.\n\nRULE v2"


def test_r5_no_system_message_replays_to_none() -> None:
    user = UserMessage(content=(TextContent(text="hi"),), timestamp=1)
    assert current_system_message([user]) is None
    assert current_system_message([]) is None
    assert current_system_prompt([user]) is None


def test_r5_empty_contents_are_skipped_and_the_rest_joined_by_a_blank_line() -> None:
    replayed = current_system_message([_system("A", 5), _system("", 6), _system("B", 7), _system("C", 8)])
    assert replayed is not None
    assert replayed.content == "A\n\nB\n\nC"


def test_r5_timestamp_is_the_first_system_messages() -> None:
    replayed = current_system_message([_system("", 7), _system("late", 9)])
    assert replayed is not None
    assert replayed.timestamp == 7


def test_r5_null_section_deletes_and_no_surviving_section_means_no_sections_key() -> None:
    replayed = current_system_message(
        [
            _system("BASE", 1, {"rules": "R1", "style": "S1"}),
            _system("", 2, {"rules": None}),
            _system("", 3, {"style": None}),
        ]
    )
    assert replayed is not None
    assert replayed.sections is None
    assert "sections" not in to_json_dict(replayed)


def test_r5_sections_override_by_name_and_keep_first_insertion_order() -> None:
    replayed = current_system_message(
        [_system("", 1, {"a": "A1", "b": "B1"}), _system("", 2, {"c": "C1", "a": "A2"}), _system("", 3, {"b": None})]
    )
    assert replayed is not None
    assert replayed.sections == {"a": "A2", "c": "C1"}
    assert system_message_text(replayed) == "A2\n\nC1"


def test_r5_a_deleted_section_can_come_back() -> None:
    replayed = current_system_message(
        [_system("", 1, {"a": "A1"}), _system("", 2, {"a": None}), _system("", 3, {"a": "A3"})]
    )
    assert replayed is not None
    assert replayed.sections == {"a": "A3"}


def test_r5_replay_does_not_change_its_inputs() -> None:
    first = _system("BASE", 1, {"rules": "R1"})
    replayed = current_system_message([first, _system("", 2, {"rules": None})])
    assert replayed is not None
    assert first.sections == {"rules": "R1"}
