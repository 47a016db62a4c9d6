"""Who may read the room: the instructor, by the session's token or (on a hub) the hub's own login (issue 46).

Learners hold the join code, which lets them post and nothing else: the page, its
feed, the state, the picture and the export all need the token, as
``Authorization: Bearer TOKEN`` (scripts, the export) or ``?token=TOKEN`` in the
address the server prints (a browser). On a JupyterHub the hub's login does too
(``hub_login.py``): a signed-in user the hub grants access to this service. A
page asked for without either is sent to the hub's login there, refused (401)
here; a hub user without access is refused (403).
"""

from __future__ import annotations

import hmac
from typing import Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from .messages import MESSAGES, page_language


class HubLogin(Protocol):
    async def refusal(self, request: Request, *, page: bool) -> Response | None: ...


class Gate:
    def __init__(self, token: str, hub: HubLogin | None = None) -> None:
        self.token = token
        self.hub = hub

    def has_token(self, request: Request) -> bool:
        header = request.headers.get("authorization", "")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer":
            given = request.query_params.get("token", "")
        return bool(given) and hmac.compare_digest(given.strip().encode(), self.token.encode())

    async def refusal(self, request: Request, *, page: bool = False) -> Response | None:
        """``None`` when the instructor asks; else the response that refuses (or sends to the hub's login)."""
        if self.has_token(request):
            return None
        if self.hub is not None:
            return await self.hub.refusal(request, page=page)
        language = page_language(request.query_params.get("lang"), request.headers.get("accept-language"))
        return JSONResponse(
            {"error": MESSAGES("the instructor's token is needed (Authorization: Bearer …)", language)},
            status_code=401,
            headers={"WWW-Authenticate": "Bearer"},
        )
