"""Grounded chat for the HTTP and CLI layers: say whether the notebook covers the question,
stream the answer, end with every sentence attributed to a passage or flagged.

async for event in ask_notebook(store, embedder, llm, settings,
                                notebook_id="notebook:x", question="..."):
    if event.type == "coverage": event.coverage, event.notice   # "ok" or "low"
    elif event.type == "token": print(event.text, end="")
    else: event.sentences, event.passages, event.citations, event.manifest, event.session_id
"""

from open_notebook.chat._contexts import notebook_context_factory, source_context_factory
from open_notebook.chat._events import ChatEvent, CoverageEvent, DoneEvent, TokenEvent
from open_notebook.chat._service import ask_notebook, chat_with_source
from open_notebook.graphs import ChatSessions, SessionKind, StoredMessage

__all__ = [
    "ChatEvent",
    "ChatSessions",
    "CoverageEvent",
    "DoneEvent",
    "SessionKind",
    "StoredMessage",
    "TokenEvent",
    "ask_notebook",
    "chat_with_source",
    "notebook_context_factory",
    "source_context_factory",
]
