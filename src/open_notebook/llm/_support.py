"""How well a passage supports a text: the embedder's similarity and the words they share.

``support(text, passage)`` is in 0..1, the mean of two opinions:

* **lexical**: the share of the text's distinct terms that the passage holds, with the search's
  analysis (:mod:`open_notebook.text`: stems and stop words of the passages' languages, CJK
  characters and their 2-grams). Texts and passages are read in every language detected among
  them (the union of its terms), so an answer is read the way its passages are. A question's
  term is also held by a near spelling of it (:mod:`open_notebook.text._spelling`): people
  misspell what they type, the model does not misspell what it copies;
* **semantic**: the best cosine between the text and one of the passage's sentences, measured
  above what the embedder gives unrelated texts (``(cos - null) / (1 - null)``, clipped; the
  null is the mean cosine of a fixed set of mutually unrelated sentences, so an embedder whose
  cosines all sit near 0.8 is read on its own scale). It counts only for the share of the
  letters in scripts the embedder reads (MiniLM reads Latin script; a Chinese text gets its
  lexical opinion alone, as hybrid search gives such a query no vector weight).

Words are compared only within one language: a question in Spanish about English passages
shares their names and numbers but none of their other words, so between texts of two languages
support is the semantic opinion alone (the meaning, read by a model of both languages). A model
trained on several languages puts a question farther from its answer in another language than
in its own (USE multilingual: 0.47 against 0.58 on the scale sentences, in each of seven
languages about alike, while unrelated texts stay at one level), so between two of its
languages its opinion is read on its answer level across languages, measured on the scale
sentences' questions translated (:mod:`open_notebook.llm._scale_sentences`): read on the level
within one language, half the Spanish questions whose English evidence was in the context were
refused (bench/coverage.py). An embedder of two models side by side
(:class:`~open_notebook.embeddings.PairedEmbedder`) gives one opinion per model; a text is read
by the models trained on its language (as search reads a question), each model on its own scale.

A number of the text (``1,066``, ``3.5``, ``10th``) that the passage does not hold makes the
passage's support 0: numbers must match exactly, as numbers (a passage holds the small ones it
spells out too: "cinco millones" holds the 5 of "5 millones").

A text is supported when some passage's support reaches one half: more than the two opinions
can give a text that merely shares the passage's topic. The same bar decides whether a context
covers a question. No threshold is fitted to a data set.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from open_notebook.embeddings import Embedder, readable_scripts, trained_languages
from open_notebook.errors import ModelError
from open_notebook.llm._scale_sentences import (
    ANSWER_QUESTIONS,
    NULL_SENTENCES,
    TRANSLATED_QUESTIONS,
)
from open_notebook.segment import sentences
from open_notebook.text import (
    LanguageDetector,
    TextTerms,
    asked_word,
    held_near,
    readable_share,
    script_letters,
    spelled_numbers,
)

log = logging.getLogger(__name__)

SUPPORT_BAR: Final = 0.5
# The question's own terms that must remain for the word it asks with to be optional.
ASKED_BESIDES: Final = 2
# MiniLM's opinion of those pairs on the scale the support bar was set on, (cos - null) /
# (1 - null). Every embedder's opinions are stretched so that its answer level reads as this:
# USE multilingual puts a question nearer its null than MiniLM does, even against its answer
# (0.54 on these pairs), so on MiniLM's scale its coverage gate would refuse 0.10-0.39 of the
# questions whose evidence is in the context (bench/coverage.py).
ANSWER_LEVEL: Final = 0.7255
# Digits, with marks between groups of them (thousands or a decimal part); "10th" holds 10.
_NUMBER: Final = re.compile(r"(?<![\d.,])\d+(?:[.,]\d+)*")
_MARK: Final = re.compile(r"[.,]")
# A year written in full, four bare digits from 1000 to 2099: it also holds its last two digits
# when they are 10 or more, the way a year or a decade is said short ("les années 30", "in
# '55", "los 80"), so a question saying it short is not vetoed by the passage that says it in
# full.
_FULL_YEAR: Final = re.compile(r"(?<![\d.,])(?:1\d|20)\d\d(?![\d]|[.,]\d)")


_CLAUSE_BREAK: Final = re.compile(r"\s*[,;:()«»“”\"—–]\s*")
CLAUSE_WORDS: Final = 4


def clauses_of(sentence: str) -> list[str]:
    """The clauses of ``sentence`` (split at its commas, colons, brackets and quotes, short
    fragments joined to the next), when it has more than one."""
    parts = [one for one in _CLAUSE_BREAK.split(sentence) if one.strip()]
    found: list[str] = []
    pending = ""
    for part in parts:
        pending = f"{pending} {part}".strip()
        if len(pending.split()) >= CLAUSE_WORDS:
            found.append(pending)
            pending = ""
    if pending and found:
        found[-1] = f"{found[-1]} {pending}"
    return found if len(found) > 1 else []


def _canonical(whole: str, fraction: str = "") -> str:
    whole = whole.lstrip("0") or "0"
    fraction = fraction.rstrip("0")
    return f"{whole}.{fraction}" if fraction else whole


def _readings(written: str) -> frozenset[str]:
    """What the digits ``written`` may mean. Languages mark thousands and decimals with the
    same two signs the other way round (``22,680,010`` is ``22.680.010`` in Spanish, ``3.5``
    is ``3,5``): marks of one kind between groups of three digits group thousands, a single
    mark before three digits may do either (``1,066``: 1066 or 1.066), the last of two kinds
    is the decimal point. Digits marked otherwise (``1.2.3``) are read as written."""
    groups = _MARK.split(written)
    marks = _MARK.findall(written)
    if not marks:
        return frozenset({_canonical(written)})
    thousands = 1 <= len(groups[0]) <= 3 and all(len(one) == 3 for one in groups[1:-1])
    if len(set(marks)) == 1:
        grouped = thousands and len(groups[-1]) == 3
        if len(marks) > 1:
            return frozenset({_canonical("".join(groups)) if grouped else written})
        decimal = _canonical(groups[0], groups[1])
        return frozenset({_canonical("".join(groups)), decimal} if grouped else {decimal})
    if thousands and marks.count(marks[-1]) == 1:
        return frozenset({_canonical("".join(groups[:-1]), groups[-1])})
    return frozenset({written})


def number_readings(text: str) -> tuple[frozenset[str], ...]:
    """Each number written in ``text``, as the values it may mean (:func:`_readings`)."""
    folded = unicodedata.normalize("NFKC", text)
    return tuple(_readings(match.group()) for match in _NUMBER.finditer(folded))


def numbers_in(text: str) -> frozenset[str]:
    """Every value the numbers written in ``text`` may mean, normalized (``1,066``,
    ``1.066`` and ``1066`` all hold 1066), and the small ones it spells out (``five`` holds 5,
    :func:`open_notebook.text.spelled_numbers`): what a passage holds. A year written in full
    also holds its last two digits (``1930`` holds the 30 of "les années 30")."""
    folded = unicodedata.normalize("NFKC", text)
    short = {match.group()[2:] for match in _FULL_YEAR.finditer(folded)}
    return frozenset().union(
        *number_readings(text), spelled_numbers(text), (one for one in short if one[0] != "0")
    )


def holds_numbers(needed: Sequence[frozenset[str]], held: frozenset[str]) -> bool:
    """Whether every number of a text (its :func:`number_readings`) is among the values a
    passage holds (its :func:`numbers_in`) in one of its readings."""
    return all(one & held for one in needed)


@dataclass(frozen=True, slots=True)
class SupportMatrix:
    """``scores[i][j]``: support of text ``i`` by passage ``j`` (and its two opinions)."""

    scores: np.ndarray
    lexical: np.ndarray
    semantic: np.ndarray

    def best(self, row: int) -> tuple[int, float]:
        """The best passage of text ``row`` and its support (``(-1, 0.0)`` without passages)."""
        if self.scores.shape[1] == 0:
            return -1, 0.0
        column = int(np.argmax(self.scores[row]))
        return column, float(self.scores[row, column])


def _combined(
    weight: np.ndarray | float,
    semantic: np.ndarray | float,
    lexical: np.ndarray | float,
    words: np.ndarray | float = 1.0,
) -> np.ndarray | float:
    """Support from the two opinions: shared words where both texts are in one language
    (``words`` 1, else 0), meaning as far as the embedder reads both texts' scripts (``weight``
    0..1); neither: 0."""
    total = np.maximum(np.asarray(weight + words, dtype=np.float64), 1e-12)
    combined: np.ndarray | float = (weight * semantic + words * lexical) / total
    return combined


@dataclass(slots=True)
class _Scale:
    """One model's columns of the embedder's vectors and the levels its cosines are read on."""

    columns: slice
    null: float
    answer: float
    # The languages the model declares it was trained on (empty: not known).
    languages: frozenset[str]
    # The null sentences' unit vectors in its columns, to measure its level across languages.
    nulls: np.ndarray
    # Its answer level across languages (:meth:`SupportScorer._across`), once measured.
    across: float | None = None

    def crossing(self, texts: Sequence[str], pieces: Sequence[str]) -> np.ndarray:
        """``[i, j]``: text ``i`` and piece ``j`` are in two languages the model was trained
        on (given their languages; English and one other at least, or it was never trained to
        meet across them and its cosines there are read as within one language)."""
        if len(self.languages) < 2 or "en" not in self.languages:
            return np.zeros((len(texts), len(pieces)), dtype=bool)
        return np.array(
            [
                [
                    bool(mine)
                    and bool(theirs)
                    and mine != theirs
                    and {mine, theirs} <= self.languages
                    for theirs in pieces
                ]
                for mine in texts
            ],
            dtype=bool,
        ).reshape(len(texts), len(pieces))


class SupportScorer:
    """Scores texts against passages with one embedder (``None``: the lexical opinion alone)."""

    def __init__(self, embedder: Embedder | None, *, asker: str = "") -> None:
        self._embedder = embedder
        # The asker's own language (a turn's), which reads a question whose words leave its
        # language open (:meth:`question_language`).
        self._asker = asker
        self._scripts = readable_scripts(embedder) if embedder is not None else None
        self._languages = LanguageDetector()
        self._terms = TextTerms()
        # One reader per language, for texts compared within the asker's language.
        self._own_terms: dict[str, TextTerms] = {}
        self._scale: tuple[float, float] | None = None
        # Per model of the embedder (one, or two side by side): its columns and its levels.
        self._halves: list[_Scale] | None = None

    def read_in(self, texts: Sequence[str]) -> None:
        """Read the terms of what follows in the languages of ``texts`` (a turn's passages and
        sentences): every language detected among them, English when none is."""
        found = tuple(sorted({self._languages.detect(one) for one in texts} - {""}))
        languages = found or ("en",)
        if languages != self._terms.languages:
            self._terms = TextTerms(languages)

    def terms(self, text: str) -> frozenset[str]:
        return self._terms(text)

    def terms_in(self, text: str, language: str) -> frozenset[str]:
        """The terms of ``text`` read in ``language`` alone (``""``: as :meth:`terms` reads
        them). Read in every language of a turn, a word survives if any of them keeps it: "car"
        (French for because) is an English term."""
        if not language:
            return self._terms(text)
        reader = self._own_terms.get(language)
        if reader is None:
            reader = self._own_terms[language] = TextTerms((language,))
        return reader(text)

    def language(self, text: str) -> str:
        """The language ``text`` is written in (``""`` when nothing tells)."""
        return self._languages.detect(text)

    def question_language(self, question: str) -> str:
        """The language ``question`` is written in, read as the chat reads it: with the asker's
        own language (:meth:`open_notebook.text.LanguageDetector.detect`)."""
        return self._languages.detect(question, asker=self._asker)

    def _readable(self, text: str) -> float:
        if self._embedder is None:
            return 0.0
        return readable_share(script_letters(text), self._scripts)

    def asked_terms(self, question: str) -> frozenset[str]:
        """The terms of the word naming what ``question`` asks for (:func:`asked_word`), when
        the question holds at least :data:`ASKED_BESIDES` other terms: a passage that answers
        names the thing, not its kind, so the word counts for a passage that holds it and is not
        missed in one that does not (see :func:`share_held`). A question with one other term
        ("What is the capital of France?") would otherwise be covered by any passage that says
        that one word: a topic, not a claim. Read in the languages of the last :meth:`read_in`."""
        word = asked_word(question, self.question_language(question))
        if word is None:
            return frozenset()
        asked = self.terms(word)
        return asked if len(self.terms(question) - asked) >= ASKED_BESIDES else frozenset()

    def score(
        self, texts: Sequence[str], passages: Sequence[str], *, questions: bool = False
    ) -> SupportMatrix:
        """Support of every text by every passage (``questions``: the texts are questions, the
        word each asks with counting only where a passage holds it, :meth:`asked_terms`, and a
        misspelt word held by its near spelling in a passage of the question's language)."""
        shape = (len(texts), len(passages))
        lexical = np.zeros(shape, dtype=np.float64)
        self.read_in([*texts, *passages])
        # Each text's language, read once for the uses below.
        text_languages = [self._languages.detect(one) for one in texts]
        passage_languages = [self._languages.detect(one) for one in passages]
        words = _same_language(text_languages, passage_languages)
        held = [self.terms(one) for one in passages]
        passage_numbers = [numbers_in(one) for one in passages]
        allowed = np.ones(shape, dtype=bool)
        for row, text in enumerate(texts):
            wanted = self.terms(text)
            optional = self.asked_terms(text) if questions else frozenset()
            needed = number_readings(text)
            for column, found in enumerate(held):
                # Across two languages a near spelling is a cognate or a false friend, not a
                # slip of the keys.
                near = questions and bool(words[row, column])
                lexical[row, column] = share_held(wanted, found, optional, near=near)
                allowed[row, column] = holds_numbers(needed, passage_numbers[column])
        semantic = self._semantic(
            texts, passages, text_languages, passage_languages, clauses=questions
        )
        weight = np.array(
            [[self._readable(text) * self._readable(one) for one in passages] for text in texts],
            dtype=np.float64,
        ).reshape(shape)
        scores = np.where(allowed, _combined(weight, semantic, lexical, words), 0.0)
        return SupportMatrix(scores, lexical, semantic)

    def pooled(
        self,
        text: str,
        passages: Sequence[str],
        matrix: SupportMatrix,
        columns: Sequence[int],
        *,
        question: bool = False,
    ) -> float:
        """Support of ``text`` (the one text ``matrix`` scored against ``passages``) by the
        ``columns`` read as one text: their words and numbers pooled, the meaning of the closest
        sentence among them (the matrix's semantic opinion is already that maximum, so nothing is
        embedded again); ``question``: ``text`` is one, read as :meth:`score` reads questions."""
        chosen = [passages[column] for column in columns]
        values = frozenset().union(*(numbers_in(one) for one in chosen))
        if not holds_numbers(number_readings(text), values):
            return 0.0
        together = [self._languages.detect("\n".join(chosen))]
        words = float(_same_language([self._languages.detect(text)], together)[0, 0])
        wanted = self.terms(text)
        held = frozenset().union(*(self.terms(one) for one in chosen))
        optional = self.asked_terms(text) if question else frozenset()
        lexical = share_held(wanted, held, optional, near=question and words > 0)
        semantic = max(float(matrix.semantic[0, column]) for column in columns)
        weight = self._readable(text) * self._readable("\n".join(chosen))
        return float(_combined(weight, semantic, lexical, words))

    def _semantic(
        self,
        texts: Sequence[str],
        passages: Sequence[str],
        text_languages: Sequence[str],
        passage_languages: Sequence[str],
        *,
        clauses: bool = False,
    ) -> np.ndarray:
        shape = (len(texts), len(passages))
        if self._embedder is None or not texts or not passages:
            return np.zeros(shape, dtype=np.float64)
        pieces: list[str] = []
        owner: list[int] = []
        for column, passage in enumerate(passages):
            for start, end in sentences(passage):
                sentence = passage[start:end]
                found = [sentence, *(clauses_of(sentence) if clauses else ())]
                pieces.extend(found)
                owner.extend([column] * len(found))
        try:
            halves = self._model_halves(self._embedder)
            vectors = self._embedder.embed_documents([*texts, *pieces])
        except ModelError:
            log.warning("the embedder failed; support is judged by shared words alone")
            return np.zeros(shape, dtype=np.float64)
        matrix = np.asarray(vectors, dtype=np.float64)
        text_vectors = matrix[: len(texts)]
        piece_vectors = matrix[len(texts) :]
        piece_languages = [passage_languages[column] for column in owner]
        # Each model's opinion on its own scale; a text's is the mean of its language's models'.
        reads = self._models_reading(text_languages, passage_languages, len(halves))
        opinions = np.zeros((len(texts), len(pieces)), dtype=np.float64)
        for model, scale in enumerate(halves):
            cosines = (
                _unit(text_vectors[:, scale.columns]) @ _unit(piece_vectors[:, scale.columns]).T
            )
            answer = np.full(cosines.shape, scale.answer)
            crossing = scale.crossing(text_languages, piece_languages)
            if crossing.any():
                answer = np.where(crossing, self._across(scale), answer)
            scaled = ANSWER_LEVEL * (cosines - scale.null) / np.maximum(answer - scale.null, 1e-6)
            opinions += reads[:, model : model + 1] * scaled
        opinions /= np.maximum(reads.sum(axis=1, keepdims=True), 1.0)
        semantic = np.zeros(shape, dtype=np.float64)
        for index, column in enumerate(owner):
            semantic[:, column] = np.maximum(semantic[:, column], opinions[:, index])
        return np.clip(semantic, 0.0, 1.0)

    def _across(self, scale: _Scale) -> float:
        """``scale``'s answer level across languages: the mean cosine of the translated
        :data:`ANSWER_QUESTIONS` and the English sentences answering them, over the languages
        the model was trained on, measured the first time a turn crosses languages (a turn in
        one language never pays for it)."""
        if scale.across is None:
            languages = sorted(set(TRANSLATED_QUESTIONS) & scale.languages)
            questions = [one for language in languages for one in TRANSLATED_QUESTIONS[language]]
            if self._embedder is None or not questions:
                scale.across = scale.answer
                return scale.answer
            vectors = np.asarray(self._embedder.embed_documents(questions), dtype=np.float64)
            rows = _unit(vectors[:, scale.columns])
            count = len(NULL_SENTENCES)
            levels = [
                float(np.mean(np.sum(rows[at : at + count] * scale.nulls, axis=1)))
                for at in range(0, len(questions), count)
            ]
            scale.across = float(np.mean(levels))
        return scale.across

    def _models_reading(
        self, text_languages: Sequence[str], passage_languages: Sequence[str], models: int
    ) -> np.ndarray:
        """``[i, m]``: 1 where model ``m`` of the embedder reads text ``i`` against the passages,
        as search reads a question against a notebook (``PairedEmbedder.half_weights``)."""
        weights = getattr(self._embedder, "half_weights", None)
        if weights is None or models == 1:
            return np.ones((len(text_languages), models), dtype=np.float64)
        found = Counter(passage_languages)
        scope = {language: count / len(passage_languages) for language, count in found.items()}
        return np.array(
            [[float(one > 0) for one in weights(language, scope)] for language in text_languages],
            dtype=np.float64,
        ).reshape(len(text_languages), models)

    def _model_halves(self, embedder: Embedder) -> list[_Scale]:
        """Each model's columns of the embedder's vectors, with its unrelated and answer levels
        (one model unless the embedder pairs two)."""
        if self._halves is None:
            first = getattr(embedder, "first", None)
            second = getattr(embedder, "second", None)
            if getattr(embedder, "half_weights", None) is not None and first is not None:
                split = int(first.dim)
                parts = [(slice(0, split), first), (slice(split, embedder.dim), second)]
            else:
                parts = [(slice(0, embedder.dim), embedder)]
            texts = [*NULL_SENTENCES, *ANSWER_QUESTIONS]
            vectors = np.asarray(embedder.embed_documents(texts), dtype=np.float64)
            self._halves = []
            for columns, model in parts:
                null, answer = _levels_of(vectors[:, columns])
                nulls = _unit(vectors[: len(NULL_SENTENCES), columns])
                languages = trained_languages(model) or frozenset()
                self._halves.append(_Scale(columns, null, answer, languages, nulls))
        return self._halves

    def levels(self) -> tuple[float, float] | None:
        """The embedder's unrelated and answer levels (see :meth:`_levels`); None without one."""
        return None if self._embedder is None else self._levels(self._embedder)

    def _levels(self, embedder: Embedder) -> tuple[float, float]:
        """The embedder's unrelated level (the mean pairwise cosine of :data:`NULL_SENTENCES`)
        and its answer level (the mean cosine of each of :data:`ANSWER_QUESTIONS` and its null
        sentence), embedded once per scorer (an ask scores its question's coverage and then its
        answer's sentences)."""
        if self._scale is None:
            texts = [*NULL_SENTENCES, *ANSWER_QUESTIONS]
            vectors = np.asarray(embedder.embed_documents(texts), dtype=np.float64)
            self._scale = _levels_of(vectors)
        return self._scale


def share_held(
    wanted: frozenset[str],
    held: frozenset[str],
    optional: frozenset[str] = frozenset(),
    *,
    near: bool = False,
) -> float:
    """The share of ``wanted`` that ``held`` holds, ``optional`` terms counted only where held;
    ``near``: a near spelling of a term holds it too (``wanted`` is a question's,
    :func:`open_notebook.text.held_near`)."""
    found = held_near(wanted, held) if near else wanted & held
    counted = len(wanted) - len((optional & wanted) - found)
    return len(found) / counted if counted > 0 else 0.0


def _same_language(text_languages: Sequence[str], passage_languages: Sequence[str]) -> np.ndarray:
    """1 where a text and a passage are in one language (or either's is unknown), else 0: where
    words can be shared at all."""
    return np.array(
        [
            [float(not mine or not theirs or mine == theirs) for theirs in passage_languages]
            for mine in text_languages
        ],
        dtype=np.float64,
    ).reshape(len(text_languages), len(passage_languages))


def _unit(rows: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.asarray(rows / np.maximum(norms, 1e-12), dtype=np.float64)


def _levels_of(vectors: np.ndarray) -> tuple[float, float]:
    """The unrelated level (mean pairwise cosine of the null sentences) and the answer level
    (mean cosine of each answer question and its null sentence) of the rows of
    ``[*NULL_SENTENCES, *ANSWER_QUESTIONS]``."""
    rows = _unit(vectors)
    count = len(NULL_SENTENCES)
    nulls, questions = rows[:count], rows[count:]
    pairs = nulls @ nulls.T
    null = float((pairs.sum() - np.trace(pairs)) / (count * (count - 1)))
    answer = float(np.mean(np.sum(questions * nulls, axis=1)))
    return null, answer
