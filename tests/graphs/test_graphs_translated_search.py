"""A question in another language than the notebook's is also searched in the notebook's: the
language model's translation (a real OpenAI-compatible client against a loopback server that
replies with it) is searched beside the question and the context is built for it."""

from __future__ import annotations

from pathlib import Path

from graphs_support import loopback_settings, sent_messages

from open_notebook.chat._contexts import notebook_context_factory, source_context_factory
from open_notebook.embeddings import FakeEmbedder
from open_notebook.ingest import Ingestor
from open_notebook.llm import create_language_model
from open_notebook.llm.testing import LoopbackChatServer
from open_notebook.store import open_store
from open_notebook.tokens import BpeTokenCounter

GRAINS = "\n\n".join(
    f"A {grain} dough kept at {14 + index} degrees ferments for {3 + index} hours, and a {grain} "
    f"loaf baked at {230 + index} degrees takes {40 + index} minutes to colour its crust."
    for index, grain in enumerate(("rye", "spelt", "wheat", "barley", "oat", "emmer"))
)
REVIVING = (
    "A neglected starter that stopped rising can nearly always be saved with a few days of "
    "small, frequent feeds in a warm spot."
)
TRANSLATION = "How do I save a neglected starter?"
SPANISH = "¿Cómo salvo una masa madre descuidada?"


async def test_a_question_in_another_language_is_searched_in_the_notebooks(
    tmp_path: Path,
) -> None:
    with LoopbackChatServer(TRANSLATION) as server:
        settings = loopback_settings(tmp_path, server.base_url)
        store = await open_store(settings)
        try:
            notebook = await store.notebooks.create("Bread")
            ingestor = Ingestor(store, FakeEmbedder(), settings)
            await ingestor.add_text(notebook.id, "Grains", GRAINS)
            await ingestor.add_text(notebook.id, "Maintaining a starter", REVIVING)
            factory = notebook_context_factory(
                store,
                FakeEmbedder(),
                settings,
                counter=BpeTokenCounter(settings.tokenizer),
                llm=create_language_model(settings),
            )
            build = factory(notebook.id, SPANISH)
            payload = await build(80)
            assert payload.request.query == TRANSLATION
            assert "frequent feeds" in payload.rendered
            # Asked once, into English, with the titles of the hits to word it by.
            assert len(server.requests) == 1
            system, user = sent_messages(server.requests[0])
            assert "into English" in system.content and "Maintaining a starter" in system.content
            assert user.content == SPANISH
            await build(120)
            assert len(server.requests) == 1

            english = await factory(notebook.id, "How long does a rye dough ferment?")(80)
            assert english.request.query == "How long does a rye dough ferment?"
            assert len(server.requests) == 1
        finally:
            await store.close()


async def test_a_reply_that_is_no_translation_leaves_the_question_as_asked(
    tmp_path: Path,
) -> None:
    with LoopbackChatServer("Con pequeñas tomas frecuentes [1].") as server:
        settings = loopback_settings(tmp_path, server.base_url)
        store = await open_store(settings)
        try:
            notebook = await store.notebooks.create("Bread")
            await Ingestor(store, FakeEmbedder(), settings).add_text(
                notebook.id, "Maintaining a starter", REVIVING
            )
            factory = notebook_context_factory(
                store,
                FakeEmbedder(),
                settings,
                counter=BpeTokenCounter(settings.tokenizer),
                llm=create_language_model(settings),
            )
            payload = await factory(notebook.id, SPANISH)(80)
            assert payload.request.query == SPANISH
            assert len(server.requests) == 1
        finally:
            await store.close()


async def test_a_source_asked_in_another_language_is_read_with_the_translation(
    tmp_path: Path,
) -> None:
    with LoopbackChatServer(TRANSLATION) as server:
        settings = loopback_settings(tmp_path, server.base_url)
        store = await open_store(settings)
        try:
            notebook = await store.notebooks.create("Bread")
            added = await Ingestor(store, FakeEmbedder(), settings).add_text(
                notebook.id, "Maintaining a starter", f"{GRAINS}\n\n{REVIVING}"
            )
            factory = source_context_factory(
                store, BpeTokenCounter(settings.tokenizer), llm=create_language_model(settings)
            )
            build = factory(added.source.id, SPANISH)
            payload = await build(60)
            assert payload.request.query == TRANSLATION
            # Ranked by the translation's terms, the passage on saving a starter comes first.
            assert "frequent feeds" in payload.passages[0].text
            assert (await build(90)).request.query == TRANSLATION
            assert len(server.requests) == 1
        finally:
            await store.close()
