"""Property: whatever the conversation before it, a turn's request never exceeds the model's
window, history is trimmed oldest-first by whole turns, and passages the kept history shows are
not sent again."""

from __future__ import annotations

import asyncio
from pathlib import Path

from graphs_support import STARTER_TEXT, loopback_settings, sent_messages
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from open_notebook.chat import ChatSessions, DoneEvent, chat_with_source
from open_notebook.config import Settings
from open_notebook.db import open_database
from open_notebook.errors import BudgetTooSmallError
from open_notebook.graphs import SessionKind, StoredMessage
from open_notebook.llm import Role, create_language_model
from open_notebook.llm.testing import LoopbackChatServer
from open_notebook.store import SurrealStore
from open_notebook.store._sources import NewSource

WORDS = ("starter", "rye", "flour", "yeast", "dough", "oven", "crumb", "proof")
text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=400).map(" ".join)
# A turn as stored: its question, its context as sent (maybe none: an old session), its answer.
turn = st.tuples(text, st.one_of(st.none(), text), text)


async def converse(
    tmp: Path,
    server: LoopbackChatServer,
    window: int,
    answer_tokens: int,
    real_turns: list[str],
    stored: list[tuple[str, str | None, str]],
    question: str,
) -> tuple[DoneEvent | None, Settings]:
    settings_ = loopback_settings(tmp, server.base_url, window=window).model_copy(
        update={"llm_answer_tokens": answer_tokens}
    )
    llm = create_language_model(settings_)
    store = SurrealStore(await open_database(settings_))
    try:
        source = await store.sources.create(NewSource(title="Starter", full_text=STARTER_TEXT))
        session: str | None = None
        done: DoneEvent | None = None
        for asked in real_turns:  # turns through the graph: their passages are on record
            async for event in chat_with_source(
                store, llm, settings_, source_id=source.id, question=asked, session_id=session
            ):
                if isinstance(event, DoneEvent):
                    session = event.session_id
        if session is None:
            session = await ChatSessions(store.sessions).open(
                None, kind=SessionKind.SOURCE, target=source.id
            )
        await ChatSessions(store.sessions).append(
            session,
            [
                message
                for asked, context, answered in stored
                for message in (
                    StoredMessage(
                        Role.USER, asked, {} if context is None else {"context": context}
                    ),
                    StoredMessage(Role.ASSISTANT, answered),
                )
            ],
        )
        async for event in chat_with_source(
            store, llm, settings_, source_id=source.id, question=question, session_id=session
        ):
            if isinstance(event, DoneEvent):
                done = event
        return done, settings_
    finally:
        await store.close()


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    window=st.integers(min_value=512, max_value=4096),
    answer_tokens=st.integers(min_value=16, max_value=300),
    real_turns=st.lists(
        st.sampled_from(["How often?", "Why rye?", "When is it ripe?"]), max_size=2
    ),
    stored=st.lists(turn, max_size=6),
    question=text,
)
def test_no_request_exceeds_the_window(
    tmp_path: Path,
    window: int,
    answer_tokens: int,
    real_turns: list[str],
    stored: list[tuple[str, str | None, str]],
    question: str,
) -> None:
    with LoopbackChatServer("Feed it daily [1].") as server:
        try:
            done, used = asyncio.run(
                converse(tmp_path, server, window, answer_tokens, real_turns, stored, question)
            )
        except BudgetTooSmallError:
            # Refused before the last call: no request of the final turn was sent.
            assert len(server.requests) <= len(real_turns)
            return
    assert done is not None
    llm = create_language_model(used)
    last = server.requests[-1]
    messages = sent_messages(last)
    assert llm.count_messages(messages) + int(last["max_tokens"]) <= window
    assert done.plan["request_tokens"] == llm.count_messages(messages)
    # History is a suffix of the conversation, whole turns, oldest dropped first.
    history = messages[1:-1]
    assert len(history) == done.plan["history_kept"] and len(history) % 2 == 0
    assert [m.role for m in history] == [Role.USER, Role.ASSISTANT] * (len(history) // 2)
    if stored and history:
        assert history[-1].content == stored[-1][2]
    # What the history shows is named, not resent.
    reused = {one["number"] for one in done.as_dict()["passages"] if one["reused"]}
    for number in reused:
        assert f"[{number}]" in messages[-1].content
