"""Turning text into terms, by language: the one analysis that every text match uses.

BM25 (chunks and queries), the context builder's sentence scores, the attribution of answer
sentences and the coverage check all call this module, so a word becomes the same term wherever
it is matched. Words (``\\w+`` runs, lowercased) become terms this way, for a text in language
``L`` (an ISO 639-1 code, ``""`` unknown). A word is a run of Unicode word characters *with their
combining marks* (the ``regex`` module's ``\\w``): the vowel signs and viramas of Devanagari,
Tamil or Telugu are marks, not letters, and Python's ``re`` would cut हिन्दी into ह, न and द.

* a word with a character of a script written without spaces (Han, Kana, Hangul, Thai, Lao,
  Khmer, Myanmar) becomes its character 1- and 2-grams, so 東京 matches inside 東京は日本の首都
  です (a whole run is one ``\\w+`` word); a query word of two or more characters uses only its
  2-grams, so 首都 does not match every text with 都 in it;
* a stop word of ``L`` (Snowball's list for it, where Snowball has one) is dropped: stop words
  carry no meaning and their posting lists are the longest;
* any other word is stemmed with ``L``'s Snowball stemmer (flows, flowing -> flow; corriendo,
  corrieron -> corr) and then loses its accents (é -> e, so a query typed without accents still
  matches). A language without a Snowball stemmer (and the unknown language) keeps its words
  whole, accents folded: safe, if less forgiving.

The analysis of a distinct word is cached per instance (:class:`WordTerms`), so a corpus costs
one regex pass per text plus one dictionary lookup per word.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Final

import regex
import Stemmer

from open_notebook.text._languages import STEMMERS, stop_words
from open_notebook.text._scripts import folded_accents, has_unspaced

DEFAULT_LANGUAGE: Final = "en"
# The shortest stem an ending is cut from (see ``_Stems``): a French verb's plural, the "i" of
# a Spanish word typed without its accent.
SHORTEST_CUT_STEM: Final = 4
# Spanish writes its stressed vowels with an acute accent; a word holding none was typed
# without them or has none to write.
_SPANISH_ACUTE: Final = frozenset("áéíóú")
WORD: Final = regex.compile(r"\w+")
# Case, punctuation and whitespace do not make two texts different.
_NON_WORD: Final = regex.compile(r"[\W_]+")
# ASCII text: every byte that ``\w`` does not match becomes a space, then split (measured ~1.7x
# faster than the regex on 50k Cranfield abstracts; the same words).
_WORD_BYTES: Final = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_ASCII_WORDS: Final = bytes(
    byte if byte in _WORD_BYTES or byte >= 128 else ord(" ") for byte in range(256)
)


def normalized_words(text: str) -> list[str]:
    """The casefolded words of a text, split at anything but letters and digits: what makes
    two texts the same text (dedup, fingerprints), whatever their case and punctuation."""
    spaced: str = _NON_WORD.sub(" ", text.casefold())
    return spaced.split()


def words(text: str) -> list[str]:
    r"""The lowercased ``\w+`` words of a text, in order."""
    lowered = text.lower()
    if lowered.isascii():
        return lowered.encode("ascii").translate(_ASCII_WORDS).decode("ascii").split()
    found: list[str] = WORD.findall(lowered)
    return found


class WordTerms:
    """Terms of a word in one language, memoized (one instance per index build or query)."""

    __slots__ = ("_cache", "_for_query", "_stemmer", "_stops", "language")

    def __init__(self, language: str = DEFAULT_LANGUAGE, *, for_query: bool = False) -> None:
        self.language = language
        self._for_query = for_query
        self._stemmer = _stemmer_of(language)
        self._stops = stop_words(language)
        self._cache: dict[str, tuple[str, ...]] = {}

    def __call__(self, word: str) -> tuple[str, ...]:
        found = self._cache.get(word)
        if found is None:
            found = self.many((word,))[word]
        return found

    def many(self, found: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """The terms of each of many words, the same as one call each (the stemmer is called
        once for all the words that need it, ~4x less work than one call per new word)."""
        result: dict[str, tuple[str, ...]] = {}
        plain: list[str] = []
        cache = self._cache
        for word in found:
            known = cache.get(word)
            if known is not None:
                result[word] = known
            elif word in self._stops:
                result[word] = cache[word] = ()
            elif has_unspaced(word):
                result[word] = cache[word] = self._grams(word)
            else:
                plain.append(word)
        stems = self._stemmer.stem_words(plain) if self._stemmer is not None and plain else plain
        for word, stem in zip(plain, stems, strict=True):
            folded = folded_accents(str(stem))
            terms = (folded,) if folded else ()
            result[word] = cache[word] = terms
        return result

    def _grams(self, word: str) -> tuple[str, ...]:
        pairs = [word[i : i + 2] for i in range(len(word) - 1)]
        singles = [] if self._for_query and pairs else list(word)
        return tuple(dict.fromkeys([*singles, *pairs]))


def marking_stems(text: str, language: str = DEFAULT_LANGUAGE) -> list[str]:
    """The distinct stems of ``text``'s words in ``language``, accents kept, stop words left out
    (words of unspaced scripts whole): prefixes that mark a word's forms where it is shown
    ("flows" marks "flow" and "flowing"; "corriendo" marks "corrieron"), not terms to match."""
    stemmer = _stemmer_of(language)
    stops = stop_words(language)
    found = [word for word in dict.fromkeys(words(text)) if word not in stops]
    spaced = [word for word in found if not has_unspaced(word)]
    stems = stemmer.stem_words(spaced) if stemmer is not None else spaced
    kept = {word: _prefix(word, str(stem)) for word, stem in zip(spaced, stems, strict=True)}
    return list(dict.fromkeys(kept.get(word, word) for word in found))


def _prefix(word: str, stem: str) -> str:
    """``stem`` where it begins ``word``; else their common start when that is most of the stem
    (a stemmer that drops accents turns "río" into "rio"), else the word itself."""
    if word.startswith(stem):
        return stem
    common = len(os.path.commonprefix([word, stem]))
    return word[:common] if common * 2 > len(stem) else word


def query_terms(text: str, languages: Iterable[str] = (DEFAULT_LANGUAGE,)) -> list[str]:
    """Distinct terms of a query read in each of ``languages``, in order of first appearance
    (a word's terms in the first language before its terms in the next).

    A word that is a stop word of any of those languages is dropped from every reading: the
    question is written in one of them, and "the" read as Chinese (no stop list, no stemmer)
    would otherwise become a rare term matching the few chunks that quote English."""
    found = words(text)
    chosen = list(dict.fromkeys(languages))
    analyzers = [WordTerms(language, for_query=True) for language in chosen]
    stops = frozenset().union(*(stop_words(language) for language in chosen))
    terms: dict[str, None] = {}
    for word in found:
        if word in stops:
            continue
        for analyze in analyzers:
            terms.update(dict.fromkeys(analyze(word)))
    return list(terms)


def term_sequences(
    texts: Sequence[str], languages: Sequence[str] | None = None
) -> tuple[list[list[str]], set[str]]:
    """Each text's terms in order (text ``i`` read in ``languages[i]``, default English), and
    every distinct term; each distinct word is analyzed once per language."""
    by_text = [words(text) for text in texts]
    chosen = list(languages) if languages is not None else [DEFAULT_LANGUAGE] * len(texts)
    wanted: dict[str, set[str]] = {}
    for language, found in zip(chosen, by_text, strict=True):
        wanted.setdefault(language, set()).update(found)
    terms_of = {language: WordTerms(language).many(found) for language, found in wanted.items()}
    sequences = [
        [term for word in found for term in terms_of[language][word]]
        for language, found in zip(chosen, by_text, strict=True)
    ]
    distinct = {term for table in terms_of.values() for one in table.values() for term in one}
    return sequences, distinct


class TextTerms:
    """The distinct terms of texts read in each of some languages (their union): how two texts
    whose languages are not known one by one are compared (an answer against its passages)."""

    __slots__ = ("_analyzers",)

    def __init__(self, languages: Iterable[str] = (DEFAULT_LANGUAGE,)) -> None:
        self._analyzers = [WordTerms(language) for language in dict.fromkeys(languages)]

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(analyze.language for analyze in self._analyzers)

    def __call__(self, text: str) -> frozenset[str]:
        found = set(words(text))
        terms: set[str] = set()
        for analyze in self._analyzers:
            for one in analyze.many(found).values():
                terms.update(one)
        return frozenset(terms)


class _Stems:
    """``language``'s Snowball stemmer, and what the analysis adds to it for that language.

    Snowball's French stemmer leaves the ending of a verb's third person plural on it
    ("demandent", "utilisent", "s'engagent-ils"): a question in the plural then holds no form of
    its verb that a passage says otherwise ("demander", "demande": ``demand``). "-ent" is cut
    from a stem Snowball leaves ending in it when :data:`SHORTEST_CUT_STEM` letters remain.
    A noun or adjective in "-ent" loses it in every form alike ("continent", "continents":
    ``contin``); the short ones, mostly nouns, stay whole ("moment", "parent", "client").

    Snowball's Spanish stemmer cuts the stressed endings "-ía" and "-ió" only as written with
    their accent ("teoría", "compañía", "ofreció": ``teor``, ``compan``, ``ofrec``); typed
    without it, as questions often are, they keep their "i" (``teori``, ``compani``, ``ofreci``)
    and meet no passage. A word without an acute accent loses the "i" its stem ends in when
    :data:`SHORTEST_CUT_STEM` letters remain, in a passage as in a question, so "historia" and
    "historias" still meet (``histor``)."""

    __slots__ = ("_french", "_snowball", "_spanish")

    def __init__(self, language: str, algorithm: str) -> None:
        self._snowball = Stemmer.Stemmer(algorithm)
        self._french = language == "fr"
        self._spanish = language == "es"

    def stem_words(self, found: Sequence[str]) -> list[str]:
        stems: list[str] = self._snowball.stemWords(found)
        if self._french:
            return [_without_ending(stem, "ent") for stem in stems]
        if self._spanish:
            return [
                stem if _SPANISH_ACUTE.intersection(word) else _without_ending(stem, "i")
                for word, stem in zip(found, stems, strict=True)
            ]
        return stems


def _without_ending(stem: str, ending: str) -> str:
    if stem.endswith(ending) and len(stem) - len(ending) >= SHORTEST_CUT_STEM:
        return stem[: -len(ending)]
    return stem


def _stemmer_of(language: str) -> _Stems | None:
    """``language``'s stemmer (``None``: Snowball has none for it)."""
    algorithm = STEMMERS.get(language)
    return _Stems(language, algorithm) if algorithm else None
