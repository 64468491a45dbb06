"""The not-covered notice speaks the question's language, through the real chat path (real
ingest, the int8 MiniLM, the embedded database); refusing asks no model at all."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from open_notebook.chat import DoneEvent, TokenEvent, ask_notebook
from open_notebook.config import Settings
from open_notebook.embeddings import Embedder, create_embedder
from open_notebook.graphs import (
    NEAREST_HEADING,
    NOT_COVERED,
    WARNING,
    coverage_notice,
    nearest_heading,
)
from open_notebook.ingest import Extracted, Ingestor, SourceFormat
from open_notebook.llm import ChatMessage, Quote
from open_notebook.store import Store
from open_notebook.text import LanguageDetector

ABEILLES = (
    "Une colonie d'abeilles compte une reine, des milliers d'ouvrières et quelques faux bourdons. "
    "Les abeilles fabriquent le miel à partir du nectar des fleurs et le stockent dans la cire."
)


class NeverAsked:
    """A model the refusing path must not reach."""

    model_id = "never-asked"
    context_window = 4096
    context_budget = None
    context_words = None

    def warm_up(self) -> None:
        """Nothing to load."""

    def count_tokens(self, text: str) -> int:
        return len(text.split()) + 1

    def count_messages(self, messages: Sequence[ChatMessage]) -> int:
        return sum(self.count_tokens(one.content) + 4 for one in messages)

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        stop: Sequence[str] = (),
        quote: Sequence[Quote] = (),
        cite: Sequence[int] = (),
    ) -> AsyncIterator[str]:
        raise AssertionError("a question the notebook does not cover reached the model")
        yield ""  # pragma: no cover - makes this an async generator


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    model = create_embedder(Settings(database_url="mem://"))
    model.warm_up()
    return model


def test_each_language_has_both_notices_and_others_read_english() -> None:
    assert NOT_COVERED.keys() == WARNING.keys() == NEAREST_HEADING.keys()
    # The page shows the part before " — " as the heading's name, the rest as what it means.
    assert all(" — " in heading for heading in NEAREST_HEADING.values())
    languages = LanguageDetector()
    assert (
        nearest_heading("¿Quién ganó la final del Mundial?", languages=languages)
        == NEAREST_HEADING["es"]
    )
    french = coverage_notice(
        "Qui a gagné la finale de la Coupe du monde ?", refused=True, languages=languages
    )
    assert french == NOT_COVERED["fr"]
    assert (
        coverage_notice("¿Quién ganó la final del Mundial?", refused=False, languages=languages)
        == WARNING["es"]
    )
    assert (
        coverage_notice("谁赢得了世界杯决赛？", refused=True, languages=languages)
        == (NOT_COVERED["zh"])
    )
    # Korean (its script settles the language) has no notices of its own.
    assert (
        coverage_notice(
            "누가 1998년 월드컵 결승에서 이겼나요?",
            refused=True,
            languages=languages,
        )
        == NOT_COVERED["en"]
    )


async def _abeilles(store: Store, embedder: Embedder, settings: Settings) -> str:
    """A notebook of one French source about bees: the questions below are about football."""
    notebook = await store.notebooks.create("Abeilles")
    ingestor = Ingestor(store, embedder, settings)
    prepared = await ingestor.prepare_many([Extracted("Les abeilles", ABEILLES, SourceFormat.TEXT)])
    for result in await ingestor.commit_many(notebook.id, prepared):
        assert not isinstance(result, Exception)
    return notebook.id


async def test_a_refused_french_question_is_told_so_in_french(
    store: Store, embedder: Embedder, tmp_path: Path
) -> None:
    settings = Settings(data_dir=tmp_path, database_url="mem://")
    notebook_id = await _abeilles(store, embedder, settings)
    tokens: list[str] = []
    done = None
    async for event in ask_notebook(
        store,
        embedder,
        NeverAsked(),
        settings,
        notebook_id=notebook_id,
        question="Qui a gagné la finale de la Coupe du monde ?",
    ):
        if isinstance(event, TokenEvent):
            tokens.append(event.text)
        if isinstance(event, DoneEvent):
            done = event
    assert done is not None and done.refused
    assert done.notice == NOT_COVERED["fr"]
    assert done.answer == NOT_COVERED["fr"] == "".join(tokens)
    assert done.nearest_heading == NEAREST_HEADING["fr"]


class Translates(NeverAsked):
    """A model asked only to translate (it gives nothing back): the refusing path must not
    ask it for an answer."""

    def __init__(self) -> None:
        self.translations = 0

    async def complete(
        self, messages: Sequence[ChatMessage], *, max_tokens: int, stop: Sequence[str] = ()
    ) -> str:
        self.translations += 1
        return ""


async def test_a_short_question_is_read_in_the_askers_language(
    store: Store, embedder: Embedder, tmp_path: Path
) -> None:
    """ "Quelle equipe l'inter a battu ?" holds only words Italian shares ("quelle", "l'"), so
    it reads as Italian: it is put into French to search the French notebook, and refused in
    Italian. Asked by a reader whose browser says French, it is French: searched as asked and
    refused in French."""
    settings = Settings(data_dir=tmp_path, database_url="mem://")
    notebook_id = await _abeilles(store, embedder, settings)

    async def asked(asker: str) -> tuple[str | None, int]:
        model = Translates()
        found = [
            event
            async for event in ask_notebook(
                store,
                embedder,
                model,
                settings,
                notebook_id=notebook_id,
                question="Quelle equipe l’inter a battu 6-2 ?",
                asker=asker,
            )
            if isinstance(event, DoneEvent)
        ]
        assert found and found[0].refused
        return found[0].notice, model.translations

    assert await asked("") == (NOT_COVERED["it"], 1)
    assert await asked("fr-CH, fr;q=0.9, en;q=0.8") == (NOT_COVERED["fr"], 0)
    # A reader of English: English has no word in the question to tip, so it stays Italian.
    assert await asked("en-US") == (NOT_COVERED["it"], 1)
