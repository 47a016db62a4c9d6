"""One live lab server from its options: the session's database opened, the app built, the addresses said.

``course-live serve`` (``cli.py``) parses the command line and calls ``serve``; a
test builds the same app with ``build`` and talks to it through Starlette's test
client, or runs ``serve`` in a process of its own.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

from starlette.applications import Starlette

from .app import LiveLab, Thresholds, create_app
from .gate import Gate
from .messages import MESSAGES
from .session import Session, open_session
from .store import Store

DEFAULT_PORT = 8765
PREFIX_VARIABLE = "JUPYTERHUB_SERVICE_PREFIX"


@dataclass(frozen=True)
class Options:
    db: Path
    lab: str | None = None
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    code: str | None = None
    token: str | None = None
    thresholds: Thresholds = Thresholds()
    hub: bool = False


def build(options: Options) -> tuple[Starlette, LiveLab]:
    """The app over the session ``options.db`` holds (a new one for a new file), and its state."""
    store = Store(options.db)
    try:
        session = open_session(store, options.lab, options.code, options.token)
    except Exception:
        store.close()
        raise
    if not options.hub:
        lab = LiveLab(store, session, options.thresholds, Gate(session.token))
        return create_app(lab), lab
    from .hub_login import HubOAuthLogin  # only a hub service needs jupyterhub

    login = HubOAuthLogin()
    lab = LiveLab(store, session, options.thresholds, Gate(session.token, login))
    return create_app(lab, prefix=os.environ.get(PREFIX_VARIABLE, ""), callback=login.callback), lab


def addresses(session: Session, options: Options, resumed: int, language: str) -> list[str]:
    """What the server prints on start: the lab, the join code, how learners join, the instructor's address."""
    host = socket.gethostname() if options.host in ("0.0.0.0", "::") else options.host
    prefix = os.environ.get(PREFIX_VARIABLE, "/") if options.hub else "/"
    base = f"http://{host}:{options.port}{prefix.rstrip('/')}"
    first = MESSAGES("course-live: Lab {lab}, session {db}", language).format(lab=session.lab, db=options.db)
    if resumed:
        first += MESSAGES(" (resumed: {runs} runs)", language).format(runs=resumed)
    lines = [
        (MESSAGES("join code", language), session.code),
        (
            MESSAGES("learners", language),
            f'from course_lib.checklist import live; live.join("{session.code}", url="{base}")',
        ),
        (
            "",
            MESSAGES("or set COURSE_LIVE_URL={url} COURSE_LIVE_CODE={code}", language).format(
                url=base, code=session.code
            ),
        ),
        (MESSAGES("instructor", language), f"{base}/?token={session.token}"),
        (MESSAGES("projector", language), f"{base}/projector?token={session.token}"),
    ]
    if options.hub:
        lines.append(
            (
                "",
                MESSAGES("on the hub, the page is also behind the hub's login: {prefix}", language).format(
                    prefix=prefix
                ),
            )
        )
    return [first, *(f"  {label + (':' if label else ''):<12} {value}" for label, value in lines)]


def serve(options: Options, language: str) -> None:
    """Build the app, say where it is, and serve it with uvicorn until stopped (the session stays in the file)."""
    import uvicorn

    app, lab = build(options)
    print("\n".join(addresses(lab.session, options, lab.room.runs, language)), flush=True)
    uvicorn.run(
        app,
        host=options.host,
        port=options.port,
        http="httptools",  # the [live] extra brings it: uvicorn's C parser, a third off a post's latency (make bench)
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=2,
    )
