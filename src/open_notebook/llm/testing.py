"""A loopback OpenAI-compatible chat server for tests and demos: records requests, streams a
canned answer as server-sent events, one delta per word (or sends it whole when the request
says ``"stream": false``), and misbehaves on demand.

    with LoopbackChatServer(answer="Bread rises [source:abc].") as server:
        model = OpenAICompatibleModel(base_url=server.base_url, ...)
        ...
        server.requests[0]["messages"]
        server.fault = Fault.MALFORMED_CHUNK  # the next requests get a broken stream

``status`` and ``fault`` are read per request, so one server can answer, fail and recover.
``replies`` are sent one per request, in order, before ``answer``: a pipeline that asks the model
several things gets a different reply to each.
"""

from __future__ import annotations

import json
import re
import threading
from enum import StrEnum
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Final

# How long a hung request holds its connection at most (the server's exit releases it sooner).
HANG_S: Final = 60.0


class Fault(StrEnum):
    """Ways the server breaks the protocol (an error status is ``status``, not a fault)."""

    HANG = "hang"  # read the request, then answer nothing: the client's timeout
    MALFORMED_CHUNK = "malformed-chunk"  # a good delta, then an event that is not JSON
    DROPPED_STREAM = "dropped-stream"  # a good delta, then the connection closes mid-body


class LoopbackChatServer:
    """Serve ``POST /v1/chat/completions`` on 127.0.0.1 with a random port, in a thread."""

    def __init__(self, answer: str = "", *, status: int = 200, fault: Fault | None = None) -> None:
        self.answer = answer
        self.replies: list[str] = []
        self.status = status
        self.fault = fault
        self.requests: list[dict[str, Any]] = []
        # Seconds between a streamed reply's headers and its first delta: a model reading a long
        # prompt before it writes (a page's "Writing the answer…" shows meanwhile).
        self.delay_s = 0.0
        self.released = threading.Event()
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
        self.released.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _deltas(answer: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", answer)


def _event(delta: str) -> bytes:
    chunk = {"choices": [{"index": 0, "delta": {"content": delta}}]}
    return f"data: {json.dumps(chunk)}\n\n".encode()


def _reply(answer: str) -> bytes:
    message = {"role": "assistant", "content": answer}
    choice = {"index": 0, "message": message, "finish_reason": "stop"}
    return json.dumps({"choices": [choice]}).encode()


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
            status, fault, streamed = owner.status, owner.fault, body.get("stream") is not False
            answer = owner.replies.pop(0) if owner.replies else owner.answer
            if fault is Fault.HANG:
                owner.released.wait(HANG_S)
                return
            if status != 200:
                message = "Invalid API Key" if status == 401 else "canned failure"
                error = json.dumps({"error": {"message": message, "code": status}}).encode()
                self._send(status, "application/json", [error])
                return
            if not streamed:
                reply = _reply(answer)
                if fault is Fault.MALFORMED_CHUNK:
                    reply = reply[: len(reply) // 2]
                dropped = fault is Fault.DROPPED_STREAM
                self._send(200, "application/json", [reply], dropped=dropped)
                return
            events = [_event(delta) for delta in _deltas(answer)] or [_event("")]
            if fault is Fault.MALFORMED_CHUNK:
                events = [events[0], b'data: {"choices": [{"delta": {"content": "br\n\n']
            elif fault is Fault.DROPPED_STREAM:
                events = events[:1]
            else:
                events.append(b"data: [DONE]\n\n")
            dropped = fault is Fault.DROPPED_STREAM
            self._send(200, "text/event-stream", events, dropped=dropped, delay_s=owner.delay_s)

        def _send(
            self,
            status: int,
            content_type: str,
            parts: list[bytes],
            *,
            dropped: bool = False,
            delay_s: float = 0.0,
        ) -> None:
            """Send ``parts``, flushing each (the first ``delay_s`` after the headers);
            ``dropped`` announces more bytes than it sends, so the body ends with the
            connection, mid-message."""
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            if dropped:
                self.send_header("Content-Length", str(sum(map(len, parts)) + 1000))
            self.end_headers()
            if delay_s:
                owner.released.wait(delay_s)
            for part in parts:
                self.wfile.write(part)
                self.wfile.flush()

    return Handler
