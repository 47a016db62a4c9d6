"""A run's secret: what every hidden case is drawn from, and why no page a learner sees gives it away (issue 43).

A seed a person picks is found again from one feedback page: a submission that
quotes a few numbers of the sessions it was handed, on one hidden call, lets
the pack's own generator try every date of a decade in a fraction of a second,
and that seed then draws every hidden case of every later lab. So a run draws
from a *secret* of ``BYTES`` random bytes (``new_secret``, what ``course-grade
secret`` writes), never from a number, and a short or date-like value is
refused (``weakness``). Each stream a run draws (a lab's drawn cases, its
covering set, its practice cases) is seeded with an HMAC-SHA256 of the
secret over the stream's purpose and the lab (``stream_seed``): knowing one
stream, even recovering its seed from what it drew, tells nothing of the
secret, of another lab's streams or of another secret's (a Gradescope bundle's
is one derived for it, ``derived``). The same secret draws the same cases on
every machine, so a ``--seed`` regrade is exact.

A secret is written in the course file (``seed = "…"``) or in a file of its own
that the course file names (``seed = "term.secret"``: a value holding ``.`` or
``/`` is a file name, which a secret's alphabet never holds).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from pathlib import Path

from ..errors import GradingError

BYTES = 32
"""Random bytes in a new secret (256 bits, written as 64 hex digits)."""
MIN_LENGTH = 32
"""Characters a secret needs at least: 128 bits even in hex."""
MIN_DISTINCT = 10
"""Different characters a secret needs at least: ``aaaa…`` or a date written four times is not random."""
ALPHABET = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
"""What a secret is written in: letters, digits, ``_`` and ``-`` (never first: a command line and a spreadsheet
read a leading ``-`` as something else)."""
DATE_LIKE = re.compile(r"(19|20)\d\d[-_./]?[01]\d[-_./]?[0-3]\d")
HOW = "course-grade secret writes one"

Seed = str | int | None
"""What a run draws from: its secret (an ``int`` is a test's fixed label), or ``None``, each lab's fixed seed."""


class WeakSecret(GradingError):
    """A seed a person could have picked (a number, a date, a short or repetitive text): its draws would give it away."""


def new_secret() -> str:
    """A fresh secret: ``BYTES`` bytes from the operating system's generator, as hex."""
    return secrets.token_hex(BYTES)


def weakness(value: object) -> str | None:
    """Why ``value`` cannot be a run's secret, in words, or ``None`` when it can."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return f"a secret is a text of at least {MIN_LENGTH} random characters, not {type(value).__name__}"
    text = str(value)
    kind = "a date" if DATE_LIKE.fullmatch(text.strip()) else "a number" if text.strip().isdigit() else None
    if isinstance(value, int) or kind is not None:
        return (
            f"{text} is {kind or 'a number'} a person picks: from one feedback page the pack's own generator "
            "finds it among every such seed in under a second, and with it every hidden case"
        )
    if not ALPHABET.fullmatch(text):
        return "a secret is written in letters, digits, '_' and '-' (not first)"
    if len(text) < MIN_LENGTH:
        return f"a secret of {len(text)} characters is short enough to search for (at least {MIN_LENGTH})"
    if len(set(text)) < MIN_DISTINCT:
        return f"a secret of {len(set(text))} different characters is not random (at least {MIN_DISTINCT})"
    return None


def checked(value: object, where: str) -> str:
    """``value`` as a secret; ``WeakSecret`` naming ``where`` (the key, the flag, the file) when it cannot be one."""
    why = weakness(value)
    if why is not None:
        raise WeakSecret(f"{where}: {why}; {HOW}")
    return str(value)


def names_file(value: str) -> bool:
    """Whether a ``seed`` value names a secret's file (``term.secret``) rather than being one."""
    return "." in value or os.sep in value or "/" in value


def read_secret_file(path: Path) -> str:
    """The secret kept in ``path`` (its first line), refused when missing, unreadable or weak, naming the file."""
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise WeakSecret(f"secret file {path}: cannot be read ({exc}); {HOW} (course-grade secret {path})") from None
    return checked(text, f"secret file {path}")


def resolved(value: str, folder: Path) -> str:
    """A ``seed`` as given (the course file's, ``--seed``): the secret itself, or the one in the file it names.

    A relative file name is read from ``folder`` (the course file's, or the working folder for ``--seed``).
    """
    if names_file(value):
        return read_secret_file(folder / value)
    return checked(value, "seed")


def stream_seed(secret: str | int, purpose: str, lab: str) -> int:
    """The seed of one stream of a run: HMAC-SHA256 keyed by the secret, over the purpose and the lab.

    An ``int`` is a test's fixed label (tests and ``make mutants`` sweep seeds 0–19); ``course-grade``
    takes only a secret (``checked``).
    """
    mac = hmac.new(str(secret).encode(), f"course-grade {purpose} {lab}".encode(), hashlib.sha256)
    return int.from_bytes(mac.digest(), "big")


def derived(secret: str, purpose: str) -> str:
    """Another secret for another use (``purpose``: a Gradescope bundle's), from which ``secret`` cannot be found."""
    return hmac.new(secret.encode(), f"course-grade derived {purpose}".encode(), hashlib.sha256).hexdigest()
