"""Grounded chat for the HTTP and CLI layers: stream tokens, end with checked citations.

async for event in ask_notebook(store, embedder, llm, settings,
                                notebook_id="notebook:x", question="..."):
    if event.type == "token": print(event.text, end="")
    else: event.citations, event.manifest, event.plan, event.session_id
"""

from open_notebook.chat._contexts import notebook_context_factory
from open_notebook.chat._events import ChatEvent, DoneEvent, TokenEvent
from open_notebook.chat._service import ask_notebook, chat_with_source
from open_notebook.graphs import ChatSessions, SessionKind, StoredMessage

__all__ = [
    "ChatEvent",
    "ChatSessions",
    "DoneEvent",
    "SessionKind",
    "StoredMessage",
    "TokenEvent",
    "ask_notebook",
    "chat_with_source",
    "notebook_context_factory",
]
