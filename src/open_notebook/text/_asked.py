"""The word of a question that names what it asks for: "country" in "In what country is Normandy
located?", "nationalité" in "De quelle nationalité était le commandant… ?".

A question asks for something it does not name, and says what kind of thing that is; the passage
that answers names the thing itself ("Normandy, a region in France"), not its kind. Read as a
claim, the question misses that one word in every passage that answers it, so the share of its
terms a passage holds is lower for a question that says what it wants ("In what country…") than
for one that does not ("Where…"). The word is the one that follows an interrogative determiner
("what", "which", "quel", "qué", "welche"...), or, after a copula, the noun of "the X of": "What
is the name of…", "Quel est le nom de…", "¿Cuál es el nombre de…?". The determiners are each
language's grammar, written here for the languages the notices are written in.

"How many" is not one of them: what it counts is what the question is about ("How many
Victorians are non-religious?"), and the passage that answers names it beside its number; not
missed, it let a notebook without the article on Victoria cover the question.

Without a tagger a verb is taken too where the determiner stands alone ("What caused the fire?"
names "caused"): a question's verb is as often said otherwise by the passage that answers it
("the fire was due to…"), and the word is only ever not held against a passage, never dropped
where a passage holds it.
"""

from __future__ import annotations

from typing import Final

from open_notebook.text._analyze import words
from open_notebook.text._languages import stop_words

# Interrogative determiners, copulas and articles, and the genitive link of "the X of", by
# language.
_ASKERS: Final = {
    "en": ("what", "which"),
    "es": ("qué", "cuál", "cuáles"),
    "fr": ("quel", "quelle", "quels", "quelles"),
    "de": ("welche", "welcher", "welches", "welchen", "welchem"),
    "it": ("quale", "quali"),
    "pt": ("qual", "quais"),
    "nl": ("welke", "welk"),
}
_COPULAS: Final = {
    "en": "is was are were",
    "es": "es era fue son eran fueron",
    "fr": "est était sont étaient fut furent",
    "de": "ist war sind waren",
    "it": "è era sono erano fu",
    "pt": "é era foi são eram foram",
    "nl": "is was zijn waren",
}
_ARTICLES: Final = {
    "en": "the a an",
    "es": "el la los las un una",
    "fr": "le la l les un une",
    "de": "der die das den dem des ein eine",
    "it": "il lo la l i gli le un una",
    "pt": "o a os as um uma",
    "nl": "de het een",
}
_OF: Final = {
    "en": "of",
    "es": "de del",
    "fr": "de d du des",
    "de": "von des der",
    "it": "di del della dei degli delle",
    "pt": "de do da dos das",
    "nl": "van",
}
# How far into a question its determiner may stand ("De quelle…", "In what…", "En qué…").
_OPENING: Final = 4


def asked_word(question: str, language: str) -> str | None:
    """The word of ``question`` that names the kind of thing it asks for (see the module
    docstring), lowercased; ``None`` when it names none or ``language`` has no rule here."""
    askers = _ASKERS.get(language)
    if askers is None:
        return None
    found = words(question)
    at = next((at for at, word in enumerate(found[:_OPENING]) if word in askers), None)
    if at is None:
        return None
    rest = found[at + 1 :]
    if rest and rest[0] in _COPULAS[language].split():
        return _of_noun(rest[1:], language)
    if rest and rest[0] not in stop_words(language) and not rest[0].isdigit():
        return rest[0]
    return None


def _of_noun(rest: list[str], language: str) -> str | None:
    """The X of "(the) X of …" opening ``rest``, the words after a determiner's copula."""
    articles = _ARTICLES[language].split()
    while rest and rest[0] in articles:
        rest = rest[1:]
    if len(rest) >= 2 and rest[1] in _OF[language].split() and not rest[0].isdigit():
        return rest[0]
    return None
