"""A question in another language than the notebook's is also searched in the notebook's: the
language model's translation (a real OpenAI-compatible client against a loopback server that
replies with it) is searched beside the question and the context is built for it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from graphs_support import loopback_settings, sent_messages

from open_notebook.chat import DoneEvent, ask_notebook
from open_notebook.chat._contexts import notebook_context_factory, source_context_factory
from open_notebook.config import Settings
from open_notebook.embeddings import FakeEmbedder
from open_notebook.graphs import ContextFactory
from open_notebook.ingest import Ingestor
from open_notebook.llm import create_language_model
from open_notebook.llm.testing import LoopbackChatServer
from open_notebook.store import Store, open_store
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


@dataclass
class Bread:
    """A notebook of the given sources, and a model that replies with one text (its server
    keeps every request)."""

    server: LoopbackChatServer
    store: Store
    settings: Settings
    notebook_id: str
    source_ids: list[str]

    def notebook_factory(self) -> ContextFactory:
        return notebook_context_factory(
            self.store,
            FakeEmbedder(),
            self.settings,
            counter=BpeTokenCounter(self.settings.tokenizer),
            llm=create_language_model(self.settings),
        )

    def source_factory(self) -> ContextFactory:
        return source_context_factory(
            self.store,
            BpeTokenCounter(self.settings.tokenizer),
            llm=create_language_model(self.settings),
        )


@asynccontextmanager
async def bread(tmp_path: Path, reply: str, *sources: tuple[str, str]) -> AsyncIterator[Bread]:
    with LoopbackChatServer(reply) as server:
        settings = loopback_settings(tmp_path, server.base_url)
        store = await open_store(settings)
        try:
            notebook = await store.notebooks.create("Bread")
            ingestor = Ingestor(store, FakeEmbedder(), settings)
            added = [await ingestor.add_text(notebook.id, *one) for one in sources]
            ids = [one.source.id for one in added]
            yield Bread(server, store, settings, notebook.id, ids)
        finally:
            await store.close()


async def test_a_question_in_another_language_is_searched_in_the_notebooks(
    tmp_path: Path,
) -> None:
    sources = [("Grains", GRAINS), ("Maintaining a starter", REVIVING)]
    async with bread(tmp_path, TRANSLATION, *sources) as seeded:
        factory = seeded.notebook_factory()
        build = factory(seeded.notebook_id, SPANISH)
        payload = await build(80)
        assert payload.request.query == TRANSLATION
        assert "frequent feeds" in payload.rendered
        # Asked once, into English, with the titles of the hits to word it by.
        requests = seeded.server.requests
        assert len(requests) == 1
        system, user = sent_messages(requests[0])
        assert "into English" in system.content and "Maintaining a starter" in system.content
        assert user.content == SPANISH
        await build(120)
        assert len(requests) == 1

        english = await factory(seeded.notebook_id, "How long does a rye dough ferment?")(80)
        assert english.request.query == "How long does a rye dough ferment?"
        assert len(requests) == 1


async def test_a_reply_that_is_no_translation_leaves_the_question_as_asked(
    tmp_path: Path,
) -> None:
    reply = "Con pequeñas tomas frecuentes [1]."
    async with bread(tmp_path, reply, ("Maintaining a starter", REVIVING)) as seeded:
        payload = await seeded.notebook_factory()(seeded.notebook_id, SPANISH)(80)
        assert payload.request.query == SPANISH
        assert len(seeded.server.requests) == 1


async def test_a_source_asked_in_another_language_is_read_with_the_translation(
    tmp_path: Path,
) -> None:
    text = f"{GRAINS}\n\n{REVIVING}"
    async with bread(tmp_path, TRANSLATION, ("Maintaining a starter", text)) as seeded:
        build = seeded.source_factory()(seeded.source_ids[0], SPANISH)
        payload = await build(60)
        assert payload.request.query == TRANSLATION
        # Ranked by the translation's terms, the passage on saving a starter comes first.
        assert "frequent feeds" in payload.passages[0].text
        assert (await build(90)).request.query == TRANSLATION
        assert len(seeded.server.requests) == 1


async def _asked(seeded: Bread, question: str, *replies: str) -> DoneEvent:
    """The notebook's answer to ``question``, the model replying ``replies`` in turn (then its
    one text)."""
    seeded.server.replies = list(replies)
    events = ask_notebook(
        seeded.store,
        FakeEmbedder(),
        create_language_model(seeded.settings),
        seeded.settings,
        notebook_id=seeded.notebook_id,
        question=question,
    )
    return [event async for event in events if isinstance(event, DoneEvent)][-1]


async def test_a_question_searched_in_translation_is_answered_in_it_then_put_into_the_askers(
    tmp_path: Path,
) -> None:
    """The model answers the translation, in the notebook's language, from the passages; that
    answer is then put into the asker's language, marks kept, and it is what the reader gets.
    (The loopback model replies with one text to every request: which requests it got, and in
    what order, is what is checked.)"""
    async with bread(tmp_path, TRANSLATION, ("Maintaining a starter", REVIVING)) as seeded:
        done = await _asked(seeded, SPANISH)
        requests = [sent_messages(one) for one in seeded.server.requests]
        assert len(requests) == 3
        # 1: the question into English, to search with.
        assert requests[0][-1].content == SPANISH
        # 2: the answer, asked for the translation, in English.
        answer_turn = requests[1][-1].content
        assert f"Question: {TRANSLATION}" in answer_turn and SPANISH not in answer_turn
        assert "written in English" in answer_turn and "frequent feeds" in answer_turn
        # 3: that answer, into Spanish, in the words the asker used for what the question names.
        system, user = requests[2]
        assert "into Spanish" in system.content and "square brackets" in system.content
        assert f'"{TRANSLATION}", was asked in Spanish as "{SPANISH}"' in system.content
        assert user.content == TRANSLATION
        assert done.answer == TRANSLATION


async def test_a_translated_answer_that_says_another_number_is_translated_again_plainly(
    tmp_path: Path,
) -> None:
    """Shown the question as asked, the model can copy from it rather than translate: a reply
    with a number the draft does not hold (or without one of its marks) is not what the reader
    gets; the draft is translated again without the question."""
    draft = "17,000 customers had not received the service. [1]"
    copied = "47.000 clientes aún no habían recibido el servicio. [1]"
    unmarked = "17.000 clientes no habían recibido el servicio."
    plain = "17.000 clientes no habían recibido el servicio. [1]"
    question = "¿Cuántos clientes no habían recibido el servicio?"
    for first in (copied, unmarked):
        async with bread(tmp_path / first[:2], "", ("Maintaining a starter", REVIVING)) as seeded:
            done = await _asked(seeded, question, TRANSLATION, draft, first, plain)
            requests = [sent_messages(one) for one in seeded.server.requests]
            assert len(requests) == 4
            paired, again = requests[2][0].content, requests[3][0].content
            assert question in paired and question not in again and "into Spanish" in again
            assert requests[3][1].content == draft
            assert done.answer == plain

    # A reply that keeps the draft's number (in its own way of writing it) and marks is taken.
    async with bread(tmp_path / "kept", "", ("Maintaining a starter", REVIVING)) as seeded:
        done = await _asked(seeded, question, TRANSLATION, draft, plain, "unused")
        assert len(seeded.server.requests) == 3
        assert done.answer == plain


async def test_a_question_in_the_notebooks_language_is_answered_in_one_request(
    tmp_path: Path,
) -> None:
    async with bread(tmp_path, "Feed it. [1]", ("Maintaining a starter", REVIVING)) as seeded:
        done = await _asked(seeded, "How do I save a neglected starter?")
        assert len(seeded.server.requests) == 1
        assert "written in English" in sent_messages(seeded.server.requests[0])[-1].content
        assert done.answer == "Feed it. [1]"
        assert done.searched is None and done.draft is None
        assert done.as_dict()["searched"] is None and done.as_dict()["draft"] is None


async def test_a_translated_answer_is_judged_on_what_the_model_wrote_from_the_passages(
    tmp_path: Path,
) -> None:
    """Whether it answers is read on the draft, in the passages' language, against the question
    it answered: its terms meet the passages' own, which the asker's words cannot."""
    sources = [("Grains", GRAINS), ("Maintaining a starter", REVIVING)]
    draft = "A neglected starter is saved with small, frequent feeds in a warm spot. [1]"
    shown = "Una masa madre descuidada se salva con tomas pequeñas y frecuentes. [1]"
    async with bread(tmp_path, "", *sources) as seeded:
        done = await _asked(seeded, SPANISH, TRANSLATION, draft, shown)
        assert done.answer == shown
        assert done.answer_check is not None and done.answer_check.answers
        assert done.off_question is None
        # The reader (and a client) can see what was searched and what the model wrote.
        assert (done.searched, done.draft) == (TRANSLATION, draft)
        assert done.as_dict()["searched"] == TRANSLATION and done.as_dict()["draft"] == draft

        # A draft from the wrong passage does not answer, in whatever words it is put.
        off = "A rye dough kept at 14 degrees ferments for 3 hours. [1]"
        put = "Una masa de centeno a 14 grados fermenta 3 horas. [1]"
        done = await _asked(seeded, SPANISH, TRANSLATION, off, put)
        assert done.answer_check is not None and not done.answer_check.answers


async def test_a_translation_that_says_the_question_back_is_no_answer(tmp_path: Path) -> None:
    draft = "A neglected starter is saved with small, frequent feeds in a warm spot. [1]"
    async with bread(tmp_path, "", ("Maintaining a starter", REVIVING)) as seeded:
        # Said back when shown the question, and again when asked without it.
        done = await _asked(seeded, SPANISH, TRANSLATION, draft, SPANISH, SPANISH)
        assert len(seeded.server.requests) == 4
        assert done.answer_check is not None and done.answer_check.echoes
        assert not done.answer_check.answers


async def test_a_draft_that_repeats_the_translation_searched_can_still_answer(
    tmp_path: Path,
) -> None:
    """The translation searched can carry the hits' own words, which a right draft repeats; the
    text the reader gets is what is read for saying the question back."""
    searched = "How do I save a neglected starter in a warm spot?"
    draft = "A neglected starter is saved in a warm spot. [1]"
    shown = "Una masa madre descuidada se salva en un sitio cálido. [1]"
    async with bread(tmp_path, "", ("Maintaining a starter", REVIVING)) as seeded:
        done = await _asked(seeded, SPANISH, searched, draft, shown)
        assert done.answer == shown
        assert done.answer_check is not None and done.answer_check.answers
        assert not done.answer_check.echoes
