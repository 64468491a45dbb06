"""Numbers written as words: the small ones, which a text spells out and an answer writes in
digits ("cinco millones", "5 millones").

Support (:mod:`open_notebook.llm._support`) requires every number of an answer's sentence to be
held by its passage. Spelled out, the passage's number was not read as one, so a sentence that
says "5" of a passage saying "five" was unsupported. The words are read only on the passage's
side (what a text holds), never as numbers a sentence must find: "one of the largest" or "un
roi" is not the number 1 to look for. On that side a word that is also something else ("once",
"elf", "sept") only adds a value a sentence might need.

Units up to twenty and the tens, in the languages the analysis has stop words for beside
English; compounds beyond them ("twenty-three", "veintitrés") are rare in prose and left out.
"""

from __future__ import annotations

import re
from typing import Final

_WORDS: Final = {
    "en": "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty",
    "es": "cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce "
    "quince dieciséis diecisiete dieciocho diecinueve veinte",
    "fr": "zéro un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze "
    "quinze seize dix-sept dix-huit dix-neuf vingt",
    "pt": "zero um dois três quatro cinco seis sete oito nove dez onze doze treze catorze quinze "
    "dezesseis dezessete dezoito dezenove vinte",
    "it": "zero uno due tre quattro cinque sei sette otto nove dieci undici dodici tredici "
    "quattordici quindici sedici diciassette diciotto diciannove venti",
    "de": "null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf dreizehn vierzehn "
    "fünfzehn sechzehn siebzehn achtzehn neunzehn zwanzig",
    "nl": "nul een twee drie vier vijf zes zeven acht negen tien elf twaalf dertien veertien "
    "vijftien zestien zeventien achttien negentien twintig",
}
_TENS: Final = {
    "en": "thirty forty fifty sixty seventy eighty ninety",
    "es": "treinta cuarenta cincuenta sesenta setenta ochenta noventa",
    "fr": "trente quarante cinquante soixante soixante-dix quatre-vingt quatre-vingt-dix",
    "pt": "trinta quarenta cinquenta sessenta setenta oitenta noventa",
    "it": "trenta quaranta cinquanta sessanta settanta ottanta novanta",
    "de": "dreißig vierzig fünfzig sechzig siebzig achtzig neunzig",
    "nl": "dertig veertig vijftig zestig zeventig tachtig negentig",
}
# The feminine and accented forms beside the ones above.
_ALSO: Final = {
    "una": 1,
    "une": 1,
    "uma": 1,
    "ein": 1,
    "eine": 1,
    "één": 1,
    "duas": 2,
    "quatorze": 14,
    "quatre-vingts": 80,
}
SPELLED: Final[dict[str, int]] = {
    **{word: value for words in _WORDS.values() for value, word in enumerate(words.split())},
    **{
        word: 30 + 10 * index
        for words in _TENS.values()
        for index, word in enumerate(words.split())
    },
    **_ALSO,
}
_WORD: Final = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def spelled_numbers(text: str) -> frozenset[str]:
    """The values of the numbers ``text`` spells out, as digits (``"cinco"`` -> ``"5"``)."""
    return frozenset(
        str(SPELLED[word])
        for word in (match.group().lower() for match in _WORD.finditer(text))
        if word in SPELLED
    )
