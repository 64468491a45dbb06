"""Numbered passages: what a turn sends, what it names by number because the kept history shows
it, and numbers that stay with their spans for the whole conversation."""

from __future__ import annotations

from open_notebook.context import Candidate, ItemType, Passage
from open_notebook.llm import NumberedPassage, number_passages

TEXT = "Sentence one is here. Sentence two follows it. Sentence three ends the text."
RECORD = Candidate("source:abc", ItemType.SOURCE, "Starter", TEXT)


def piece(start: int, end: int, ord_: int) -> Passage:
    return Passage(
        handle=f"source:abc#c{ord_}",
        record=RECORD,
        chunk_id=f"chunk:{ord_}",
        ord=ord_,
        char_start=start,
        char_end=end,
        text=TEXT[start:end],
        relevance=1.0,
        tokens=10,
        chunk_ids=(f"chunk:{ord_}",),
    )


ONE, TWO, THREE = piece(0, 21, 0), piece(22, 46, 1), piece(47, len(TEXT), 2)


def test_passages_are_numbered_under_their_record_label() -> None:
    prompt = number_passages([ONE, THREE])
    assert [one.number for one in prompt.sent] == [1, 2]
    # The label shows the title, not the record id (a small model would copy the id).
    assert prompt.text.startswith("### Starter\n") and "source:abc" not in prompt.text
    assert "[1] Sentence one is here." in prompt.text
    assert "[2] Sentence three ends the text." in prompt.text
    assert prompt.reused == () and prompt.not_resent == ()
    first = prompt.sent[0]
    assert (first.record_id, first.chunk_id, first.char_start, first.char_end) == (
        "source:abc",
        "chunk:0",
        0,
        21,
    )
    assert NumberedPassage.from_dict(first.as_dict()) == first


def test_a_passage_the_kept_history_shows_is_named_not_sent() -> None:
    earlier = number_passages([ONE, TWO])
    later = number_passages([TWO, THREE], shown=earlier.sent, known=earlier.sent)
    # Two is covered by the history; three is new and takes the next free number.
    assert [one.number for one in later.sent] == [3]
    assert [one.number for one in later.reused] == [2]
    assert later.not_resent == ("source:abc#c1",)
    assert "Sentence two" not in later.text and "[2]" in later.text
    assert {one.number for one in later.visible} == {2, 3}


def test_a_span_keeps_its_number_once_the_history_no_longer_shows_it() -> None:
    earlier = number_passages([ONE, TWO])
    again = number_passages([TWO], shown=(), known=earlier.sent)
    assert [one.number for one in again.sent] == [2] and "Sentence two" in again.text
