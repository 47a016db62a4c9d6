"""What a kernel says is bounded before the grader parses it.

A kernel is the submission: whatever it sends, the grader must not grow with it.
A list repeated fifty million times is a few kB in the kernel but gigabytes as
JSON, and gigabytes more as parsed objects in the grader. So, at the layers the
kernel's bytes pass through on their way in:

- libzmq refuses any frame over ``MAX_MESSAGE_MB`` before it buffers it
  (``ZMQ_MAXMSGSIZE``: the connection is dropped instead) and queues at most
  ``QUEUED`` messages per socket (``ZMQ_RCVHWM``: the kernel's side waits);
  a socket monitor tells the grader that a connection was dropped;
- the Jupyter session refuses a message with too many frames, too many bytes
  in total, or JSON nested deeper than ``MAX_DEPTH`` (``ReplyTooLarge``);
- the grader reads no output at all: the harness's reply to each cell comes
  back in that cell's ``execute_reply`` on the shell channel (``harness.collect``),
  and the grader closes its IOPub socket once the kernel is ready (the relay
  then stops reading IOPub too), so what a submission prints or displays goes
  to nobody: never parsed here, never a reason to stop its sandbox;
- what the grader keeps of a submission's replies has a budget
  (``ReplyBudget``: ``MAX_KEPT_MB`` of JSON and ``MAX_KEPT`` replies in
  total); a reply is decoded only once it fits, and one past it stops the
  sandbox with a note, so the grader's memory is bounded per submission, not
  only per message.

libzmq delivers a multipart message whole, so a kernel could send one message
of very many frames, each under the frame limit, and have all of it buffered
before anyone can count them. With bubblewrap, the kernel's sockets are
therefore read by a relay in the sandbox's own cgroup (``relay.py``): such a
message costs the submission's memory, not the grader's.
"""

from __future__ import annotations

import json
from typing import Any

import zmq
import zmq.asyncio
from jupyter_client.session import Session

from course_lib.checklist.harness import MIME

from ..errors import GradingError

MAX_MESSAGE_MB = 4
"""Largest kernel message (and frame) the grader reads; a harness reply is a few kB to a few hundred kB."""
MAX_FRAMES = 32
"""A Jupyter message is a signature, four JSON parts and a few buffers."""
MAX_DEPTH = 200
"""Deepest JSON nesting read (a reply nests a few levels per session entry; Python's parser stops near 1000)."""
QUEUED = 8
"""Messages libzmq holds per grader socket before the kernel's side has to wait."""
MAX_KEPT_MB = 8
"""JSON the grader keeps of one submission's replies, in total: honest labs send 0.02-0.4 MB.

Decoded, JSON takes up to about 20 times its size (``[[0],[0],...]``), so this
bounds what the replies hold in the grader near 160 MB at worst.
"""
MAX_KEPT = 1000
"""Replies the grader keeps of one submission: one per grading cell, a few hundred at most (practice included)."""


class ReplyTooLarge(GradingError):
    """A kernel message over the grader's limits: the sandbox is stopped, the submission gets an ``error`` note."""


def relay_stopped(code: int | None) -> str | None:
    """What the relay's exit status says about the kernel (``relay.py``), for the submission's notes."""
    from .relay import DROPPED, TOO_LARGE, TOO_MANY_PARTS

    return {
        TOO_MANY_PARTS: f"the kernel sent a message of more than {MAX_FRAMES} parts, over the grader's limit; "
        "its sandbox was stopped",
        TOO_LARGE: f"the kernel sent a message larger than the grader's limit of {MAX_MESSAGE_MB} MB; its sandbox was stopped",
        DROPPED: refused_frame(),
    }.get(code or 0)


def refused_frame() -> str:
    return (
        f"the kernel sent a message larger than the grader's limit of {MAX_MESSAGE_MB} MB "
        f"(or closed its connection to the grader); its sandbox was stopped"
    )


def _size(megabytes: float) -> str:
    return f"{megabytes / 1024:.1f} GB" if megabytes >= 1024 else f"{megabytes:.1f} MB"


MALFORMED = "the kernel sent a message that is not a Jupyter message; its sandbox was stopped"


class BoundedSession(Session):
    """jupyter_client's session, counting a message's frames and bytes before parsing it, and its depth after.

    Frames that are no message at all (no delimiter, a header that is not JSON) are refused the same way:
    the kernel controls every byte it sends, so a parse error is the submission's, never the grader's.
    """

    def feed_identities(self, msg_list: Any, copy: bool = True) -> Any:
        try:
            return super().feed_identities(msg_list, copy=copy)
        except ValueError as exc:
            raise ReplyTooLarge(MALFORMED) from exc

    def deserialize(self, msg_list: Any, content: bool = True, copy: bool = True) -> dict[str, Any]:
        if len(msg_list) > MAX_FRAMES:
            raise ReplyTooLarge(
                f"a kernel message of {len(msg_list)} parts exceeded the grader's limit of {MAX_FRAMES}; "
                "its sandbox was stopped"
            )
        size = sum(len(frame) for frame in msg_list)
        if size > MAX_MESSAGE_MB * 2**20:
            raise ReplyTooLarge(
                f"a kernel message of {_size(size / 2**20)} exceeded the grader's limit of "
                f"{MAX_MESSAGE_MB} MB; its sandbox was stopped"
            )
        try:
            message = super().deserialize(msg_list, content=content, copy=copy)
        except RecursionError as exc:
            raise ReplyTooLarge(_too_deep()) from exc
        except (ValueError, KeyError, TypeError, IndexError) as exc:  # a hostile kernel's frames need not parse
            raise ReplyTooLarge(MALFORMED) from exc
        if not within_depth(message.get("content"), MAX_DEPTH) or not within_depth(message.get("metadata"), MAX_DEPTH):
            raise ReplyTooLarge(_too_deep())
        return message


def within_depth(value: Any, limit: int) -> bool:
    """Whether ``value`` nests at most ``limit`` lists and dicts deep (iterative: no recursion to exhaust)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return False
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return True


class BoundedContext(zmq.asyncio.Context):
    """A zmq context whose sockets refuse big frames, queue few messages, and report dropped connections."""

    monitors: list[zmq.Socket] | None = None  # declared here: pyzmq treats unknown attributes as context options

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.monitors = []
        self.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_MB * 2**20)
        self.setsockopt(zmq.RCVHWM, QUEUED)

    def socket(self, socket_type: int, *args: Any, **kwargs: Any) -> Any:
        sock = super().socket(socket_type, *args, **kwargs)
        if socket_type != zmq.PAIR and self.monitors is not None:  # PAIR: the monitors themselves
            monitor = sock.get_monitor_socket(zmq.EVENT_DISCONNECTED)
            self.monitors.append(zmq.Socket.shadow(monitor.underlying))
        return sock

    def dropped(self) -> bool:
        """Whether any connection to the kernel was dropped (a refused frame, or the kernel closed it)."""
        for monitor in self.monitors or ():
            try:
                if monitor.poll(0):
                    return True
            except zmq.ZMQError:  # closed with the context: the sandbox is over anyway
                continue
        return False


def harness_reply(content: Any) -> str | None:
    """The harness's reply in an ``execute_reply``'s content (``harness.COLLECT``), as JSON text; ``None`` if none."""
    expressions = content.get("user_expressions") if isinstance(content, dict) else None
    collected = expressions.get(REPLY) if isinstance(expressions, dict) else None
    data = collected.get("data") if isinstance(collected, dict) and collected.get("status") == "ok" else None
    text = data.get(MIME) if isinstance(data, dict) else None
    return text if isinstance(text, str) else None


REPLY = "reply"
"""The name of the harness's user expression in an ``execute_request`` and its reply."""


class ReplyBudget:
    """What the grader keeps of one submission's replies: at most ``megabytes`` of JSON and ``count`` replies.

    Every reply is counted before it is decoded; the first one over either
    limit raises ``ReplyTooLarge`` (the sandbox stops, the row is ``error``
    with the note), so no submission can make the grader keep more than this,
    however many replies under the frame limit it sends.
    """

    def __init__(self, megabytes: float = MAX_KEPT_MB, count: int = MAX_KEPT) -> None:
        self.limit = int(megabytes * 2**20)
        self.count_limit = count
        self.size = 0
        self.count = 0

    def admit(self, text: str | None) -> Any:
        """``text`` decoded, counted against the budget (``None`` stays ``None``: a cell without a reply)."""
        if text is None:
            return None
        self.count += 1
        self.size += len(text)  # the harness writes ASCII JSON: characters are bytes
        if self.count > self.count_limit:
            raise ReplyTooLarge(
                f"the kernel sent more than {self.count_limit} replies, over the grader's budget for one submission; "
                "its sandbox was stopped"
            )
        if self.size > self.limit:
            raise ReplyTooLarge(
                f"the kernel's replies came to more than {_size(self.limit / 2**20)}, over the grader's budget "
                "for one submission; its sandbox was stopped"
            )
        try:
            value = json.loads(text)
        except RecursionError as exc:
            raise ReplyTooLarge(_too_deep()) from exc
        except ValueError as exc:
            raise ReplyTooLarge(MALFORMED) from exc
        if not within_depth(value, MAX_DEPTH):
            raise ReplyTooLarge(_too_deep())
        return value


def _too_deep() -> str:
    return f"a kernel message nested deeper than the grader's limit of {MAX_DEPTH}; its sandbox was stopped"
