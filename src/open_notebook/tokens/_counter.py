"""Token counters behind one protocol.

A :class:`BpeTokenCounter` loads its encoding when built (tens of milliseconds), so whoever owns
the services (the app, a CLI run, the seed's runtime) builds one from the settings and passes it
down.
"""

from __future__ import annotations

from typing import Final, Protocol, runtime_checkable

import bpe_openai

from open_notebook.config import Tokenizer
from open_notebook.errors import ConfigurationError

SUPPORTED_ENCODINGS: Final = tuple(encoding.value for encoding in Tokenizer)
# bpe-openai refuses one call on 1M characters or more; longer texts are counted in pieces cut at
# line breaks (or spaces), where BPE pre-tokenization splits anyway.
_PIECE_CHARS: Final = 400_000


@runtime_checkable
class TokenCounter(Protocol):
    """Counts and cuts text in the tokens of one model family."""

    name: str

    def count(self, text: str) -> int:
        """Number of tokens of ``text`` exactly as it would be sent."""
        ...

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` with at most ``max_tokens`` tokens."""
        ...


class BpeTokenCounter:
    """A tiktoken-compatible BPE encoding (``o200k_base`` by default)."""

    def __init__(self, encoding_name: str = "o200k_base") -> None:
        if encoding_name not in SUPPORTED_ENCODINGS:
            raise ConfigurationError(
                f"unknown tokenizer {encoding_name!r}; "
                f"choose one of {', '.join(SUPPORTED_ENCODINGS)}",
                setting="OPEN_NOTEBOOK_TOKENIZER",
            )
        self.name = encoding_name
        self._encoding = bpe_openai.get_encoding(encoding_name)

    def _encode(self, text: str) -> list[int]:
        if len(text) < _PIECE_CHARS:
            return list(self._encoding.encode_ordinary(text))
        tokens: list[int] = []
        for piece in _pieces(text):
            tokens.extend(self._encoding.encode_ordinary(piece))
        return tokens

    def count(self, text: str) -> int:
        if not text:
            return 0
        return len(self._encode(text))

    def truncate(self, text: str, max_tokens: int) -> str:
        if max_tokens <= 0:
            return ""
        tokens = self._encode(text)
        if len(tokens) <= max_tokens:
            return text
        raw: bytes = self._encoding.decode_bytes(tokens[:max_tokens])
        prefix = raw.decode("utf-8", errors="ignore")
        # Decoding a cut can merge differently; shrink until the prefix really fits.
        while prefix and self.count(prefix) > max_tokens:
            prefix = prefix[:-1]
        return prefix


def _pieces(text: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    while start < len(text):
        end = min(start + _PIECE_CHARS, len(text))
        if end < len(text):
            cut = text.rfind("\n", start + _PIECE_CHARS // 2, end)
            if cut == -1:
                cut = text.rfind(" ", start + _PIECE_CHARS // 2, end)
            if cut != -1:
                end = cut
        pieces.append(text[start:end])
        start = end
    return pieces
