"""Terms one keystroke apart: a question's misspelt word still meets the passage's.

People type questions in a hurry ("moité", "officille", "snowbaorder", "Armherst"), and a
stemmer splits one word's forms apart ("devienne" reads as ``devien``, "devient" as ``devient``;
"relégué" as ``relegu``, "reléguée" as ``releg``): as exact terms they share nothing with the
passage that answers. Two terms are near spellings when one edit turns one into the other (a
letter inserted, left out or changed, or two neighbours swapped) and both are at least
:data:`NEAR_LENGTH` characters long. Shorter terms one edit apart are mostly other words ("vend"
and "vent", "rein" and "sein"), which is why search engines' fuzzy matching allows no edit in
short words either. Terms holding a digit never match this way: numbers must match exactly.

Only a question is read this way. An answer's sentence is written from the passages, whose words
the model copies; there a near spelling is another word (a changed name), not a typing slip.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

# The shortest term that may be matched by a near spelling (stems, not words: "relegu").
NEAR_LENGTH: Final = 5


def one_edit_apart(first: str, second: str) -> bool:
    """Whether one insertion, deletion, substitution or swap of neighbours turns ``first``
    into ``second`` (two equal terms are not)."""
    if first == second or abs(len(first) - len(second)) > 1:
        return False
    if len(first) > len(second):
        first, second = second, first
    start = 0
    while start < len(first) and first[start] == second[start]:
        start += 1
    if len(first) < len(second):
        return first[start:] == second[start + 1 :]
    if first[start + 1 :] == second[start + 1 :]:
        return True
    return (
        start + 1 < len(first)
        and first[start] == second[start + 1]
        and first[start + 1] == second[start]
        and first[start + 2 :] == second[start + 2 :]
    )


def _fuzzable(term: str) -> bool:
    return len(term) >= NEAR_LENGTH and not any(char.isdigit() for char in term)


def held_near(wanted: Iterable[str], held: frozenset[str]) -> frozenset[str]:
    """The terms of ``wanted`` that ``held`` holds, exactly or by a near spelling."""
    found: set[str] = set()
    near: list[str] | None = None
    for term in wanted:
        if term in held:
            found.add(term)
            continue
        if not _fuzzable(term):
            continue
        if near is None:
            near = [one for one in held if _fuzzable(one)]
        if any(one_edit_apart(term, one) for one in near):
            found.add(term)
    return frozenset(found)
