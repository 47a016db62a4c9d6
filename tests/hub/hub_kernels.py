"""A notebook's code cells run in a hub user's kernel, through the hub's proxy, as a learner's JupyterLab runs them.

The kernel is started with the single-user server's REST API (``/user/<name>/api/kernels``)
and each cell sent over its websocket (Jupyter's messaging protocol, as JSON) in order;
the reply that matters is the checklist cell's result. The user's server gave the
kernel its environment: what the hub's ``Spawner.environment`` set (the live lab's
address and code) and ``JUPYTERHUB_USER`` (the name the instructor sees).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

from nbformat import NotebookNode
from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import websocket_connect

CELL_SECONDS = 120


def _message(code: str, session: str) -> dict[str, Any]:
    return {
        "header": {
            "msg_id": uuid.uuid4().hex,
            "msg_type": "execute_request",
            "session": session,
            "username": "hub-test",
            "version": "5.3",
            "date": datetime.now(UTC).isoformat(),
        },
        "parent_header": {},
        "metadata": {},
        "content": {
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": False,
        },
        "channel": "shell",
    }


async def _run_cells(base: str, user: str, token: str, cells: list[str]) -> list[str]:
    """Each cell's ``text/plain`` result (or printed text), in order, from one new kernel of ``user``'s server."""
    headers = {"Authorization": f"token {token}"}
    client = AsyncHTTPClient()
    started = await client.fetch(
        HTTPRequest(f"{base}/user/{user}/api/kernels", method="POST", body="{}", headers=headers)
    )
    kernel = json.loads(started.body)["id"]
    socket_url = f"{base.replace('http', 'ws', 1)}/user/{user}/api/kernels/{kernel}/channels"
    connection = await websocket_connect(HTTPRequest(socket_url, headers=headers))
    session = uuid.uuid4().hex
    shown: list[str] = []
    try:
        for code in cells:
            request = _message(code, session)
            await connection.write_message(json.dumps(request))
            shown.append(await asyncio.wait_for(_result(connection, request["header"]["msg_id"]), CELL_SECONDS))
    finally:
        connection.close()
        await client.fetch(
            HTTPRequest(f"{base}/user/{user}/api/kernels/{kernel}", method="DELETE", headers=headers),
            raise_error=False,
        )
    return shown


async def _result(connection: Any, msg_id: str) -> str:
    text: list[str] = []
    while True:
        raw = await connection.read_message()
        if raw is None:
            raise ConnectionError("the kernel's websocket closed")
        message = json.loads(raw)
        if message.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        kind, content = message["msg_type"], message["content"]
        if kind == "execute_result":
            text.append(content["data"].get("text/plain", ""))
        elif kind == "stream":
            text.append(content["text"])
        elif kind == "error":
            text.append(f"{content['ename']}: {content['evalue']}")
        elif kind == "status" and content["execution_state"] == "idle":
            return "".join(text)


def run_notebook(base: str, user: str, token: str, notebook: NotebookNode) -> str:
    """Run every code cell of ``notebook`` in a kernel of ``user``'s server; return the checklist cell's result."""
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    with ThreadPoolExecutor(1) as thread:  # a loop of its own: Playwright's sync API runs one in this thread
        results = thread.submit(asyncio.run, _run_cells(base, user, token, [cell.source for cell in code])).result()
    return next(r for cell, r in zip(code, results, strict=True) if "checklist" in cell.metadata.get("tags", []))
