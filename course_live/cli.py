"""``course-live serve --lab 11.3 --db lab-day.sqlite [--port N] [--code C] [--token T]``: the live lab's server.

Prints the join code, how learners join and the instructor's address (with its
token), then serves until stopped; started again on the same file, it resumes the
session. ``--code`` and ``--token`` let a hub or a script set them (generated and
kept in the file otherwise). ``--hub`` runs it as a JupyterHub service, the page
behind the hub's login (docs/live-lab.md). The command, its options and the
variables learners join with are used by scripts outside the repository: keep them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from course_lib.teaching import i18n
from course_lib.teaching.lab_registry import LABS

from .app import Thresholds
from .errors import LiveError
from .messages import MESSAGES
from .server import DEFAULT_PORT, Options, serve


def parser(language: str) -> argparse.ArgumentParser:
    def say(text: str) -> str:
        return MESSAGES(text, language)

    built = argparse.ArgumentParser(prog="course-live", description=say("The live lab: what the room fails, now."))
    verbs = built.add_subparsers(dest="verb", required=True)
    run = verbs.add_parser("serve", help=say("start (or resume) a session's server"))
    run.add_argument("--lab", choices=list(LABS), help=say("the session's lab (kept in the database)"))
    run.add_argument("--db", type=Path, required=True, help=say("the session's SQLite database (created if missing)"))
    run.add_argument("--host", default="127.0.0.1", help=say("the address to listen on (0.0.0.0: the whole room)"))
    run.add_argument("--port", type=int, default=DEFAULT_PORT, help=say("the port to listen on"))
    run.add_argument("--code", help=say("the join code learners give (generated and kept otherwise)"))
    run.add_argument("--token", help=say("the instructor's token (generated and kept otherwise)"))
    run.add_argument("--stuck-after", type=float, default=Thresholds.stuck_minutes,
                     help=say("minutes a check fails before its learner counts as stuck (N)"))  # fmt: skip
    run.add_argument("--idle-after", type=float, default=Thresholds.idle_minutes,
                     help=say("minutes without a run before a learner counts as stuck (M)"))  # fmt: skip
    run.add_argument("--hub", action="store_true", help=say("run as a JupyterHub service, behind the hub's login"))
    return built


def main(argv: list[str] | None = None) -> int:
    language = i18n.language()
    arguments = parser(language).parse_args(sys.argv[1:] if argv is None else argv)
    options = Options(
        db=arguments.db,
        lab=arguments.lab,
        host=arguments.host,
        port=arguments.port,
        code=arguments.code,
        token=arguments.token,
        thresholds=Thresholds(arguments.stuck_after, arguments.idle_after),
        hub=arguments.hub,
    )
    try:
        serve(options, language)
    except LiveError as exc:
        print(f"course-live: {exc}", file=sys.stderr)
        return 2
    return 0
