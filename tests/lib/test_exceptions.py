"""One base for everything the course raises: ``CourseError`` (course_lib/errors.py).

A caller (a notebook, the grader, an instructor's script) can then tell the course's own
refusals from a bug with one ``except``; what the chapter calls an error stays a
``ValueError`` as its API promises, and the grader's stub for a withheld reference
stays apart from every ``ValueError`` (a stub must never look like a correct rejection).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from source_trees import nodes

import course_grader
import course_lib
from course_grader.errors import GradingError
from course_lib.errors import (
    CompactionError,
    CourseError,
    EstimateError,
    InteractionError,
    NotAvailableWhileGrading,
    NotFiniteJsonError,
    OptionError,
    SessionEntryError,
    SessionPathError,
    SessionStoreError,
)
from course_lib.importers import SessionImportError
from course_lib.lifecycle.errors import CompactionSettingsError, ReplayError

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (course_lib, course_grader)

BUILTIN_RAISES_ALLOWED = {
    (
        "course_lib/models.py",
        "ValueError",
    ),  # _as_tuple is a pydantic validator: pydantic turns it into the field's error
    (
        "course_grader/course/course_settings.py",
        "ValueError",
    ),  # the course file's validators: pydantic names the key in its error
    (
        "course_grader/course/per_student.py",
        "ValueError",
    ),  # the course file's extensions and overrides: the same, pydantic names the entry and key
}
"""Where a module may still raise a built-in exception type by name, and why."""


def _modules() -> Iterator[str]:
    for package in PACKAGES:
        yield package.__name__
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}."):
            if not info.name.endswith(".__main__"):  # running it is what importing it does
                yield info.name


def _exception_classes() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for name in _modules():
        module = importlib.import_module(name)
        for value in vars(module).values():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == name:
                found[f"{name}.{value.__qualname__}"] = value
    return list(found.values())


def test_the_walk_finds_every_family() -> None:
    names = {cls.__name__ for cls in _exception_classes()}
    assert {
        "SessionEntryError",
        "CompactionSettingsError",
        "SessionImportError",
        "GradingError",
        "NotRecording",
        "TokenizerDataError",
        "UsageError",
        "ReplyTooLarge",
    } <= names


@pytest.mark.parametrize("cls", _exception_classes(), ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
def test_every_exception_the_course_defines_derives_from_course_error(cls: type[BaseException]) -> None:
    assert issubclass(cls, CourseError), f"{cls.__module__}.{cls.__qualname__} bases: {cls.__mro__[1:]}"


@pytest.mark.parametrize(
    "cls",
    [
        SessionEntryError,
        SessionStoreError,
        SessionPathError,
        InteractionError,
        CompactionError,
        CompactionSettingsError,
        SessionImportError,
        OptionError,
        EstimateError,
        NotFiniteJsonError,
        ReplayError,
    ],
)
def test_what_the_chapter_calls_an_error_is_a_value_error(cls: type[BaseException]) -> None:
    assert issubclass(cls, ValueError)


def test_a_withheld_reference_never_looks_like_a_rejection() -> None:
    assert not issubclass(NotAvailableWhileGrading, ValueError)
    assert issubclass(GradingError, CourseError)


def _builtin_raises(path: Path) -> Iterator[tuple[int, str]]:
    for node in nodes(path):
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(target, ast.Name) and target.id in {"ValueError", "RuntimeError", "TypeError", "Exception"}:
                yield node.lineno, target.id


def test_course_code_raises_its_own_types_not_bare_builtins() -> None:
    found = [
        f"{relative}:{line} raises {name}"
        for package in PACKAGES
        for path in sorted(Path(package.__path__[0]).rglob("*.py"))
        for relative in [path.relative_to(ROOT).as_posix()]
        for line, name in _builtin_raises(path)
        if (relative, name) not in BUILTIN_RAISES_ALLOWED
    ]
    assert found == []


def test_the_new_types_carry_what_they_refuse() -> None:
    from course_lib import build_context
    from course_lib.teaching.lab_registry import lab

    with pytest.raises(OptionError, match=r"max_tokens must be a finite number >= 0"):
        build_context([], max_tokens=-1, reserved_output=0, safety_margin=0, estimate_tokens=lambda m: 1)
    with pytest.raises(OptionError, match="unknown lab"):
        lab("11.9")
    assert NotFiniteJsonError("NaN").constant == "NaN"
