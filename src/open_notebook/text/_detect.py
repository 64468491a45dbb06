"""The language of a text, offline: its script first, then CLD2, then its stop words.

1. **Script** (:mod:`open_notebook.text._scripts`): Greek, Hebrew, Thai, Han, Kana, Hangul and
   other single-language scripts settle the language; a text without letters (digits only) has
   none (``prior``).
2. **CLD2** (``pycld2``, Google's Compact Language Detector 2, Apache-2.0): its n-gram tables are
   compiled into the wheel's extension module, so nothing is read or downloaded at run time. The
   extension is checked against its pinned sha256 before it is imported. It reads ~6 MB/s here
   (~0.15 ms for a 1,000-character chunk, ~35x faster than py3langid's naive Bayes, measured on
   the same texts). Its answer counts when it is reliable and a two-letter ISO 639-1 code
   (its three-letter codes are rare languages and, on short English questions, Klingon).
3. **Stop words** (Latin script): a text whose stop words (Snowball's, with the words that ask:
   "quand", "comment", "cuándo") are clearly one language's
   (see :data:`DECISIVE_WORDS`) is that language before CLD2 is asked, and overrules CLD2's
   reliable answer when they outweigh that language's own by the same margin (a short question's
   n-grams are mostly names); a short text that CLD2 is not sure of ("¿Quién?", "How many?") is
   the language whose stop words it holds most, when one language leads; then CLD2's best
   effort; then ``prior`` (a chunk's source language).

Only the first :data:`SAMPLE_CHARS` characters are read: a chunk or a question is shorter, and a
whole source's language is settled by far less.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from open_notebook.errors import ModelError
from open_notebook.text._languages import STOP_WORDS, UNKNOWN, VOTING_WORDS, normalized
from open_notebook.text._scripts import SCRIPT_DEFAULT, SCRIPT_LANGUAGE, Script, main_script

SAMPLE_CHARS: Final = 2_000
# Function words tell the grammar a text is written in, whatever names it borrows: a Latin-script
# text whose stop words score at least this much for one language (see stop_word_vote), more than
# twice any other's, is in that language (CLD2's n-grams read "Downtown Los Angeles, Hospitality
# Business Centre" in a Spanish paragraph as English). Below that, CLD2 decides.
DECISIVE_WORDS: Final = 1.0
DECISIVE_MARGIN: Final = 2.0
# What the asker's own language (their browser's or locale's) weighs in their question: half a
# function word, enough to settle a tie between languages that share a short question's words,
# too little to outweigh a word only another language has.
ASKER_VOTE: Final = 0.5
# The pinned pycld2 wheel's extension (pycld2==0.42, CPython 3.11, manylinux x86_64).
CLD2_SHA256: Final = {
    "_pycld2.cpython-311-x86_64-linux-gnu.so": (
        "e778428ec5d4d5bf706866c21752daf145a382e6874a4bf3e4169889c1eba63d"
    ),
}
# One list per language (Norwegian has three codes for one list); Russian is not Latin script.
# A question's words that ask are its surest function words ("Quand démarre la guerre ?" read as
# Corsican by CLD2, with "la" its only Snowball stop word), so they vote with the rest.
_LATIN_STOPS: Final = {
    code: VOTING_WORDS[code] for code in STOP_WORDS if code not in {"ru", "nb", "nn"}
}
_STOP_OWNERS: Final = {
    word: tuple(code for code, words in _LATIN_STOPS.items() if word in words)
    for word in frozenset().union(*_LATIN_STOPS.values())
}
# The opening marks of a question or an exclamation that only Spanish writes ("¿Dónde…?"): each
# counts as one Spanish function word. A question's other words may be names and symbols ("¿Dónde
# se encontraba Victoria en Australia?" read as English; "T (n)" as French elisions).
SPANISH_MARKS: Final = "¿¡"
_WORD_SPLIT: Final = str.maketrans(dict.fromkeys("¿?¡!.,;:()[]{}\"'«»“”’-", " "))

Detect = Callable[..., Any]


def load_cld2() -> Detect:
    """CLD2's ``detect``, once its extension's sha256 is the pinned one.

    Raises:
        ModelError: pycld2 is missing, or its extension is not the pinned file.
    """
    spec = importlib.util.find_spec("pycld2")
    if spec is None or spec.origin is None:
        raise ModelError("pycld2 is not installed; reinstall the package (pip install -e .)")
    folder = Path(spec.origin).parent
    found = sorted(folder.glob("_pycld2*.so"))
    if not found or found[0].name not in CLD2_SHA256:
        names = ", ".join(one.name for one in found) or "none"
        raise ModelError(f"pycld2's extension ({names}) is not the pinned build of pycld2==0.42")
    digest = hashlib.sha256(found[0].read_bytes()).hexdigest()
    if digest != CLD2_SHA256[found[0].name]:
        raise ModelError(
            f"pycld2's extension at {found[0]} has sha256 {digest}, expected "
            f"{CLD2_SHA256[found[0].name]}: reinstall pycld2==0.42"
        )
    module = importlib.import_module("pycld2")
    detect: Detect = module.detect
    return detect


class LanguageDetector:
    """Detects languages; CLD2 is verified and loaded on the first text that needs it."""

    __slots__ = ("_cld2", "_names")

    def __init__(self) -> None:
        self._cld2: Detect | None = None
        self._names: dict[str, str] | None = None

    def name(self, code: str) -> str:
        """The English name of the language ``code`` names (``"es"`` -> ``"Spanish"``), from
        CLD2's own table; ``""`` for a code it does not know."""
        if self._names is None:
            if self._cld2 is None:
                self._cld2 = load_cld2()
            table = importlib.import_module("pycld2").LANGUAGES
            self._names = {}
            for name, one in table:
                # CLD2 also lists scripts and unknowns ("X_Arabic", "un"): not languages.
                key = normalized(str(one))
                if len(key) == 2 and str(name).isalpha():
                    self._names.setdefault(key, str(name).capitalize())
        return self._names.get(normalized(code), UNKNOWN) if code else UNKNOWN

    def detect(self, text: str, *, prior: str = UNKNOWN, asker: str = UNKNOWN) -> str:
        """The ISO 639-1 code of ``text``'s language; ``prior`` when nothing tells.

        ``asker`` is the language the person who wrote ``text`` reads (their browser's or
        locale's, :func:`open_notebook.text.asker_language`), for a question: a short question's
        few function words are often shared ("Quelle équipe l'Inter a battu ?": "quelle" and
        "l'" are Italian too) and its names read as another language to CLD2. In a Latin-script
        text the asker's language counts :data:`ASKER_VOTE` function words more, which tips a
        tie, not a question whose function words are clearly another language's; a text with
        no function word at all ("Sky UK Limited?": CLD2 reads only names) is the asker's."""
        sample = text[:SAMPLE_CHARS]
        script = main_script(sample)
        if script is None:
            return prior or asker
        settled = SCRIPT_LANGUAGE.get(script)
        if settled is not None:
            return settled
        scores = stop_word_scores(sample) if script is Script.LATIN else {}
        if asker and script is Script.LATIN:
            if not scores:
                return asker
            scores[asker] = scores.get(asker, 0.0) + ASKER_VOTE
        decisive = _leader(scores, margin=DECISIVE_MARGIN, least=DECISIVE_WORDS)
        if decisive:
            return decisive
        reliable, best = self._cld2_answer(sample)
        if reliable:
            return _overruled(scores, reliable)
        voted = _leader(scores, margin=1.0, least=0.5)
        if voted:
            return voted
        return best or prior or SCRIPT_DEFAULT.get(script, UNKNOWN)

    def detect_many(self, texts: Sequence[str], *, prior: str = UNKNOWN) -> list[str]:
        return [self.detect(text, prior=prior) for text in texts]

    def _cld2_answer(self, sample: str) -> tuple[str, str]:
        """CLD2's reliable answer (or ``""``) and its best effort (or ``""``)."""
        if self._cld2 is None:
            self._cld2 = load_cld2()
        try:
            reliable, _, details = self._cld2(sample, isPlainText=True, bestEffort=True)
        except Exception:  # noqa: BLE001 - pycld2.error: bytes it cannot read (lone surrogates)
            return UNKNOWN, UNKNOWN
        code = normalized(str(details[0][1]))
        if len(code) != 2:
            return UNKNOWN, UNKNOWN
        return (code if reliable else UNKNOWN), code


def stop_word_vote(text: str, *, margin: float = 1.0, least: float = 0.5) -> str:
    """The language whose stop words ``text`` holds most, when its score is at least
    ``least`` and more than ``margin`` times any other language's. A stop word counts
    ``1 / k`` for each of the ``k`` languages that list it: "de" says little between Spanish
    and French, "los" and "les" say which."""
    return _leader(stop_word_scores(text), margin=margin, least=least)


def stop_word_scores(text: str) -> dict[str, float]:
    """Each Latin-script language's stop-word score in ``text`` (see :func:`stop_word_vote`),
    Spanish's with its opening marks (:data:`SPANISH_MARKS`)."""
    scores: dict[str, float] = {}
    marks = sum(text.count(one) for one in SPANISH_MARKS)
    if marks:
        scores["es"] = float(marks)
    for token in text.lower().translate(_WORD_SPLIT).split():
        owners = _STOP_OWNERS.get(token)
        if owners:
            for code in owners:
                scores[code] = scores.get(code, 0.0) + 1.0 / len(owners)
    return scores


def _leader(scores: dict[str, float], *, margin: float, least: float) -> str:
    ranked = sorted(((score, code) for code, score in scores.items()), reverse=True)
    if not ranked:
        return UNKNOWN
    best, leader = ranked[0]
    second = ranked[1][0] if len(ranked) > 1 else 0.0
    return leader if best >= least and best > margin * second else UNKNOWN


def _overruled(scores: dict[str, float], reliable: str) -> str:
    """CLD2's reliable answer, unless the text's function words clearly belong to another
    language: at least :data:`DECISIVE_WORDS`, more than :data:`DECISIVE_MARGIN` times the
    answer's own. A short question's n-grams are mostly its names ("Qui a gagné la finale de la
    Coupe du monde de football en 1998 ?" reads as English to CLD2), while its grammar is in its
    stop words; a leader that only shares its lead with a sibling language (Spanish and French
    both list "de", "la", "en") still beats an answer whose own stop words are absent."""
    leader = max(scores, key=lambda code: (scores[code], code), default=UNKNOWN)
    if leader and leader != reliable:
        own = scores.get(reliable, 0.0)
        if scores[leader] >= DECISIVE_WORDS and scores[leader] > DECISIVE_MARGIN * own:
            return leader
    return reliable
