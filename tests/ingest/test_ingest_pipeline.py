"""The ingest pipeline on the real SurrealDB engine (mem://) with the fake embedder."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from open_notebook.config import Settings
from open_notebook.embeddings import FakeEmbedder, Vectors
from open_notebook.errors import EmbeddingModelMismatchError, ModelError, NotFoundError
from open_notebook.ingest import (
    BatchIngestError,
    Ingestor,
    IngestProgress,
    check_embedding_model,
    folder_indexes,
)
from open_notebook.store import Store

LONG_TEXT = "\n\n".join(
    f"Paragraph {index} talks about rivers, lakes and the water cycle in detail." * 4
    for index in range(30)
)


@pytest.fixture
def ingestor(store: Store, settings: Settings) -> Ingestor:
    return Ingestor(store, FakeEmbedder(), settings)


async def test_add_text_stores_source_and_embedded_chunks(ingestor: Ingestor, store: Store) -> None:
    notebook = await store.notebooks.create("Water")
    result = await ingestor.add_text(notebook.id, "Rivers", LONG_TEXT, topics=["water"])
    assert result.created and result.chunk_count > 3
    chunks = (await store.chunks.for_parents([result.source.id], with_embeddings=True))[
        result.source.id
    ]
    assert len(chunks) == result.chunk_count
    assert [chunk.ord for chunk in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        assert LONG_TEXT[chunk.char_start : chunk.char_end] == chunk.text
        assert chunk.token_count <= 200
        assert chunk.model_id == "fake-hashed-words-384" and chunk.dim == 384
        assert chunk.embedding is not None
        assert np.isclose(np.linalg.norm(chunk.embedding), 1.0, atol=1e-5)
    assert (await store.notebooks.source_ids([notebook.id]))[notebook.id] == [result.source.id]
    assert result.source.token_count > 0 and result.source.topics == ["water"]


async def test_re_adding_the_same_text_is_a_no_op_that_links(
    ingestor: Ingestor, store: Store
) -> None:
    first_nb = await store.notebooks.create("First")
    second_nb = await store.notebooks.create("Second")
    first = await ingestor.add_text(first_nb.id, "Rivers", LONG_TEXT)
    again = await ingestor.add_text(first_nb.id, "Other title", "  " + LONG_TEXT + "\n")
    linked = await ingestor.add_text(second_nb.id, "Rivers", LONG_TEXT)
    assert not again.created and not linked.created
    assert again.source.id == linked.source.id == first.source.id
    assert again.chunk_count == 0
    assert await store.chunks.count() == first.chunk_count
    memberships = await store.sources.notebooks_of([first.source.id])
    assert sorted(memberships[first.source.id]) == sorted([first_nb.id, second_nb.id])


async def test_notes_and_insights_are_chunked_and_embedded(
    ingestor: Ingestor, store: Store
) -> None:
    notebook = await store.notebooks.create("Notes")
    note = await ingestor.add_note(notebook.id, LONG_TEXT, title="Long note")
    source = (await ingestor.add_text(notebook.id, "Src", "Short source text.")).source
    insight = await ingestor.add_insight(source.id, "summary", "A short summary of it.")
    found = await store.chunks.for_parents([note.id, insight.id], with_embeddings=True)
    assert len(found[note.id]) > 3  # a long note gets several vectors, not one average
    assert all(chunk.kind == "note" and chunk.notebook == notebook.id for chunk in found[note.id])
    (insight_chunk,) = found[insight.id]
    assert insight_chunk.kind == "insight" and insight_chunk.source == source.id
    assert insight_chunk.embedding is not None
    updated = await ingestor.update_note(note.id, content="Now a short note.")
    assert updated.content == "Now a short note."
    assert len((await store.chunks.for_parents([note.id]))[note.id]) == 1


class _FailingEmbedder(FakeEmbedder):
    """Fails on the n-th call, like a model crashing half-way through a rebuild."""

    def __init__(self, fail_on_call: int) -> None:
        super().__init__(dim=32)
        self.model_id = "next-model"
        self.fail_on_call = fail_on_call

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if self.calls + 1 == self.fail_on_call:
            self.calls += 1
            raise ModelError("the model crashed")
        return super().embed_documents(texts)


async def _library(ingestor: Ingestor, store: Store, sources: int) -> list[str]:
    notebook = await store.notebooks.create("Library")
    ids = []
    for index in range(sources):
        text = f"Source {index} about topic {index}. " * 40
        ids.append((await ingestor.add_text(notebook.id, f"S{index}", text)).source.id)
    await ingestor.add_note(notebook.id, "A note about the library.")
    return ids


async def test_rebuild_swaps_every_chunk_to_the_new_model(
    ingestor: Ingestor, store: Store, settings: Settings
) -> None:
    await _library(ingestor, store, 3)
    before = await store.chunks.count()
    rebuilt = Ingestor(store, FakeEmbedder(dim=64), settings)
    with pytest.raises(EmbeddingModelMismatchError, match="rebuild-embeddings"):
        await check_embedding_model(store, rebuilt.embedder)
    seen: list[IngestProgress] = []
    written = await rebuilt.rebuild_embeddings(seen.append)
    assert written == before == await store.chunks.count()
    assert await store.chunks.embedding_models() == {"fake-hashed-words-64": before}
    await check_embedding_model(store, rebuilt.embedder)
    assert seen[-1].done == seen[-1].total == 4 and seen[-1].phase == "rebuild"
    # A small library moves one parent at a time: a progress bar shows it advance.
    assert [one.done for one in seen] == [0, 1, 2, 3, 4]


async def test_a_failed_rebuild_leaves_old_chunks_searchable(
    ingestor: Ingestor, store: Store, settings: Settings
) -> None:
    await _library(ingestor, store, 40)  # more parents than one swap batch
    before = await store.chunks.count()
    failing = Ingestor(store, _FailingEmbedder(fail_on_call=2), settings)
    with pytest.raises(ModelError, match="crashed"):
        await failing.rebuild_embeddings()
    models = await store.chunks.embedding_models()
    assert await store.chunks.count() == before
    assert set(models) == {"fake-hashed-words-384", "next-model"}  # first batch swapped only
    assert sum(models.values()) == before


async def test_add_paths_adds_folders_and_reports_failures_at_the_end(
    ingestor: Ingestor, store: Store, tmp_path: Path
) -> None:
    notebook = await store.notebooks.create("Folder")
    (tmp_path / "docs" / "sub").mkdir(parents=True)
    (tmp_path / "docs" / "a.md").write_text("# A\n\nFirst document.", encoding="utf-8")
    (tmp_path / "docs" / "sub" / "b.txt").write_text("Second document.", encoding="utf-8")
    (tmp_path / "docs" / "sub" / "skip.bin").write_bytes(b"\x00\x01")  # not a supported type
    (tmp_path / "docs" / "empty.txt").write_bytes(b"")
    seen: list[IngestProgress] = []
    with pytest.raises(BatchIngestError) as caught:
        await ingestor.add_paths(notebook.id, [tmp_path / "docs"], progress=seen.append)
    error = caught.value
    assert [one.source.title for one in error.results] == ["A", "Second document."]
    assert len(error.failures) == 1 and error.failures[0].item.endswith("empty.txt")
    assert "empty" in str(error) and "1 of 3 items" in str(error)
    assert [(one.done, one.total) for one in seen] == [(0, 3), (1, 3), (2, 3), (3, 3)]
    assert len((await store.notebooks.source_ids([notebook.id]))[notebook.id]) == 2


async def test_add_paths_leaves_out_a_readme_that_indexes_its_folder(
    ingestor: Ingestor, store: Store, tmp_path: Path
) -> None:
    notebook = await store.notebooks.create("Indexed")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rye.md").write_text("# Rye\n\nRye forms little gluten.", encoding="utf-8")
    (docs / "spelt.md").write_text("# Spelt\n\nSpelt is an old wheat.", encoding="utf-8")
    (docs / "oats.md").write_text("# Oats\n\nOats hold water.", encoding="utf-8")
    index = "| file | topic |\n|---|---|\n| rye.md | rye |\n| spelt.md | spelt |\n"
    (docs / "README.md").write_text(f"# Flours\n\n{index}", encoding="utf-8")
    assert folder_indexes([docs, "https://example.org/a"]) == [docs / "README.md"]
    results = await ingestor.add_paths(notebook.id, [docs])
    assert sorted(one.source.title for one in results) == ["Oats", "Rye", "Spelt"]
    # One file named in a README of three is prose that mentions it: added.
    (docs / "README.md").write_text("# Flours\n\nStart with rye.md, then bake.", encoding="utf-8")
    assert folder_indexes([docs]) == []


async def test_add_paths_with_a_missing_notebook_fails_before_any_work(
    ingestor: Ingestor, store: Store, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("text", encoding="utf-8")
    with pytest.raises(NotFoundError):
        await ingestor.add_paths("notebook:missing", [tmp_path / "a.txt"])
    assert await store.chunks.count() == 0


async def test_uploaded_bytes_are_added_like_a_file(ingestor: Ingestor, store: Store) -> None:
    result = await ingestor.add_file(None, "upload.md", b"# Uploaded\n\nSome uploaded words.")
    assert result.created and result.source.title == "Uploaded"
    assert result.chunk_count == 1


class _RecordingLLM:
    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.prompts: list[tuple[str, int]] = []

    async def complete(self, prompt: str, *, max_tokens: int) -> str:
        self.prompts.append((prompt, max_tokens))
        return self.answer


async def test_generate_insight_prompts_with_the_source_and_stores_the_answer(
    store: Store, tmp_path: Path
) -> None:
    settings = Settings(data_dir=tmp_path, database_url="mem://", llm_context_window=1024)
    ingestor = Ingestor(store, FakeEmbedder(), settings)
    source = (await ingestor.add_text(None, "Rivers", LONG_TEXT * 5)).source
    llm = _RecordingLLM("  Rivers carry water to the sea.  ")
    insight = await ingestor.generate_insight(source.id, "summary", llm)
    assert insight.content == "Rivers carry water to the sea."
    assert insight.insight_type == "summary"
    ((prompt, max_tokens),) = llm.prompts
    assert "summary" in prompt and "Paragraph 0 talks about rivers" in prompt
    assert len(prompt) < len(LONG_TEXT * 5)  # the source was cut to fit the window
    assert max_tokens == settings.llm_answer_tokens
    stored = await store.sources.insights_for([source.id])
    assert [one.id for one in stored[source.id]] == [insight.id]
    with pytest.raises(ModelError, match="empty"):
        await ingestor.generate_insight(source.id, "key points", _RecordingLLM("   "))


async def test_add_paths_with_the_same_text_twice_stores_it_once(
    ingestor: Ingestor, store: Store, tmp_path: Path
) -> None:
    # The second file is prepared while the first is written: the hash is checked again.
    for name in ("a.txt", "b.txt", "c.txt"):
        (tmp_path / name).write_text("Identical words in every file.", encoding="utf-8")
    notebook = await store.notebooks.create("Dupes")
    results = await ingestor.add_paths(notebook.id, [tmp_path])
    assert [one.created for one in results] == [True, False, False]
    assert len({one.source.id for one in results}) == 1
    assert await store.chunks.count() == 1
