"""The pack cites only what it ships, and states each rule range once.

Learner-facing text (README, docs, notebooks, labs, the package's docstrings and
messages) may cite rules by id, files of this repository and sections of
docs/rules.md; never the internal behaviour spec, a section number of a
document the repository does not contain, or "the lesson". The rule ranges
shown for each lab come from one table (``course_lib.teaching.rules``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from course_lib.checklist import rules_page
from course_lib.teaching import i18n, lab_registry, rules

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = re.compile(
    r"spec/[\w-]+\.md|spec §|§\s?\d|\.\./shared|\bapi\.md\b|chapter11\.md|\blifecycle\.md|toolchain\.md"
    r"|\bthe lesson\b|\bseeds/",
    re.IGNORECASE,
)
REPO_PATH = re.compile(
    r"(?<![\w/.-])((?:\.\./)?(?:docs|notebooks|labs|scripts|benchmarks|course_lib)/[\w./-]+\.(?:md|ipynb|py))"
)


RULE = re.compile(r"(?<![\w,.])([RLM]\d+)\b(?![,.]\d)")
"""A rule id; SVG path commands such as ``L10,5`` are not rules."""


def _learner_facing() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs").glob("*/*.md"))]
    files += sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "labs").rglob("*.ipynb"))
    files += sorted((ROOT / "course_lib").rglob("*.py"))
    return [f for f in files if ".ipynb_checkpoints" not in f.parts]


def _text(path: Path) -> str:
    if path.suffix != ".ipynb":
        return path.read_text(encoding="utf-8")
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return "\n".join("".join(cell["source"]) for cell in notebook["cells"])


@pytest.mark.parametrize("path", _learner_facing(), ids=lambda p: str(p.relative_to(ROOT)))
def test_cites_only_what_the_pack_ships(path: Path) -> None:
    text = _text(path)
    assert FORBIDDEN.findall(text) == [], "cites material the pack does not ship"
    for cited in REPO_PATH.findall(text):
        target = (path.parent / cited).resolve() if cited.startswith("../") else ROOT / cited
        assert target.exists() or "*" in cited, f"{cited} does not exist in the repository"
    unknown = sorted({rule for rule in RULE.findall(text) if rule not in rules.BY_ID})
    assert unknown == [], "cites rules the course does not have"


PAGES = sorted(rules_page.PAGES.items())
"""Each rules page and its language: docs/rules.md (English) and its editions (docs/zh/rules.md)."""


@pytest.mark.parametrize(("language", "page"), PAGES, ids=[page for _language, page in PAGES])
def test_each_rules_page_is_generated_from_the_table(language: str, page: str) -> None:
    option = "" if language == "en" else f" --language {language}"
    assert (ROOT / page).read_text(encoding="utf-8") == rules_page.markdown(language), (
        f"{page} is out of date: make rules (python -m course_lib.checklist.rules_page{option} > {page})"
    )


def test_every_language_has_its_rules_page() -> None:
    assert set(rules_page.PAGES) == set(i18n.LANGUAGES)


@pytest.mark.parametrize(("language", "page"), PAGES, ids=[page for _language, page in PAGES])
def test_every_rule_has_its_anchor_on_each_page(language: str, page: str) -> None:
    """Links such as ``rules.md#r19`` (the feedback pages, the notebooks) land on the rule, in every edition."""
    text = (ROOT / page).read_text(encoding="utf-8")
    stated = re.findall(r'^<a id="([a-z]\d+)"></a>\n\n\*\*([RLM]\d+)\*\* ', text, re.MULTILINE)
    assert stated == [(rules_page.anchor(rule.id), rule.id) for rule in rules.RULES]


def _parts(language: str) -> tuple[list[str], list[str], list[str]]:
    """A page's code spans (but its *You see* verdicts), its fenced code blocks, and the rule ids each verdict
    starts with.

    Read with markdown-it-py, the CommonMark parser under the book's MyST: a span is what renders as code, so
    the editors' HTML comment (which names each page's own command) holds none.
    """
    from markdown_it import MarkdownIt

    text = (ROOT / rules_page.PAGES[language]).read_text(encoding="utf-8")
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    you_see = i18n.RULE_MESSAGES("You see:", language)
    spans: list[str] = []
    verdicts: list[str] = []
    for token in tokens:
        children = token.children or []
        codes = [child.content for child in children if child.type == "code_inline"]
        labelled = [child.type for child in children[:3]] == ["em_open", "text", "em_close"]
        if labelled and children[1].content == you_see:
            *spans_before, verdict = codes
            spans += spans_before
            cited = VERDICT_RULES.match(verdict)
            assert cited, f"a verdict that names no rule: {verdict}"
            verdicts.append(cited.group())
        else:
            spans += codes
    return spans, [token.content for token in tokens if token.type == "fence"], verdicts


VERDICT_RULES = re.compile(r"[RLM]\d+(?:/[RLM]\d+)*")
"""The rule ids a verdict starts with (``R16/R6: …``): the same in every language."""


@pytest.mark.parametrize(("language", "page"), [item for item in PAGES if item[0] != "en"])
def test_an_edition_keeps_every_code_span_of_the_english_page(language: str, page: str) -> None:
    """Code, identifiers, field names and commands are never translated; only what a learner sees is said in the
    edition's language (its *You see* lines: the verdict as the checklist says it there, after the same rule ids)."""
    english = _parts("en")
    edition = _parts(language)
    assert edition[0] == english[0], "an edition changed, dropped or added a code span"
    assert edition[1] == english[1], "the summary text's format is wire text: the same in every edition"
    assert edition[2] == english[2] and english[2], "each *You see* line names the same rules in every edition"


def test_every_rule_is_stated_and_every_chapter_rule_is_checked() -> None:
    from course_lib.checklist.cases import CASES

    chapter, lifecycle = [f"R{n}" for n in range(1, 29)], [f"L{n}" for n in range(1, 7)]
    migration = [f"M{n}" for n in range(1, 5)]  # the optional Lab 11.6's
    assert [rule.id for rule in rules.RULES] == chapter + lifecycle + migration
    checked = {rule for case in CASES for rule in rules.cited(case.rules)}
    assert {f"R{n}" for n in range(1, 29)} - checked <= {"R8"}  # R8 is the store's own (tests/test_store*.py)
    assert {f"L{n}" for n in range(1, 7)} <= checked  # the capstone's four checks
    assert set(migration) <= checked


@pytest.mark.parametrize("lab", list(lab_registry.LABS))
def test_rule_ranges_agree_everywhere(lab: str) -> None:
    """README, the start page and the lab's own rule table show the rules its checks cite."""
    entry = lab_registry.lab(lab)
    expected = rules.ranges(rules_page.lab_rules(lab))
    readme = next(line for line in (ROOT / "README.md").read_text().splitlines() if f"{entry.label} —" in line)
    assert f"({expected})" in readme
    if entry.folder != "labs":  # the capstone: its introduction names the rules its checks cite
        intro = json.loads((ROOT / entry.folder / "solutions" / f"{entry.notebook}.ipynb").read_text())["cells"][0]
        assert expected in "".join(intro["source"])
        return
    start = _text(ROOT / "notebooks" / "00_start_here.ipynb")
    row = next(line for line in start.splitlines() if line.startswith(f"| {lab} |"))
    assert row.rstrip().endswith(f"| {expected} |")
    intro = json.loads((ROOT / "labs" / "solutions" / f"{lab_registry.lab(lab).notebook}.ipynb").read_text())["cells"][
        0
    ]
    table = "".join(intro["source"]).split("| rule |", 1)[1]
    assert sorted(set(rules.cited(table)), key=list(rules.BY_ID).index) == rules_page.lab_rules(lab)


def test_the_english_page_never_follows_the_readers_language(monkeypatch: pytest.MonkeyPatch) -> None:
    """``make rules`` on a machine whose locale is Chinese still writes the English page to docs/rules.md."""
    monkeypatch.setenv(i18n.ENVIRONMENT, "zh")
    assert rules_page.markdown() == (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def test_a_verdict_with_backticks_stays_one_code_span() -> None:
    from markdown_it import MarkdownIt

    for text in ("R1: plain", "R1: the `id` field", "R1: `` twice"):
        inline = MarkdownIt("commonmark").parseInline(rules_page.code_span(text))[0].children or []
        assert [(child.type, child.content) for child in inline] == [("code_inline", text)]
