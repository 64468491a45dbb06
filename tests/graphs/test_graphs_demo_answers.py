"""The default local model on the demo notebook answers the demo's questions right: the fact the
question asks, cited to the passage that says it, in the asker's language (real ingest, real
embedder, real model, greedy).

The dense-bread question asks two things, and gets the words of context one question gets for
each (``llm/_budget.py``): in the room of one, its context held the temperature passages and
left out the sentence that says a cold kitchen cuts fermentation short. `make demo`'s notebook
also holds a note about a cold kitchen and dense loaves, which competes for the same room; there
the rye passage that one part puts first must not take it (the parts' lists vote on the hits,
``search/_parts.py``), or the model answers from the passage on warm fermentation.

A question in another language than the notebook's is answered from its translation, in the
notebook's language, and the answer is put into the asker's (``llm/_translate.py``): the French
revive question and the demo's own question in French are answered right that way (the French
one was answered with a restatement of the question when the model wrote French from English
passages). Put back into the asker's language beside the question as asked, the answer calls
things what the asker called them ("levain", "masa madre"). Two of issue 43's acceptance checks
do not hold and are marked ``xfail(strict=True)``, so the day one passes the marker must go: the
short Spanish dense-bread question cites a passage about rye that does not say it, and the demo's
own question in Spanish is answered, once put into Spanish, with only that the temperature
affects the fermentation. The revive question in English is answered right (its mark on the
passage that says to feed the starter in a warm spot since search re-reads its top hits by their
best sentence, ``search/_sentences.py``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
import pytest_asyncio

from open_notebook.chat import DoneEvent, ask_notebook
from open_notebook.cli._demo import NOTE_TEXT, NOTE_TITLE, corpus_files
from open_notebook.config import LowCoverage, Settings
from open_notebook.embeddings import Embedder, create_embedder
from open_notebook.ingest import Extracted, Ingestor, SourceFormat
from open_notebook.llm import CitedBy, LocalModel, model_spec
from open_notebook.store import Store, open_store
from open_notebook.text import LanguageDetector

# One notebook and one loaded model for the module's questions.
pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]

DENSE = "Why does sourdough bread come out dense, and how does temperature affect fermentation?"
REVIVE = "How do I revive a neglected starter?"
FERMENTATION = "Fermentation and temperature"
TROUBLESHOOTING = "Troubleshooting common sourdough problems"
MAINTAINING = "Maintaining and reviving a starter"


@dataclass
class Demo:
    store: Store
    embedder: Embedder
    model: LocalModel
    settings: Settings
    notebook_id: str
    # The same documents with `make demo`'s note beside them, as the demo command builds it.
    with_note_id: str
    # Greedy decoding on one notebook gives one answer to one question: tests that read the
    # same answer share it.
    answers: dict[tuple[str, str, LowCoverage], DoneEvent] = field(default_factory=dict)

    async def ask(
        self, question: str, settings: Settings | None = None, *, notebook_id: str | None = None
    ) -> DoneEvent:
        used = settings or self.settings
        key = (question, notebook_id or self.notebook_id, used.low_coverage)
        if key not in self.answers:
            self.answers[key] = await self._asked(question, used, key[1])
        return self.answers[key]

    async def _asked(self, question: str, settings: Settings, notebook_id: str) -> DoneEvent:
        found = [
            event
            async for event in ask_notebook(
                self.store,
                self.embedder,
                self.model,
                settings,
                notebook_id=notebook_id,
                question=question,
            )
            if isinstance(event, DoneEvent)
        ]
        return found[-1]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def demo(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Demo]:
    folder = tmp_path_factory.mktemp("demo-answers")
    settings = Settings(data_dir=folder, database_url="mem://")
    embedder = create_embedder(settings)
    embedder.warm_up()
    model = LocalModel(model_spec(settings.local_model), folder / "models")
    store = await open_store(settings)
    notebook = await store.notebooks.create("Sourdough")
    ingestor = Ingestor(store, embedder, settings)
    prepared = await ingestor.prepare_many(
        [
            Extracted(_title(text), text, SourceFormat.MARKDOWN)
            for text in (path.read_text(encoding="utf-8") for path in corpus_files())
        ]
    )
    await ingestor.commit_many(notebook.id, prepared)
    with_note = await store.notebooks.create("Sourdough (demo)")
    await ingestor.commit_many(with_note.id, prepared)
    await ingestor.add_note(with_note.id, NOTE_TEXT, title=NOTE_TITLE)
    try:
        yield Demo(store, embedder, model, settings, notebook.id, with_note.id)
    finally:
        model.close()
        await store.close()


def _title(markdown: str) -> str:
    return markdown.splitlines()[0].removeprefix("# ").strip()


def _cited_titles(done: DoneEvent) -> set[str]:
    """The titles of the passages the model's own marks cite and that hold their sentence."""
    return {
        citation.passage.title
        for sentence in done.sentences
        for citation in sentence.citations
        if citation.by is CitedBy.MODEL and citation.supports and citation.passage is not None
    }


async def test_the_dense_bread_question_gets_under_fermentation_cited(demo: Demo) -> None:
    done = await demo.ask(DENSE)
    text = done.answer.lower()
    assert not done.refused, done.answer
    assert "dense" in text and ("cold" in text or "under-ferment" in text), done.answer
    assert _cited_titles(done) & {FERMENTATION, TROUBLESHOOTING}, done.answer
    assert done.answer_check is not None and done.answer_check.answers


async def test_make_demos_notebook_with_its_note_gets_the_dense_bread_question_right(
    demo: Demo,
) -> None:
    """The note ("My kitchen stays around 18 °C in winter, and my last two loaves were dense…")
    competes for the context's room: the answer still says a cold dough makes it dense, held by
    the fermentation or troubleshooting passage."""
    done = await demo.ask(DENSE, notebook_id=demo.with_note_id)
    text = done.answer.lower()
    assert not done.refused, done.answer
    assert "dense" in text and ("cold" in text or "under-ferment" in text), done.answer
    held = {
        citation.passage.title
        for sentence in done.sentences
        for citation in sentence.citations
        if citation.supports and citation.passage is not None
    }
    assert held & {FERMENTATION, TROUBLESHOOTING}, done.answer
    assert done.answer_check is not None and done.answer_check.answers


async def test_the_revive_question_gets_feeding_cited(demo: Demo) -> None:
    done = await demo.ask(REVIVE)
    assert not done.refused, done.answer
    assert "feed" in done.answer.lower(), done.answer
    assert MAINTAINING in _cited_titles(done), done.answer


async def test_the_revive_answer_comes_with_the_feeding_passage_as_its_best_evidence(
    demo: Demo,
) -> None:
    """What holds today: the context holds the passage that answers, the answer speaks of
    feeding, and the answer check quotes that passage as the best evidence beside it."""
    done = await demo.ask(REVIVE)
    assert "small, frequent feeds in\na warm spot" in done.context
    assert "feed" in done.answer.lower(), done.answer
    assert done.answer_check is not None and done.answer_check.evidence is not None
    assert "small, frequent feeds" in done.answer_check.evidence.text


async def test_an_uncovered_question_in_another_language_is_answered_in_it_when_asked_anyway(
    demo: Demo,
) -> None:
    """With ``low_coverage=warn`` a question the notebook does not cover is answered all the
    same, in the question's language, under the notice that says so."""
    warn = demo.settings.model_copy(update={"low_coverage": LowCoverage.WARN})
    done = await demo.ask("¿Quién ganó la Copa del Mundo de 2010?", warn)
    assert not done.refused, done.answer
    assert done.notice, done.answer
    written = " ".join(sentence.text for sentence in done.sentences) or done.answer
    assert LanguageDetector().detect(written) == "es", done.answer


ANSWERED = [
    # What the answer must say, any one of: fermentation; feeding, or a warm spot.
    pytest.param(
        "¿Por qué el pan de masa madre sale denso?",
        "es",
        ("ferment",),
        {FERMENTATION, TROUBLESHOOTING},
        marks=pytest.mark.xfail(
            strict=True, reason="issue 43: the 1.5B cites the rye passage [4], not [1]"
        ),
    ),
    pytest.param(
        "Comment raviver un levain négligé ?",
        "fr",
        ("nourri", "chaud"),
        {MAINTAINING},
    ),
    # The demo's own question, as a Spanish or French reader asks it: two things asked, so the
    # context gets the words of two questions, and the cold-kitchen sentence is in it.
    pytest.param(
        "¿Por qué el pan de masa madre sale denso y cómo afecta la temperatura a la fermentación?",
        "es",
        ("frí", "baja"),
        {FERMENTATION, TROUBLESHOOTING},
        marks=pytest.mark.xfail(
            strict=True,
            reason="issue 43: the answer, put into Spanish, says only that the temperature "
            "affects the fermentation",
        ),
    ),
    pytest.param(
        "Pourquoi le pain au levain est-il dense, et comment la température influence-t-elle "
        "la fermentation ?",
        "fr",
        ("froid", "basse"),
        {FERMENTATION, TROUBLESHOOTING},
    ),
]


@pytest.mark.parametrize(("question", "language", "said", "titles"), ANSWERED)
async def test_a_question_in_another_language_is_answered_in_it(
    demo: Demo, question: str, language: str, said: tuple[str, ...], titles: set[str]
) -> None:
    """Searched and judged also in the notebook's language (the model's translation), the
    question is covered; the answer says the fact in the asker's language and cites it."""
    done = await demo.ask(question)
    assert not done.refused, done.answer
    written = " ".join(sentence.text for sentence in done.sentences) or done.answer
    assert LanguageDetector().detect(written) == language, done.answer
    assert any(one in done.answer.lower() for one in said), done.answer
    assert titles & {
        citation.passage.title
        for sentence in done.sentences
        for citation in sentence.citations
        if citation.by is CitedBy.MODEL and citation.passage is not None
    }, done.answer
    assert done.answer_check is not None and done.answer_check.answers, done.answer


@pytest.mark.parametrize(
    ("question", "named"),
    [
        # Put back without the question, the starter came out "démarrage" and the refrigerator
        # "refrigeradora"; "masa madre" came out "saboro de levadura".
        ("Comment raviver un levain négligé ?", ("levain",)),
        ("¿Se puede guardar la masa madre en la nevera?", ("masa madre", "nevera")),
    ],
)
async def test_a_translated_answer_calls_things_what_the_asker_called_them(
    demo: Demo, question: str, named: tuple[str, ...]
) -> None:
    done = await demo.ask(question)
    assert done.draft, done.answer  # answered in English, then put into the asker's language
    assert all(one in done.answer.lower() for one in named), done.answer


async def test_a_translation_that_says_a_title_back_is_asked_for_again(demo: Demo) -> None:
    """The first hit's title, "Maintaining and reviving a starter", was the whole translation
    ("How to maintain and revive a starter?"), and the refrigerator was not searched for."""
    done = await demo.ask("Comment conserver un levain au réfrigérateur ?")
    assert done.searched and "refrigerator" in done.searched.lower(), done.searched


@pytest.mark.parametrize(
    "question",
    ["¿Quién ganó la Copa del Mundo de 2010?", "Quelle est la capitale de l'Australie ?"],
)
async def test_an_off_topic_question_in_another_language_is_still_refused(
    demo: Demo, question: str
) -> None:
    done = await demo.ask(question)
    assert done.refused, done.answer
