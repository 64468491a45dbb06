"""The answer stream in the source's own words: a model that copies a passage copies the heading
escape of the Markdown context too (``\\## Hooch``), and a reader should see neither in the stream
nor in the answer kept."""

from __future__ import annotations

from dataclasses import dataclass

from open_notebook.context import literal_markdown


@dataclass(slots=True)
class LiteralStream:
    """Deltas in, deltas out without the escape. A delta that ends in a backslash keeps it back
    until the next delta shows whether a ``#`` follows; the last character sent stays known, since
    an escape counts only at a line's start or after a space."""

    _before: str = "\n"
    _held: str = ""

    def feed(self, delta: str) -> str:
        text = self._held + delta
        self._held = ""
        if text.endswith("\\"):
            text, self._held = text[:-1], "\\"
        return self._send(text)

    def flush(self) -> str:
        """What is still held back, once the stream has ended."""
        held, self._held = self._held, ""
        return self._send(held) if held else ""

    def _send(self, text: str) -> str:
        if not text:
            return ""
        out = literal_markdown(self._before + text)[1:]
        self._before = text[-1]
        return out
