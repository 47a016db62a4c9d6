"""The course website's editions (book/sources.py, scripts/build_book.py, book/_ext/editions.py; issue 32), without Sphinx.

What each edition publishes and from where, and the Chinese start page kept in step with the
English one. The built site in a browser is tests/browser/test_book_browser.py's.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "book"), str(ROOT / "book" / "_ext")]  # as book/conf.py and scripts/build_book.py do

from sources import EDITIONS, ENGLISH  # noqa: E402 (book/ is on the path only from the line above)

ENGLISH_START = ROOT / "book" / "index.md"
CHINESE_START = ROOT / "book" / "zh" / "index.md"
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
TOCTREE = re.compile(r"^```\{toctree\}\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def build_book() -> ModuleType:
    return _load("build_book", ROOT / "scripts" / "build_book.py")


def _toctrees(text: str) -> list[tuple[str, list[str]]]:
    """Each toctree of a start page: its caption and its entries."""
    found = []
    for body in TOCTREE.findall(text):
        lines = [line.strip() for line in body.splitlines() if line.strip()]
        caption = next((line.split(":", 2)[2].strip() for line in lines if line.startswith(":caption:")), "")
        found.append((caption, [line for line in lines if not line.startswith(":")]))
    return found


# ---- the Chinese start page (book/zh/index.md) is a translation of the English one as it is now ----


def test_the_chinese_start_page_translates_the_english_one_as_it_is_now() -> None:
    """A change to book/index.md fails here until book/zh/index.md is revised to match and its hash updated."""
    recorded = re.search(r"translation of book/index\.md \(sha256 ([0-9a-f]{64})\)", CHINESE_START.read_text())
    assert recorded, "book/zh/index.md names no sha256 of the book/index.md it translates"
    now = hashlib.sha256(ENGLISH_START.read_bytes()).hexdigest()
    assert recorded.group(1) == now, (
        "book/index.md changed since book/zh/index.md translated it: revise the Chinese start page to match, "
        f"then record sha256 {now}"
    )


def test_the_chinese_start_page_links_where_the_english_one_does() -> None:
    """Every page the English start page links to, the Chinese one does; any other link is to a page of the course."""
    english = set(LINK.findall(ENGLISH_START.read_text()))
    chinese = set(LINK.findall(CHINESE_START.read_text()))
    assert english <= chinese, f"not linked from book/zh/index.md: {sorted(english - chinese)}"
    pages = set(EDITIONS[ENGLISH].pages(ROOT))
    assert chinese - english <= pages, f"book/zh/index.md links to what is no page: {sorted(chinese - english - pages)}"


def test_the_chinese_start_page_has_the_english_ones_contents() -> None:
    """The same toctrees in the same order, each with the same pages; the docs pages by a glob of what exists."""
    english, chinese = _toctrees(ENGLISH_START.read_text()), _toctrees(CHINESE_START.read_text())
    assert len(chinese) == len(english)
    assert all(caption for caption, _ in chinese), "a toctree of book/zh/index.md has no caption"
    for (_, ours), (_, theirs) in zip(chinese, english, strict=True):
        if any(entry.startswith("docs/") for entry in theirs):
            assert ours == ["docs/*"], "the Chinese docs pages are taken as they land (docs/zh/*.md): by a glob"
        else:
            assert ours == theirs


# ---- what each edition publishes, and from where ----


def test_the_chinese_edition_publishes_its_notebooks_at_their_english_twins_paths() -> None:
    english, chinese = EDITIONS[ENGLISH].pages(ROOT), EDITIONS["zh"].pages(ROOT)
    notebooks = {path: source for path, source in chinese.items() if path.endswith(".ipynb")}
    assert notebooks, "no Chinese notebook is published"
    for path, source in notebooks.items():
        assert path in english, f"{source} has no English twin"
        assert source == ROOT / EDITIONS["zh"].repository_path(path)
        assert source.parent.name == "zh" and source.parent.parent.name == path.split("/")[0]
    assert english == {path: ROOT / path for path in english}
    assert not [source for source in [*english.values(), *chinese.values()] if "solutions" in source.parts]


def _course(root: Path, files: list[str]) -> Path:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)
    return root


def test_a_chinese_docs_page_is_published_the_moment_it_lands(tmp_path: Path, build_book: ModuleType) -> None:
    """docs/zh/rules.md is the Chinese site's docs/rules.md; its pictures are the English ones, unless it has its own."""
    course = _course(
        tmp_path / "course",
        [
            "book/index.md",
            "book/zh/index.md",
            "labs/lab_a.ipynb",
            "labs/zh/lab_a.ipynb",
            "labs/zh/solutions/lab_a.ipynb",
            "notebooks/zh/solutions/n.ipynb",
            "docs/rules.md",
            "docs/zh/rules.md",
            "docs/zh/glossary.md",
            "docs/lab.png",
            "docs/report.png",
            "docs/zh/report.png",
        ],
    )
    staged = tmp_path / "staged"
    build_book.stage(EDITIONS["zh"], staged, root=course)
    published = {path.relative_to(staged).as_posix(): path.read_text() for path in staged.rglob("*") if path.is_file()}
    assert published == {
        "index.md": "book/zh/index.md",
        "labs/lab_a.ipynb": "labs/zh/lab_a.ipynb",
        "docs/rules.md": "docs/zh/rules.md",
        "docs/glossary.md": "docs/zh/glossary.md",
        "docs/lab.png": "docs/lab.png",
        "docs/report.png": "docs/zh/report.png",
    }
    build_book.stage(EDITIONS[ENGLISH], staged, root=course)
    published = {path.relative_to(staged).as_posix(): path.read_text() for path in staged.rglob("*") if path.is_file()}
    assert published == {
        "index.md": "book/index.md",
        "labs/lab_a.ipynb": "labs/lab_a.ipynb",
        "docs/rules.md": "docs/rules.md",
        "docs/lab.png": "docs/lab.png",
        "docs/report.png": "docs/report.png",
    }


def test_the_site_root_leads_to_the_english_edition(tmp_path: Path, build_book: ModuleType) -> None:
    build_book.redirect(tmp_path)
    page = (tmp_path / "index.html").read_text()
    assert '<meta http-equiv="refresh" content="0; url=en/">' in page
    assert 'href="zh/"' in page


# ---- links across editions (book/_ext/editions.py) ----


@pytest.fixture(scope="module")
def editions() -> ModuleType:
    pytest.importorskip("sphinx")
    return sys.modules.get("editions") or _load("editions", ROOT / "book" / "_ext" / "editions.py")


@pytest.mark.parametrize(
    ("refdoc", "path", "english_page"),
    [
        ("notebooks/00_start_here", "../docs/rules.md", "docs/rules"),
        ("index", "docs/grading.md", "docs/grading"),
        ("labs/lab_11_3_build_context", "/docs/grading.md", "docs/grading"),
        ("index", "docs/no_such_page.md", None),
        ("index", "docs/book-lab.png", None),
        ("notebooks/00_start_here", "docs/rules.md", None),  # notebooks/docs/rules.md: no page
    ],
)
def test_a_link_to_a_source_means_the_english_page_of_that_path(
    editions: ModuleType, refdoc: str, path: str, english_page: str | None
) -> None:
    assert editions.english_docname(refdoc, path) == english_page


def test_a_start_page_toctree_is_left_out_only_while_its_globs_match_nothing(editions: ModuleType) -> None:
    """Before the first docs/zh page lands, the Chinese start page's ``docs/*`` section is left out, the rest kept."""

    class App:
        class config:
            book_edition = "zh"

    source = [CHINESE_START.read_text()]
    editions.leave_out_empty_globs(App, "index", source)
    chinese_docs = [path for path in EDITIONS["zh"].pages(ROOT) if path.startswith("docs/")]
    kept = [entries for _, entries in _toctrees(source[0])]
    assert ["labs/*"] in kept and ["notebooks/00_start_here", "notebooks/01_projection_explorer"] in kept
    assert (["docs/*"] in kept) == bool(chinese_docs)
    App.config.book_edition = ENGLISH
    english = [ENGLISH_START.read_text()]
    editions.leave_out_empty_globs(App, "index", english)
    assert english == [ENGLISH_START.read_text()]
