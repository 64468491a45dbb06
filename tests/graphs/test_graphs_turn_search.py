"""A turn that builds its notebook context at two budgets (a model whose budget is in words)
searches the notebook once, and each build is the one a fresh search would give."""

from __future__ import annotations

from open_notebook.chat._contexts import notebook_context_factory
from open_notebook.config import Settings
from open_notebook.embeddings import FakeEmbedder
from open_notebook.ingest import Ingestor
from open_notebook.search import SearchResult, SearchService
from open_notebook.store import Store
from open_notebook.tokens import BpeTokenCounter

SUBJECTS = ("rye", "spelt", "wheat", "barley", "oat", "emmer", "einkorn", "durum", "kamut")
TEXT = "\n\n".join(
    f"A {grain} dough kept at {14 + index} degrees ferments for {3 + index} hours; a {grain} "
    f"loaf whose fermentation was cut short comes out dense, with {20 + index} percent less rise."
    for index, grain in enumerate(SUBJECTS)
)


class CountingSearch(SearchService):
    def __init__(self, store: Store, settings: Settings) -> None:
        super().__init__(store, FakeEmbedder(), settings)
        self.calls = 0

    async def search_with_vector(self, query: str, **kwargs: object) -> SearchResult:  # type: ignore[override]
        self.calls += 1
        return await super().search_with_vector(query, **kwargs)  # type: ignore[arg-type]


async def test_a_turn_searches_once_whatever_budgets_it_builds_at(
    store: Store, settings: Settings
) -> None:
    notebook = await store.notebooks.create("Bread")
    await Ingestor(store, FakeEmbedder(), settings).add_text(notebook.id, "Dense loaves", TEXT)
    counter = BpeTokenCounter(settings.tokenizer)
    searcher = CountingSearch(store, settings)
    factory = notebook_context_factory(store, FakeEmbedder(), settings, searcher, counter=counter)
    question = "Why does my loaf come out dense?"
    build = factory(notebook.id, question)
    small, large = await build(120), await build(300)
    assert searcher.calls == 1
    assert small.total_tokens <= 120 < large.total_tokens <= 300
    fresh = notebook_context_factory(store, FakeEmbedder(), settings, searcher, counter=counter)
    again = await fresh(notebook.id, question)(300)
    assert searcher.calls == 2
    assert again.rendered == large.rendered
