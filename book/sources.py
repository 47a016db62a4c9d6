"""What the course website is built from, as paths in the repository (the one list: book/conf.py
publishes these pages, scripts/build_book.py stages them, book/_ext/editions.py links the editions).
Learner versions only: the solutions in labs/solutions/, notebooks/solutions/ and their Chinese
twins (labs/zh/solutions/, …) match no pattern, so they are never published.

The site has one edition per language, each a Sphinx build of its own (issue 32): ``en/`` from
the English notebooks and docs, ``zh/`` from their Chinese editions (``labs/zh/*.ipynb``,
``notebooks/zh/*.ipynb``, ``docs/zh/*.md``). An edition publishes each page at its English
twin's path (``labs/zh/lab_11_4_….ipynb`` is ``zh/labs/lab_11_4_….html``, beside
``en/labs/lab_11_4_….html``), so the notebooks' relative links work in both, and a page's
counterpart in the other language is found by its path.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# Where pages come from, as (folder, pattern) in the English edition: an edition's pages are
# ``<folder>/<edition folder>/<pattern>`` in the repository, published as ``<folder>/<pattern>``.
FOLDERS = (("notebooks", "*.ipynb"), ("labs", "*.ipynb"), ("docs", "*.md"))
# Pages, besides the book's own start page, as paths on the site (what book/conf.py includes).
PAGES = tuple(f"{folder}/{pattern}" for folder, pattern in FOLDERS)
# Files a page may show or link to (pictures in docs/, the example course file and roster); every
# edition has the English ones, and an edition's own (docs/zh/*.png) in their place.
ASSETS = ("docs/*.png", "docs/*.svg", "docs/examples/*")


@dataclass(frozen=True)
class Edition:
    """One language of the site: a Sphinx build of its own, in ``build/book/<name>/``."""

    name: str
    """The site's folder, and the folder of this language's notebooks and docs (``labs/zh/``); English has none."""
    language: str
    """Sphinx's ``language`` (its own labels, dates and the pages' ``lang``)."""
    search_language: str
    """Sphinx's ``html_search_language``: how the search index splits words (Chinese needs jieba)."""
    label: str
    """What the language switch says to lead here, in this language."""
    title: str
    """The site's title (``html_title``)."""
    author: str
    """Who wrote the site, in this language (the footer's "By …" and the copyright line)."""
    start_page: str
    """The start page's source, in book/."""

    def repository_path(self, site_path: str) -> str:
        """Where in the repository the page or file at ``site_path`` of this edition comes from."""
        if not self.own_folder:
            return site_path
        folder, _, rest = site_path.partition("/")
        return f"{folder}/{self.own_folder}/{rest}"

    @property
    def own_folder(self) -> str:
        return "" if self.name == ENGLISH else self.name

    def pages(self, root: Path) -> dict[str, Path]:
        """Every page of this edition but the start page: its path on the site (``labs/x.ipynb``) → its source."""
        return self._files(root, PAGES)

    def assets(self, root: Path) -> dict[str, Path]:
        """The pictures and files its pages show: the English ones, then this edition's own in their place."""
        english = {path: source for pattern in ASSETS for path, source in _matches(root, pattern, "").items()}
        return {**english, **self._files(root, ASSETS)}

    def _files(self, root: Path, patterns: tuple[str, ...]) -> dict[str, Path]:
        found: dict[str, Path] = {}
        for pattern in patterns:
            found.update(_matches(root, pattern, self.own_folder))
        return dict(sorted(found.items()))


def _matches(root: Path, pattern: str, own_folder: str) -> dict[str, Path]:
    """Files matching ``pattern`` (a site path) in ``<folder>/<own_folder>/``, keyed by their site path."""
    folder, _, rest = pattern.partition("/")
    base = root / folder / own_folder if own_folder else root / folder
    return {f"{folder}/{source.relative_to(base).as_posix()}": source for source in base.glob(rest) if source.is_file()}


ENGLISH = "en"
EDITIONS = {
    "en": Edition(
        name="en",
        language="en",
        search_language="en",
        label="English",
        title="Chapter 11 · History stays, context is rebuilt",
        author="the chapter 11 course pack",
        start_page="index.md",
    ),
    "zh": Edition(
        name="zh",
        language="zh_CN",
        search_language="zh",
        label="中文",
        title="第 11 章 · 历史保持不变，上下文每次重建",
        author="第 11 章课程包",
        start_page="zh/index.md",
    ),
}
"""The editions, English first (the site's root leads to it)."""
