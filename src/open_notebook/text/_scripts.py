"""The writing system of a text, the first and cheapest clue to its language.

Many scripts are written by one language (or by one language that a stemmer and a stop list
serve): Greek, Hebrew, Thai, Armenian, Georgian, Korean Hangul, Japanese Kana. For those the
script settles the language and no detector runs. Latin, Cyrillic, Arabic and Devanagari are
shared by many languages: the script only narrows the question, and the detector answers it.

Han characters are Chinese unless Kana (Japanese) or Hangul (Korean) is among them. Letters only
count: digits, punctuation and spaces belong to every script.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Final


class Script(StrEnum):
    LATIN = "latin"
    CYRILLIC = "cyrillic"
    GREEK = "greek"
    ARMENIAN = "armenian"
    GEORGIAN = "georgian"
    HEBREW = "hebrew"
    ARABIC = "arabic"
    DEVANAGARI = "devanagari"
    BENGALI = "bengali"
    TAMIL = "tamil"
    THAI = "thai"
    HAN = "han"
    KANA = "kana"
    HANGUL = "hangul"


_RANGES: Final = {
    Script.LATIN: "A-Za-z\u00c0-\u024f\u1e00-\u1eff",
    Script.CYRILLIC: "\u0400-\u052f",
    Script.GREEK: "\u0370-\u03ff\u1f00-\u1fff",
    Script.ARMENIAN: "\u0530-\u058f",
    Script.GEORGIAN: "\u10a0-\u10ff",
    Script.HEBREW: "\u0590-\u05ff",
    Script.ARABIC: "\u0600-\u06ff\u0750-\u077f",
    Script.DEVANAGARI: "\u0900-\u097f",
    Script.BENGALI: "\u0980-\u09ff",
    Script.TAMIL: "\u0b80-\u0bff",
    Script.THAI: "\u0e00-\u0e7f",
    Script.HAN: "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff",
    Script.KANA: "\u3040-\u30ff",
    Script.HANGUL: "\uac00-\ud7af\u1100-\u11ff",
}
_PATTERNS: Final = {script: re.compile(f"[{chars}]") for script, chars in _RANGES.items()}

# The language a script alone settles.
SCRIPT_LANGUAGE: Final = {
    Script.GREEK: "el",
    Script.ARMENIAN: "hy",
    Script.GEORGIAN: "ka",
    Script.HEBREW: "he",
    Script.BENGALI: "bn",
    Script.TAMIL: "ta",
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
    """How many letters of each script ``text`` holds (scripts with none left out)."""
    if text.isascii():
        latin = sum(1 for char in text if char.isalpha())
        return {Script.LATIN: latin} if latin else {}
    counts = {script: len(_PATTERNS[script].findall(text)) for script in Script}
    return {script: count for script, count in counts.items() if count}


def main_script(text: str) -> Script | None:
    """The script of most of ``text``'s letters; Han with Kana among it reads as Kana and with
    Hangul as Hangul (Japanese and Korean write Han characters too). ``None``: no letters."""
    counts = script_letters(text)
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
