"""The grader's end of a kernel's sockets, in a process of the sandbox's own cgroup.

libzmq delivers a multipart message whole: a kernel that sends one message of
very many parts, each under the frame limit (``replies.py``), would have all
of it buffered by whoever receives it before anyone can count its parts. So
the grader does not receive from the kernel directly. This relay does: it runs
outside the sandbox's namespaces (the kernel cannot see or signal it) but in
its cgroup, so whatever a kernel makes it buffer counts against the
*submission's* memory limit, never the grader's. It forwards the shell,
control and IOPub channels (IOPub only while the kernel starts), and stops at the first message from the kernel
with too many parts or bytes (exit ``TOO_MANY_PARTS``/``TOO_LARGE``) or a
dropped connection (``DROPPED``: a frame over the limit, or the kernel closed
it). The sandbox notices its end and stops the kernel (``relay_process.py``).

``python relay.py CONNECTION_FILE FRONT_PREFIX MAX_BYTES MAX_FRAMES QUEUED`` binds
``FRONT_PREFIX-<port>`` for each relayed port of the kernel's connection file.
It is run as a script, importing nothing of the course (it starts in tens of
milliseconds); ``replies.py`` holds the limits and the notes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import zmq

TOO_MANY_PARTS = 3
TOO_LARGE = 4
DROPPED = 5

RELAYED = {
    "shell_port": (zmq.ROUTER, zmq.DEALER),
    "control_port": (zmq.ROUTER, zmq.DEALER),
    "iopub_port": (zmq.XPUB, zmq.SUB),
}
"""Each relayed channel: the socket the grader connects to, the one that connects to the kernel.

IOPub's front is an XPUB, which hears the grader's subscription: the grader reads
IOPub only until the kernel is ready, then closes its socket (``kernel.py``), and
the relay stops reading the kernel's output too. From then on the kernel publishes
to nobody: nothing it prints or displays, however large, is read, buffered or
refused, so output can never stop a sandbox or cost a mark.
"""

IDENTITIES = 2
"""Routing frames a reply may carry on top of a Jupyter message (the relay's and the grader's)."""


def front_ready(prefix: str, connection: dict[str, object]) -> bool:
    return all(Path(f"{prefix}-{connection[port]}").exists() for port in RELAYED)


def relay(connection_file: str, front: str, max_bytes: int, max_frames: int, queued: int) -> int:
    connection = json.loads(Path(connection_file).read_text())
    context = zmq.Context()
    context.setsockopt(zmq.LINGER, 0)
    pairs: dict[zmq.Socket, tuple[zmq.Socket, bool]] = {}
    monitors: list[zmq.Socket] = []
    output: tuple[zmq.Socket, zmq.Socket, zmq.Socket] | None = None
    """IOPub's front, the kernel's side and its monitor, until the grader unsubscribes."""
    poller = zmq.Poller()
    for port, (front_type, back_type) in RELAYED.items():
        grader_side = context.socket(front_type)
        kernel_side = context.socket(back_type)
        kernel_side.setsockopt(zmq.MAXMSGSIZE, max_bytes)  # a big frame drops the connection unread
        kernel_side.setsockopt(zmq.RCVHWM, queued)
        if back_type == zmq.SUB:
            kernel_side.setsockopt(zmq.SUBSCRIBE, b"")
        monitor = kernel_side.get_monitor_socket(zmq.EVENT_DISCONNECTED)
        kernel_side.connect(f"ipc://{connection['ip']}-{connection[port]}")
        grader_side.bind(f"ipc://{front}-{connection[port]}")
        pairs[kernel_side] = (grader_side, True)
        if front_type == zmq.XPUB:
            output = (grader_side, kernel_side, monitor)
            poller.register(grader_side, zmq.POLLIN)
        else:
            pairs[grader_side] = (kernel_side, False)
        monitors.append(monitor)
    for sock in (*pairs, *monitors):
        poller.register(sock, zmq.POLLIN)
    while True:
        for sock, _ in poller.poll():
            if output is not None and sock is output[0]:
                if sock.recv()[:1] == b"\x00":  # the grader unsubscribed: it reads no more output
                    for closing in output[1:]:
                        poller.unregister(closing)
                        pairs.pop(closing, None)
                        closing.close(linger=0)
                    monitors.remove(output[2])
                    output = None
                continue
            if sock in monitors:
                return DROPPED
            if sock not in pairs:  # IOPub's, closed earlier in this round
                continue
            target, from_kernel = pairs[sock]
            frames = sock.recv_multipart(copy=False)
            if from_kernel and len(frames) > max_frames + IDENTITIES:
                return TOO_MANY_PARTS
            if from_kernel and sum(len(frame) for frame in frames) > max_bytes:
                return TOO_LARGE
            target.send_multipart(frames, copy=False)


def main(argv: list[str] | None = None) -> int:
    connection_file, front, max_bytes, max_frames, queued = argv if argv is not None else sys.argv[1:]
    return relay(connection_file, front, int(max_bytes), int(max_frames), int(queued))


if __name__ == "__main__":
    sys.exit(main())
