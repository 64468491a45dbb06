"""How a collection of texts divides among languages (what eval reports for a dataset)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping


def language_shares(languages: Iterable[str] | Mapping[str, int]) -> dict[str, float]:
    """Each language's share (of texts, or of the counts given per language), largest first,
    rounded to 3 places (``""``: unknown)."""
    counts = Counter(languages) if not isinstance(languages, Mapping) else Counter(languages)
    total = sum(counts.values())
    if not total:
        return {}
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return {language: round(count / total, 3) for language, count in ordered if count}


def describe_shares(shares: Mapping[str, float]) -> str:
    """``en 98%, es 2%`` (``?`` for unknown); ``none`` for no texts."""
    if not shares:
        return "none"
    return ", ".join(f"{language or '?'} {share:.0%}" for language, share in shares.items())
