"""A loopback OpenAI-compatible chat server for tests and demos: records requests, streams a
canned answer as server-sent events, one delta per word.

    with LoopbackChatServer(answer="Bread rises [source:abc].") as server:
        model = OpenAICompatibleModel(base_url=server.base_url, ...)
        ...
        server.requests[0]["messages"]
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


class LoopbackChatServer:
    """Serve ``POST /v1/chat/completions`` on 127.0.0.1 with a random port, in a thread."""

    def __init__(self, answer: str = "", *, status: int = 200) -> None:
        self.answer = answer
        self.status = status
        self.requests: list[dict[str, Any]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def _serve(self) -> None:
        self._server.serve_forever(poll_interval=0.02)  # a quick shutdown keeps tests fast

    def __enter__(self) -> LoopbackChatServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _deltas(answer: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", answer)


def _handler(owner: LoopbackChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output clean."""

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            body["_path"] = self.path
            body["_authorization"] = self.headers.get("Authorization")
            owner.requests.append(body)
            if owner.status != 200:
                self.send_response(owner.status)
                self.end_headers()
                self.wfile.write(b'{"error": {"message": "canned failure"}}')
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for delta in _deltas(owner.answer):
                event = {"choices": [{"index": 0, "delta": {"content": delta}}]}
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")

    return Handler
