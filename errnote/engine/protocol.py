"""What the engine and its clients say: one request and one answer per connection, each a 4-byte
big-endian length followed by that many bytes of UTF-8 JSON (an object with `"v": VERSION`).

A request: `kind` ("hook" or "cli"), `argv`, `stdin` (a hook's input), `cwd`, `env` (the variables
that can change an answer, `settings.fingerprint`), `deadline` (epoch seconds: past it the client
has given up and answers itself, so the engine does not start the work). An answer: `ok` with
`stdout`, `stderr`, `code` (and for hooks `why`, the reason for an empty answer), or `ok: false`
with `why`: the client then answers in its own process. Standard library only.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False  # not `typing`'s: this module is on a hook's path through the engine
if TYPE_CHECKING:
    from typing import Any, Protocol

    class Connection(Protocol):
        """What a message goes over: a `socket.socket`, or the client's bare `_socket.socket`."""

        def sendall(self, data: bytes, /) -> None: ...
        def recv(self, size: int, /) -> bytes: ...


VERSION = 1
#: Largest message either side accepts (a hook's input holds a prompt; 64 MiB is far past any).
MAX_MESSAGE = 64 * 1024 * 1024
#: Bytes of the length before each message (big-endian; `int.to_bytes`: `struct` is an import).
HEADER_SIZE = 4


class ProtocolError(Exception):
    """The other side sent something that is not a message of this protocol (or closed early)."""


def encode(message: dict[str, Any]) -> bytes:
    """A message as it goes on the wire."""
    body = json.dumps({**message, "v": VERSION}, ensure_ascii=False).encode("utf-8", "surrogatepass")
    if len(body) > MAX_MESSAGE:
        raise ProtocolError(f"message of {len(body)} bytes is over the limit")
    return len(body).to_bytes(HEADER_SIZE, "big") + body


def send(sock: Connection, message: dict[str, Any]) -> None:
    """Send one message."""
    sock.sendall(encode(message))


def _exactly(sock: Connection, size: int) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise ProtocolError("connection closed in the middle of a message")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def receive(sock: Connection) -> dict[str, Any]:
    """Read one message; ProtocolError for anything else (a wrong version included)."""
    size = int.from_bytes(_exactly(sock, HEADER_SIZE), "big")
    if size > MAX_MESSAGE:
        raise ProtocolError(f"message of {size} bytes is over the limit")
    try:
        data = json.loads(_exactly(sock, size).decode("utf-8", "surrogatepass"))
    except ValueError as exc:
        raise ProtocolError(f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ProtocolError("a message must be a JSON object")
    if data.get("v") != VERSION:
        raise ProtocolError(f"protocol version {data.get('v')!r}, this side speaks {VERSION}")
    return data
