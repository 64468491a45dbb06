"""What the tools need from their process: the pipeline's long-lived services.

``open_notebook.services.Services`` fits (and so does the HTTP app's state, a subclass); the tools
ask a provider for it on each call, because the HTTP app opens its services after the MCP server
is built.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from open_notebook.config import Settings
from open_notebook.embeddings import Embedder
from open_notebook.graphs import CompiledGraph
from open_notebook.ingest import Ingestor
from open_notebook.llm import LanguageModel
from open_notebook.search import SearchService
from open_notebook.store import Store
from open_notebook.tokens import TokenCounter


class NotebookServices(Protocol):
    settings: Settings
    store: Store
    embedder: Embedder
    search: SearchService
    ingestor: Ingestor
    counter: TokenCounter
    chat_graph: CompiledGraph

    def language_model(self) -> LanguageModel: ...


ServicesProvider = Callable[[], NotebookServices]
