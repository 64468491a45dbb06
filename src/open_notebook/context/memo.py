"""Bounded memory of pure per-text work: token counts and near-duplicate signatures.

A record's text does not change while it is stored (an edit is a new text), and a server builds
contexts from the same records again and again: counting and shingling a 30 kB source on every
request was most of a query-context build. Results are keyed by the text itself (exact: a hit
compares the whole string, so there is no collision risk) and evicted least-recently-used once the
remembered texts exceed a character budget.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Final, Generic, TypeVar

from open_notebook.tokens import TokenCounter
from open_notebook.tokens.counter import BpeTokenCounter

_V = TypeVar("_V")
# Short texts are cheaper to count again than to remember.
MIN_MEMO_CHARS: Final = 256
DEFAULT_MAX_CHARS: Final = 16_000_000


class TextMemo(Generic[_V]):
    """An LRU of ``text -> value`` bounded by the total length of the remembered texts."""

    def __init__(self, max_chars: int = DEFAULT_MAX_CHARS) -> None:
        self.max_chars = max_chars
        self._chars = 0
        self._values: OrderedDict[str, _V] = OrderedDict()

    def clear(self) -> None:
        self._values.clear()
        self._chars = 0

    def __len__(self) -> int:
        return len(self._values)

    def get(self, text: str, compute: Callable[[str], _V]) -> _V:
        """The remembered value of ``text``, computed (and remembered) on a miss."""
        if len(text) < MIN_MEMO_CHARS or len(text) > self.max_chars:
            return compute(text)
        try:
            self._values.move_to_end(text)
            return self._values[text]
        except KeyError:
            pass
        value = compute(text)
        self._values[text] = value
        self._chars += len(text)
        while self._chars > self.max_chars:
            evicted, _ = self._values.popitem(last=False)
            self._chars -= len(evicted)
        return value


class MemoCounter:
    """A token counter that remembers the counts of long texts (``truncate`` is passed through).

    Only the built-in BPE counters are memoized: they are pure functions of the text and their
    encoding name; any other counter is used as given.
    """

    def __init__(self, inner: BpeTokenCounter, memo: TextMemo[int]) -> None:
        self.name = inner.name
        self._inner = inner
        self._memo = memo

    def count(self, text: str) -> int:
        return self._memo.get(text, self._inner.count)

    def truncate(self, text: str, max_tokens: int) -> str:
        return self._inner.truncate(text, max_tokens)


# The process's memos, made on first use (importing a module registers nothing), by name.
_TEXT_MEMOS: dict[str, TextMemo[Any]] = {}
_KEYED_MEMOS: dict[str, OrderedDict[Hashable, Any]] = {}


def text_memo(name: str) -> TextMemo[Any]:
    """The process's text memo called ``name`` (made on first use)."""
    memo = _TEXT_MEMOS.get(name)
    if memo is None:
        memo = _TEXT_MEMOS.setdefault(name, TextMemo())
    return memo


def keyed_memo(name: str) -> OrderedDict[Hashable, Any]:
    """The process's memo of small values by key called ``name`` (made on first use); the caller
    bounds it (oldest first)."""
    memo = _KEYED_MEMOS.get(name)
    if memo is None:
        memo = _KEYED_MEMOS.setdefault(name, OrderedDict())
    return memo


def memo_counter(counter: TokenCounter) -> TokenCounter:
    """``counter`` with its counts of long texts remembered across builds, when it is pure."""
    if isinstance(counter, MemoCounter) or type(counter) is not BpeTokenCounter:
        return counter
    return MemoCounter(counter, text_memo(f"token_count:{counter.name}"))


def clear_memos() -> None:
    """Forget every remembered result (for benchmarks of a cold process; results do not change)."""
    for memo in _TEXT_MEMOS.values():
        memo.clear()
    for keyed in _KEYED_MEMOS.values():
        keyed.clear()
