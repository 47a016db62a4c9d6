"""The session: its lab, its join code and the instructor's token, kept in its database (issue 46).

``course-live serve --lab 11.3 --db lab-day.sqlite`` starts a session or resumes the
one the file holds: a code or token given on the command line (a hub's
configuration, a script) replaces the stored one; otherwise the stored one is kept,
and a new session gets fresh ones (``secrets``). So a server stopped and started
again keeps its learners, their runs, the code they joined with and the
instructor's address.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from .catalogue import lab_id
from .errors import LiveError
from .store import Store

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""No 0/O, 1/I: a code read off a projector is typed right."""


@dataclass(frozen=True)
class Session:
    lab: str
    code: str
    token: str


def new_code() -> str:
    """Eight letters and digits in two groups: ``K7QM-3PXA``."""
    letters = "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
    return f"{letters[:4]}-{letters[4:]}"


def new_token() -> str:
    return secrets.token_urlsafe(24)


def open_session(store: Store, lab: str | None, code: str | None, token: str | None) -> Session:
    """The session ``store`` holds, with what was given replacing what it holds; a new one for a new file."""
    chosen_lab = lab or store.setting("lab")
    if chosen_lab is None:
        raise LiveError(f"{store.path} holds no session yet: name its lab (--lab 11.3)")
    if lab_id(chosen_lab) is None:
        raise LiveError(f"unknown lab {chosen_lab!r}")
    for value, what in ((code, "--code"), (token, "--token")):
        if value is not None and (len(value.strip()) < 4 or value != value.strip()):
            raise LiveError(f"{what} must be at least 4 characters, without spaces around it")
    session = Session(
        chosen_lab,
        code or store.setting("code") or new_code(),
        token or store.setting("token") or new_token(),
    )
    for key in ("lab", "code", "token"):
        store.set_setting(key, getattr(session, key))
    return session
