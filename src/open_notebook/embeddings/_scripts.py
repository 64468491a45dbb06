"""Which writing systems a text is in, and which ones an embedding model reads.

An embedding model trained on English text turns Chinese or Arabic into noise: its vectors for
such text carry no meaning, so search must not trust them. Embedders declare the scripts they
read (``scripts``; ``None`` means any), and :func:`readable_share` measures how much of a text is
in those scripts. Letters only count: digits, punctuation and spaces are in every script.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from enum import StrEnum
from typing import Final


class Script(StrEnum):
    """Writing systems, at the grain where embedding models differ."""

    LATIN = "latin"
    GREEK = "greek"
    CYRILLIC = "cyrillic"
    ARMENIAN = "armenian"
    GEORGIAN = "georgian"
    HEBREW = "hebrew"
    ARABIC = "arabic"
    INDIC = "indic"
    THAI = "thai"
    HAN = "han"
    KANA = "kana"
    HANGUL = "hangul"
    OTHER = "other"


# Unicode blocks of each script (letters only are counted, so marks and digits inside a block do
# not matter).
_RANGES: Final = {
    Script.LATIN: "A-Za-z\u00c0-\u024f\u1e00-\u1eff\u2c60-\u2c7f\ua720-\ua7ff\uff21-\uff5a",
    Script.GREEK: "\u0370-\u03ff\u1f00-\u1fff",
    Script.CYRILLIC: "\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f",
    Script.ARMENIAN: "\u0530-\u058f",
    Script.GEORGIAN: "\u10a0-\u10ff\u2d00-\u2d2f",
    Script.HEBREW: "\u0590-\u05ff\ufb1d-\ufb4f",
    Script.ARABIC: "\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff",
    Script.INDIC: "\u0900-\u0dff",
    Script.THAI: "\u0e00-\u0e7f",
    Script.HAN: "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff",
    Script.KANA: "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f",
    Script.HANGUL: "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af",
}
_PATTERNS: Final = {script: re.compile(f"[{chars}]") for script, chars in _RANGES.items()}
_LETTER: Final = re.compile(r"[^\W\d_]")
# A query longer than this is judged by its start: the share of a script does not change.
SAMPLE_CHARS: Final = 2_000

# Every script but OTHER: what a model trained on ~100 languages (XLM-R's) reads.
MOST_SCRIPTS: Final = frozenset(Script) - {Script.OTHER}
LATIN_ONLY: Final = frozenset({Script.LATIN})


def script_letters(text: str) -> dict[Script, int]:
    """Letters of each script in ``text`` (its first :data:`SAMPLE_CHARS` characters)."""
    sample = text[:SAMPLE_CHARS]
    counts = {script: len(pattern.findall(sample)) for script, pattern in _PATTERNS.items()}
    letters = len(_LETTER.findall(sample))
    counts[Script.OTHER] = max(0, letters - sum(counts.values()))
    return {script: count for script, count in counts.items() if count}


def readable_share(
    counts: dict[Script, int] | Iterable[dict[Script, int]], scripts: frozenset[Script] | None
) -> float:
    """Share of the letters in ``scripts`` (1.0 for ``None``, or for a text without letters)."""
    if scripts is None:
        return 1.0
    totals: dict[Script, int] = {}
    for one in [counts] if isinstance(counts, dict) else counts:
        for script, count in one.items():
            totals[script] = totals.get(script, 0) + count
    letters = sum(totals.values())
    if letters == 0:
        return 1.0
    return sum(count for script, count in totals.items() if script in scripts) / letters


def readable_scripts(embedder: object) -> frozenset[Script] | None:
    """The scripts an embedder declares it reads (``None``: it declares none, so any)."""
    declared = getattr(embedder, "scripts", None)
    return frozenset(declared) if declared is not None else None
