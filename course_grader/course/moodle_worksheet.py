"""Moodle's grading worksheet read as submission times: each participant's *Last modified (submission)*.

An assignment's *View all submissions → Download grading worksheet* is a CSV
with one row per participant: ``Identifier`` (``Participant 1234567``, the id
the bulk download's file names carry: ``Judy Smith_1234567_assignsubmission_file_…``),
``Full name``, the site's identity fields, ``Status``, ``Grade``, …, and
``Last modified (submission)``, which Moodle writes with ``userdate()`` in its
English ``strftimedaydatetime`` (``Tuesday, 6 October 2026, 11:59 PM``), in
the time zone of the Moodle user who downloaded it and without an offset;
``-`` when nothing was submitted. The site's identity fields (``ID number``,
``Email address``, ``Username``: the ones the site shows) say who each
participant is, so two students with one full name are told apart
(``TimeRow.identity``). So the course file names that zone
(``[late] timezone``) and each time is read in it with zoneinfo, summer time
included. A wall time the zone skips (the hour the clocks jump forward)
cannot have come from Moodle and is refused; one it repeats (the hour they go
back) is read as the earlier of the two, to the student's benefit.
"""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from .lms_times import SubmissionTimesError, TimeRow, once_each

IDENTIFIER = "Identifier"
MODIFIED = "Last modified (submission)"
NAME = "Full name"
IDENTITY = ("ID number", "Email address", "Username")
"""The identity fields a site may show beside the full name (``showuseridentity``), in the order a roster trusts them."""
MOODLE_TIME = "%A, %d %B %Y, %I:%M %p"
"""English Moodle's ``strftimedaydatetime`` (its language pack's ``langconfig``), which ``userdate()`` writes."""
EXAMPLE = "Tuesday, 6 October 2026, 11:59 PM"
NO_SUBMISSION = "-"
_PARTICIPANT = re.compile(r"\D*?(\d+)")
"""``Participant 1234567``: the participant id is the number at its end, whatever the word before it."""


def is_worksheet(header: list[str]) -> bool:
    return IDENTIFIER in header and MODIFIED in header


def read_worksheet(text: str, where: str, zone: ZoneInfo | None, path: Path | None = None) -> list[TimeRow]:
    """The participants with a submission time, read in ``zone``; ``SubmissionTimesError`` names a bad cell."""
    if zone is None:
        raise SubmissionTimesError(
            f"{where}: Moodle writes its times without an offset, in the time zone of whoever downloaded the "
            'worksheet: name it in the course file, e.g. [late] timezone = "Europe/Berlin"'
        )
    reader = csv.reader(io.StringIO(text, newline=""))
    header = [cell.strip() for cell in next(reader, [])]
    ident, modified = header.index(IDENTIFIER), header.index(MODIFIED)
    name = header.index(NAME) if NAME in header else None
    identity = [header.index(field) for field in IDENTITY if field in header]
    rows: list[TimeRow] = []
    seen: list[tuple[str, int, int, str]] = []
    line = reader.line_num + 1
    for row in reader:
        line, start = reader.line_num + 1, line  # a quoted cell (feedback, online text) may span lines
        cells = [cell.strip() for cell in row] + [""] * (len(header) - len(row))  # a short row's cells: empty
        if not any(cells):
            continue
        match = _PARTICIPANT.fullmatch(cells[ident])
        if match is None:
            raise SubmissionTimesError(
                f"{where}, line {start}, column {ident + 1} ({IDENTIFIER}): {cells[ident]!r} is not a participant "
                "(Moodle writes 'Participant 1234567')"
            )
        who = f"Participant {match.group(1)}" + (f" ({cells[name]})" if name is not None and cells[name] else "")
        seen.append((match.group(1), start, ident + 1, who))
        if cells[modified] == NO_SUBMISSION:
            continue
        try:
            when = moodle_time(cells[modified], zone)
        except NotAMoodleTimeError as exc:
            raise SubmissionTimesError(f"{where}, line {start}, column {modified + 1} ({MODIFIED}): {exc}") from None
        rows.append(
            TimeRow(
                key=match.group(1),
                when=when,
                line=start,
                column=modified + 1,
                who=who,
                path=path,
                name=cells[name] if name is not None else "",
                identity=tuple(cells[index] for index in identity if cells[index] not in ("", NO_SUBMISSION)),
            )
        )
    once_each(seen, where)
    return rows


class NotAMoodleTimeError(SubmissionTimesError, ValueError):
    """A worksheet's cell is not a time as Moodle writes it (the caller names the file, line and column)."""


def moodle_time(written: str, zone: ZoneInfo) -> datetime:
    """``Tuesday, 6 October 2026, 11:59 PM`` in ``zone``; ``NotAMoodleTimeError`` says why a text is not such a time."""
    text = " ".join(written.split())  # newer Moodles put a no-break space before PM
    try:
        naive = datetime.strptime(text, MOODLE_TIME)
    except ValueError:
        raise NotAMoodleTimeError(
            f"{written!r} is not a time as Moodle writes it ({EXAMPLE!r}, or {NO_SUBMISSION!r} for no submission; "
            "download the worksheet again rather than saving it from a spreadsheet)"
        ) from None
    day = text.split(",", 1)[0]
    if naive.strftime("%A").casefold() != day.casefold():
        raise NotAMoodleTimeError(f"{written!r}: {naive:%d %B %Y} is a {naive:%A}, not a {day}")
    local = naive.replace(tzinfo=zone)  # fold 0: of an hour the zone repeats, the earlier
    if local.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != naive:
        raise NotAMoodleTimeError(
            f"{written!r} never happened in {zone.key} (its clocks skip that hour): not Moodle's time"
        )
    return local
