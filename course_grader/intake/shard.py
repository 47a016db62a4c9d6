"""Which submissions one machine of several grades: ``--shard I/N`` takes a fixed 1/N of the folder.

Why by a hash of the path under the submissions folder, not by listing
order: every machine (a Kubernetes Indexed Job's pods, a GitHub Actions
matrix) lists its own copy of the folder, and must agree on the split without
talking to the others, whatever its file system returns first; a file added
later moves no other file to another shard. ``course-grade merge`` joins the
shards' CSVs into the whole run's (``results.merge``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from ..errors import GradingError
from ..safe_text import valid


class ShardError(GradingError, ValueError):
    """``--shard`` is not ``I/N`` with 1 <= I <= N."""


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/3"`` → ``(2, 3)``: the second of three shards (counted from 1, as a job index plus one)."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise ShardError(f"--shard {text!r}: give I/N with 1 <= I <= N, e.g. 1/3")
    return int(match.group(1)), int(match.group(2))


def shard_of(name: str, total: int) -> int:
    """The shard (1…``total``) of a submission, by the SHA-256 of its path under the folder (``alice/lab.ipynb``)."""
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big") % total + 1


def folder_digest(files: Iterable[str]) -> str:
    """The listing of a submissions folder (every path under it, as the CSV writes them), hashed, order aside.

    What tells two shards graded the same folder (not the same mount point: a
    pod's ``/data/submissions`` and a runner's checkout are the same folder when
    they hold the same files), and that the merged rows are that folder, whole.
    """
    text = "\n".join(sorted(valid(name) for name in files))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def run_record(seed: str | int | None, course_fingerprint: str, files: Iterable[str]) -> str:
    """What a shard's CSV records of its run, after ``shard I/N, duplicates: …; ``: ``merge`` compares it across shards.

    ``seed 5; course 16dc8f7df5ec1e0b; folder 3f2a…  (45 entries)``: the hidden-case
    seed, the course file's fingerprint (``Course.fingerprint``, ``none`` without one)
    and the whole folder's listing (``folder_digest``, and how many entries it has).
    """
    names = list(files)
    return (
        f"seed {seed if seed is not None else 'none'}; course {course_fingerprint or 'none'}; "
        f"folder {folder_digest(names)} ({len(names)} entries)"
    )
