"""Random but reproducible sessions: the grader's hidden cases, property tests, simulations.

The chapter's example is one hand-computable path. A function written to pass
only that example (ids, costs or groups copied from the chapter's example) fails on these
sessions, which vary what the rules talk about: how many groups there are, tool
calls answered in any order (R12), progress messages and system patches inside
and between groups (R14), metadata entries, and compactions that keep from any
group start (R18, R27).

Everything comes from one ``random.Random(seed)``, and every entry is built with
``PathBuilder``, so the same seed gives the same session on every machine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from course_lib.builders import PathBuilder
from course_lib.compaction import create_compaction_entry
from course_lib.models import CompactionSummary, SessionEntry, StopReason

WORDS = (
    "read", "test", "branch", "restore", "session", "budget", "group", "call", "result",
    "summary", "path", "entry", "token", "window", "model", "prompt", "diff", "file",
    "parser", "store", "check", "keep", "drop", "newest", "oldest", "write", "line",
)  # fmt: skip
TOOLS = ("read", "test", "grep", "edit", "list")


@dataclass(frozen=True)
class SessionRecipe:
    """What a generated session may contain; the counts are upper bounds drawn from."""

    groups: tuple[int, int] = (2, 6)
    max_tool_calls: int = 3
    system: bool = True
    system_patches: bool = True
    metadata: bool = True
    compactions: int = 0


def random_text(rng: random.Random, low: int = 1, high: int = 9) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    return " ".join(words).capitalize() + "."


def random_summary(rng: random.Random) -> CompactionSummary:
    """A summary whose lists are sometimes empty, so ``- (none)`` lines appear (R18)."""

    def items() -> tuple[str, ...]:
        return tuple(random_text(rng, 2, 6) for _ in range(rng.choice((0, 0, 1, 2, 3))))

    return CompactionSummary(
        goal=random_text(rng, 3, 8),
        constraints=items(),
        completed=items(),
        decisions=items(),
        changed_files=tuple(f"src/{rng.choice(WORDS)}.py" for _ in range(rng.choice((0, 1, 2)))),
        unresolved=items(),
        next=items(),
    )


def random_session(seed: int | random.Random, recipe: SessionRecipe = SessionRecipe()) -> list[SessionEntry]:
    """One linear active path, root first, drawn from ``recipe``."""
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    return _Session(rng, recipe).build()


def group_starts(path: list[SessionEntry]) -> list[str]:
    """Ids of user messages: the only legal ``firstKeptEntryId`` values (R27)."""
    return [e.id for e in path if e.type == "message" and e.message.role == "user"]


class _Session:
    def __init__(self, rng: random.Random, recipe: SessionRecipe) -> None:
        self.rng = rng
        self.recipe = recipe
        self.builder = PathBuilder(clock=rng.randint(0, 1000))
        self.counter = 0

    def build(self) -> list[SessionEntry]:
        rng, recipe = self.rng, self.recipe
        groups = rng.randint(*recipe.groups)
        compact_after = set(rng.sample(range(1, groups + 1), min(recipe.compactions, groups)))
        if recipe.system and rng.random() < 0.85:
            self.builder.system("sys", random_text(rng, 2, 6), sections=self._sections(initial=True))
        for number in range(1, groups + 1):
            if number > 1 or recipe.system:  # without a system prompt, the path starts with a user message
                self._between_groups()
            self._group(number)
            if number in compact_after:
                self._compaction()
        return self.builder.entries

    def _id(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}-{self.counter}"

    def _sections(self, initial: bool = False) -> dict[str, str | None] | None:
        if self.rng.random() < 0.5:
            return None
        name = self.rng.choice(("rules", "style", "tools"))
        if not initial and self.rng.random() < 0.3:
            return {name: None}  # R5: a null section deletes it
        return {name: random_text(self.rng, 2, 5)}

    def _between_groups(self) -> None:
        rng, recipe = self.rng, self.recipe
        if recipe.system_patches and rng.random() < 0.25:
            self._patch()
        if recipe.metadata and rng.random() < 0.2:
            self.builder.metadata(self._id("meta"), rng.choice(("label", "model", "cwd")), {"n": rng.randint(0, 9)})

    def _patch(self) -> None:
        content = random_text(self.rng, 1, 4) if self.rng.random() < 0.6 else ""
        self.builder.system(self._id("patch"), content, sections=self._sections())

    def _group(self, number: int) -> None:
        rng, builder = self.rng, self.builder
        builder.user(f"u{number}", random_text(rng))
        if self.recipe.max_tool_calls and rng.random() < 0.6:
            self._tool_round_trips(number)
        for _ in range(rng.choice((1, 1, 2))):
            stop: StopReason = rng.choice(("stop", "stop", "stop", "length", "error", "aborted"))
            builder.assistant(
                self._id(f"a{number}"),
                random_text(rng),
                stop_reason=stop,
                error_message="Provider error." if stop == "error" else None,
                input_tokens=rng.randint(0, 500),
            )

    def _tool_round_trips(self, number: int) -> None:
        """One or two assistant messages declaring calls; results come back in any order (R12)."""
        rng, builder = self.rng, self.builder
        pending: list[tuple[str, str]] = []
        rounds = rng.randint(1, 2)
        for round_number in range(rounds):
            calls = [
                (self._id(f"t{number}"), rng.choice(TOOLS), self._arguments())
                for _ in range(rng.randint(1, self.recipe.max_tool_calls))
            ]
            text = random_text(rng) if rng.random() < 0.7 else ""
            builder.assistant(self._id(f"calls{number}"), text, tool_calls=calls)
            pending += [(call_id, name) for call_id, name, _ in calls]
            rng.shuffle(pending)
            answered = len(pending) if round_number == rounds - 1 else rng.randint(0, len(pending))
            for call_id, name in pending[:answered]:
                if rng.random() < 0.2:
                    builder.assistant(self._id(f"progress{number}"), random_text(rng))
                if self.recipe.system_patches and rng.random() < 0.1:
                    self._patch()  # R14: inside a group, never splits it
                builder.tool_result(
                    self._id(f"r{number}"), call_id, name, random_text(rng), is_error=rng.random() < 0.1
                )
            pending = pending[answered:]

    def _arguments(self) -> dict[str, Any]:
        rng = self.rng
        return {
            "path": f"src/{rng.choice(WORDS)}.py",
            "options": {"limit": rng.randint(1, 50), "tags": [rng.choice(WORDS) for _ in range(rng.randint(0, 2))]},
        }

    def _compaction(self) -> None:
        entries = self.builder.entries
        self.builder.add(
            create_compaction_entry(
                entries,
                id=self._id("compact"),
                timestamp=self.builder.clock + 1,
                summary=random_summary(self.rng),
                first_kept_entry_id=self.rng.choice(group_starts(entries)),
                tokens_before=self.rng.randint(0, 800),
            )
        )
