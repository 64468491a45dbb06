"""The tools: thin adapters from typed arguments to the services the API and the CLI call.

Each method's signature is its input schema and its docstring the description a model reads.
Errors are raised, never caught here: ``_server`` turns them into tool errors in one place.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Final

from open_notebook.errors import InvalidInputError
from open_notebook.ingest import BatchIngestError, IngestFailure, IngestResult
from open_notebook.mcp import _retrieval
from open_notebook.mcp._inputs import (
    AnswerBudget,
    AskerLanguage,
    Budget,
    ContextFormat,
    Limit,
    Mode,
    NotebookRef,
    NoteContent,
    Query,
    Question,
    SessionId,
    SourcePath,
    SourceText,
    SourceUrl,
    Title,
)
from open_notebook.mcp._results import (
    AnswerResult,
    ContextResult,
    FailureOut,
    FusionWeights,
    Hit,
    HitScores,
    NoteAdded,
    NotebookList,
    NotebookSummary,
    SearchResults,
    SourceOut,
    SourcesAdded,
)
from open_notebook.mcp._services import ServicesProvider
from open_notebook.mcp._uris import notebook_uri, record_uri
from open_notebook.search import SearchMode
from open_notebook.text import asker_language

_TITLE_CHARS: Final = 120


class NotebookTools:
    """The six tools over one process's services.

    Args:
        allow_paths: read files and folders named by ``add_source(path=...)``. Only a local
            (stdio) server does: over HTTP a path would let any client read the server's files.
    """

    def __init__(self, services: ServicesProvider, *, allow_paths: bool) -> None:
        self._services = services
        self._allow_paths = allow_paths

    async def list_notebooks(self) -> NotebookList:
        """List the notebooks: id, name, description, how many sources and notes each holds."""
        rows = await self._services().store.notebooks.list_with_counts()
        return NotebookList(
            notebooks=[
                NotebookSummary(
                    id=nb.id,
                    name=nb.name,
                    description=nb.description,
                    sources=sources,
                    notes=notes,
                    updated=_iso(nb.updated or nb.created),
                    uri=notebook_uri(nb.id),
                )
                for nb, sources, notes in rows
            ]
        )

    async def search(
        self,
        notebook: NotebookRef,
        query: Query,
        mode: Mode = "hybrid",
        limit: Limit = 8,
        language: AskerLanguage = "",
    ) -> SearchResults:
        """Search one notebook's sources, notes and insights; the best passages first.

        Each hit has its text, where it sits in its parent (characters and headings), the
        query's words highlighted, and a resource URI that reads exactly that passage.
        """
        services = self._services()
        nb = await services.store.notebooks.resolve(notebook)
        found = await services.search.search(
            query,
            notebook_id=nb.id,
            mode=SearchMode(mode),
            limit=limit,
            asker=asker_language(language),
        )
        hits = [
            Hit(
                rank=hit.rank,
                id=hit.id,
                kind=hit.kind.value,
                parent_id=hit.parent_id,
                source_id=hit.source_id,
                title=hit.parent_title,
                heading_path=list(hit.heading_path),
                text=hit.text,
                char_start=hit.char_start,
                char_end=hit.char_end,
                highlights=list(hit.highlights),
                scores=HitScores(
                    vector=hit.scores.vector,
                    bm25=hit.scores.bm25,
                    fused=hit.scores.fused,
                    weights=None
                    if hit.scores.weights is None
                    else FusionWeights.model_validate(hit.scores.weights, from_attributes=True),
                    sentence=hit.scores.sentence,
                ),
                uri=record_uri(nb.id, hit.parent_id, start=hit.char_start, end=hit.char_end),
            )
            for hit in found
        ]
        return SearchResults(notebook_id=nb.id, query=query, mode=mode, hits=hits)

    async def build_context(
        self,
        notebook: NotebookRef,
        query: Query,
        max_tokens: Budget = 2_000,
        format: ContextFormat = "markdown",
        language: AskerLanguage = "",
    ) -> ContextResult:
        """Build the best context for a question within a token budget, ready for a prompt.

        The notebook is searched with the question; the evidence is deduplicated, ranked and
        fitted to max_tokens (a long record is cut to its relevant parts before anything is
        dropped). Returns the rendered text, its exact token count, and what went in or not.
        """
        services = self._services()
        nb = await services.store.notebooks.resolve(notebook)
        return await _retrieval.build_context(
            services,
            nb,
            query=query,
            max_tokens=max_tokens,
            render_format=format,
            asker=asker_language(language),
        )

    async def ask(
        self,
        notebook: NotebookRef,
        question: Question,
        max_context_tokens: AnswerBudget | None = None,
        session_id: SessionId | None = None,
        language: AskerLanguage = "",
    ) -> AnswerResult:
        """Answer a question from the notebook with the server's language model.

        Every sentence of the answer comes back attributed to the passage that supports it
        (record, chunk, character span, the quoted text and a URI reading exactly that span)
        or flagged unsupported; coverage is low, with a notice, when no passage of the notebook
        matches the question. Marks the model wrote ([3], [source:KEY]) are checked against
        the context it read (valid, not_in_context, or unknown when invented).
        """
        services = self._services()
        nb = await services.store.notebooks.resolve(notebook)
        return await _retrieval.answer(
            services,
            nb,
            question=question,
            max_context_tokens=max_context_tokens,
            session_id=session_id,
            asker=language,
        )

    async def add_note(
        self, notebook: NotebookRef, content: NoteContent, title: Title = ""
    ) -> NoteAdded:
        """Add a note to a notebook; it is embedded at once, so search and context find it."""
        services = self._services()
        nb = await services.store.notebooks.resolve(notebook)
        note = await services.ingestor.add_note(nb.id, content, title=title)
        return NoteAdded(
            id=note.id,
            notebook_id=nb.id,
            title=note.title,
            characters=len(note.content),
            uri=record_uri(nb.id, note.id),
        )

    async def add_source(
        self,
        notebook: NotebookRef,
        path: SourcePath | None = None,
        url: SourceUrl | None = None,
        text: SourceText | None = None,
        title: Title = "",
    ) -> SourcesAdded:
        """Add a document to a notebook: a file or folder path, a web address, or the text itself.

        Give exactly one of path, url and text (title goes with text). The document is
        extracted, chunked and embedded; the same text added twice is stored once and linked.
        """
        given = [name for name, value in (("path", path), ("url", url), ("text", text)) if value]
        if len(given) != 1:
            found = " and ".join(given) if given else "none of them"
            raise InvalidInputError(
                f"give exactly one of path, url and text; got {found}", field="text"
            )
        if title and text is None:
            raise InvalidInputError("title goes with text only", field="title")
        services = self._services()
        nb = await services.store.notebooks.resolve(notebook)
        failures: list[IngestFailure] = []
        if path is not None:
            results, failures = await self._add_path(nb.id, path)
        elif url is not None:
            results = [await services.ingestor.add_url(nb.id, url)]
        else:
            assert text is not None
            results = [await services.ingestor.add_text(nb.id, title or _title_of(text), text)]
        return SourcesAdded(
            notebook_id=nb.id,
            sources=[
                SourceOut(
                    id=one.source.id,
                    title=one.source.title,
                    created=one.created,
                    chunks=one.chunk_count,
                    uri=record_uri(nb.id, one.source.id),
                )
                for one in results
            ],
            failures=[FailureOut(item=one.item, error=one.error) for one in failures],
        )

    async def _add_path(
        self, notebook_id: str, path: str
    ) -> tuple[list[IngestResult], list[IngestFailure]]:
        if not self._allow_paths:
            raise InvalidInputError(
                "this server does not read paths (only a local stdio server does): send the "
                "document's text or a URL instead",
                field="path",
            )
        target = Path(path).expanduser()
        if not target.is_absolute():
            raise InvalidInputError(
                f"give an absolute path; {path!r} would be read relative to the server's "
                f"working directory ({Path.cwd()})",
                field="path",
            )
        try:
            return await self._services().ingestor.add_paths(notebook_id, [target]), []
        except BatchIngestError as exc:
            if not exc.results:
                raise  # nothing was added: the call failed
            return list(exc.results), list(exc.failures)


def _title_of(text: str) -> str:
    """The first line of a text, without Markdown heading marks, as its title."""
    for line in text.splitlines():
        clean = line.strip().lstrip("#").strip()
        if clean:
            return clean if len(clean) <= _TITLE_CHARS else clean[: _TITLE_CHARS - 1] + "…"
    return "Untitled"


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None
