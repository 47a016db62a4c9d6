"""The pack cites only what it ships, and states each rule range once.

Learner-facing text (README, docs, notebooks, labs, the package's docstrings and
messages) may cite rules by id, files of this repository and sections of
docs/rules.md; never the internal behaviour spec, a section number of a
document the repository does not contain, or "the lesson". The rule ranges
shown for each lab come from one table (``course_lib.rules``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from course_lib import lab_registry, rules
from course_lib.checklist import rules_page

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = re.compile(
    r"spec/[\w-]+\.md|spec §|§\s?\d|\.\./shared|\bapi\.md\b|chapter11\.md|\blifecycle\.md|toolchain\.md"
    r"|\bthe lesson\b|\bseeds/",
    re.IGNORECASE,
)
REPO_PATH = re.compile(
    r"(?<![\w/.-])((?:\.\./)?(?:docs|notebooks|labs|scripts|benchmarks|course_lib)/[\w./-]+\.(?:md|ipynb|py))"
)


RULE = re.compile(r"(?<![\w,.])([RL]\d+)\b(?![,.]\d)")
"""A rule id; SVG path commands such as ``L10,5`` are not rules."""


def _learner_facing() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
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


def test_docs_rules_md_is_generated_from_the_table() -> None:
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == rules_page.markdown(), (
        "docs/rules.md is out of date: python -m course_lib.checklist.rules_page > docs/rules.md"
    )


def test_every_rule_is_stated_and_every_chapter_rule_is_checked() -> None:
    from course_lib.checklist.cases import CASES

    assert [rule.id for rule in rules.RULES] == [f"R{n}" for n in range(1, 29)] + [f"L{n}" for n in range(1, 7)]
    checked = {rule for case in CASES for rule in rules.cited(case.rules)}
    assert {f"R{n}" for n in range(1, 29)} - checked <= {"R8"}  # R8 is the store's own (tests/test_store*.py)
    assert {f"L{n}" for n in range(1, 7)} <= checked  # the capstone's four checks


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
    assert sorted(set(rules.cited(table)), key=lambda r: int(r[1:])) == rules_page.lab_rules(lab)
