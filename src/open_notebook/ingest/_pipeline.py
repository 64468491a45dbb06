"""The ingest pipeline: extract → chunk → embed → store, idempotent by content hash."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path, PurePath

from open_notebook.config import Settings
from open_notebook.domain import Asset, Note, NoteType, SourceInsight
from open_notebook.embeddings import Embedder
from open_notebook.errors import InvalidInputError
from open_notebook.ingest._batch import ProgressCallback, add_many, is_url
from open_notebook.ingest._commit import ItemError, commit_many
from open_notebook.ingest._embed import ChunkEmbedder
from open_notebook.ingest._extract import asset_of, extract_bytes, extract_file
from open_notebook.ingest._fetch import fetch_url
from open_notebook.ingest._insights import CompletionModel, clean_completion, insight_prompt
from open_notebook.ingest._rebuild import rebuild_embeddings
from open_notebook.ingest._types import (
    Extracted,
    ExtractOptions,
    IngestResult,
    Prepared,
    SourceFormat,
)
from open_notebook.store import ChunkRow, NewSource, Store, content_hash
from open_notebook.tokens import BpeTokenCounter, TokenCounter


class Ingestor:
    """Adds sources, notes and insights with their embedded chunks, each in one transaction.

    Chunking and embedding run in a worker thread (``asyncio.to_thread``), so the event loop
    stays responsive during a long ingest. A batch (``add_paths``) writes a few small sources
    per transaction; each source is still all or nothing.
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: Settings,
        *,
        counter: TokenCounter | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        # Counts sources and cuts insight prompts: the owner's counter, or one loaded here.
        self.counter = counter if counter is not None else BpeTokenCounter(settings.tokenizer)
        self._chunks = ChunkEmbedder(embedder, settings, self.counter)
        # Sheets are cut into row blocks that fit one chunk as this embedder reads it.
        self.extract_options = ExtractOptions.from_settings(
            settings,
            count_tokens=embedder.count_tokens,
            block_tokens=min(settings.chunk_tokens, embedder.max_tokens),
        )

    async def add_text(
        self,
        notebook_id: str | None,
        title: str,
        text: str,
        *,
        asset: Asset | None = None,
        topics: Sequence[str] = (),
        fmt: str = "text",
    ) -> IngestResult:
        """Add a source; the same text again only links the stored source to the notebook."""
        extracted = Extracted(title, _text(text, "text"), _format(fmt), asset)
        return await self.commit(notebook_id, await self.prepare(extracted), topics=topics)

    async def add_extracted(self, notebook_id: str | None, extracted: Extracted) -> IngestResult:
        return await self.commit(notebook_id, await self.prepare(extracted))

    async def prepare(self, extracted: Extracted) -> Prepared:
        """Chunk, embed and count a text in a worker thread, unless it is already stored."""
        return (await self.prepare_many([extracted]))[0]

    async def prepare_many(self, texts: Sequence[Extracted]) -> list[Prepared]:
        """Prepare several texts: one hash lookup, and one embedder call for all new chunks."""
        digests = [content_hash(one.text) for one in texts]
        found = await self.store.sources.find_by_hash(list(dict.fromkeys(digests)))
        new = [one for one, digest in zip(texts, digests, strict=True) if digest not in found]
        counter = self.counter

        def work() -> tuple[list[list[ChunkRow]], list[int]]:
            rows = self._chunks.rows_many([(one.text, one.chunk_format) for one in new])
            return rows, [counter.count(one.text) for one in new]

        rows, tokens = await asyncio.to_thread(work) if new else ([], [])
        prepared = iter(zip(rows, tokens, strict=True))
        result: list[Prepared] = []
        for one, digest in zip(texts, digests, strict=True):
            if digest in found:
                result.append(Prepared(one, digest, found[digest]))
            else:
                one_rows, one_tokens = next(prepared)
                result.append(Prepared(one, digest, None, one_rows, one_tokens))
        return result

    async def commit_many(
        self, notebook_id: str | None, prepared: Sequence[Prepared]
    ) -> list[IngestResult | ItemError]:
        """Store prepared texts in small groups (see ``_commit``); an item's error is its result."""
        return await commit_many(self.store, notebook_id, prepared)

    async def commit(
        self,
        notebook_id: str | None,
        prepared: Prepared,
        *,
        topics: Sequence[str] = (),
        recheck: bool = False,
    ) -> IngestResult:
        """Store a prepared source in one transaction, or link the one with the same text.

        ``recheck`` looks the hash up again: another item of a batch may have stored the same
        text since it was prepared.
        """
        existing = prepared.existing
        if existing is None and recheck:
            existing = (await self.store.sources.find_by_hash([prepared.digest])).get(
                prepared.digest
            )
        if existing is not None:
            if notebook_id is not None:
                await self.store.notebooks.link_sources(notebook_id, [existing.id])
            return IngestResult(source=existing, created=False, chunk_count=0)
        extracted = prepared.extracted
        source = await self.store.sources.create(
            NewSource(
                title=extracted.title,
                full_text=extracted.text,
                asset=extracted.asset,
                topics=tuple(topics),
                token_count=prepared.tokens,
            ),
            notebook_ids=[notebook_id] if notebook_id is not None else [],
            chunks=prepared.rows,
        )
        return IngestResult(source=source, created=True, chunk_count=len(prepared.rows))

    async def extract(self, item: Path | str, data: bytes | None = None) -> Extracted:
        """Text of a URL, a file on disk, or uploaded ``data`` named ``item``."""
        if data is not None:
            if len(data) > self.settings.max_source_bytes:
                raise InvalidInputError(
                    f"{item} is {len(data)} bytes; the limit is {self.settings.max_source_bytes}",
                    field="file",
                )
            extracted = await asyncio.to_thread(
                extract_bytes, str(item), data, options=self.extract_options
            )
            # An upload keeps its file name (there is no path on this machine to record).
            return replace(extracted, asset=asset_of(extracted, file_path=PurePath(item).name))
        if isinstance(item, str) and is_url(item):
            return await fetch_url(item, self.settings)
        return await asyncio.to_thread(
            extract_file,
            Path(item),
            max_bytes=self.settings.max_source_bytes,
            options=self.extract_options,
        )

    async def add_file(
        self, notebook_id: str | None, path: Path | str, data: bytes | None = None
    ) -> IngestResult:
        """Add a file from disk, or uploaded ``data`` named ``path`` (at most max_source_bytes)."""
        return await self.add_extracted(notebook_id, await self.extract(Path(path), data))

    async def add_url(self, notebook_id: str | None, url: str) -> IngestResult:
        """Fetch a page (public addresses only unless allowed) and add its main text."""
        return await self.add_extracted(notebook_id, await fetch_url(url, self.settings))

    async def add_paths(
        self,
        notebook_id: str | None,
        paths: Sequence[Path | str],
        progress: ProgressCallback | None = None,
    ) -> list[IngestResult]:
        """Add files, folders (recursively) and URLs, in reading order (a few at a time).

        Every item is tried. If some failed, :class:`BatchIngestError` is raised at the end; it
        carries the results of the items that were added and the reason of each failure.
        """
        return await add_many(self, notebook_id, paths, progress)

    async def add_note(
        self,
        notebook_id: str,
        content: str,
        *,
        title: str = "",
        note_type: NoteType | str = NoteType.HUMAN,
    ) -> Note:
        """Store a note with its chunks (a long note gets several vectors, never an average)."""
        rows = await asyncio.to_thread(self._chunks.rows, _text(content, "content"), "markdown")
        return await self.store.notes.create(
            notebook_id, content, title=title, note_type=note_type, chunks=rows
        )

    async def update_note(
        self, note_id: str, *, content: str | None = None, title: str | None = None
    ) -> Note:
        """Change a note; new content is re-chunked and its chunks swapped in one transaction."""
        rows = None
        if content is not None:
            rows = await asyncio.to_thread(self._chunks.rows, _text(content, "content"), "markdown")
        return await self.store.notes.update(note_id, content=content, title=title, chunks=rows)

    async def add_insight(self, source_id: str, insight_type: str, content: str) -> SourceInsight:
        """Attach an insight to a source, embedded as insight chunks."""
        rows = await asyncio.to_thread(self._chunks.rows, _text(content, "content"), "markdown")
        return await self.store.sources.add_insight(source_id, insight_type, content, chunks=rows)

    async def generate_insight(
        self, source_id: str, insight_type: str, llm: CompletionModel
    ) -> SourceInsight:
        """Ask ``llm`` for an insight ("summary", "key points", ...) and store it."""
        source = await self.store.sources.get(source_id)
        prompt = insight_prompt(
            source,
            insight_type,
            context_window=self.settings.llm_context_window,
            answer_tokens=self.settings.llm_answer_tokens,
            counter=self.counter,
        )
        answer = await llm.complete(prompt, max_tokens=self.settings.llm_answer_tokens)
        return await self.add_insight(
            source.id, insight_type, clean_completion(answer, insight_type)
        )

    async def rebuild_embeddings(self, progress: ProgressCallback | None = None) -> int:
        """Re-embed every stored chunk with this embedder; returns the number of chunks written.

        Chunks are swapped per batch of parents in one transaction each: if it fails half-way,
        the parents not yet done keep their old, still searchable chunks.
        """
        return await rebuild_embeddings(self.store, self._chunks, progress)


def _text(value: object, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{field} must be a non-empty string", field=field)
    return value


def _format(fmt: str) -> SourceFormat:
    try:
        return SourceFormat(fmt)
    except ValueError:
        choices = ", ".join(one.value for one in SourceFormat)
        raise InvalidInputError(f"fmt must be one of {choices}, got {fmt!r}", field="fmt") from None
