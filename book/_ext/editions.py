"""The site's editions know each other: a language switch, the edition's own notebooks, links across (issue 32).

Each language is a Sphinx build of its own (book/sources.py: ``en/``, ``zh/``), every page at
its English twin's path. This extension, in every edition's build:

* gives each page a link to the same page in the other editions (``language_switch`` in the
  page's context, drawn by book/_templates/article-header-end.html in the article's header), or
  to that edition's start page when it has no such page (``docs/grading`` has no Chinese
  edition yet);
* makes the launch buttons open the notebook this page shows: sphinx-book-theme builds
  them from the page's path (``labs/lab_11_4_….ipynb``), which in the Chinese edition is the
  English twin's; the repository path of the Chinese notebook is ``labs/zh/lab_11_4_….ipynb``;
* sends a link to a page this edition lacks to the English page (a Chinese notebook links to
  ``../docs/grading.md`` as its English twin does), instead of leaving it broken;
* leaves out of the start page a toctree of globs that match no page yet (``docs/*`` before the
  first Chinese docs page lands).

The sites sit side by side (``build/book/en/``, ``build/book/zh/``), so a page of another
edition is ``../<edition>/<page>.html`` from the site's root: every link stays relative and
nothing is fetched at view time.
"""

from __future__ import annotations

import functools
import glob
import posixpath
import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sources import EDITIONS, ENGLISH, Edition
from sphinx.addnodes import pending_xref
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.matching import patfilter
from sphinx.util.osutil import relative_uri

ROOT = Path(__file__).resolve().parents[2]
START_PAGE = "index"
# Pages Sphinx makes in every edition, besides the sources' (no counterpart to look up).
GENERATED_PAGES = frozenset({"search", "genindex"})
LAUNCH_BUTTONS = "launch-buttons"
SOURCE_SUFFIXES = frozenset({".md", ".ipynb"})


class LaunchButtonNotUnderstoodError(ExtensionError):
    """A launch button's URL does not hold the page's path where sphinx-book-theme puts it (the theme changed)."""


def edition_of(app: Sphinx) -> Edition:
    return EDITIONS[app.config.book_edition]


@functools.cache
def docnames(edition: Edition, root: Path = ROOT) -> frozenset[str]:
    """Every page of ``edition``, as a Sphinx docname (``labs/lab_11_4_create_compaction_entry``)."""
    pages = {site_path.rsplit(".", 1)[0] for site_path in edition.pages(root)}
    return frozenset({START_PAGE, *GENERATED_PAGES, *pages})


def edition_uri(app: Sphinx, from_docname: str, edition: str, docname: str) -> str:
    """The relative URI, from ``from_docname``'s page, of ``docname``'s page in ``edition``'s site."""
    target = f"../{edition}/{docname}.html"
    return relative_uri(app.builder.get_target_uri(from_docname), target)


def language_switch(app: Sphinx, pagename: str) -> list[dict[str, str]]:
    """For each other edition: its label, language and the link to this page there (or to its start page)."""
    links = []
    for name, edition in EDITIONS.items():
        if name == app.config.book_edition:
            continue
        there = pagename if pagename in docnames(edition) else START_PAGE
        hreflang = edition.language.replace("_", "-")
        links.append({"label": edition.label, "hreflang": hreflang, "url": edition_uri(app, pagename, name, there)})
    return links


def add_language_switch(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    context["language_switch"] = language_switch(app, pagename)


def launch_this_editions_notebook(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """In an edition with notebooks of its own, the launch buttons open the edition's notebook, not its twin's.

    Runs after sphinx-book-theme's ``add_launch_buttons`` (priority 501), which puts
    ``<path_to_docs><pagename><suffix>`` (book/conf.py's ``path_to_docs`` is empty) into each URL.
    """
    edition = edition_of(app)
    if not edition.own_folder:
        return
    suffix = Path(app.env.doc2path(pagename)).suffix
    site_path = f"{pagename}{suffix}"
    repository_path = edition.repository_path(site_path)
    for group in context.get("header_buttons", []):
        if group.get("label") != LAUNCH_BUTTONS:
            continue
        for button in group["buttons"]:
            url = button["url"]
            if url.count(f"/{site_path}") != 1:
                raise LaunchButtonNotUnderstoodError(f"{pagename}: no single /{site_path} in {button['text']}'s {url}")
            button["url"] = url.replace(f"/{site_path}", f"/{repository_path}")


class RepositoryLinks(SphinxPostTransform):
    """A link written as a path in the repository leads to that file's page, in whichever edition has it.

    A page's links are written to work where its source sits in the repository (JupyterLab, GitHub): a
    Chinese notebook in notebooks/zh/ links ``../../docs/zh/rules.md``, the Chinese glossary in docs/zh/
    links the English one as ``../glossary.md``, and the English glossary links ``zh/glossary.md``. On
    the site every edition's page sits at its English twin's path, so each such link is resolved from
    the page's repository path and leads to the page of the edition its target belongs to (this one's:
    a link MyST then resolves; another's: a link across to that site). Runs before
    ``LinksToEnglishPages`` (priority 7), which still handles a link written as a site path.
    """

    default_priority = 7

    def run(self, **kwargs: Any) -> None:
        edition = edition_of(self.app)
        for node in list(self.document.findall(pending_xref)):
            if node.get("reftype") != "myst" or node.get("refdomain"):
                continue
            refdoc = node.get("refdoc", self.env.docname)
            path, _, fragment = str(node["reftarget"]).partition("#")
            target = repository_target(edition, refdoc, self.env.doc2path(refdoc).suffix, path)
            if target is None:
                continue
            owner, docname = target
            if owner == edition.name:  # as MyST states a link to a page it found: a doc reference
                node["refdomain"], node["reftarget"], node["reftargetid"] = "doc", docname, fragment or None
                continue
            uri = edition_uri(self.app, refdoc, owner, docname) + (f"#{fragment}" if fragment else "")
            reference = nodes.reference("", "", internal=False, refuri=uri, classes=["other-edition"])
            reference += node.children
            node.replace_self(reference)


def repository_target(edition: Edition, refdoc: str, suffix: str, path: str) -> tuple[str, str] | None:
    """The edition and docname of the page a repository-relative link from ``refdoc`` means (``None``: no page
    of any edition; the link is left to MyST and ``LinksToEnglishPages``)."""
    base, dot, link_suffix = path.rpartition(".")
    if not dot or f".{link_suffix}" not in SOURCE_SUFFIXES or base.startswith("/") or "://" in path:
        return None
    source = edition.repository_path(f"{refdoc}{suffix}")
    target = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
    for name, other in EDITIONS.items():
        for site_path in other.pages(ROOT):
            if other.repository_path(site_path) == target:
                return name, site_path.rsplit(".", 1)[0]
    return None


class LinksToEnglishPages(SphinxPostTransform):
    """A link to a page this edition lacks but the English edition has leads to the English page.

    A Chinese notebook links to ``../docs/rules.md`` as its English twin does; until docs/zh/rules.md
    exists, MyST finds no such file here and would warn (and leave the link dead). This runs just
    before MyST's own resolver (priority 9), on the links it could not place: a source path
    relative to the page (``../docs/grading.md#the-report``), or from the site's root (``/docs/…``).
    """

    default_priority = 8

    def run(self, **kwargs: Any) -> None:
        if self.config.book_edition == ENGLISH:
            return
        for node in list(self.document.findall(pending_xref)):
            if node.get("reftype") != "myst" or node.get("refdomain"):
                continue
            path, _, fragment = str(node["reftarget"]).partition("#")
            docname = english_docname(node.get("refdoc", self.env.docname), path)
            if docname is None or docname in self.env.found_docs:
                continue
            uri = edition_uri(self.app, self.env.docname, ENGLISH, docname) + (f"#{fragment}" if fragment else "")
            reference = nodes.reference("", "", internal=False, refuri=uri, classes=["other-edition"])
            reference += node.children
            node.replace_self(reference)


def english_docname(refdoc: str, path: str) -> str | None:
    """The English page a link from ``refdoc`` to the source ``path`` means, if there is one."""
    base, dot, suffix = path.rpartition(".")
    if not dot or f".{suffix}" not in SOURCE_SUFFIXES:
        return None
    joined = base.lstrip("/") if base.startswith("/") else posixpath.join(posixpath.dirname(refdoc), base)
    docname = posixpath.normpath(joined)
    return docname if docname in docnames(EDITIONS[ENGLISH]) else None


TOCTREE = re.compile(r"^```\{toctree\}\n(?P<body>.*?)^```\n", re.MULTILINE | re.DOTALL)


def leave_out_empty_globs(app: Sphinx, docname: str, source: list[str]) -> None:
    """The start page without a toctree whose every entry is a glob matching no page of this edition.

    The Chinese start page lists ``docs/*`` (docs/zh/*.md, landing one by one): until the first
    lands, Sphinx would warn that the glob matches nothing (a warning it cannot suppress), so the
    section is left out, and it appears the moment its first page does (``source-read``).
    """
    if docname != START_PAGE:
        return
    pages = sorted(docnames(edition_of(app)) - {START_PAGE})

    def empty(block: re.Match[str]) -> bool:
        lines = [line.strip() for line in block["body"].splitlines()]
        entries = [line for line in lines if line and not line.startswith(":")]
        globbed = ":glob:" in lines and all(glob.has_magic(entry) for entry in entries)
        return globbed and not any(patfilter(pages, entry) for entry in entries)

    source[0] = TOCTREE.sub(lambda block: "" if empty(block) else block[0], source[0])


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("book_edition", ENGLISH, "env", types=frozenset({str}))
    app.connect("html-page-context", add_language_switch)
    app.connect("html-page-context", launch_this_editions_notebook, priority=900)
    app.add_post_transform(RepositoryLinks)
    app.add_post_transform(LinksToEnglishPages)
    app.connect("source-read", leave_out_empty_globs)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
