"""Near spellings: one edit apart, long enough, no digits."""

from __future__ import annotations

import pytest

from open_notebook.text import held_near, one_edit_apart


@pytest.mark.parametrize(
    ("first", "second", "near"),
    [
        ("snowbaord", "snowboard", True),  # two neighbours swapped
        ("devien", "devient", True),  # a letter left out
        ("releg", "relegu", True),  # a letter added at the end
        ("cvilis", "civilis", True),
        ("mondial", "modial", True),
        ("officiel", "officiol", True),  # one letter changed
        ("amherst", "amherst", False),  # the same term is not a near spelling
        ("amherst", "armhurst", False),  # two edits
        ("abc", "abcde", False),
        ("", "a", True),
    ],
)
def test_one_edit_apart(first: str, second: str, near: bool) -> None:
    assert one_edit_apart(first, second) is near
    assert one_edit_apart(second, first) is near


def test_a_misspelt_or_differently_stemmed_term_is_held_by_its_near_spelling() -> None:
    held = frozenset({"devient", "mondial", "sidi", "vent", "1830"})
    assert held_near(["devien", "modial"], held) == {"devien", "modial"}


def test_short_terms_and_numbers_are_held_only_exactly() -> None:
    held = frozenset({"sidi", "vent", "1830", "rhin"})
    # "siri"/"sidi" and "vend"/"vent" are one edit apart, but short terms that close are
    # mostly other words; a number must match exactly.
    assert held_near(["siri", "vend", "1831", "rhin"], held) == {"rhin"}
