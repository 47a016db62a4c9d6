"""The capstone's scripted session: about forty turns of a small coding task.

The numbers are small on purpose — a window of a few hundred tokens, the
``chars/4`` estimate — so a learner can follow every crossing by hand. With
``capstone_session()`` the run crosses the compaction threshold twice, and one
turn reads a long log that overflows the window and is recovered.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..store import InMemorySessionStore
from .budget import RequestBudget
from .events import Listener
from .scripted_model import Reply, ScriptedCall, ScriptedModel, Step
from .settings import CompactionSettings
from .simulation import AgentSession, Store
from .summarizer import OfflineSummarizer

CAPSTONE_WINDOW = 800
CAPSTONE_SETTINGS = CompactionSettings(reserve_tokens=160, keep_recent_tokens=120)
CAPSTONE_SUMMARY_TOKENS = 120
CAPSTONE_SYSTEM_PROMPT = "You are a careful coding agent. Keep diffs small."


@dataclass(frozen=True)
class Turn:
    """One user prompt and the model replies it will get, in order."""

    user: str
    replies: tuple[Reply, ...]


def chat(user: str, answer: str) -> Turn:
    return Turn(user, (Reply(answer),))


def tool(user: str, name: str, arguments: dict[str, str], result: str, answer: str, *, is_error: bool = False) -> Turn:
    call = ScriptedCall(name, arguments, result, is_error)
    return Turn(user, (Reply("", (call,)), Reply(answer)))


LONG_LOG = " ".join(f"sync: copied batch {n:02d} ok;" for n in range(1, 31))

CAPSTONE_TURNS: tuple[Turn, ...] = (
    chat(
        "Goal: add a --dry-run flag to the sync CLI. It must never write files in dry-run mode.",
        "Understood. I will read the CLI first.",
    ),
    tool(
        "Show me cli.py.",
        "read",
        {"path": "cli.py"},
        "def main(argv): parse args, call sync.run(cfg)",
        "cli.py parses args and calls sync.run.",
    ),
    tool(
        "And sync.py?",
        "read",
        {"path": "sync.py"},
        "def run(cfg): for f in plan(cfg): copy(f)",
        "sync.run copies every planned file.",
    ),
    chat("Where should the flag live?", "Decision: the flag goes in cli.py and reaches sync.run as dry_run."),
    tool(
        "Add the flag.",
        "edit",
        {"path": "cli.py", "change": "add --dry-run"},
        "edited cli.py",
        "Added --dry-run to the parser.",
    ),
    tool(
        "Pass it through to sync.run.",
        "edit",
        {"path": "sync.py", "change": "run(cfg, dry_run)"},
        "edited sync.py",
        "sync.run now takes dry_run.",
    ),
    tool(
        "Run the tests.", "test", {"pattern": "sync"}, "1 failed: test_run_signature", "One test fails.", is_error=True
    ),
    tool(
        "Fix the failing test.",
        "edit",
        {"path": "tests/test_sync.py", "change": "new signature"},
        "edited tests/test_sync.py",
        "Updated the test for the new signature.",
    ),
    tool("Run the tests again.", "test", {"pattern": "sync"}, "12 passed", "All 12 tests pass."),
    chat("Only print the plan in dry-run mode, do not copy.", "Next: guard copy() behind dry_run."),
    tool(
        "Do it.",
        "edit",
        {"path": "sync.py", "change": "skip copy when dry_run"},
        "edited sync.py",
        "copy() is skipped in dry-run mode.",
    ),
    chat("What does the output look like?", "Each planned file prints as 'would copy <src> -> <dst>'."),
    tool(
        "Add a test for that output.",
        "write",
        {"path": "tests/test_dry_run.py"},
        "wrote tests/test_dry_run.py",
        "Added test_dry_run_prints_plan.",
    ),
    tool("Run it.", "test", {"pattern": "dry_run"}, "1 passed", "The new test passes."),
    chat("Does the README mention flags?", "Yes, a short usage section lists them."),
    tool(
        "Document --dry-run there.",
        "edit",
        {"path": "README.md", "change": "document --dry-run"},
        "edited README.md",
        "README documents --dry-run.",
    ),
    chat("Any risk for existing users?", "No: dry_run defaults to False, so nothing changes for them."),
    tool(
        "Check the config loader too.",
        "read",
        {"path": "config.py"},
        "def load(path): read toml, defaults",
        "config.py has no dry-run setting; none is needed.",
    ),
    chat("Should config support dry_run?", "Decision: no, keep it a command-line flag only."),
    tool("Run the whole suite.", "test", {"pattern": ""}, "31 passed", "The whole suite passes: 31 tests."),
    chat("Great. Now the log output.", "Next: make dry-run lines easy to grep."),
    tool(
        "Prefix them with DRY-RUN.",
        "edit",
        {"path": "sync.py", "change": "prefix DRY-RUN"},
        "edited sync.py",
        "Dry-run lines now start with DRY-RUN.",
    ),
    tool(
        "Update the test.",
        "edit",
        {"path": "tests/test_dry_run.py", "change": "expect prefix"},
        "edited tests/test_dry_run.py",
        "The test expects the DRY-RUN prefix.",
    ),
    tool("Run it.", "test", {"pattern": "dry_run"}, "1 passed", "Passes."),
    tool(
        "Read last night's sync log.",
        "read",
        {"path": "logs/sync.log"},
        LONG_LOG,
        "The log shows 30 batches copied, no errors.",
    ),
    chat("So the real run is healthy?", "Yes. Every batch copied and nothing failed."),
    chat("Summarise what changed so far.", "A flag, a guard around copy, tests, README, a log prefix."),
    tool(
        "Check the changelog.",
        "read",
        {"path": "CHANGELOG.md"},
        "## Unreleased (empty)",
        "The Unreleased section is empty.",
    ),
    tool(
        "Add an entry.",
        "edit",
        {"path": "CHANGELOG.md", "change": "add --dry-run"},
        "edited CHANGELOG.md",
        "CHANGELOG lists --dry-run under Unreleased.",
    ),
    chat("Is the help text clear?", "It says: --dry-run  show what would be copied, copy nothing."),
    tool("Lint the code.", "lint", {"path": "."}, "0 problems", "Lint is clean."),
    chat("Any leftover TODOs?", "None in the files we touched."),
    tool("Run the suite one last time.", "test", {"pattern": ""}, "32 passed", "All 32 tests pass."),
    chat("Write a commit message.", "Add --dry-run to sync: print the plan, copy nothing."),
    tool(
        "Show the diff stat.",
        "git",
        {"args": "diff --stat"},
        "6 files changed, 48 insertions",
        "Six files changed, 48 insertions.",
    ),
    chat("Does dry-run need a flag alias?", "Decision: add -n as a short alias, like rsync."),
    tool("Add -n.", "edit", {"path": "cli.py", "change": "alias -n"}, "edited cli.py", "-n now means --dry-run."),
    tool("Test the alias.", "test", {"pattern": "alias"}, "1 passed", "The alias test passes."),
    chat("Anything else before review?", "Next: open the pull request for review."),
    chat("Thanks, that is all.", "You are welcome. The change is ready for review."),
)


def capstone_script(turns: Iterable[Turn] = CAPSTONE_TURNS) -> tuple[list[str], list[Step]]:
    """The prompts to send and the model's replies, in order."""
    turns = list(turns)
    return [turn.user for turn in turns], [reply for turn in turns for reply in turn.replies]


def capstone_session(
    *,
    store: Store | None = None,
    turns: Iterable[Turn] = CAPSTONE_TURNS,
    context_window: int = CAPSTONE_WINDOW,
    settings: CompactionSettings = CAPSTONE_SETTINGS,
    max_overflow_attempts: int = 3,
    listeners: Iterable[Listener] = (),
    **functions: Any,
) -> tuple[AgentSession, ScriptedModel, list[str]]:
    """A fresh session wired to the capstone's scripted model; returns it, the model, and the prompts.

    ``functions`` may pass a learner's ``should_compact`` and ``find_cut_point`` to the session.
    """
    prompts, replies = capstone_script(turns)
    model = ScriptedModel(replies, context_window=context_window)
    session = AgentSession(
        store=store if store is not None else InMemorySessionStore(),
        model=model,
        tools=model.run_tool,
        budget=RequestBudget(context_window=context_window),
        settings=settings,
        summarizer=OfflineSummarizer(max_summary_tokens=CAPSTONE_SUMMARY_TOKENS),
        system_prompt=CAPSTONE_SYSTEM_PROMPT,
        max_overflow_attempts=max_overflow_attempts,
        listeners=listeners,
        **functions,
    )
    return session, model, prompts
