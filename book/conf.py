"""Sphinx configuration of the course website (`make book`; scripts/build_book.py stages the sources).

Built offline from what is committed: notebooks are not executed (their committed outputs
are shown), and no page loads anything from another host at view time (no widget
manager, no MathJax from a CDN). The launch buttons' targets are settings (book/settings.toml,
overridable by environment variables), so an instructor points them at their own hub.

One conf for every edition (issue 32): scripts/build_book.py builds each language's staged
sources with ``BOOK_EDITION`` set to its name (book/sources.py), which picks Sphinx's
``language``, the search's word splitting and the title; book/_ext/editions.py adds the
language switch and opens the edition's own notebooks from the launch buttons.
"""

from __future__ import annotations

import logging
import os
import sys
import tomllib
from pathlib import Path
from typing import Any

BOOK = Path(__file__).resolve().parent
sys.path[:0] = [str(BOOK), str(BOOK / "_ext")]

from sources import EDITIONS, ENGLISH, PAGES  # noqa: E402 (book/ is on the path only from the line above)

SETTINGS = tomllib.loads((BOOK / "settings.toml").read_text(encoding="utf-8"))


def setting(section: str, name: str) -> str:
    """A book setting: the environment variable BOOK_<NAME> when set and not empty, else book/settings.toml's.

    (An empty variable counts as unset, so a CI job can pass an optional variable through.)
    """
    return os.environ.get(f"BOOK_{name.upper()}") or str(SETTINGS[section][name])


class UnknownEditionError(ValueError):
    """BOOK_EDITION names no edition of book/sources.py."""


class ChineseSearchUnavailableError(ImportError):
    """The Chinese edition's search index needs jieba to split Chinese text into words."""


def edition_named(name: str) -> str:
    if name not in EDITIONS:
        raise UnknownEditionError(f"BOOK_EDITION={name!r} is not an edition of the book (known: {', '.join(EDITIONS)})")
    return name


book_edition = edition_named(os.environ.get("BOOK_EDITION") or ENGLISH)
EDITION = EDITIONS[book_edition]
language = EDITION.language
# Sphinx's own word splitting for the search index: for Chinese, jieba's (the [book] extra). Without jieba
# Sphinx would index no Chinese word at all and searching 压缩 would find nothing, so that is an error here.
html_search_language = EDITION.search_language
if html_search_language == "zh":
    try:
        import jieba
    except ImportError as missing:
        raise ChineseSearchUnavailableError(
            "the Chinese edition's search needs jieba: install the book's dependencies (make venv)"
        ) from missing
    jieba.setLogLevel(logging.WARNING)  # not "Building prefix dict …" on every build
    # Sphinx would load jieba's own dictionary a second time as a user dictionary (seconds, same words);
    # book/_ext/chinese_search.py gives it the glossary's terms instead (issue 45).
    html_search_options = {"dict": ""}

project = "History stays, context is rebuilt"
author = EDITION.author  # the footer's "By …" in the edition's language (issue 45)
copyright = EDITION.author

extensions = ["myst_nb", "rule_links", "editions", "chinese_search"]
templates_path = ["_templates"]
root_doc = "index"
# Only what a learner reads: the learner notebooks and labs (never their solutions) and the docs.
include_patterns = ["index.md", *PAGES]
exclude_patterns = ["**/solutions/**", "**/.ipynb_checkpoints/**"]

# The pages show the outputs as committed; building never starts a kernel.
nb_execution_mode = "off"
# No ipywidgets manager from a CDN: a widget needs a live kernel, and the explorer shows a static rendering.
nb_ipywidgets_js: dict[str, dict[str, str]] = {}
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None)]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
# Sphinx adds MathJax (from a CDN) only to a page with math; no page has any, and the book's
# test fails if a page ever loads a script or style sheet from another host.

html_theme = "sphinx_book_theme"
html_title = EDITION.title
html_copy_source = True  # the download button hands out the committed notebook (_sources/)
html_show_sourcelink = False
html_last_updated_fmt = None
html_static_path = ["_static"]
html_css_files = ["editions.css"]
GLOSSARY = "docs/glossary"  # in each edition (docs/zh/glossary.md is published at the English page's path)
html_theme_options: dict[str, Any] = {
    "repository_url": setting("source", "repository_url"),
    "repository_branch": setting("source", "repository_branch"),
    "path_to_docs": "",
    "use_download_button": True,
    "use_repository_button": True,
    "use_fullscreen_button": False,
    "launch_buttons": {
        "binderhub_url": setting("launch", "binderhub_url"),
        "jupyterhub_url": setting("launch", "jupyterhub_url"),
        "notebook_interface": setting("launch", "notebook_interface"),
    },
    # The language switch before the theme's own buttons (book/_templates/article-header-end.html).
    "article_header_end": ["article-header-end.html"],
    "show_navbar_depth": 1,
    "home_page_in_toc": True,
    # The glossary's wide tables take the page's whole width: no contents column beside them (issue 45).
    "secondary_sidebar_items": {"**": ["page-toc"], GLOSSARY: []},
}


def glossary_layout(app: Any, pagename: str, templatename: str, context: dict[str, Any], doctree: Any) -> None:
    """The glossary page's own style sheet (book/_static/glossary.css), on that page only."""
    if pagename == GLOSSARY:
        app.add_css_file("glossary.css")


def setup(app: Any) -> None:
    app.connect("html-page-context", glossary_layout)
