"""No inline check can hang: every check runs within a time and a memory bound, and says which rule it was on.

Issue 30's rows: the capstone's uncapped retry loop (the kernel reached 9 GB after
five minutes) is stopped with L4's message; any endless loop or runaway memory in
a lab function ends its check with the bound it reached; the same record goes to
the grader, so both verdicts agree. A function that returned ``None`` is reported
as such, and a ``firstKeptEntryId`` treated as exclusive is pointed out at the
cut point itself. No test here measures time: a bound is shortened where waiting
for it would only slow the suite.
"""

from __future__ import annotations

import resource
import tempfile
import threading
from pathlib import Path
from typing import Any

import corpus_verdicts as verdicts
import nbformat
import pytest
from grading_corpus import grade_in_process
from mutants import MUTANTS, Mutant
from nbclient import NotebookClient
from traitlets.config import Config

from course_lib import checklist
from course_lib.checklist import bounds
from course_lib.checklist.bounds import MAX_SENDS
from course_lib.lifecycle import is_context_overflow

NEW_MUTANTS = ("11_3_deletes_metadata", "11_5_deletes_metadata", "11_5_first_kept_exclusive", "capstone_no_cap")
STOPPED = "the bound of one check"


def _mutant(name: str) -> Mutant:
    return next(m for m in MUTANTS if m.name == name)


def _record(report: checklist.ChecklistReport, number: int) -> checklist.CheckRecord:
    return next(r for r in report.records if r.number == number)


def uncapped(send: Any, compact: Any, *, context_window: Any, max_attempts: Any) -> Any:
    attempts, answer = 0, send()
    while is_context_overflow(answer, context_window):
        attempts += 1
        compact(attempts)
        answer = send()
    return answer, attempts


def uncapped_and_deaf(send: Any, compact: Any, *, context_window: Any, max_attempts: Any) -> Any:
    """An uncapped loop that also swallows every error send() raises: only the time bound can end it."""
    attempts, answer = 0, send()
    while is_context_overflow(answer, context_window):
        try:
            attempts += 1
            compact(attempts)
            answer = send()
        except Exception:  # noqa: BLE001, S110 - the learner's mistake under test
            pass
    return answer, attempts


def test_the_capstones_uncapped_retry_loop_is_stopped_with_l4s_message() -> None:
    record = _record(checklist.run(lab="capstone", retry_after_overflow=uncapped), 18)
    assert record.status == "failed"
    assert record.message == (
        f"L4: the loop must stop within {MAX_SENDS} send() calls, and this one has no cap: an overflow every time, cap 3"
    )


@pytest.mark.slow  # waits for the time bound: make test, not make check
def test_a_loop_that_swallows_the_scripts_refusal_is_stopped_by_the_time_bound(monkeypatch: Any) -> None:
    monkeypatch.setattr(bounds, "SECONDS", 0.3)
    record = _record(checklist.run(lab="capstone", retry_after_overflow=uncapped_and_deaf), 18)
    assert record.status == "error"
    assert record.message == (
        f"L4: the loop must stop within {MAX_SENDS} send() calls, and this one has no cap: an overflow every time, "
        "cap 3 — expected a result, but it ran longer than 0.3 s, the bound of one check (a loop that never ends?)"
    )


@pytest.mark.slow  # waits for the time bound: make test, not make check
def test_an_endless_build_context_ends_every_check_of_its_lab(monkeypatch: Any) -> None:
    monkeypatch.setattr(bounds, "SECONDS", 0.2)

    def endless(path: Any, **options: Any) -> Any:
        while True:
            pass

    report = checklist.run(lab="11.3", build_context=endless)
    assert [r.status for r in report.records] == ["error"] * 3
    assert all(STOPPED in r.message and r.message.startswith("R") for r in report.records), report


def test_a_runaway_allocation_is_stopped_by_the_memory_bound_and_the_limit_given_back() -> None:
    before = resource.getrlimit(resource.RLIMIT_AS)

    def hog(path: Any, **options: Any) -> Any:
        return bytearray((bounds.MEMORY_MB + 512) * 2**20)

    record = checklist.run(lab="11.3", build_context=hog).records[0]
    assert record.status == "error" and "MemoryError" in record.message, record.message
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    assert checklist.run(lab="11.3").all_passed


# A tick may land in a gc callback another library registered (hypothesis's), which drops the
# interrupt as unraisable; the next tick, 50 ms later, lands in the learner's loop and stops it.
@pytest.mark.slow  # waits for the memory bound: make test, not make check
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_slowly_growing_list_is_stopped_too(monkeypatch: Any) -> None:
    monkeypatch.setattr(bounds, "MEMORY_MB", 64)

    def grows(path: Any, **options: Any) -> Any:
        kept = []
        while True:
            kept.append([0] * 1000)

    record = checklist.run(lab="11.3", build_context=grows).records[0]
    assert record.status == "error"
    assert "MemoryError" in record.message or "more than 64 MB" in record.message, record.message


def test_the_time_bound_holds_outside_the_main_thread(monkeypatch: Any) -> None:
    monkeypatch.setattr(bounds, "SECONDS", 0.2)
    seen: list[Any] = []

    def endless(path: Any, **options: Any) -> Any:
        while True:
            pass

    worker = threading.Thread(target=lambda: seen.append(checklist.run(lab="11.3", build_context=endless)))
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive() and seen
    assert all(STOPPED in r.message for r in seen[0].records)


def test_a_learners_own_interrupt_is_no_verdict() -> None:
    """Interrupting the kernel (a ``KeyboardInterrupt`` the bound did not send) stops the checklist, as it should."""

    def interrupted(path: Any, **options: Any) -> Any:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        checklist.run(lab="11.3", build_context=interrupted)


def test_a_function_that_returned_none_is_told_so() -> None:
    def nothing(path: Any, **options: Any) -> None:
        return None

    record = checklist.run(lab="11.3", build_context=nothing).records[0]
    assert record.message == (
        "R16: the chapter's budget: the replayed system message — expected a result, but build_context returned None"
    )
    test = next(t for t in grade_in_process("11.3", {"build_context": nothing}).tests if t.number == "7")
    assert test.score == 0 and test.output == record.message


def test_first_kept_treated_as_exclusive_points_at_the_cut_point() -> None:
    record = _record(verdicts.inline(_mutant("11_5_first_kept_exclusive")), 12)
    assert record.message.startswith(
        "R18: firstKeptEntryId 'u2' is itself kept (the cut point is inclusive), but your build_context started at "
        "'a2', the entry after it"
    ), record.message


@pytest.mark.parametrize(("lab", "number"), [("11.3", 7), ("11.5", 12)])
def test_history_stays_a_build_that_deletes_metadata_fails_inline(lab: str, number: int) -> None:
    record = _record(verdicts.inline(_mutant(f"{lab.replace('.', '_')}_deletes_metadata")), number)
    assert record.status == "failed"
    assert record.message.startswith("R23: ") and "its entry ids after the build (history stays)" in record.message


@pytest.mark.parametrize("name", NEW_MUTANTS)
def test_the_new_mistakes_fail_a_check_inline(name: str) -> None:
    """Issue 30's mistakes each fail a check of their checklist cell (that the grader judges every check of every
    mutant alike is test_verdicts', and that it takes marks from each is test_mutants')."""
    assert not verdicts.inline(_mutant(name)).all_passed


@pytest.mark.slow  # the whole corpus (its verdicts, once per run): make test, not make check
@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_every_mistake_in_the_corpus_lets_its_checklist_finish_by_itself(mutant: Mutant) -> None:
    """A learner can run every lab's checklist with any of the corpus's mistakes: no check needs the bound."""
    report = verdicts.inline(mutant)
    assert not [r.message for r in report.records if STOPPED in r.message]


@pytest.mark.slow  # starts a Jupyter kernel
def test_the_bound_stops_an_endless_loop_in_a_jupyter_kernel() -> None:
    """In a real kernel (the learner's notebook): SIGALRM in the kernel's main thread ends the check, the kernel lives on."""
    cells = [
        "from course_lib import checklist\nfrom course_lib.checklist import bounds\nbounds.SECONDS = 0.5",
        "def build_context(path, **options):\n    while True:\n        pass",
        'report = checklist.run(lab="11.3", build_context=build_context)\nprint(report)',
        "print('the kernel goes on:', checklist.run(lab='11.3').summary)",
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    with tempfile.TemporaryDirectory(prefix="course-kernel-") as sockets:
        config = Config({"KernelManager": {"transport": "ipc", "ip": str(Path(sockets) / "kernel")}})
        NotebookClient(notebook, config=config, timeout=120, kernel_name="python3").execute()
    printed = [output.get("text", "") for cell in notebook.cells for output in cell.outputs]
    assert printed[0].count("it ran longer than 0.5 s, the bound of one check") == 3, printed[0]
    assert printed[1] == "the kernel goes on: Lab 11.3: 3/3 passed\n"
