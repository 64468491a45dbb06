"""The parts of a question that asks more than one thing.

"Why does sourdough come out dense, and how does temperature affect fermentation?" asks two
things, and a passage that answers one of them shares only half of the question's words: ranked
against the whole question, the troubleshooting passage on dense crumb came eighth of the demo
notebook's chunks, below a passage on rye that shares "bread" and "ferments". Searched part by
part, each part's own passage comes first for it.

A question is cut where a new question begins: after a question mark, or at a comma or semicolon
followed by an interrogative word (after a coordinating conjunction or not), when the first part
opens with an interrogative word too. The words are each
language's own grammar, written here for the languages the notices are written in; a question in
another language is one part. A part must hold two words or more besides its interrogative.
"""

from __future__ import annotations

import re
from typing import Final

from open_notebook.text._analyze import words

# Words that open a question, and the conjunctions that join two questions into one sentence.
_INTERROGATIVES: Final = {
    "en": "how|why|what|when|where|who|whom|whose|which",
    "es": "cómo|como|por qué|qué|que|cuándo|cuando|dónde|donde|quién|quien|cuál|cual|cuánto",
    "fr": "comment|pourquoi|que|qu'|quel|quelle|quels|quelles|quand|où|qui|combien|est-ce",
    "de": "wie|warum|was|wann|wo|wer|welche|welcher|welches|wieso|weshalb",
    "it": "come|perché|che cosa|cosa|quando|dove|chi|quale|quali|quanto",
    "pt": "como|por que|porque|o que|que|quando|onde|quem|qual|quais|quanto",
    "nl": "hoe|waarom|wat|wanneer|waar|wie|welke",
}
_CONJUNCTIONS: Final = {
    "en": "and|or|but",
    "es": "y|e|o|pero",
    "fr": "et|ou|mais",
    "de": "und|oder|aber",
    "it": "e|ed|o|ma",
    "pt": "e|ou|mas",
    "nl": "en|of|maar",
}
_OPENS: Final = {
    language: re.compile(rf"^[¿¡\s]*(?:{asks})\b", re.IGNORECASE)
    for language, asks in _INTERROGATIVES.items()
}
_CUTS: Final = {
    language: re.compile(
        rf"(?:[,;]\s*(?:(?:{_CONJUNCTIONS[language]})\s+)?(?=(?:{asks})\b)|(?<=\?)\s+)",
        re.IGNORECASE,
    )
    for language, asks in _INTERROGATIVES.items()
}
# A part shorter than this (besides its interrogative) is a fragment of one question, not a
# question of its own ("..., and why?").
MIN_PART_WORDS: Final = 3


def question_parts(question: str, language: str) -> tuple[str, ...]:
    """The questions ``question`` asks, in order; itself alone when it asks one (or when its
    ``language`` has no rule here)."""
    cut = _CUTS.get(language)
    if cut is None:
        return (question,)
    parts = [part.strip(" ,;") for part in cut.split(question)]
    parts = [part for part in parts if part]
    opens = _OPENS[language]
    if (
        len(parts) < 2
        # "In the book, what is ...": a question opens every part, the first one too.
        or not all(opens.match(part) or part.endswith("?") for part in parts[:1])
        or any(len(words(part)) < MIN_PART_WORDS for part in parts)
    ):
        return (question,)
    return tuple(parts)
