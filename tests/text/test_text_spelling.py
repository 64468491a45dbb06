"""Near spellings: one edit apart, five letters or more, the first three shared."""

from __future__ import annotations

from open_notebook.text import held_near, near_spellings, one_edit_apart


def test_words_one_edit_apart() -> None:
    near = [
        ("buddhist", "buddhism"),  # a letter changed
        ("deped", "depend"),  # a letter dropped
        ("form", "from"),  # two neighbours swapped
        ("snowbaord", "snowboard"),
        ("releg", "relegu"),  # a letter added at the end
    ]
    for one, two in near:
        assert one_edit_apart(one, two) and one_edit_apart(two, one)
    apart = [("same", "same"), ("abcde", "edcba"), ("abcdef", "abcfed"), ("ab", "abcd")]
    for one, two in apart:
        assert not one_edit_apart(one, two) and not one_edit_apart(two, one)


def test_a_misspelt_or_differently_stemmed_term_is_held_by_its_near_spelling() -> None:
    held = ["devient", "packag", "budhism", "river"]
    assert held_near(frozenset({"devien", "pacakg", "buddhism", "river"}), held) == {
        "devien",
        "pacakg",
        "buddhism",
        "river",
    }
    assert near_spellings(held, ["devien", "buddhism"]) == {
        "devient": "devien",
        "budhism": "buddhism",
    }


def test_short_terms_and_other_first_letters_are_held_only_exactly() -> None:
    # One edit apart, but short terms that close, and terms that differ in their first three
    # letters, are mostly other words.
    held = ["sidi", "vent", "effect", "season", "civilis", "mondial"]
    asked = frozenset({"siri", "vend", "affect", "reason", "cvilis", "modial"})
    assert held_near(asked, held) == set()
