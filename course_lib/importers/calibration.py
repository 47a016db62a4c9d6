"""What a CJK character costs: ``CJK_TOKENS_PER_CHAR`` recomputed from the mixed sample that ships.

``estimate_tokens_cjk`` keeps ``ceil(chars / 4)`` for every other character, so its one
coefficient is what a CJK character costs in ``cl100k_base``. It is measured on CJK text
alone: every maximal run of CJK characters in the sample's messages is encoded with the
BPE counter, and the tokens are divided by the characters. Code, paths and English prose
keep the error ``ceil(chars / 4)`` has on them in English sessions too (the safety margin's
job, notebook 03); folding that error into the coefficient would overcount a session of
Chinese prose. The value is kept to hundredths (``RESOLUTION``), rounded half up: one
session measures it no closer.

    python -m course_lib.importers.calibration

prints the measurement and each shipped sample's totals by the three estimators, and exits
with status 1 when the shipped coefficient is not the one the sample gives.
"""

from __future__ import annotations

import math
import os
import re
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ..errors import CourseError
from ..estimators import CJK_CHARACTER, CJK_TOKENS_PER_CHAR, estimate_tokens_chars, estimate_tokens_cjk, message_texts
from . import SAMPLE_LANGUAGES, load_session, sample_path
from .bpe import cl100k_encoding, estimate_tokens_bpe

RESOLUTION = 100
"""The coefficient is kept to 1/RESOLUTION tokens per character."""

CJK_RUN = re.compile(CJK_CHARACTER.pattern + "+")


class CalibrationError(CourseError, ValueError):
    """The file given to calibrate on has no CJK character in its messages."""


@dataclass(frozen=True)
class Calibration:
    """The CJK characters of a session's messages and the ``cl100k_base`` tokens of their runs."""

    source: Path
    characters: int
    tokens: int

    @property
    def measured(self) -> Fraction:
        return Fraction(self.tokens, self.characters)

    @property
    def coefficient(self) -> Fraction:
        """``measured`` to hundredths, half up: what ``CJK_TOKENS_PER_CHAR`` should be."""
        return Fraction(math.floor(self.measured * RESOLUTION + Fraction(1, 2)), RESOLUTION)


def mixed_sample() -> Path:
    """The Chinese/English sample the coefficient is calibrated on."""
    return sample_path("pi", language="zh")


def calibrate(path: str | os.PathLike[str] | None = None) -> Calibration:
    """Count the CJK runs of every message on the active path of ``path`` (by default the mixed sample)."""
    source = Path(path) if path is not None else mixed_sample()
    encoding = cl100k_encoding()
    characters = tokens = 0
    for entry in load_session(source).entries:
        if entry.type != "message":
            continue
        for text in message_texts(entry.message):
            for run in CJK_RUN.findall(text):
                characters += len(run)
                tokens += len(encoding.encode_ordinary(run))
    if not characters:
        raise CalibrationError(f"{source}: no CJK character in its messages, nothing to calibrate on")
    return Calibration(source, characters, tokens)


ESTIMATORS = {"chars/4": estimate_tokens_chars, "cjk-aware": estimate_tokens_cjk, "bpe": estimate_tokens_bpe}
"""The three counts, by the names notebook 03 and ``course-session show --estimator`` use for them."""


def totals(path: str | os.PathLike[str]) -> dict[str, int]:
    """Each estimator's total over the messages on the active path of ``path``."""
    messages = [entry.message for entry in load_session(path).entries if entry.type == "message"]
    return {name: sum(map(estimate, messages)) for name, estimate in ESTIMATORS.items()}


def shipped_samples() -> dict[str, Path]:
    """Every sample log the package ships, by file stem."""
    paths = [sample_path(fmt, language=lang) for lang, fmts in SAMPLE_LANGUAGES.items() for fmt in fmts]
    return {path.stem: path for path in paths}


def main() -> int:
    found = calibrate()
    print(
        f"{found.source.name}: {found.characters} CJK characters, {found.tokens} cl100k_base tokens in their runs; "
        f"{float(found.measured):.4f} tokens per character -> {float(found.coefficient):.2f} "
        f"(shipped CJK_TOKENS_PER_CHAR: {float(CJK_TOKENS_PER_CHAR):.2f})"
    )
    print(f"{'sample':<12} {'chars/4':>8} {'cjk-aware':>10} {'bpe':>6} {'bpe - chars/4':>14} {'bpe - cjk-aware':>16}")
    for name, path in shipped_samples().items():
        count = totals(path)
        print(
            f"{name:<12} {count['chars/4']:>8} {count['cjk-aware']:>10} {count['bpe']:>6} "
            f"{count['bpe'] - count['chars/4']:>14} {count['bpe'] - count['cjk-aware']:>16}"
        )
    if found.coefficient != CJK_TOKENS_PER_CHAR:
        print(f"set CJK_TOKENS_PER_CHAR = Fraction({found.coefficient}) in course_lib/estimators.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
