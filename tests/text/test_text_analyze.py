"""The analysis by language: Snowball stemmers, stop words, n-grams, and the unknown language."""

from __future__ import annotations

import pytest

from open_notebook.text import (
    TextTerms,
    WordTerms,
    folded_with_offsets,
    marking_stems,
    normalized_words,
    query_terms,
    stop_words,
    term_sequences,
    words,
)
from open_notebook.text._languages import VOTING_WORDS


@pytest.mark.parametrize(
    ("language", "forms", "stem"),
    [
        ("en", ["flows", "flowing", "flowed"], "flow"),
        ("es", ["corriendo", "corrieron", "corre"], "corr"),
        ("fr", ["chevaux", "cheval"], "cheval"),
        ("de", ["Häuser", "Hauses"], "haus"),
        ("ru", ["книги", "книгами", "книгу"], "книг"),
    ],
)
def test_inflected_forms_share_a_stem(language: str, forms: list[str], stem: str) -> None:
    analyze = WordTerms(language)
    assert {analyze(form.lower()) for form in forms} == {(stem,)}


def test_a_french_verb_in_the_plural_shares_its_stem() -> None:
    # Snowball leaves "-ent" on "demandent"; a passage says "demander" or "demande".
    analyze = WordTerms("fr")
    assert analyze("demandent") == analyze("demander") == analyze("demande") == ("demand",)
    assert analyze("s'engagent") == analyze("engager")  # "s" is a stop word
    # Every form of a noun in -ent loses it alike; a short one stays whole.
    assert analyze("continent") == analyze("continents") == ("contin",)
    assert analyze("moment") == ("moment",) and analyze("parent") == ("parent",)
    assert marking_stems("Ils demandent", "fr") == ["demand"]
    # Other languages keep Snowball's stems.
    assert WordTerms("en")("different") == ("differ",)
    assert WordTerms("es")("presidente") == ("president",)


def test_stop_words_are_each_languages_own() -> None:
    assert query_terms("de la casa", ["es"]) == ["cas"]
    assert query_terms("de la casa", ["en"]) == ["de", "la", "casa"]
    assert query_terms("the house of the rising sun", ["en"]) == ["hous", "rise", "sun"]
    assert query_terms("что и как", ["ru"]) == []
    assert "und" in stop_words("de") and "und" not in stop_words("en")


def test_accents_fold_after_stemming() -> None:
    # A question typed without accents finds the accented word.
    assert query_terms("canción", ["es"]) == query_terms("cancion", ["es"])
    assert query_terms("The flows of a Café") == ["flow", "cafe"]


@pytest.mark.parametrize(
    ("written", "typed"),
    [
        ("teoría", "teoria"),
        ("compañía", "compania"),
        ("ofreció", "ofrecio"),
        ("economía", "economia"),
    ],
)
def test_a_spanish_word_typed_without_its_accent_shares_its_stem(written: str, typed: str) -> None:
    # Snowball cuts "-ía" and "-ió" only as written with the accent ("teoria" was ``teori``).
    assert WordTerms("es")(typed) == WordTerms("es")(written)
    assert query_terms(f"¿Qué {typed}?", ["es"]) == query_terms(f"¿Qué {written}?", ["es"])


def test_the_i_a_spanish_stem_loses_goes_from_every_form_alike() -> None:
    analyze = WordTerms("es")
    assert analyze("historia") == analyze("historias") == analyze("histórico") == ("histor",)
    # A short stem keeps it, and so does a stem of another language.
    assert analyze("mafia") == ("mafi",)
    assert WordTerms("en")("history") == ("histori",)


@pytest.mark.parametrize(
    ("question", "language", "typed"),
    [
        ("Quel était l'ancien nom de l'Inter ?", "fr", "Quel etait l'ancien nom de l'Inter ?"),
        ("À quelle fréquence paie-t-on ?", "fr", "A quelle frequence paie-t-on ?"),
        ("¿Quién más lo dijo también?", "es", "Quien mas lo dijo tambien?"),
        ("Wer hat es für uns gemacht?", "de", "Wer hat es fur uns gemacht?"),
    ],
)
def test_a_stop_word_typed_without_accents_is_a_stop_word(
    question: str, language: str, typed: str
) -> None:
    # Kept, "etait" is a term no passage holds: a passage's "était" is a stop word.
    assert query_terms(typed, [language]) == query_terms(question, [language])
    assert TextTerms([language])(typed) == TextTerms([language])(question)


def test_stop_words_typed_without_accents_do_not_vote_for_a_language() -> None:
    # "a" is French's "à" folded, but a Spanish, Portuguese and Italian word as it is.
    assert "a" in stop_words("fr")
    assert "a" not in VOTING_WORDS["fr"] and "à" in VOTING_WORDS["fr"]


def test_unspaced_scripts_become_character_grams() -> None:
    assert WordTerms("zh")("东京塔") == ("东", "京", "塔", "东京", "京塔")
    assert query_terms("東京 首都", ["zh"]) == ["東京", "首都"]
    assert query_terms("京", ["zh"]) == ["京"]
    assert WordTerms("th")("สวัสดี")[-1] == "ดี"


def test_unknown_language_folds_and_keeps_words_whole() -> None:
    analyze = WordTerms("")
    assert analyze("running") == ("running",)
    assert analyze("the") == ("the",)
    assert analyze("élan") == ("elan",)
    assert WordTerms("xx-unknown")("words") == ("words",)


def test_a_query_read_in_several_languages_holds_each_reading() -> None:
    terms = query_terms("corriendo flows", ["es", "en"])
    assert "corr" in terms and "flow" in terms


def test_term_sequences_read_each_text_in_its_language() -> None:
    sequences, distinct = term_sequences(["los niños corrieron", "the children ran"], ["es", "en"])
    assert sequences == [["nin", "corr"], ["children", "ran"]]
    assert distinct == {"nin", "corr", "children", "ran"}
    default, _ = term_sequences(["flows"])
    assert default == [["flow"]]


def test_text_terms_are_the_union_of_their_languages() -> None:
    reader = TextTerms(["es", "en"])
    assert reader.languages == ("es", "en")
    assert {"corr", "corriendo"} <= reader("corriendo")
    assert reader("de la") == {"de", "la"}  # stop words in Spanish, words in English
    assert TextTerms(["es"])("de la") == frozenset()


def test_a_stop_word_of_any_reading_is_dropped_from_every_reading() -> None:
    # Read as Chinese alone, English words are kept whole; read as English too, "the" goes.
    assert query_terms("the revenue", ["zh"]) == ["the", "revenue"]
    assert query_terms("the revenue", ["zh", "en"]) == ["revenue", "revenu"]
    assert "de" not in query_terms("la casa de papel", ["en", "es"])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("हिन्दी भारत की राजभाषा है।", ["हिन्दी", "भारत", "की", "राजभाषा", "है"]),
        ("தமிழ் ஒரு திராவிட மொழி", ["தமிழ்", "ஒரு", "திராவிட", "மொழி"]),
        ("తెలుగు భాష", ["తెలుగు", "భాష"]),
    ],
)
def test_a_word_keeps_its_vowel_signs_and_viramas(text: str, expected: list[str]) -> None:
    assert words(text) == expected
    assert normalized_words(text) == expected


def test_hindi_terms_keep_their_marks_but_latin_accents_fold() -> None:
    hindi = TextTerms(("hi",))("राजभाषा हिन्दी")
    assert all(len(term) > 2 for term in hindi)
    assert TextTerms(("fr",))("élèves") == TextTerms(("fr",))("eleves")


def test_marking_stems_are_prefixes_of_the_words_they_mark() -> None:
    assert marking_stems("the flows of wings") == ["flow", "wing"]
    assert marking_stems("¿Qué río corre?", "es")[0] == "río"


def test_folded_text_says_where_each_character_comes_from() -> None:
    """Accents of Latin, Greek and Cyrillic letters fold (a ligature into its letters, a
    combining mark into nothing); each folded character points back to its source, and other
    scripts stay as written."""
    folded, offsets = folded_with_offsets("Ｘ ﬁne cafe\u0301 é 東京")
    assert folded == "Ｘ fine cafe e 東京"
    assert offsets == [0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15]
    assert folded_with_offsets("plain") == ("plain", [0, 1, 2, 3, 4])
