"""The glossary (issue 32) says only what the course holds, and says it alike in both languages.

Each page is its generator's output; every Python name it gives exists in ``course_lib``
(a field's wire name is the model's own alias); every command of the course's parses as
the program it names would parse it; both pages list the same rows; a row cites the same
rules in both languages; its Chinese terms are the ones the Chinese edition's catalogs use,
and its Chinese text is punctuated in full width.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib
import inspect
import re
import shlex
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from pydantic import BaseModel

import course_lib
from course_lib.teaching import glossary, rules
from course_lib.teaching.glossary import COMMANDS, PAGES, TERMS, TOPICS, Command, Term
from course_lib.teaching.glossary.__main__ import main as glossary_main
from course_lib.teaching.glossary.page import TEXTS
from course_lib.teaching.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parents[1]
START_PAGE = ROOT / "notebooks" / "sources" / "00_start_here.py"
CATALOGS = sorted((ROOT / "course_lib" / "teaching" / "locale" / "zh_CN" / "LC_MESSAGES" / "notebooks").glob("*.po"))
NAME = re.compile(r"(?P<dotted>[A-Za-z_][\w.]*)(?P<call>\(\)|\((?P<parameter>\w+)=…\))?")
"""A Python name as the table writes it: ``a.b``, ``a.b()`` (a callable), ``a.b(parameter=…)`` (a parameter)."""
ASCII_PROSE_PUNCTUATION = re.compile(r"[,;:()]")


def _console_parsers() -> dict[str, tuple[str, Callable[[], argparse.ArgumentParser]]]:
    """Each console script a command may start with: its pyproject.toml entry point and its parser."""
    from course_grader.cli import grade
    from course_lib.importers import cli

    return {
        "course-session": ("course_lib.importers.cli:main", cli._parser),
        "course-grade": ("course_grader.cli:main", grade.build_parser),
    }


def _make_targets() -> set[str]:
    phony = re.search(r"^\.PHONY:(.*)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.MULTILINE)
    assert phony
    return set(phony.group(1).split())


def _python_names() -> list[tuple[Term, str]]:
    return [(term, name) for term in TERMS for name in term.python]


def _resolve(dotted: str) -> tuple[Any, Any, str | None]:
    """``dotted`` under ``course_lib``: the object it names, or its owner and the field's name when it is a field."""
    owner: Any = course_lib
    parts = dotted.split(".")
    for index, part in enumerate(parts):
        if inspect.ismodule(owner) and not hasattr(owner, part):
            owner = importlib.import_module(f"{owner.__name__}.{part}")
            continue
        last = index == len(parts) - 1
        if last and inspect.isclass(owner) and part in _fields(owner):
            return None, owner, part
        assert hasattr(owner, part), f"course_lib.{'.'.join(parts[: index + 1])} does not exist"
        owner = getattr(owner, part)
    return owner, None, None


def _fields(cls: type) -> set[str]:
    """A model's fields: pydantic's, or a dataclass's (a field without a default is no class attribute)."""
    if issubclass(cls, BaseModel):
        return set(cls.model_fields)
    return {field.name for field in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()


def _table_rows(path: str) -> list[list[str]]:
    """Every body row of every table on a committed page, as its cells."""
    rows = []
    for line in (ROOT / path).read_text(encoding="utf-8").splitlines():
        if line.startswith("| ") and not line.startswith("|---"):
            rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    headers = {" | ".join(columns) for text in TEXTS.values() for columns in (text.term_columns, text.command_columns)}
    return [row for row in rows if " | ".join(row) not in headers]


def _prose(text: str) -> str:
    """``text`` without its code spans and link targets: what ASCII punctuation must not be in, in Chinese."""
    return re.sub(r"`[^`]*`|\]\([^)]*\)", "", text)


@functools.cache
def _catalog_text() -> str:
    """Every translation in the notebooks' Chinese catalogs, read once."""
    text = []
    for path in CATALOGS:
        with path.open("rb") as handle:
            text += [str(message.string) for message in read_po(handle) if message.id]
    return "\n".join(text)


@pytest.mark.parametrize("language", sorted(PAGES))
def test_each_page_is_its_generators_output(language: str) -> None:
    path = PAGES[language]
    command = "python -m course_lib.teaching.glossary" + ("" if language == "en" else f" --language {language}")
    assert (ROOT / path).read_text(encoding="utf-8") == glossary.markdown(language), (
        f"{path} is out of date: make glossary (or {command} > {path})"
    )


def test_the_command_prints_the_page_asked_for(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert glossary_main(["--language", "zh_CN"]) == 0
    assert capsysbinary.readouterr().out.decode("utf-8") == glossary.markdown("zh")
    assert glossary_main([]) == 0
    assert capsysbinary.readouterr().out.decode("utf-8") == glossary.markdown("en")


def test_the_glossary_covers_every_language_the_course_speaks() -> None:
    assert set(PAGES) == set(TEXTS) == set(LANGUAGES)


@pytest.mark.parametrize(("term", "name"), _python_names(), ids=lambda value: getattr(value, "english", value))
def test_every_python_name_exists_in_course_lib(term: Term, name: str) -> None:
    match = NAME.fullmatch(name)
    assert match, f"{term.english}: {name!r} is not written as name, name() or name(parameter=…)"
    found, owner, field = _resolve(match["dotted"])
    if field is not None:
        assert match["call"] is None, f"{name}: a field is not called"
        if issubclass(owner, BaseModel) and owner.model_fields[field].alias:
            alias = owner.model_fields[field].alias
            assert alias in term.wire, f"{term.english}: {name} is {alias!r} on the wire; list it"
        return
    if match["call"]:
        assert callable(found), f"{name} is not callable"
    if match["parameter"]:
        assert match["parameter"] in inspect.signature(found).parameters, f"{name}: no such parameter"


@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: command.course)
def test_every_command_of_the_course_parses(command: Command) -> None:
    """The course's side runs as written: a make target that exists, a module's or a script's own parser accepts it."""
    words = shlex.split(command.course)
    program, *arguments = words
    if program == "make":
        target, *variables = arguments
        assert target in _make_targets(), f"{command.course}: no make target {target!r}"
        assert all("=" in variable for variable in variables), command.course
        return
    if program == "python":
        assert arguments[:1] == ["-m"], f"{command.course}: run a module with python -m"
        module = importlib.import_module(arguments[1])
        if hasattr(module, "__path__"):  # a package runs its __main__
            module = importlib.import_module(f"{arguments[1]}.__main__")
        parser, options = module.parser(), arguments[2:]
    else:
        scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
        assert program in _console_parsers(), f"{command.course}: not python -m, make or a console script"
        entry, make_parser = _console_parsers()[program]
        assert scripts[program] == entry, f"{program} is not the console script the glossary expects"
        parser, options = make_parser(), arguments
    try:
        parser.parse_args(options)
    except SystemExit as refused:
        pytest.fail(f"{command.course}: its parser refuses it (exit {refused.code})")


def test_both_pages_list_the_same_rows() -> None:
    english, chinese = (_table_rows(PAGES[language]) for language in ("en", "zh"))
    assert len(english) == len(chinese) == len(TERMS) + len(COMMANDS)
    for en, zh in zip(english, chinese):
        assert len(en) == len(zh), (en, zh)
        if len(en) == 5:  # a term: its name and its Chinese swap places, the code names are the same
            assert (en[0], en[1], en[2:4]) == (zh[1], zh[0], zh[2:4]), (en, zh)
        else:  # a command: the chapter's and the course's
            assert en[:2] == zh[:2], (en, zh)


def _start_page_names() -> list[tuple[str, str]]:
    """The start page's "chapter's names in Python" table, as (chapter, course) pairs of code names."""
    source = START_PAGE.read_text(encoding="utf-8")
    table = source.split("# | in the chapter (TypeScript) | in this course (Python) |", 1)[1].split("\n#\n", 1)[0]
    pairs: list[tuple[str, str]] = []
    for line in table.splitlines()[2:]:
        chapter, course = line.removeprefix("# | ").removesuffix(" |").split(" | ")
        pairs += zip(re.findall(r"`([^`]+)`", chapter), re.findall(r"`([^`]+)`", course))
    return pairs


@pytest.mark.parametrize(("chapter", "course"), _start_page_names())
def test_the_glossary_agrees_with_the_start_pages_names(chapter: str, course: str) -> None:
    """notebooks/00_start_here maps some of the chapter's names to the course's; the glossary maps them alike."""
    commands = [command for command in COMMANDS if command.chapter == chapter]
    if commands:
        assert [command.course for command in commands] == [course], chapter
        return
    terms = [term for term in TERMS if chapter in term.wire]
    assert terms, f"the glossary has no row for the chapter's {chapter}"
    python = {name.split("(")[0].split(".")[-1] for term in terms for name in term.python}
    assert course.removesuffix("()") in python, (chapter, course, python)


def test_every_topic_has_its_terms_together() -> None:
    order = [term.topic for term in TERMS]
    assert order == sorted(order, key=TOPICS.index), "a topic's terms are split: its section would repeat"


@pytest.mark.parametrize("term", TERMS, ids=lambda term: term.english)
def test_a_term_cites_the_same_rules_in_both_languages(term: Term) -> None:
    assert rules.cited(term.meaning_en) == rules.cited(term.meaning_zh)
    assert all(rule in rules.BY_ID for rule in rules.cited(term.meaning_zh))


@pytest.mark.parametrize("term", TERMS, ids=lambda term: term.english)
def test_a_chinese_term_is_the_chinese_editions_own(term: Term) -> None:
    chinese = re.match(r"[\u4e00-\u9fff]+", term.chinese)
    if chinese is None:  # the chapter keeps the English word (session, entry, …) or the code name
        assert term.chinese in (term.english, term.english.split(" (")[0]), term
        return
    assert chinese[0] in _catalog_text(), f"{chinese[0]!r} is not a term the notebooks' Chinese catalogs use"


def _chinese_texts() -> list[str]:
    page = TEXTS["zh"]
    texts = [term.meaning_zh for term in TERMS] + [command.does_zh for command in COMMANDS]
    return texts + [topic.chinese for topic in TOPICS] + [*page.introduction, page.commands_introduction]


@pytest.mark.parametrize("text", _chinese_texts(), ids=lambda text: text[:12])
def test_chinese_text_is_chinese_in_full_width_punctuation(text: str) -> None:
    if text:
        assert re.search(r"[\u4e00-\u9fff]", text), text
    assert not ASCII_PROSE_PUNCTUATION.findall(_prose(text)), f"ASCII punctuation in Chinese prose: {text}"


def test_no_cell_breaks_its_table() -> None:
    cells = [text for term in TERMS for text in (term.english, term.chinese, *term.python, *term.wire)]
    cells += [term.meaning_en for term in TERMS] + [term.meaning_zh for term in TERMS]
    cells += [text for command in COMMANDS for text in (command.course, command.chapter, command.does_en)]
    cells += [command.does_zh for command in COMMANDS]
    assert [cell for cell in cells if "|" in cell or "\n" in cell] == []
