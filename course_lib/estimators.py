"""Token estimators: functions from one message to a cost (R15 checks what they return).

- ``estimate_tokens_chars``: ``ceil(characters / 4)``, the production heuristic, kept exactly.
- ``estimate_tokens_cjk``: the same rough count, but a CJK character costs ``CJK_TOKENS_PER_CHAR``
  tokens instead of a quarter. ``ceil(chars / 4)`` assumes about four characters per token, as in
  English; ``cl100k_base`` spends about one token on a Chinese character, so on Chinese text the
  heuristic promises a fraction of what the model reads (notebook 03 measures it on the mixed sample
  ``sample_path("pi", language="zh")``). Text without a CJK character costs exactly
  ``estimate_tokens_chars``: English sessions, the chapter's fixtures and every English cost stay.
  The coefficient is measured on that sample by ``course_lib.importers.calibration`` (run it with
  ``python -m course_lib.importers.calibration``); the sample is Chinese, so Japanese and Korean
  characters get the same coefficient without being measured.

The real ``cl100k_base`` count, which needs tiktoken and its ranks file, is the course's
tooling: ``course_lib.importers.bpe.estimate_tokens_bpe``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from fractions import Fraction

from .models import AssistantMessage, SystemMessage, ToolCall, ToolResultMessage, UserMessage
from .system_prompt import system_message_text

Message = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage


def message_texts(message: Message) -> Iterator[str]:
    """Every piece of text a model would read in this message.

    A tool call counts as its name plus its JSON arguments, as the production agent the lifecycle capstone studies does.
    """
    if isinstance(message, SystemMessage):
        yield system_message_text(message)
        return
    for block in message.content:
        if isinstance(block, ToolCall):
            yield block.name
            yield json.dumps(block.arguments, ensure_ascii=False)
        else:
            yield block.text


def estimate_tokens_chars(message: Message) -> int:
    """The production heuristic: ``ceil(characters / 4)``."""
    return math.ceil(sum(len(text) for text in message_texts(message)) / 4)


# --- the rough count, CJK-aware ------------------------------------------------------------

CJK_BLOCKS: tuple[tuple[int, int, str], ...] = (
    (0x1100, 0x11FF, "Hangul Jamo"),
    (0x2E80, 0x2FDF, "CJK Radicals Supplement, Kangxi Radicals"),
    (0x3000, 0x303F, "CJK Symbols and Punctuation (、。「」《》)"),
    (0x3040, 0x30FF, "Hiragana, Katakana"),
    (0x3100, 0x318F, "Bopomofo, Hangul Compatibility Jamo"),
    (0x31A0, 0x31FF, "Bopomofo Extended, CJK Strokes, Katakana Phonetic Extensions"),
    (0x3200, 0x33FF, "Enclosed CJK Letters and Months, CJK Compatibility"),
    (0x3400, 0x4DBF, "CJK Unified Ideographs Extension A"),
    (0x4E00, 0x9FFF, "CJK Unified Ideographs"),
    (0xA960, 0xA97F, "Hangul Jamo Extended-A"),
    (0xAC00, 0xD7FF, "Hangul Syllables, Hangul Jamo Extended-B"),
    (0xF900, 0xFAFF, "CJK Compatibility Ideographs"),
    (0xFE30, 0xFE4F, "CJK Compatibility Forms"),
    (0xFF00, 0xFFEF, "Halfwidth and Fullwidth Forms (，：（）！？)"),
    (0x20000, 0x3FFFF, "CJK Unified Ideographs Extensions B and later"),
)
"""The Unicode blocks whose characters count as CJK: the scripts, and the punctuation written with them.

General punctuation that English uses too (curly quotes, the dash, the ellipsis) is not here, so
English text keeps its ``ceil(chars / 4)`` cost even when it is typeset."""

CJK_CHARACTER = re.compile("[" + "".join(f"{chr(first)}-{chr(last)}" for first, last, _ in CJK_BLOCKS) + "]")

CJK_TOKENS_PER_CHAR = Fraction(1)
"""``cl100k_base`` tokens per CJK character, to hundredths: on the mixed sample, the BPE tokens of
its CJK runs over their characters. ``course_lib.importers.calibration`` recomputes it, and a test
holds this value to what it gives."""


def cjk_characters(text: str) -> int:
    """How many characters of ``text`` lie in ``CJK_BLOCKS``."""
    return 0 if text.isascii() else len(CJK_CHARACTER.findall(text))


def estimate_tokens_cjk(message: Message) -> int:
    """``ceil(other characters / 4 + CJK_TOKENS_PER_CHAR × CJK characters)``, in exact arithmetic.

    The same text as ``estimate_tokens_chars`` (a tool call: its name plus its JSON arguments);
    without a CJK character it is ``estimate_tokens_chars`` exactly, so no English cost moves.
    """
    texts = list(message_texts(message))
    cjk = sum(map(cjk_characters, texts))
    return math.ceil(Fraction(sum(map(len, texts)) - cjk, 4) + CJK_TOKENS_PER_CHAR * cjk)
