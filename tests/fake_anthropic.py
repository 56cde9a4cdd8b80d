"""A scripted Anthropic Messages API server on 127.0.0.1, for the end-to-end test with Claude Code.

Every request body is appended to a JSON-lines log. A request that offers the Bash tool and holds
no tool result yet gets one Bash tool call (the command given on the command line); any other
request gets a short final text. Answers are streamed (server-sent events) when the request asks
for a stream. The server stops after `--max-requests` requests or `--seconds` seconds: it never
outlives a test run.

    python tests/fake_anthropic.py --port-file PORT --log LOG --command "make build" [--seconds 120]
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


def _has_tool_result(body: dict[str, Any]) -> bool:
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(c, dict) and c.get("type") == "tool_result" for c in content
        ):
            return True
    return False


def _offers_bash(body: dict[str, Any]) -> bool:
    return any(isinstance(t, dict) and t.get("name") == "Bash" for t in body.get("tools", []) or [])


def _reply(body: dict[str, Any], command: str, count: int) -> dict[str, Any]:
    """The message to answer with: a Bash call first, then a final text."""
    model = body.get("model", "claude-test")
    base = {
        "id": f"msg_{count:04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    if _offers_bash(body) and not _has_tool_result(body):
        tool = {"type": "tool_use", "id": f"toolu_{count:04d}", "name": "Bash",
                "input": {"command": command, "description": "Run the scripted command"}}  # fmt: skip
        return {**base, "content": [tool], "stop_reason": "tool_use"}
    return {**base, "content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn"}


def _events(message: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The server-sent events that stream `message`."""
    start = {**message, "content": [], "stop_reason": None}
    out: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": start})]
    for i, block in enumerate(message["content"]):
        if block["type"] == "text":
            out.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                 "content_block": {"type": "text", "text": ""}}))  # fmt: skip
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            empty = {**block, "input": {}}
            start_block = {"type": "content_block_start", "index": i, "content_block": empty}
            out.append(("content_block_start", start_block))
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        out.append(("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}))
        out.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(("message_delta", {"type": "message_delta",
                                  "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                  "usage": {"output_tokens": 5}}))  # fmt: skip
    out.append(("message_stop", {"type": "message_stop"}))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", type=Path, required=True)
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--command", required=True)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--max-requests", type=int, default=60)
    opts = parser.parse_args()
    lock = threading.Lock()
    state = {"count": 0}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _json(self, code: int, data: dict[str, Any]) -> None:
            raw = json.dumps(data).encode()
            self.send_response(code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def do_GET(self) -> None:
            self._json(200, {"data": [], "has_more": False})

        def do_HEAD(self) -> None:
            self.send_response(200)
            self.end_headers()

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b"{}"
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            with lock:
                state["count"] += 1
                count = state["count"]
                with open(opts.log, "a", encoding="utf-8") as log:
                    log.write(json.dumps({"path": self.path, "body": body}) + "\n")
            if count > opts.max_requests:
                self._json(529, {"type": "error", "error": {"type": "overloaded_error", "message": "enough"}})
                return
            if "count_tokens" in self.path:
                self._json(200, {"input_tokens": 10})
                return
            if not self.path.split("?")[0].endswith("/messages"):
                self._json(200, {})
                return
            message = _reply(body, opts.command, count)
            if not body.get("stream"):
                self._json(200, message)
                return
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.end_headers()
            for name, data in _events(message):
                self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    opts.port_file.write_text(str(server.server_address[1]), encoding="utf-8")
    threading.Timer(opts.seconds, server.shutdown).start()
    deadline = time.monotonic() + opts.seconds
    server.serve_forever(poll_interval=0.2)
    server.server_close()
    assert time.monotonic() <= deadline + 5


if __name__ == "__main__":
    main()
