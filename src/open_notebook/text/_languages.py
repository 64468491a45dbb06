"""What the analysis knows of each language: its Snowball stemmer and its stop words.

Languages are ISO 639-1 codes (``"en"``, ``"es"``); ``""`` is a text whose language is unknown.
A language has a stemmer when Snowball has one for it (PyStemmer's ``algorithms()``) and stop
words when Snowball publishes a list for it (``_stopwords.py``), with the words that ask a
question added. A language with neither is
still analyzed: its words are folded and kept whole.
"""

from __future__ import annotations

from typing import Final

from open_notebook.text._scripts import folded_accents
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

# The words that ask, by language. Snowball's lists were made for documents: English's holds
# "when", "where", "why" and "how", but French's has no "quand", "comment", "pourquoi" or
# "combien", and Spanish's holds "cuando" and "donde" but not the accented "cuándo" and "dónde"
# of a question. Left in, a question word is a term no passage holds: search matches it where
# it happens to occur, and the share of a question's terms a passage holds, which decides whether
# a context covers the question, is lower for every French or Spanish question than for its
# English twin. They are stop words of every text, so a passage and a question read the same.
_QUESTION_WORDS: Final = {
    "en": "what who whom whose which when where why how",
    "es": "qué quién quiénes cuál cuáles cuándo dónde adónde cómo cuánto cuánta cuántos cuántas",
    "fr": "quand comment pourquoi combien où quoi lequel laquelle lesquels lesquelles",
    "pt": "quê quem qual quais quando onde como quanto quanta quantos quantas porquê",
    "it": "chi cosa quale quali quando dove come quanto quanta quanti quante perché",
    "de": "wann warum wieso weshalb wie wo woher wohin wer wen wem wessen was welche welcher "
    "welches welchen welchem",
    "nl": "wanneer waarom hoe waar wie wat welke welk",
    "ru": "когда почему зачем как где куда откуда кто что какой какая какое какие сколько",
}
# The words that give a reason, where Snowball's list lacks them: English's holds "because",
# German's "weil", Spanish's "porque", but French's has no "car" or "parce", Portuguese's no
# "porque". Left in, "Le pain est dense car la température influence la fermentation." holds a
# term its question ("Pourquoi… dense… comment la température influence-t-elle la
# fermentation ?") does not, so it is not read as saying the question back, where its English
# twin is. Analysis only: "car" is an English word, so they do not vote in language detection.
_REASON_WORDS: Final = {
    "fr": "car parce puisque",
    "pt": "porque pois",
    "it": "poiché",
}
# The words that ask and Snowball's, by language.
_ASKING: Final = {
    code: words | frozenset(_QUESTION_WORDS.get(code, "").split())
    for code, words in STOP_WORDS.items()
}
# A language's commonest verb form that Snowball's list leaves out because a content word is
# spelled the same: French's has no "est" (also "east"). It is the grammar of most French
# questions ("Quelle est la position du FC Internazionale Milano ?", whose only other votes,
# "quelle" and "la", Italian shares, read as Italian). Detection only: "à l'est du Rhin" keeps
# its "est" as a term.
_VERB_VOTES: Final = {"fr": "est"}
# The words the detector counts as votes for a language: the words that ask, Snowball's, and
# the verb forms above.
VOTING_WORDS: Final = {
    code: words | frozenset(_VERB_VOTES.get(code, "").split()) for code, words in _ASKING.items()
}


def _typed_without_accents(words: frozenset[str]) -> frozenset[str]:
    """``words`` and each of them without its accents. People type questions without accents
    ("Quel etait l'ancien nom ?", "A quelle fréquence…", "tambien"); left in, such a word is a
    term no passage holds, since the passage's accented form of it is dropped, and it lowers the
    share of the question a passage holds. Analysis only: a folded French "à" is "a", which
    Spanish, Portuguese and Italian list too, so the detector's votes stay as Snowball has them."""
    return words | frozenset(folded_accents(word) for word in words)


_ANALYZED: Final = {
    code: _typed_without_accents(words | frozenset(_REASON_WORDS.get(code, "").split()))
    for code, words in _ASKING.items()
}


def normalized(code: str) -> str:
    """A detector's code as the analysis names languages: lowercase, no region or script
    (``zh-Hant`` -> ``zh``), the old codes mapped (``iw`` -> ``he``)."""
    base = code.lower().replace("_", "-").split("-")[0]
    return {"iw": "he", "in": "id", "ji": "yi", "un": UNKNOWN, "xx": UNKNOWN}.get(base, base)


def asker_language(preference: str | None) -> str:
    """The language a reader reads, from what their client says of it: an HTTP
    ``Accept-Language`` header (``"fr-CH, fr;q=0.9, en;q=0.8"``: the tag of highest weight) or
    a POSIX locale (``"fr_FR.UTF-8"``); ``""`` when it names none (``"*"``, ``"C"``,
    ``"POSIX"``, ``"en;q=0"``, a malformed weight)."""
    ranked: list[tuple[float, int, str]] = []
    for at, item in enumerate((preference or "").split(",")):
        tag, _, params = item.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                continue
        # A locale's encoding and modifier ("fr_FR.UTF-8@euro") say nothing of its language.
        code = normalized(tag.split(".")[0].split("@")[0].strip())
        if weight > 0 and len(code) == 2 and code.isascii() and code.isalpha():
            ranked.append((-weight, at, code))
    return min(ranked)[2] if ranked else UNKNOWN


def stop_words(language: str) -> frozenset[str]:
    """The words the analysis leaves out in ``language``: Snowball's list, the words that ask
    (the detector's votes too) and the words that give a reason."""
    return _ANALYZED.get(language, NO_STOP_WORDS)
