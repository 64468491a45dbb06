from __future__ import annotations

import pytest

from open_notebook.text import asked_word


@pytest.mark.parametrize(
    ("question", "language", "word"),
    [
        ("In what country is Normandy located?", "en", "country"),
        ("What is the name of the duke who invaded England?", "en", "name"),
        ("¿En qué año murió Rollo?", "es", "año"),
        ("¿Cuál es el nombre del río?", "es", "nombre"),
        ("De quelle nationalité était le commandant du 1er régiment ?", "fr", "nationalité"),
        ("Quel est le nom de la rivière ?", "fr", "nom"),
        ("Quelle était la position d'Eudes avant qu'il ne devienne roi ?", "fr", "position"),
        ("Welche Stadt ist die Hauptstadt?", "de", "stadt"),
    ],
)
def test_the_word_after_an_interrogative_determiner_names_what_is_asked(
    question: str, language: str, word: str
) -> None:
    assert asked_word(question, language) == word


@pytest.mark.parametrize(
    ("question", "language"),
    [
        # No determiner: the interrogative stands for the answer itself.
        ("Why does sourdough bread come out dense?", "en"),
        ("Who was the duke in the battle of Hastings?", "en"),
        # A pronoun "what" followed by an auxiliary, and a copula without "the X of".
        ("What did the Normans do in Italy?", "en"),
        ("What is gluten?", "en"),
        ("Qu'est-ce qui rend ce stade atypique ?", "fr"),
        # Far into the question, "what" is no longer the question's own.
        ("The Normans settled in Italy and then which king?", "en"),
        # What "how many" counts is what the question is about: its answer names it too.
        ("How many Victorians are non-religious?", "en"),
        ("Combien de spectateurs peut accueillir le stade ?", "fr"),
        # A language without a rule here.
        ("Какой город столица?", "ru"),
    ],
)
def test_a_question_that_names_no_kind_has_no_asked_word(question: str, language: str) -> None:
    assert asked_word(question, language) is None
