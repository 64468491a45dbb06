"""Numbered passages: what a turn sends, what it names by number because the kept history shows
it, and numbers that stay with their spans for the whole conversation."""

from __future__ import annotations

from dataclasses import replace

from open_notebook.config import PassageOrder
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
    # Each passage's number opens and closes it: a model copying a sentence writes next the
    # number it read after it.
    assert "[1] Sentence one is here. [1]\n" in prompt.text
    assert prompt.text.endswith("[2] Sentence three ends the text. [2]")
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


ELSEWHERE = "A passage of another source."
OTHER = Candidate("source:xyz", ItemType.SOURCE, "Other", ELSEWHERE)


def test_best_last_lays_out_by_relevance_and_keeps_every_number() -> None:
    best = replace(ONE, relevance=1.0)
    weak = replace(TWO, relevance=0.2)
    middle = Passage(
        handle="source:xyz#c0",
        record=OTHER,
        chunk_id="chunk:9",
        ord=0,
        char_start=0,
        char_end=len(ELSEWHERE),
        text=ELSEWHERE,
        relevance=0.5,
        tokens=8,
        chunk_ids=("chunk:9",),
    )
    reading = number_passages([best, weak, middle])
    last = number_passages([best, weak, middle], order=PassageOrder.BEST_LAST)
    # The same numbers for the same spans: citations resolve exactly as in reading order.
    assert last.sent == reading.sent
    assert [one.number for one in last.sent] == [1, 2, 3]
    text = last.text
    weakest, then, best_at = (text.index(f"[{n}] ") for n in (2, 3, 1))
    assert weakest < then < best_at  # least relevant first, the best right before the question
    assert text.rstrip().endswith("[1] Sentence one is here. [1]")
    # Reading order keeps the record's passages together in document order, its best record first.
    assert reading.text.index("[1] ") < reading.text.index("[2] ") < reading.text.index("[3] ")
    # A record interrupted by another one shows its label again.
    assert text.count("### Starter") == 2 and text.count("### Other") == 1


def test_a_passages_headings_reach_the_model_as_plain_lines() -> None:
    text = "## When something goes wrong\n\nFeed it twice a day. # not a heading"
    record = Candidate("source:md", ItemType.SOURCE, "Starter", text)
    passage = replace(ONE, record=record, char_end=len(text), text=text)
    shown = number_passages([passage]).text
    # Not "\## When ...": the escape is for the context's own layout, and a model copies it.
    assert "[1] When something goes wrong:\n\nFeed it twice a day. # not a heading [1]" in shown
    assert "\\#" not in shown
