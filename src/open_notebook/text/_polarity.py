"""Words that answer a yes/no question or turn a statement around (yes, no, not, never...).

Stop-word lists hold them (Snowball's English list has "no", "not" and "nor"), so an analysis
that drops stop words cannot tell "BSkyB does not control the channels." from "BSkyB controls the
channels?": the terms are the question's in both. A sentence that adds one of these words to
the question's says something the question did not. One list for every language: "no" is one in
English, Spanish and Italian alike, and a word of one language that spells another's polarity
word (French "si", "personne") at worst keeps an answer from being flagged.
"""

from __future__ import annotations

from typing import Final

from open_notebook.text._analyze import words

# By language: English (the words ``words`` leaves of "doesn't" are "doesn" and "t"), Spanish,
# French, German, Italian, Portuguese, Dutch, Russian.
_LISTED: Final = """
yes no not never none nothing nobody neither nor cannot doesn don didn isn aren wasn weren
sí si nunca jamás nada nadie ninguno ninguna tampoco
oui non ne pas jamais rien aucun aucune personne
ja nein nicht nie kein keine keinen keiner nichts niemand
sì mai nessuno nessuna niente nulla
sim não nem nenhum nenhuma ninguém
nee niet nooit geen niets
да нет не ни никогда ничего никто
"""
POLARITY_WORDS: Final = frozenset(_LISTED.split())


def polarity_words(text: str) -> frozenset[str]:
    """The polarity words of ``text`` (lowercased)."""
    return frozenset(word for word in words(text) if word in POLARITY_WORDS)
