"""The notebooks' charts in the reader's language: matplotlib told about an installed Chinese font (issue 45).

matplotlib's own fonts draw no Chinese character (each becomes a box and a "Glyph missing"
warning), and its font cache, written once, does not see a font installed after it. The Makefile
installs a Chinese font (Debian's fonts-wqy-microhei) in the targets that run the notebooks;
``use_chart_font`` finds such a font among the system's font files, adds it to matplotlib's
list afresh (whatever the cache says) and puts it first, so a chart's title, axes and legend
can be Chinese. Where no Chinese font is installed it changes nothing and says so, and the
notebooks keep their charts' words in English there (``chart_language``): a chart never shows
boxes, and a notebook runs the same (nbval passes) with the font or without it.
"""

from __future__ import annotations

from matplotlib import font_manager, rcParams

from .i18n import DEFAULT, language

CHINESE_FAMILIES = ("WenQuanYi Micro Hei", "Noto Sans CJK SC", "Source Han Sans SC", "Droid Sans Fallback")
"""Fonts that draw Chinese, the first installed one used; WenQuanYi Micro Hei is the one the Makefile installs."""
FONT_FILE_HINTS = ("wqy", "notosanscjk", "sourcehansans", "droidsansfallback")
"""What such a font's file name holds (lower case): only these files are read, not every font of the system."""


def use_chart_font(families: tuple[str, ...] = CHINESE_FAMILIES) -> str | None:
    """The first of ``families`` installed, now first in matplotlib's sans-serif list; ``None`` when none is."""
    for path in font_manager.findSystemFonts():
        if any(hint in path.lower().replace("-", "").replace("_", "") for hint in FONT_FILE_HINTS):
            font_manager.fontManager.addfont(path)
    installed = {font.name for font in font_manager.fontManager.ttflist}
    family = next((name for name in families if name in installed), None)
    if family is not None:
        rcParams["font.sans-serif"] = [family, *(name for name in rcParams["font.sans-serif"] if name != family)]
    return family


def chart_language(chosen: str | None = None, families: tuple[str, ...] = CHINESE_FAMILIES) -> str:
    """The language a notebook's chart speaks: the reader's (``chosen``, else the course's setting) where an
    installed font draws it, English where none does (Chinese with no Chinese font installed).

    A chart cell passes it to its translator, ``tr("per message", drawn_in)``."""
    wanted = language(chosen)
    return wanted if wanted == DEFAULT or use_chart_font(families) is not None else DEFAULT
