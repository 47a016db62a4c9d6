"""The live lab server: one session's Starlette app, its routes and what each refuses (issue 46).

Learners (the join code): ``POST /api/hello`` checks a code before a learner joins,
``POST /api/runs`` records a checklist run; both answer with nothing of anyone
else. The instructor (the token, or the hub's login, ``gate.py``): ``/`` the page,
``/projector`` the page without names, ``/events`` its feed, ``/api/state`` the same
snapshot as JSON, ``/export.csv`` every run, ``/pass-rate.svg`` the picture. A post is
read strictly (``posts.py``), refused when its learner posts too often
(``rate_limit.py``) or the room is full, committed (``store.py``) before it is
acknowledged, then added to the room (``room.py``), which wakes the pages
(``events.py``). Every response carries a strict Content-Security-Policy.
"""

from __future__ import annotations

import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from . import events, export, picture
from .errors import Refusal
from .gate import Gate
from .messages import MESSAGES, page_language
from .page import PageAddress, page
from .posts import MAX_BODY, read_hello, read_run
from .rate_limit import RateLimit
from .room import Room
from .session import Session
from .snapshot import View, snapshot
from .store import Store

MAX_LEARNERS = 500
"""Names one session takes at most: a loop inventing names fills no memory."""
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
STATIC = Path(__file__).resolve().parent / "static"
STATIC_TYPES = {
    "live.js": "text/javascript; charset=utf-8",
    "live.css": "text/css; charset=utf-8",
    "icon.svg": "image/svg+xml",
}


@dataclass(frozen=True)
class Thresholds:
    """The minutes before a learner counts as stuck (a check failing: N) or idle (no run: M), unless a page says."""

    stuck_minutes: float = 10.0
    idle_minutes: float = 15.0


class LiveLab:
    """The server's state: the store, the session, the room, the rate limit, the open pages' wake-up."""

    def __init__(self, store: Store, session: Session, thresholds: Thresholds, gate: Gate) -> None:
        self.store = store
        self.session = session
        self.thresholds = thresholds
        self.gate = gate
        self.room = Room(store.runs())
        self.limit = RateLimit()
        self.changes = events.Changes()
        self.snapshots = events.Snapshots(self.changes, lambda view, now: snapshot(self.room, session.lab, view, now))

    # --- learners ----------------------------------------------------------------

    async def hello(self, request: Request) -> Response:
        language = _language(request)
        try:
            name = read_hello(await _body(request, language), self.session.code, language)
            self._admit(name, language)
        except Refusal as refusal:
            return _refused(refusal)
        return JSONResponse({"lab": self.session.lab})

    async def post_run(self, request: Request) -> Response:
        language = _language(request)
        try:
            run = read_run(await _body(request, language), self.session.code, language)
            self._admit(run.name, language)
        except Refusal as refusal:
            return _refused(refusal)
        received = time.time()
        run_id = self.store.add(run, received)
        self.room.add(run_id, run, received)
        self.changes.changed()
        return JSONResponse({"run": run_id})

    def _admit(self, name: str, language: str) -> None:
        if name not in self.room.learners and len(self.room.learners) >= MAX_LEARNERS:
            raise Refusal(403, MESSAGES("the room is full ({limit} learners)", language).format(limit=MAX_LEARNERS))
        wait = self.limit.wait(name, time.monotonic())
        if wait:
            seconds = math.ceil(wait)
            raise Refusal(429, MESSAGES("too many runs; wait {seconds} s", language).format(seconds=seconds), seconds)

    # --- the instructor ------------------------------------------------------------

    def _view(self, request: Request) -> View:
        query = request.query_params
        return View(
            language=_language(request),
            stuck_after=60 * _minutes(query.get("stuck"), self.thresholds.stuck_minutes),
            idle_after=60 * _minutes(query.get("idle"), self.thresholds.idle_minutes),
            names=query.get("names") != "0",
        )

    async def page(self, request: Request) -> Response:
        refusal = await self.gate.refusal(request, page=True)
        if refusal is not None:
            return refusal
        view = self._view(request)
        token = request.query_params.get("token") if self.gate.has_token(request) else None
        address = PageAddress(token, view.language, view.stuck_after / 60, view.idle_after / 60)
        return HTMLResponse(page(address, projector=request.url.path.endswith("projector")))

    async def feed(self, request: Request) -> Response:
        refusal = await self.gate.refusal(request)
        if refusal is not None:
            return refusal
        view = self._view(request)
        return StreamingResponse(
            events.stream(self.changes, lambda: self.snapshots.text(view)),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    async def state(self, request: Request) -> Response:
        return await self._read(request, lambda: JSONResponse(
            snapshot(self.room, self.session.lab, self._view(request), time.time())
        ))  # fmt: skip

    async def export(self, request: Request) -> Response:
        return await self._read(request, lambda: Response(
            export.csv_text(self.store.runs()),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": 'attachment; filename="live-lab.csv"'},
        ))  # fmt: skip

    async def picture(self, request: Request) -> Response:
        return await self._read(request, lambda: Response(
            picture.svg(self.store.runs(), self.session.lab, _language(request)), media_type="image/svg+xml"
        ))  # fmt: skip

    async def _read(self, request: Request, answer: Callable[[], Response]) -> Response:
        refusal = await self.gate.refusal(request)
        return refusal if refusal is not None else answer()


def _language(request: Request) -> str:
    return page_language(request.query_params.get("lang"), request.headers.get("accept-language"))


def _minutes(text: str | None, default: float) -> float:
    try:
        value = float(text) if text is not None else default
    except ValueError:
        return default
    return value if math.isfinite(value) and value >= 0 else default


async def _body(request: Request, language: str) -> bytes:
    """The request's body, refused (413) as soon as it passes ``MAX_BODY`` bytes, (415) unless it is JSON."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise Refusal(415, MESSAGES("the post must be application/json", language))
    declared = request.headers.get("content-length", "")
    too_large = Refusal(413, MESSAGES("the post is over {limit} bytes", language).format(limit=MAX_BODY))
    if declared and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise too_large
    received = bytearray()
    async for chunk in request.stream():
        received += chunk
        if len(received) > MAX_BODY:
            raise too_large
    return bytes(received)


def _refused(refusal: Refusal) -> Response:
    headers = {"Retry-After": str(refusal.retry_after)} if refusal.retry_after is not None else None
    return JSONResponse({"error": refusal.reason}, status_code=refusal.status, headers=headers)


async def static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in STATIC_TYPES:
        return Response(status_code=404)
    return Response((STATIC / name).read_bytes(), media_type=STATIC_TYPES[name],
                    headers={"Cache-Control": "no-cache"})  # fmt: skip


class SecurityHeaders:
    """Adds ``HEADERS`` (the CSP first) to every response of the app."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers[name] = value
            await send(message)

        await self.app(scope, receive, sending)


def routes(lab: LiveLab, callback: Callable[[Request], Awaitable[Response]] | None = None) -> list[BaseRoute]:
    found: list[BaseRoute] = [
        Route("/api/hello", lab.hello, methods=["POST"]),
        Route("/api/runs", lab.post_run, methods=["POST"]),
        Route("/", lab.page),
        Route("/projector", lab.page),
        Route("/events", lab.feed),
        Route("/api/state", lab.state),
        Route("/export.csv", lab.export),
        Route("/pass-rate.svg", lab.picture),
        Route("/static/{name}", static),
    ]
    if callback is not None:
        found.append(Route("/oauth_callback", callback))
    return found


def create_app(lab: LiveLab, *, prefix: str = "", callback: Any = None) -> Starlette:
    """The ASGI app over ``lab``, its routes under ``prefix`` (a hub service's ``/services/<name>``)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        lab.store.close()

    found = routes(lab, callback)
    mounted: list[BaseRoute] = [Mount(prefix.rstrip("/"), routes=found)] if prefix.strip("/") else found
    app = Starlette(routes=mounted, lifespan=lifespan)
    app.add_middleware(SecurityHeaders)
    return app
