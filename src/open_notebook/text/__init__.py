"""Text analysis by language: detection, words, stems, stop words, n-grams (one home).

Every place that matches text (BM25 over chunks and queries, the context builder's sentence
scores, the attribution of answer sentences and the coverage check) reads words into terms
here, so one word is one term everywhere. See :mod:`open_notebook.text._analyze` for the
analysis and :mod:`open_notebook.text._detect` for the detector.
"""

from open_notebook.text._analyze import (
    DEFAULT_LANGUAGE,
    TextTerms,
    WordTerms,
    marking_stems,
    normalized_words,
    query_terms,
    term_sequences,
    words,
)
from open_notebook.text._asked import asked_word
from open_notebook.text._detect import LanguageDetector, load_cld2, stop_word_vote
from open_notebook.text._languages import (
    STEMMERS,
    UNKNOWN,
    asker_language,
    normalized,
    stop_words,
)
from open_notebook.text._numbers import spelled_numbers
from open_notebook.text._polarity import polarity_words
from open_notebook.text._questions import question_parts
from open_notebook.text._scripts import (
    INDIC,
    LATIN_ONLY,
    MOST_SCRIPTS,
    Script,
    folded_with_offsets,
    has_unspaced,
    main_script,
    readable_share,
    script_letters,
)
from open_notebook.text._shares import describe_shares, language_shares
from open_notebook.text._spelling import held_near, near_spellings, one_edit_apart

__all__ = [
    "DEFAULT_LANGUAGE",
    "INDIC",
    "LATIN_ONLY",
    "MOST_SCRIPTS",
    "STEMMERS",
    "UNKNOWN",
    "LanguageDetector",
    "Script",
    "TextTerms",
    "WordTerms",
    "asked_word",
    "asker_language",
    "describe_shares",
    "folded_with_offsets",
    "has_unspaced",
    "held_near",
    "language_shares",
    "load_cld2",
    "main_script",
    "marking_stems",
    "near_spellings",
    "normalized",
    "normalized_words",
    "one_edit_apart",
    "polarity_words",
    "query_terms",
    "question_parts",
    "readable_share",
    "script_letters",
    "spelled_numbers",
    "stop_word_vote",
    "stop_words",
    "term_sequences",
    "words",
]
