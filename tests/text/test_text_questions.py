from __future__ import annotations

import pytest

from open_notebook.text import question_parts


@pytest.mark.parametrize(
    ("question", "language", "parts"),
    [
        (
            "Why does sourdough come out dense, and how does temperature affect fermentation?",
            "en",
            ("Why does sourdough come out dense", "how does temperature affect fermentation?"),
        ),
        (
            "¿Por qué el pan sale denso, y cómo afecta la temperatura a la fermentación?",
            "es",
            ("¿Por qué el pan sale denso", "cómo afecta la temperatura a la fermentación?"),
        ),
        (
            "Pourquoi le pain est-il dense, et comment la chaleur agit-elle sur le levain ?",
            "fr",
            ("Pourquoi le pain est-il dense", "comment la chaleur agit-elle sur le levain ?"),
        ),
        (
            "Is the dough warm enough? How long does it rise?",
            "en",
            ("Is the dough warm enough?", "How long does it rise?"),
        ),
    ],
)
def test_a_question_that_asks_two_things_is_cut_where_the_second_begins(
    question: str, language: str, parts: tuple[str, ...]
) -> None:
    assert question_parts(question, language) == parts


@pytest.mark.parametrize(
    ("question", "language"),
    [
        ("Who signed the treaty of Saint-Clair-sur-Epte with Rollo?", "en"),
        # A clause that is not a question of its own.
        ("In the second book, what is the main idea?", "en"),
        # A statement giving the question its setting stays with it.
        ("Orange and Riverside are two of five counties. What is the last one?", "en"),
        # A fragment, not a question.
        ("What is a starter, and why?", "en"),
        # A language without a rule here is one part.
        ("Почему хлеб плотный, и как температура влияет на брожение?", "ru"),
    ],
)
def test_a_question_that_asks_one_thing_is_one_part(question: str, language: str) -> None:
    assert question_parts(question, language) == (question,)
