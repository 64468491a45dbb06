"""The answer stream without the context's heading escape, however the deltas split it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from open_notebook.context import literal_markdown
from open_notebook.graphs._literal import LiteralStream


def streamed(deltas: list[str]) -> str:
    literal = LiteralStream()
    return "".join(literal.feed(delta) for delta in deltas) + literal.flush()


def test_an_escape_split_across_deltas_is_taken_out() -> None:
    assert streamed(["[1] \\", "## Feeding"]) == "[1] ## Feeding"
    assert streamed(["\\", "#", "# Feeding\n", "\\", "# Next"]) == "## Feeding\n# Next"


def test_a_backslash_that_escapes_nothing_is_kept() -> None:
    assert streamed(["a\\", "#b costs \\", "$5 \\"]) == "a\\#b costs \\$5 \\"


@given(st.text(alphabet="ab #\\\n", max_size=40), st.lists(st.integers(0, 40), max_size=6))
def test_any_split_streams_what_the_whole_answer_reads(text: str, cuts: list[int]) -> None:
    points = sorted({0, len(text), *(min(cut, len(text)) for cut in cuts)})
    deltas = [text[start:end] for start, end in zip(points, points[1:], strict=False)]
    assert streamed(deltas) == literal_markdown(text)
