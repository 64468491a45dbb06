from __future__ import annotations

from pathlib import Path

import pytest
from graphs_support import Seeded, loopback_settings, sent_messages

from open_notebook.chat import ChatSessions, DoneEvent, TokenEvent, chat_with_source
from open_notebook.config import Settings
from open_notebook.errors import ConflictError, InvalidInputError, ModelError, NotFoundError
from open_notebook.graphs import SYSTEM_PROMPT, StoredMessage, answer_rule
from open_notebook.llm import (
    CitationStatus,
    LocalModel,
    Role,
    create_language_model,
)
from open_notebook.llm.testing import LoopbackChatServer
from open_notebook.store import Store


async def run(store: Store, settings: Settings, **kwargs: object) -> tuple[list[str], DoneEvent]:
    llm = create_language_model(settings)
    tokens: list[str] = []
    done: DoneEvent | None = None
    async for event in chat_with_source(store, llm, settings, **kwargs):  # type: ignore[arg-type]
        if isinstance(event, TokenEvent):
            tokens.append(event.text)
        else:
            done = event
    assert done is not None
    return tokens, done


async def test_prompt_holds_the_source_context_and_citations_are_checked(
    store: Store, seeded: Seeded, tmp_path: Path
) -> None:
    answer = (
        f"Feed it daily [{seeded.source_id}]. Rye helps [{seeded.insight_id}]. "
        f"Ovens too [{seeded.other_source_id}] and [source:invented42]."
    )
    with LoopbackChatServer(answer) as server:
        settings = loopback_settings(tmp_path, server.base_url)
        tokens, done = await run(
            store, settings, source_id=seeded.source_id, question="How do I feed a starter?"
        )
    assert len(tokens) > 3 and "".join(tokens).strip() == done.answer == answer
    request = server.requests[0]
    messages = sent_messages(request)
    assert messages[0].content == SYSTEM_PROMPT
    user = messages[-1].content
    # The rendered context is sent with numbered passages under compact labels (title, and the
    # type of what is not a source), including the source's own text.
    assert "### Starter basics\n[" in user and "### Insight: summary\n[1] " in user
    assert seeded.source_id not in user and seeded.insight_id not in user
    assert "doubles in four to six hours" in user
    assert user.endswith(f"Question: How do I feed a starter?\n{answer_rule('English')}")
    # The request fits the stated window, counted the way the plan counts it.
    llm = create_language_model(settings)
    assert llm.count_messages(messages) + request["max_tokens"] <= done.plan["window"] == 2048
    assert done.plan["request_tokens"] == llm.count_messages(messages)
    assert done.plan["context_tokens"] <= done.plan["context_budget"]
    statuses = {c.id: c.status for c in done.citations}
    assert statuses == {
        seeded.source_id: CitationStatus.VALID,
        seeded.insight_id: CitationStatus.VALID,
        seeded.other_source_id: CitationStatus.NOT_IN_CONTEXT,
        "source:invented42": CitationStatus.UNKNOWN,
    }
    included = {item["id"] for item in done.manifest["included"]}
    assert {seeded.source_id, seeded.insight_id} <= included
    stored = await ChatSessions(store.sessions).messages(done.session_id)
    assert [m.role for m in stored] == [Role.USER, Role.ASSISTANT]
    assert stored[1].meta["citations"][0]["status"] == "valid"


async def test_second_turn_sends_the_first_as_history(
    store: Store, seeded: Seeded, tmp_path: Path
) -> None:
    with LoopbackChatServer(f"Daily [{seeded.source_id}].") as server:
        settings = loopback_settings(tmp_path, server.base_url)
        _, first = await run(store, settings, source_id=seeded.source_id, question="How often?")
        _, second = await run(
            store,
            settings,
            source_id=seeded.source_id,
            question="And with rye?",
            session_id=first.session_id,
        )
    assert second.session_id == first.session_id
    roles = [m.role for m in sent_messages(server.requests[1])]
    assert roles == [Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.USER]
    # The first turn is sent as it was: its context, then its question.
    earlier = sent_messages(server.requests[1])[1].content
    assert earlier.startswith("Context:\n") and earlier.endswith("Question: How often?")
    assert second.plan["history_kept"] == 2 and second.plan["history_trimmed"] == 0
    assert len(await ChatSessions(store.sessions).messages(first.session_id)) == 4


async def test_history_larger_than_the_window_is_trimmed_and_still_answers(
    store: Store, seeded: Seeded, tmp_path: Path
) -> None:
    with LoopbackChatServer(f"Still fine [{seeded.source_id}].") as server:
        settings = loopback_settings(tmp_path, server.base_url, window=1024)
        _, first = await run(store, settings, source_id=seeded.source_id, question="Start")
        long_turn = "The starter was discussed at length. " * 60  # ~480 tokens each
        sessions = ChatSessions(store.sessions)
        await sessions.append(
            first.session_id,
            [StoredMessage(Role.ASSISTANT if i % 2 else Role.USER, long_turn) for i in range(6)],
        )
        turns = await sessions.turns(first.session_id)
        assert len(turns) == 4
        llm = create_language_model(settings)
        history = [m for turn in turns for m in turn.messages()]
        assert sum(llm.count_tokens(m.content) for m in history) > 1024
        _, done = await run(
            store,
            settings,
            source_id=seeded.source_id,
            question="Anything else?",
            session_id=first.session_id,
        )
    assert done.answer == f"Still fine [{seeded.source_id}]."
    assert done.plan["history_trimmed"] > 0
    sent = sent_messages(server.requests[-1])
    assert llm.count_messages(sent) + settings.llm_answer_tokens <= 1024
    assert sent[-1].content.endswith(f"Question: Anything else?\n{answer_rule('English')}")


async def test_bad_requests_fail_before_any_call(
    store: Store, seeded: Seeded, tmp_path: Path
) -> None:
    with LoopbackChatServer("unused") as server:
        settings = loopback_settings(tmp_path, server.base_url)
        with pytest.raises(NotFoundError):
            await run(store, settings, source_id="source:nothere", question="q")
        with pytest.raises(InvalidInputError, match="question"):
            await run(store, settings, source_id=seeded.source_id, question="   ")
        _, done = await run(store, settings, source_id=seeded.source_id, question="q")
        with pytest.raises(ConflictError):
            await run(
                store,
                settings,
                source_id=seeded.other_source_id,
                question="q",
                session_id=done.session_id,
            )
        with pytest.raises(NotFoundError):
            await run(
                store,
                settings,
                source_id=seeded.source_id,
                question="q",
                session_id="chat_session:missing",
            )
    assert len(server.requests) == 1


@pytest.mark.slow
async def test_local_gemma_answers_within_its_window(
    store: Store, seeded: Seeded, tmp_path: Path, gemma: LocalModel
) -> None:
    settings = Settings(data_dir=tmp_path, database_url="mem://", llm_answer_tokens=16)
    tokens: list[str] = []
    done: DoneEvent | None = None
    async for event in chat_with_source(
        store,
        gemma,
        settings,
        source_id=seeded.source_id,
        question="How often do I feed it?",
        max_context_tokens=120,
    ):
        if isinstance(event, TokenEvent):
            tokens.append(event.text)
        else:
            done = event
    assert done is not None and tokens
    assert done.model_id == "gemma-3-270m-q4_k_m"
    assert gemma.last_usage["completion_tokens"] <= 16
    # The plan's count of the request is exactly what the model evaluated.
    assert done.plan["request_tokens"] == gemma.last_usage["prompt_tokens"]
    assert done.plan["request_tokens"] + 16 <= gemma.context_window
    assert done.plan["context_tokens"] <= 120


async def test_a_failing_model_raises_and_stores_nothing(
    store: Store, seeded: Seeded, tmp_path: Path
) -> None:
    with LoopbackChatServer(status=503) as server:
        settings = loopback_settings(tmp_path, server.base_url)
        with pytest.raises(ModelError, match="HTTP 503"):
            await run(store, settings, source_id=seeded.source_id, question="q")
    assert len(server.requests) == 1
    assert await store.db.query_one("SELECT VALUE id FROM chat_session") == []


async def test_passages_the_kept_history_shows_are_named_not_resent(
    store: Store, seeded: Seeded, tmp_path: Path
) -> None:
    with LoopbackChatServer("It doubles in four to six hours [1].") as server:
        settings = loopback_settings(tmp_path, server.base_url)
        question = "How long does a ripe starter take to double?"
        _, first = await run(store, settings, source_id=seeded.source_id, question=question)
        _, second = await run(
            store,
            settings,
            source_id=seeded.source_id,
            question=question,
            session_id=first.session_id,
        )
    first_numbers = {one.number for one in first.passages}
    assert first_numbers and not first.reused
    # The same question finds the same passages: the second turn names them by number.
    assert second.reused == first_numbers
    assert "shown earlier in this conversation" in second.context
    assert "doubles in four to six hours" not in second.context
    reused = second.manifest["reused"]
    assert reused["numbers"] == sorted(first_numbers) and reused["tokens"] > 0
    assert second.plan["reused_tokens"] == reused["tokens"]
    assert second.context_tokens < first.context_tokens
    # The answer may still cite them: the model sees them in the kept first turn.
    cited = second.sentences[0].citations[0]
    assert cited.status is CitationStatus.VALID and cited.passage is not None
    assert cited.passage.number == 1
    stored = await ChatSessions(store.sessions).messages(first.session_id)
    assert stored[2].meta["reused"] == sorted(first_numbers)
