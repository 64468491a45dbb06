"""The languages of an evaluated dataset: of its stored chunks and of its questions."""

from __future__ import annotations

from collections.abc import Iterable

from open_notebook.store import Store
from open_notebook.text import LanguageDetector, language_shares


async def dataset_languages(
    store: Store, notebook_id: str | None, questions: Iterable[str]
) -> dict[str, dict[str, float]]:
    """``{"chunks": shares, "queries": shares}``: each language's share of the notebook's chunks
    (as detected at ingest) and of the questions (as detected at query time)."""
    counts = await store.chunks.language_counts(notebook_id)
    detector = LanguageDetector()
    return {
        "chunks": language_shares(counts),
        "queries": language_shares(detector.detect(one) for one in questions),
    }
