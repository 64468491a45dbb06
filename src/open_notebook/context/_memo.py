"""Bounded memory of pure per-text work: token counts, near-duplicate signatures, sentences.

A record's text does not change while it is stored (an edit is a new text), and a server builds
contexts from the same records again and again: counting and shingling a 30 kB source is most of
a build's work. Results are keyed by the text itself (exact: a hit compares the whole string, so
there is no collision risk) and evicted least-recently-used once the remembered texts exceed a
character budget. The memory belongs to a :class:`ContextMemo` that its owner passes in.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Final, Generic, TypeVar

from open_notebook.tokens import BpeTokenCounter, TokenCounter

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


class BuildCounter:
    """``inner`` with every count remembered for the length of one build.

    A build renders and counts the same passages and record blocks for each of its selections
    (the refills and the seeded ones): short texts too are counted once, unlike
    :class:`MemoCounter`, because this memory ends with the build that owns it.
    """

    def __init__(self, inner: TokenCounter) -> None:
        self.name = inner.name
        self._inner = inner
        self._counts: dict[str, int] = {}

    def count(self, text: str) -> int:
        found = self._counts.get(text)
        if found is None:
            found = self._counts[text] = self._inner.count(text)
        return found

    def truncate(self, text: str, max_tokens: int) -> str:
        return self._inner.truncate(text, max_tokens)


class ContextMemo:
    """What a series of builds remembers of per-text work, owned by whoever builds repeatedly.

    An app's services, the seed's default runtime and an evaluation each hold one and pass it to
    :func:`open_notebook.context.build_context`; a build without one computes everything. Every
    value is a pure function of its key (a text, or a label's fields), so results never change.
    """

    def __init__(self, max_chars: int = DEFAULT_MAX_CHARS) -> None:
        self.max_chars = max_chars
        self.signatures: TextMemo[Any] = TextMemo(max_chars)
        self.sentences: TextMemo[Any] = TextMemo(max_chars)
        self.inert_markdown: TextMemo[str] = TextMemo(max_chars)
        self.inert_xml: TextMemo[str] = TextMemo(max_chars)
        # Small values by key (label token counts); their owner bounds them, oldest first.
        self.labels: OrderedDict[Hashable, tuple[int, int]] = OrderedDict()
        self._counts: dict[str, TextMemo[int]] = {}

    def counter(self, counter: TokenCounter) -> TokenCounter:
        """``counter`` with its counts of long texts remembered here, when it is pure."""
        if isinstance(counter, MemoCounter) or type(counter) is not BpeTokenCounter:
            return counter
        memo = self._counts.get(counter.name)
        if memo is None:
            memo = self._counts[counter.name] = TextMemo(self.max_chars)
        return MemoCounter(counter, memo)
