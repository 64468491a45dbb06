"""Token counters behind one protocol.

Whoever owns the services (the app, a CLI run, the seed's runtime) builds one
:class:`BpeTokenCounter` from the settings and passes it down. It loads its encoding on its first
count, not when built: importing ``bpe_openai`` builds its tables (about 0.7 s of CPU here), which
a process that never counts a token (a CLI command that lists notebooks, a worker that opens the
store and exits) should not pay. A long-lived process calls :meth:`BpeTokenCounter.warm_up` at
start, so its first request does not pay either.
"""

from __future__ import annotations

from typing import Any, Final, Protocol, runtime_checkable

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
        self._loaded: Any = None

    def warm_up(self) -> None:
        """Load the encoding now (see the module docstring)."""
        self._encoding()

    def _encoding(self) -> Any:
        if self._loaded is None:
            import bpe_openai  # noqa: PLC0415 - its import builds tables (module docstring)

            self._loaded = bpe_openai.get_encoding(self.name)
        return self._loaded

    def _encode(self, text: str) -> list[int]:
        encoding = self._encoding()
        if len(text) < _PIECE_CHARS:
            return list(encoding.encode_ordinary(text))
        tokens: list[int] = []
        for piece in _pieces(text):
            tokens.extend(encoding.encode_ordinary(piece))
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
        raw: bytes = self._encoding().decode_bytes(tokens[:max_tokens])
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
