"""The demo's judged questions (``bench/demo_questions.py``): every question is judged against
the source that says its answer, so none is dropped from the context measure, and an answer is
right by its phrases, case and line breaks aside."""

from __future__ import annotations

from pathlib import Path

from bench.demo_questions import Question, questions, write_dataset

from open_notebook.eval import load_dataset


def test_every_question_is_judged_against_a_source_that_says_its_answer(tmp_path: Path) -> None:
    asked = questions()
    write_dataset(tmp_path / "demo", asked)
    dataset = load_dataset(tmp_path / "demo")
    assert len(asked) >= 40
    assert set(dataset.queries) == {one.id for one in asked}
    assert all(document.format == "markdown" for document in dataset.documents)


def test_an_answer_is_right_by_any_of_its_phrases() -> None:
    question = Question("q", "How long can a starter live in the refrigerator?", ("week or two",))
    assert question.said_by("It keeps for a Week\nor two between feeds. [1]")
    assert not question.said_by("It can live in the refrigerator for one or two hours. [1]")
