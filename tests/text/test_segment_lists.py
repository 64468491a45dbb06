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
