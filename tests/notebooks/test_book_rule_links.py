"""The book's rule-id links inside notebook HTML outputs (book/_ext/rule_links.py): ids in prose link,
quoted text and markup stay exactly as written. The whole built site is checked by tests/browser/test_book_browser.py."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rule_links() -> ModuleType:
    pytest.importorskip("sphinx")
    for folder in (ROOT / "book", ROOT / "book" / "_ext"):  # as book/conf.py puts them (rule_links reads the editions)
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    spec = importlib.util.spec_from_file_location("book_rule_links", ROOT / "book" / "_ext" / "rule_links.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def link(rule_id: str) -> str:
    return f'<a class="reference internal rule-link" href="../docs/rules.html#{rule_id}">{rule_id}</a>'


def test_rule_ids_in_table_text_become_links(rule_links: ModuleType) -> None:
    html = "<td>R19/R20: kept ids</td><td>L1–L6</td>"
    assert (
        rule_links.link_html(html, "../docs/rules.html")
        == f"<td>{link('R19')}/{link('R20')}: kept ids</td><td>{link('L1')}–{link('L6')}</td>"
    )


def test_quoted_text_links_and_svg_are_left_alone(rule_links: ModuleType) -> None:
    html = (
        "<pre>R1: refused</pre><code>R2</code><a href='x'>R3</a>"
        "<svg><text x='1'>R4</text></svg><script>var R5 = 1;</script><br/>R99 &amp; R0 &#x2192;"
    )
    assert rule_links.link_html(html, "rules.html") == html


def test_attributes_and_entities_survive(rule_links: ModuleType) -> None:
    html = "<p title='see R7' data-x=\"1\">&lt;R7&gt;<!-- R8 --></p>"
    assert rule_links.link_html(html, "r.html") == (
        "<p title='see R7' data-x=\"1\">&lt;"
        '<a class="reference internal rule-link" href="r.html#R7">R7</a>'
        "&gt;<!-- R8 --></p>"
    )
