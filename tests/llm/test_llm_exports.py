from __future__ import annotations

import open_notebook.chat
import open_notebook.graphs
import open_notebook.llm


def test_public_names_are_pinned() -> None:
    # The HTTP and CLI layers import these names; renaming one must be a deliberate change.
    assert set(open_notebook.chat.__all__) == {
        "ChatEvent",
        "ChatSessions",
        "DoneEvent",
        "SessionKind",
        "StoredMessage",
        "TokenEvent",
        "ask_notebook",
        "chat_with_source",
        "notebook_context_factory",
    }
    assert {
        "ChatMessage",
        "Citation",
        "CitationStatus",
        "LanguageModel",
        "Role",
        "TokenPlan",
        "create_language_model",
        "plan_budget",
        "parse_citations",
        "check_citations",
    } <= set(open_notebook.llm.__all__)
    assert {"build_notebook_ask_graph", "build_source_chat_graph"} <= set(
        open_notebook.graphs.__all__
    )
    for module in (open_notebook.chat, open_notebook.graphs, open_notebook.llm):
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"
