"""The notebook:// URIs and the paging of long texts (pure functions)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from open_notebook.errors import InvalidInputError
from open_notebook.mcp._uris import notebook_uri, page_of, part_bounds, record_uri


def test_uris_name_the_record_through_its_notebook() -> None:
    assert notebook_uri("notebook:abc") == "notebook://abc"
    assert record_uri("abc", "source:x1") == "notebook://abc/source/x1"
    assert record_uri("notebook:abc", "note:n-2") == "notebook://abc/note/n-2"
    assert record_uri("abc", "source_insight:i", start=3, end=9) == (
        "notebook://abc/insight/i?start=3&end=9"
    )
    with pytest.raises(InvalidInputError, match="not a source, note or insight"):
        record_uri("abc", "chunk:c")


@given(st.text(alphabet=st.sampled_from("ab \n"), max_size=400), st.integers(4, 60))
def test_parts_cover_the_text_in_order_within_the_size(text: str, size: int) -> None:
    bounds = part_bounds(text, size)
    assert bounds[0][0] == 0 and bounds[-1][1] == len(text)
    assert all(end - start <= size for start, end in bounds)
    assert all(bounds[n][1] == bounds[n + 1][0] for n in range(len(bounds) - 1))
    assert all(end > start for start, end in bounds) or text == ""


def test_parts_break_at_a_paragraph_when_one_is_near() -> None:
    text = "first paragraph here.\n\nsecond one follows it and goes on"
    (start, end), *_ = part_bounds(text, 30)
    assert text[start:end] == "first paragraph here.\n\n"


def test_a_page_says_where_to_read_on() -> None:
    text = "one two three four five six"
    first = page_of(text, "notebook://a/source/b", part=None, start=None, end=None, size=10)
    assert first.part == 1 and first.parts == 4
    assert first.body().endswith("[part 1 of 4; read on at notebook://a/source/b?part=2]")
    last = page_of(text, "notebook://a/source/b?part=4", part=4, start=None, end=None, size=10)
    assert last.next_uri is None and last.body() == last.text
    span = page_of(text, "u", part=None, start=4, end=7, size=10)
    assert span.body() == "two"
