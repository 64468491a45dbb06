from __future__ import annotations

import re
from pathlib import Path

import pytest

from open_notebook.config import LocalModelName
from open_notebook.graphs import frame
from open_notebook.llm import LocalModel, cite_grammar, model_spec, parse_marks

PASSAGES = (
    "### Eiffel Tower\n[2] The tower was completed in March 1889 for the World's Fair.\n\n"
    "### Bees\n[5] A worker bee lives about six weeks in summer."
)


def test_the_grammar_offers_only_the_numbers_shown() -> None:
    grammar = cite_grammar([5, 2, 2])
    assert grammar is not None
    assert 'ref ::= "2" | "5"' in grammar
    assert re.search(r'"[013-46-9]"', grammar) is None


def test_no_passage_shown_means_no_grammar() -> None:
    assert cite_grammar([]) is None


@pytest.mark.slow
async def test_the_model_held_by_the_grammar_ends_its_answer_with_a_shown_mark(
    tmp_path: Path,
) -> None:
    # Held by the grammar, the model cannot stop before a mark, nor cite a number it was not
    # shown.
    model = LocalModel(model_spec(LocalModelName.QWEN_05B), tmp_path, context_window=1024)
    messages = frame("When was the tower completed?", [], PASSAGES, language="English")
    answer = "".join([one async for one in model.stream(messages, max_tokens=48, cite=[2, 5])])
    marks = parse_marks(answer)
    assert marks, answer
    assert {ref.value for mark in marks for ref in mark.refs} <= {"2", "5"}
    assert answer.rstrip(". ").endswith("]")
    assert "1889" in answer
    model.close()
