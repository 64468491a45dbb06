"""What the analysis knows of each language: its Snowball stemmer and its stop words.

Languages are ISO 639-1 codes (``"en"``, ``"es"``); ``""`` is a text whose language is unknown.
A language has a stemmer when Snowball has one for it (PyStemmer's ``algorithms()``) and stop
words when Snowball publishes a list for it (``_stopwords.py``). A language with neither is
still analyzed: its words are folded and kept whole.
"""

from __future__ import annotations

from typing import Final

from open_notebook.text._stopwords import SNOWBALL_STOP_TEXT

UNKNOWN: Final = ""

# ISO 639-1 code -> Snowball algorithm name.
STEMMERS: Final = {
    "ar": "arabic",
    "hy": "armenian",
    "eu": "basque",
    "ca": "catalan",
    "cs": "czech",
    "da": "danish",
    "nl": "dutch",
    "en": "english",
    "eo": "esperanto",
    "et": "estonian",
    "fi": "finnish",
    "fr": "french",
    "de": "german",
    "el": "greek",
    "hi": "hindi",
    "hu": "hungarian",
    "id": "indonesian",
    "ga": "irish",
    "it": "italian",
    "lt": "lithuanian",
    "ne": "nepali",
    "no": "norwegian",
    "nb": "norwegian",
    "nn": "norwegian",
    "fa": "persian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "st": "sesotho",
    "es": "spanish",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
}

_STOP_LISTS: Final = {
    "da": "danish",
    "nl": "dutch",
    "en": "english",
    "fi": "finnish",
    "fr": "french",
    "de": "german",
    "hu": "hungarian",
    "id": "indonesian",
    "ga": "irish",
    "it": "italian",
    "no": "norwegian",
    "nb": "norwegian",
    "nn": "norwegian",
    "pt": "portuguese",
    "ru": "russian",
    "es": "spanish",
    "sv": "swedish",
}
STOP_WORDS: Final = {
    code: frozenset(SNOWBALL_STOP_TEXT[name].split()) for code, name in _STOP_LISTS.items()
}
NO_STOP_WORDS: Final[frozenset[str]] = frozenset()


def normalized(code: str) -> str:
    """A detector's code as the analysis names languages: lowercase, no region or script
    (``zh-Hant`` -> ``zh``), the old codes mapped (``iw`` -> ``he``)."""
    base = code.lower().replace("_", "-").split("-")[0]
    return {"iw": "he", "in": "id", "ji": "yi", "un": UNKNOWN, "xx": UNKNOWN}.get(base, base)


def stop_words(language: str) -> frozenset[str]:
    return STOP_WORDS.get(language, NO_STOP_WORDS)
