"""Sources as an older version of the product stored them (a module, not conftest, so imports are
unambiguous)."""

from __future__ import annotations

from dataclasses import replace

from open_notebook.ingest import Extracted, Ingestor, SourceFormat
from open_notebook.store import NewSource, Store


async def add_without_sentence_vectors(
    store: Store, ingestor: Ingestor, notebook_id: str, title: str, text: str
) -> None:
    """Add ``text`` as a source whose chunks carry no sentence vectors, as chunks were stored
    before ingest kept them."""
    prepared = await ingestor.prepare(Extracted(title, text, SourceFormat.TEXT))
    old = [replace(row, sentence_vectors=None) for row in prepared.rows]
    await store.sources.create(NewSource(title, text), notebook_ids=[notebook_id], chunks=old)
