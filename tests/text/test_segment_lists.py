"""Sentences of Markdown lists: a numbered item is one sentence with its number, and an item's
indented next line goes on with its sentence (the demo's troubleshooting list was split into
``1.`` alone and half-sentences, and the builder sent those)."""

from __future__ import annotations

from open_notebook.segment import sentences

LIST = (
    "Likely causes:\n\n"
    "1. **Under-fermentation.** The bulk fermentation ended early,\n"
    "   usually because the kitchen was cold. Extend bulk fermentation.\n"
    "12. A weak starter.\n"
)


def _texts(text: str) -> list[str]:
    return [" ".join(text[start:end].split()) for start, end in sentences(text)]


def test_a_numbered_item_keeps_its_number_and_its_indented_next_line() -> None:
    assert _texts(LIST) == [
        "Likely causes:",
        "1. **Under-fermentation.** The bulk fermentation ended early, usually because the"
        " kitchen was cold.",
        "Extend bulk fermentation.",
        "12. A weak starter.",
    ]


def test_a_number_ending_a_sentence_mid_line_still_ends_it() -> None:
    assert _texts("It was built in 1999. Then came 2. Next line") == [
        "It was built in 1999.",
        "Then came 2.",
        "Next line",
    ]


def test_an_unindented_lowercase_line_after_a_finished_line_is_a_new_sentence() -> None:
    assert _texts("The end.\nanother line") == ["The end.", "another line"]


def test_a_wrapped_line_opening_with_emphasis_goes_on_with_its_sentence() -> None:
    """The demo's history source wraps "bakers developed the" before "*levain*": the answer
    check quoted "In France, bakers developed the" as the best evidence."""
    text = (
        "In France, bakers developed the\n*levain*, a firmer culture, and the\n"
        "“long” loaves (baguettes) that\n`came` with it. Guild rules followed."
    )
    assert _texts(text) == [
        "In France, bakers developed the *levain*, a firmer culture, and the “long” loaves"
        " (baguettes) that `came` with it.",
        "Guild rules followed.",
    ]


def test_a_list_marker_after_a_wrapped_line_still_starts_an_item() -> None:
    assert _texts("Likely causes, in order\n* under-fermentation\n* a weak starter") == [
        "Likely causes, in order",
        "* under-fermentation",
        "* a weak starter",
    ]


WRAPPED = (
    "## Microbiology\n\n"
    "Lactic acid bacteria outnumber the yeasts by a hundred to one. The best-known species, now"
    " called\n*Fructilactobacillus sanfranciscensis*, was first described from San Francisco"
    " bread but lives in\nstarters everywhere. Bread flour contains 12 to 14 percent protein,"
    " all-purpose flour\n10 to 12 percent.\n"
)


def test_a_line_cut_before_a_capital_or_a_number_goes_on_with_its_sentence() -> None:
    """Hard-wrapped prose cut before a name or a number: the demo's microbiology source gave
    the model "The best-known sourdough species, now called" as a sentence, and it answered
    with it."""
    assert _texts(WRAPPED) == [
        "## Microbiology",
        "Lactic acid bacteria outnumber the yeasts by a hundred to one.",
        "The best-known species, now called *Fructilactobacillus sanfranciscensis*, was first"
        " described from San Francisco bread but lives in starters everywhere.",
        "Bread flour contains 12 to 14 percent protein, all-purpose flour 10 to 12 percent.",
    ]


def test_short_lines_headings_and_list_numbers_stay_lines_of_their_own() -> None:
    prose = "A long line of wrapped prose that goes on and on about the dough and the oven."
    assert _texts(f"{prose}\nIntroduction\nThe study began in 1990.") == [
        prose,
        "Introduction",
        "The study began in 1990.",
    ]
    assert _texts("Ingredients\nFlour\nWater\nSalt") == ["Ingredients", "Flour", "Water", "Salt"]
    intro = "Likely causes, from the most to the least frequent, in the order a baker checks"
    assert _texts(f"{intro}\n1. Under-fermentation.\n2) A weak starter.") == [
        intro,
        "1. Under-fermentation.",
        "2) A weak starter.",
    ]
    assert _texts(f"# {intro}\nThe first cause is time.") == [
        f"# {intro}",
        "The first cause is time.",
    ]
