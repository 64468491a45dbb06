from __future__ import annotations

from pathlib import Path

from graphs_support import loopback_settings, sent_messages

from open_notebook.chat import DoneEvent, TokenEvent, ask_notebook
from open_notebook.config import Settings
from open_notebook.embeddings import FakeEmbedder
from open_notebook.llm import CitationStatus, create_language_model
from open_notebook.llm.testing import LoopbackChatServer
from open_notebook.store import ChunkRow, Store
from open_notebook.store._sources import NewSource

STARTER = "Feed the sourdough starter flour and water every day; rye flour makes it livelier."
SCORING = "Score the loaf with a razor blade at a shallow angle so the crust opens as an ear."
# With only two documents every query word is in half of them, where BM25 scores 0 and fusion
# ranks ties arbitrarily; unrelated sources make the word statistics meaningful.
FILLERS = (
    "Preheat the oven with a baking stone for forty minutes.",
    "Store the cooled bread in a linen bag on the counter.",
    "Weigh ingredients in grams for repeatable results.",
)


def rows(text: str, embedder: FakeEmbedder) -> list[ChunkRow]:
    vector = embedder.embed_documents([text])[0]
    return [
        ChunkRow(
            ord=0,
            text=text,
            token_count=embedder.count_tokens(text),
            char_start=0,
            char_end=len(text),
            embedding=[float(x) for x in vector],
            model_id=embedder.model_id,
            dim=embedder.dim,
        )
    ]


async def seed(store: Store, embedder: FakeEmbedder) -> tuple[str, str, str]:
    notebook = await store.notebooks.create("Bread")
    starter = await store.sources.create(
        NewSource(title="Starter", full_text=STARTER),
        notebook_ids=[notebook.id],
        chunks=rows(STARTER, embedder),
    )
    scoring = await store.sources.create(
        NewSource(title="Scoring", full_text=SCORING),
        notebook_ids=[notebook.id],
        chunks=rows(SCORING, embedder),
    )
    for text in FILLERS:
        await store.sources.create(
            NewSource(title="Filler", full_text=text),
            notebook_ids=[notebook.id],
            chunks=rows(text, embedder),
        )
    return notebook.id, starter.id, scoring.id


async def ask(
    store: Store,
    settings: Settings,
    embedder: FakeEmbedder,
    *,
    context_budget: int | None = None,
    **kwargs: object,
) -> tuple[list[str], DoneEvent]:
    llm = create_language_model(settings)
    # The model's own budget, as a local model on the CPU has it.
    llm.context_budget = context_budget
    tokens: list[str] = []
    done: DoneEvent | None = None
    async for event in ask_notebook(store, embedder, llm, settings, **kwargs):  # type: ignore[arg-type]
        if isinstance(event, TokenEvent):
            tokens.append(event.text)
        else:
            done = event
    assert done is not None
    return tokens, done


async def test_each_turn_retrieves_with_its_own_question(store: Store, tmp_path: Path) -> None:
    embedder = FakeEmbedder()
    notebook_id, starter_id, scoring_id = await seed(store, embedder)
    answer = f"Feed daily [{starter_id}] and never [note:ghost]. Score it [{scoring_id}]."
    with LoopbackChatServer(answer) as server:
        settings = loopback_settings(tmp_path, server.base_url)
        tokens, first = await ask(
            store,
            settings,
            embedder,
            notebook_id=notebook_id,
            question="How often do I feed the sourdough starter?",
            max_context_tokens=48,
        )
        _, second = await ask(
            store,
            settings,
            embedder,
            notebook_id=notebook_id,
            question="How do I score the loaf with a razor blade?",
            session_id=first.session_id,
            max_context_tokens=48,
        )
    assert "".join(tokens).strip() == first.answer == answer
    first_user = sent_messages(server.requests[0])[-1].content
    second_user = sent_messages(server.requests[1])[-1].content
    # A 48-token budget holds one passage (label, number, text): the one the question is about.
    # Labels show titles, not record ids: the payload maps each number to its record.
    assert "### Starter\n[1] " in first_user and "rye flour" in first_user
    assert "### Scoring" not in first_user and starter_id not in first_user
    assert "### Scoring" in second_user and "razor blade" in second_user
    assert {c.id: c.status for c in first.citations} == {
        starter_id: CitationStatus.VALID,
        "note:ghost": CitationStatus.UNKNOWN,
        scoring_id: CitationStatus.NOT_IN_CONTEXT,  # a real source the first turn did not show
    }
    # The second turn shows the scoring passage, and the kept first turn still shows the
    # starter's: the model saw both.
    second_statuses = {c.id: c.status for c in second.citations}
    assert second_statuses[starter_id] is CitationStatus.VALID
    assert second_statuses[scoring_id] is CitationStatus.VALID
    assert first.plan["context_budget"] == 48 and first.context_tokens <= 48
    assert second.plan["history_kept"] == 2
    llm = create_language_model(settings)
    for request in server.requests:
        assert llm.count_messages(sent_messages(request)) + 128 <= 2048


async def test_the_layout_settings_change_the_prompt_not_the_numbers(
    store: Store, tmp_path: Path
) -> None:
    embedder = FakeEmbedder()
    notebook_id, _, _ = await seed(store, embedder)
    question = "How do I score the loaf with a razor blade?"
    with LoopbackChatServer("Score it at an angle [1].") as server:
        reading = loopback_settings(tmp_path, server.base_url)
        laid_out = reading.model_copy(
            update={"llm_passage_order": "best-last", "llm_question_first": True}
        )
        _, first = await ask(store, reading, embedder, notebook_id=notebook_id, question=question)
        _, second = await ask(store, laid_out, embedder, notebook_id=notebook_id, question=question)
    assert len(first.passages) > 1
    # The same passages under the same numbers: citations resolve alike.
    assert first.passages == second.passages
    assert first.sentences == second.sentences
    plain = sent_messages(server.requests[0])[-1].content
    turned = sent_messages(server.requests[1])[-1].content
    assert plain.startswith("Context:\n### Scoring\n[1] ")
    assert turned.startswith(f"Question: {question}\n\nContext:\n")
    # The best passage (numbered first) is laid out last, right before the question.
    assert second.context.rstrip().endswith(f"[1] {SCORING} [1]")
    assert first.context != second.context
    numbered = [
        {line for line in one.context.splitlines() if line.startswith("[")}
        for one in (first, second)
    ]
    assert numbered[0] == numbered[1] and len(numbered[0]) == len(first.passages)


async def test_an_answer_that_copies_an_escaped_heading_shows_the_sources_words(
    store: Store, tmp_path: Path
) -> None:
    embedder = FakeEmbedder()
    notebook_id, _, _ = await seed(store, embedder)
    copied = "[1] \\## Feeding\n\nFeed the sourdough starter flour and water every day."
    with LoopbackChatServer(copied) as server:
        settings = loopback_settings(tmp_path, server.base_url)
        tokens, done = await ask(
            store,
            settings,
            embedder,
            notebook_id=notebook_id,
            question="How often do I feed the sourdough starter?",
        )
    # What is streamed, kept and attributed is the source's text.
    literal = "[1] ## Feeding\n\nFeed the sourdough starter flour and water every day."
    assert "".join(tokens).strip() == done.answer == literal
    assert done.sentences and not any("\\" in one.text for one in done.sentences)


async def test_a_question_that_asks_two_things_gets_the_models_budget_for_each(
    store: Store, tmp_path: Path
) -> None:
    embedder = FakeEmbedder()
    notebook_id, _, _ = await seed(store, embedder)
    one = "How often do I feed the sourdough starter?"
    two = "How often do I feed the sourdough starter, and how do I score the loaf?"
    budgets: list[int] = []
    with LoopbackChatServer("Feed it every day.") as server:
        settings = loopback_settings(tmp_path, server.base_url)
        for question in (one, two):
            _, done = await ask(
                store,
                settings,
                embedder,
                context_budget=60,
                notebook_id=notebook_id,
                question=question,
            )
            budgets.append(done.plan["context_budget"])
    assert budgets == [60, 120]
