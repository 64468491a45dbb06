"""The writing system of a text, the first and cheapest clue to its language.

Many scripts are written by one language (or by one language that a stemmer and a stop list
serve): Greek, Hebrew, Thai, Armenian, Georgian, Korean Hangul, Japanese Kana. For those the
script settles the language and no detector runs. Latin, Cyrillic, Arabic and Devanagari are
shared by many languages: the script only narrows the question, and the detector answers it.

Han characters are Chinese unless Kana (Japanese) or Hangul (Korean) is among them. Letters only
count: digits, punctuation and spaces belong to every script.

The same counts tell which texts an embedding model can read (:func:`readable_share`): a model
trained on English text turns Chinese or Arabic into noise, so embedders declare the scripts they
read and search does not trust their vectors for the rest.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from enum import StrEnum
from typing import Final


class Script(StrEnum):
    """Writing systems, at the grain where languages and embedding models differ."""

    LATIN = "latin"
    CYRILLIC = "cyrillic"
    GREEK = "greek"
    ARMENIAN = "armenian"
    GEORGIAN = "georgian"
    HEBREW = "hebrew"
    ARABIC = "arabic"
    DEVANAGARI = "devanagari"
    BENGALI = "bengali"
    GURMUKHI = "gurmukhi"
    GUJARATI = "gujarati"
    ORIYA = "oriya"
    TAMIL = "tamil"
    TELUGU = "telugu"
    KANNADA = "kannada"
    MALAYALAM = "malayalam"
    THAI = "thai"
    HAN = "han"
    KANA = "kana"
    HANGUL = "hangul"
    # Letters of any other writing system.
    OTHER = "other"


# Unicode blocks of each script (letters only are counted, so marks and digits inside a block do
# not matter).
_RANGES: Final = {
    Script.LATIN: "A-Za-z\u00c0-\u024f\u1e00-\u1eff\u2c60-\u2c7f\ua720-\ua7ff\uff21-\uff5a",
    Script.CYRILLIC: "\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f",
    Script.GREEK: "\u0370-\u03ff\u1f00-\u1fff",
    Script.ARMENIAN: "\u0530-\u058f",
    Script.GEORGIAN: "\u10a0-\u10ff\u2d00-\u2d2f",
    Script.HEBREW: "\u0590-\u05ff\ufb1d-\ufb4f",
    Script.ARABIC: "\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff",
    Script.DEVANAGARI: "\u0900-\u097f",
    Script.BENGALI: "\u0980-\u09ff",
    Script.GURMUKHI: "\u0a00-\u0a7f",
    Script.GUJARATI: "\u0a80-\u0aff",
    Script.ORIYA: "\u0b00-\u0b7f",
    Script.TAMIL: "\u0b80-\u0bff",
    Script.TELUGU: "\u0c00-\u0c7f",
    Script.KANNADA: "\u0c80-\u0cff",
    Script.MALAYALAM: "\u0d00-\u0d7f",
    Script.THAI: "\u0e00-\u0e7f",
    Script.HAN: "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff",
    Script.KANA: "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f",
    Script.HANGUL: "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f",
}
# The scripts of India's languages, each in its own Unicode block.
INDIC: Final = frozenset(
    {
        Script.DEVANAGARI,
        Script.BENGALI,
        Script.GURMUKHI,
        Script.GUJARATI,
        Script.ORIYA,
        Script.TAMIL,
        Script.TELUGU,
        Script.KANNADA,
        Script.MALAYALAM,
    }
)
# Every named script: what a model trained on ~100 languages (XLM-R's) reads.
MOST_SCRIPTS: Final = frozenset(Script) - {Script.OTHER}
LATIN_ONLY: Final = frozenset({Script.LATIN})
_PATTERNS: Final = {script: re.compile(f"[{chars}]") for script, chars in _RANGES.items()}
# Each block of each script as (first character, last character, script).
_BLOCKS: Final = tuple(
    (first, last, script)
    for script, chars in _RANGES.items()
    for first, last in re.findall(r"(.)-(.)", chars)
)
_OTHER_LETTER: Final = re.compile(r"[^\W\d_A-Za-z]")
_ASCII_NON_LETTERS: Final = bytes(code for code in range(128) if not chr(code).isalpha())
# Where accents are: the Latin, Greek and Cyrillic letters beyond ASCII, the combining marks
# written after a letter, and the Latin ligatures ("ﬁ"). Other scripts are kept as written.
_ACCENTED: Final = re.compile(r"[\u00a0-\u04ff\u1e00-\u1fff\ufb00-\ufb06]")

# The language a script alone settles.
SCRIPT_LANGUAGE: Final = {
    Script.GREEK: "el",
    Script.ARMENIAN: "hy",
    Script.GEORGIAN: "ka",
    Script.HEBREW: "he",
    Script.BENGALI: "bn",
    Script.GURMUKHI: "pa",
    Script.GUJARATI: "gu",
    Script.ORIYA: "or",
    Script.TAMIL: "ta",
    Script.TELUGU: "te",
    Script.KANNADA: "kn",
    Script.MALAYALAM: "ml",
    Script.THAI: "th",
    Script.HAN: "zh",
    Script.KANA: "ja",
    Script.HANGUL: "ko",
}
# The most widely written language of a shared script: the answer when the detector has none.
SCRIPT_DEFAULT: Final = {Script.CYRILLIC: "ru", Script.ARABIC: "ar", Script.DEVANAGARI: "hi"}

# Characters of scripts written without spaces between words: their words are n-grams.
UNSPACED: Final = re.compile(
    "[" + _RANGES[Script.HAN] + _RANGES[Script.KANA] + _RANGES[Script.HANGUL] + "\u0e00-\u0eff"
    "\u1000-\u109f\u1780-\u17ff]"
)


def script_letters(text: str) -> dict[Script, int]:
    """How many letters of each script ``text`` holds (scripts with none left out); letters of
    no named script count as :attr:`Script.OTHER`."""
    # The ASCII letters are what is left of the ASCII characters without the rest.
    latin = len(text.encode("ascii", "ignore").translate(None, _ASCII_NON_LETTERS))
    if text.isascii():
        return {Script.LATIN: latin} if latin else {}
    counts = {Script.LATIN: latin}
    letters = "".join(_OTHER_LETTER.findall(text))
    if letters:
        # Only the blocks between the smallest and the largest of these letters can hold them,
        # and one block holding both holds them all: a text is mostly one script, and a search
        # per script over the whole text cost ~0.1 ms per chunk at ingest.
        low, high = min(letters), max(letters)
        whole = next(
            (script for first, last, script in _BLOCKS if first <= low <= high <= last), None
        )
        named = 0
        if whole is not None:
            counts[whole] = counts.get(whole, 0) + len(letters)
            named = len(letters)
        else:
            near = {script for first, last, script in _BLOCKS if first <= high and last >= low}
            for script in near:
                found = len(_PATTERNS[script].findall(letters))
                counts[script] = counts.get(script, 0) + found
                named += found
        counts[Script.OTHER] = len(letters) - named
    return {script: count for script, count in counts.items() if count}


def main_script(text: str) -> Script | None:
    """The script of most of ``text``'s letters; Han with Kana among it reads as Kana and with
    Hangul as Hangul (Japanese and Korean write Han characters too). ``None``: no letters."""
    counts = script_letters(text)
    # A script with no name here tells nothing about the language.
    counts.pop(Script.OTHER, None)
    if not counts:
        return None
    if Script.HAN in counts:
        for partner in (Script.KANA, Script.HANGUL):
            if counts.get(partner, 0) * 10 >= counts[Script.HAN]:
                counts[partner] += counts.pop(Script.HAN)
                break
    return max(counts, key=counts.__getitem__)


def has_unspaced(word: str) -> bool:
    """Whether ``word`` holds a character of a script written without spaces."""
    return not word.isascii() and UNSPACED.search(word) is not None


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


def folded_accents(word: str) -> str:
    """``word`` without its accents (é -> e); the marks of the Indic scripts (virama, nukta) are
    part of the spelling, not accents, and stay."""
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(
        char for char in decomposed if not unicodedata.combining(char) or _is_indic_mark(char)
    )


def folded_with_offsets(text: str) -> tuple[str, list[int]]:
    """``text`` with the accents of its Latin, Greek and Cyrillic letters folded, as
    :func:`folded_accents` folds them ("é" -> "e", "ﬁ" -> "fi"), other scripts as written, and
    for each character of the result the index in ``text`` of the character it comes from: what
    is found in the folded text is marked in the text as written."""
    if text.isascii():
        return text, list(range(len(text)))
    pieces: list[str] = []
    offsets: list[int] = []
    done = 0
    # Only the characters where accents are are folded, one by one; the runs between them are
    # kept.
    for found in _ACCENTED.finditer(text):
        at = found.start()
        pieces.append(text[done:at])
        offsets.extend(range(done, at))
        folded = folded_accents(found.group())
        pieces.append(folded)
        offsets.extend([at] * len(folded))
        done = at + 1
    pieces.append(text[done:])
    offsets.extend(range(done, len(text)))
    return "".join(pieces), offsets


def _is_indic_mark(char: str) -> bool:
    return "\u0900" <= char <= "\u0dff"
