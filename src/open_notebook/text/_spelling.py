"""Near spellings: the terms a reader takes for one word though they differ by one letter.

A stemmer keeps apart what a reader takes for one word ("Buddhist" and "Buddhism", "Australia"
and "Australian"; "devienne" reads as ``devien``, "devient" as ``devient``), and people misspell
what they type ("depedent", "pacakges", "Britaniques"): as exact terms they share nothing. A
term is a near spelling of another when one edit turns one into the other (a letter added,
dropped or changed, or two neighbours swapped), both have at least :data:`NEAR_LENGTH` letters
and they share their first :data:`NEAR_PREFIX`. Shorter terms one edit apart are mostly other words
("vend" and "vent", "rein" and "sein"), and so are words that differ in their first letters
("season" and "reason", "affect" and "effect").

A question's terms are read this way wherever a question meets the text that may answer it: the
builder's choice of sentences, the coverage check and the answer check. Search keeps exact terms,
and an answer's sentences are read exactly: the model copies the passages' words, so a near
spelling there is another word (a changed name), not a slip of the keys.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

# The shortest term that may match by a near spelling (stems, not words: "relegu"), and the
# first letters it shares with it.
NEAR_LENGTH: Final = 5
NEAR_PREFIX: Final = 3


def one_edit_apart(one: str, two: str) -> bool:
    """Whether two different words differ by one letter added, dropped or changed, or by two
    neighbouring letters swapped."""
    if one == two or abs(len(one) - len(two)) > 1:
        return False
    if len(one) > len(two):
        one, two = two, one
    same = 0
    while same < len(one) and one[same] == two[same]:
        same += 1
    if len(one) < len(two):
        return one[same:] == two[same + 1 :]
    changed = one[same + 1 :] == two[same + 1 :]
    swapped = (
        one[same : same + 2] == two[same : same + 2][::-1] and one[same + 2 :] == two[same + 2 :]
    )
    return changed or swapped


def near_spellings(found: Iterable[str], wanted: Iterable[str]) -> dict[str, str]:
    """Each term of ``found`` that is not in ``wanted`` but a near spelling of one of its terms,
    mapped onto that term (the first in sorted order, when several are)."""
    asked = frozenset(wanted)
    by_prefix: dict[str, list[str]] = {}
    for term in sorted(asked):
        if len(term) >= NEAR_LENGTH:
            by_prefix.setdefault(term[:NEAR_PREFIX], []).append(term)
    near: dict[str, str] = {}
    for term in found:
        if len(term) < NEAR_LENGTH or term in asked:
            continue
        for one in by_prefix.get(term[:NEAR_PREFIX], ()):
            if one_edit_apart(term, one):
                near[term] = one
                break
    return near


def held_near(wanted: frozenset[str], held: Iterable[str]) -> frozenset[str]:
    """The terms of ``wanted`` that ``held`` holds, exactly or by a near spelling."""
    terms = frozenset(held)
    return (wanted & terms) | frozenset(near_spellings(terms - wanted, wanted).values())
