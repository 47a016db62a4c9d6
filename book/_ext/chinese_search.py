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

jieba splits by its own dictionary, where the chapter's terms are not words: 活动路径 becomes
活动 + 路径 in the index, so searching 活动路径 found nothing (issue 45). The build gives jieba
the glossary's Chinese terms (course_lib/teaching/glossary/) as a user dictionary, written
beside the build's doctrees (out of the published site), so each term is one word of the index
as well as its parts; the browser test searches every term and counts its pages.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.search.zh import SearchChinese

from course_lib.teaching.glossary import TERMS

STEMMER_FILE = "english-stemmer.js"
USER_DICTIONARY = "glossary-words.txt"
# How often jieba takes each glossary word to occur: far above what it counts for the characters around one
# (重放出 was 重 + 放出: 15,718 and 805 against 重放's 4), so a term is kept whole wherever it stands.
WORD_FREQUENCY = 100_000
# A run of Chinese characters: a glossary name such as 存储（JSONL / 内存） holds two words (存储, 内存).
CHINESE_WORD = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")


def glossary_words() -> list[str]:
    """The Chinese words of the glossary's terms, each once, in the glossary's order."""
    return list(dict.fromkeys(word for term in TERMS for word in CHINESE_WORD.findall(term.chinese)))


def give_jieba_the_glossary(app: Sphinx) -> None:
    """On the Chinese edition: the glossary's words as jieba's user dictionary (read when the index is built)."""
    if app.config.html_search_language != "zh":
        return
    dictionary = Path(app.doctreedir) / USER_DICTIONARY
    dictionary.parent.mkdir(parents=True, exist_ok=True)
    dictionary.write_text("".join(f"{word} {WORD_FREQUENCY}\n" for word in glossary_words()), encoding="utf-8")
    app.config.html_search_options = {**app.config.html_search_options, "dict": str(dictionary)}


class ChineseSearch(SearchChinese):
    """Sphinx's Chinese search, its ``language_name`` the one its stemmer's JavaScript class is named after."""

    language_name = "English"  # Sphinx 9.0-9.1 write window.Stemmer = <language_name>Stemmer; STEMMER_FILE's is this


class ChineseStemmerChangedError(ExtensionError):
    """Sphinx's Chinese search no longer stems with the English stemmer: the name above may be wrong."""


def setup(app: Sphinx) -> dict[str, Any]:
    if SearchChinese.js_stemmer_rawcode != STEMMER_FILE:
        raise ChineseStemmerChangedError(f"Sphinx's Chinese search stems with {SearchChinese.js_stemmer_rawcode!r}")
    app.add_search_language(ChineseSearch)
    app.connect("builder-inited", give_jieba_the_glossary)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
