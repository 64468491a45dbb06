"""BM25 by language: each chunk read in its language, the query in every language of its scope."""

from __future__ import annotations

from open_notebook.config import Settings
from open_notebook.embeddings import FakeEmbedder
from open_notebook.ingest import Ingestor
from open_notebook.search import SearchMode, SearchService
from open_notebook.store import Store

TEXTS = {
    "es": "Los niños corrieron por el parque durante toda la tarde soleada de verano.",
    "fr": "Les chevaux mangeaient tranquillement le foin dans la grange du village.",
    "ru": "Студенты читали книги в старой библиотеке университета каждый вечер.",
    "en": "The engineers measured the flows around the wings in the wind tunnel.",
}
# An inflected form the text does not hold, in each language.
QUERIES = {"es": "corriendo", "fr": "cheval", "ru": "книгами", "en": "flowing"}


async def _notebook(store: Store, settings: Settings) -> tuple[str, SearchService]:
    embedder = FakeEmbedder(dim=32)
    ingestor = Ingestor(store, embedder, settings)
    notebook = (await store.notebooks.create("languages")).id
    for language, text in TEXTS.items():
        await ingestor.add_text(notebook, f"text in {language}", text)
    return notebook, SearchService(store, embedder, settings)


async def test_bm25_finds_an_inflected_form_in_each_language(
    store: Store, settings: Settings
) -> None:
    notebook, service = await _notebook(store, settings)
    for language, query in QUERIES.items():
        hits = await service.search(query, notebook_id=notebook, mode=SearchMode.TEXT)
        assert [hit.text for hit in hits] == [TEXTS[language]], query
        assert hits[0].language == language


async def test_the_language_of_each_chunk_is_stored_and_counted(
    store: Store, settings: Settings
) -> None:
    notebook, _ = await _notebook(store, settings)
    counts = await store.chunks.language_counts(notebook)
    assert counts == {"es": 1, "fr": 1, "ru": 1, "en": 1}
    found = await store.scopes.chunks(list((await store.scopes.members(notebook)).sources), [])
    assert sorted(found.languages) == ["en", "es", "fr", "ru"]


async def test_english_stemming_would_not_find_the_spanish_form(
    store: Store, settings: Settings
) -> None:
    """The test above can fail: read with English rules, corriendo and corrieron differ."""
    from open_notebook.text import WordTerms

    english = WordTerms("en")
    assert english("corriendo") != english("corrieron")
    assert WordTerms("es")("corriendo") == WordTerms("es")("corrieron")
