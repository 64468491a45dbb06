"""What adds nothing to a question's context: a repeat of chosen text, or its record's label.

A unit repeats a chosen one when their normalized words are the same, or when the Jaccard
similarity of their word shingles reaches the near-duplicate threshold; a unit all of whose words
are in its record's label (a text that starts with its own title) adds nothing either. Each
unit's words, key and shingles are worked out once per build (:class:`Wording`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from open_notebook.context._question.value import Unit
from open_notebook.context._text import SHINGLE_WORDS, normalized_words


class Wording:
    """Each unit's normalized words, exact key and word shingles, worked out once per build
    (a build offers the same units to several selections)."""

    def __init__(self, units: Sequence[Unit]) -> None:
        self._units = units
        self._words: dict[int, list[str]] = {}
        self._keys: dict[int, str] = {}
        self._grams: dict[int, frozenset[tuple[str, ...]]] = {}
        self._titles: dict[str, frozenset[str]] = {}

    def words(self, index: int) -> list[str]:
        found = self._words.get(index)
        if found is None:
            found = self._words[index] = normalized_words(self._units[index].text)
        return found

    def key(self, index: int) -> str:
        found = self._keys.get(index)
        if found is None:
            found = self._keys[index] = " ".join(self.words(index))
        return found

    def in_label(self, index: int, title: str) -> bool:
        """Every word of the unit is in ``title``, the title its record's label shows."""
        shown = self._titles.get(title)
        if shown is None:
            shown = self._titles[title] = frozenset(normalized_words(title))
        found = set(self.words(index))
        return bool(found) and found <= shown

    def grams(self, index: int) -> frozenset[tuple[str, ...]]:
        """Word n-grams (:data:`SHINGLE_WORDS`), compared as they are: no hashing needed."""
        found = self._grams.get(index)
        if found is None:
            words = self.words(index)
            if len(words) < SHINGLE_WORDS:
                found = frozenset([tuple(words)]) if words else frozenset()
            else:
                found = frozenset(zip(*(words[at:] for at in range(SHINGLE_WORDS)), strict=False))
            self._grams[index] = found
        return found


@dataclass(slots=True)
class Seen:
    """Units chosen so far, to tell repeats."""

    threshold: float | None
    wording: Wording
    exact: dict[str, int] = field(default_factory=dict)
    near: list[tuple[frozenset[tuple[str, ...]], int]] = field(default_factory=list)

    def repeat_of(self, index: int) -> int | None:
        found = self.exact.get(self.wording.key(index))
        if found is not None or self.threshold is None or self.threshold > 1.0:
            return found
        mine = self.wording.grams(index)
        size = len(mine)
        for theirs, chosen in self.near:
            # Sets whose sizes differ more than the threshold allows cannot be that similar.
            if min(size, len(theirs)) < self.threshold * max(size, len(theirs)):
                continue
            common = len(mine & theirs)
            if common and common / (size + len(theirs) - common) >= self.threshold:
                return chosen
        return None

    def add(self, index: int) -> None:
        self.exact.setdefault(self.wording.key(index), index)
        if self.threshold is not None and self.threshold <= 1.0:
            self.near.append((self.wording.grams(index), index))
