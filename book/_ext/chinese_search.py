"""Sphinx's Chinese search, working in the browser on every Sphinx the [book] extra allows (issue 32).

The Chinese edition's search index is Sphinx's own (``html_search_language = "zh"``: jieba splits
the text into words at build time). Its page then stems the query in JavaScript with the stemmer
Sphinx copies for the language: for Chinese, the English one (``english-stemmer.js``, which
defines ``EnglishStemmer``). Sphinx 9.0 and 9.1 name the class after the language instead
(``window.Stemmer = ChineseStemmer;`` in language_data.js), which does not exist, so every search
on a Chinese site stays at "Searching…" with no result (sphinx-doc/sphinx#14229, fixed upstream by
naming the class after the stemmer's file, sphinx-doc/sphinx#14416). This registers Sphinx's
Chinese search under the name whose class its stemmer file defines; a Sphinx that names the class
after the file ignores it. tests/browser/test_book_browser.py searches 压缩 in the built site.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.search.zh import SearchChinese

STEMMER_FILE = "english-stemmer.js"


class ChineseSearch(SearchChinese):
    """Sphinx's Chinese search, its ``language_name`` the one its stemmer's JavaScript class is named after."""

    language_name = "English"  # Sphinx 9.0-9.1 write window.Stemmer = <language_name>Stemmer; STEMMER_FILE's is this


class ChineseStemmerChangedError(ExtensionError):
    """Sphinx's Chinese search no longer stems with the English stemmer: the name above may be wrong."""


def setup(app: Sphinx) -> dict[str, Any]:
    if SearchChinese.js_stemmer_rawcode != STEMMER_FILE:
        raise ChineseStemmerChangedError(f"Sphinx's Chinese search stems with {SearchChinese.js_stemmer_rawcode!r}")
    app.add_search_language(ChineseSearch)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
