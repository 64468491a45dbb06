"""The resources: a notebook's overview, and each of its sources, notes and insights as text.

A record is read through a notebook it belongs to (see ``_uris``); one that is not in that notebook
is reported as not found, so a URI never reaches outside the notebook it names.
"""

from __future__ import annotations

from mcp_types import Resource

from open_notebook.domain import Notebook
from open_notebook.errors import NotFoundError
from open_notebook.ids import normalize_id
from open_notebook.mcp._services import ServicesProvider
from open_notebook.mcp._uris import notebook_uri, page_of, record_uri

NOTEBOOK_TEMPLATE = "notebook://{notebook}"
SOURCE_TEMPLATE = "notebook://{notebook}/source/{source}{?part,start,end}"
NOTE_TEMPLATE = "notebook://{notebook}/note/{note}{?part,start,end}"
INSIGHT_TEMPLATE = "notebook://{notebook}/insight/{insight}{?part,start,end}"


class NotebookResources:
    """Readers of the ``notebook://`` URIs over one process's services."""

    def __init__(self, services: ServicesProvider) -> None:
        self._services = services

    async def listing(self) -> list[Resource]:
        """One resource per notebook (its overview names the URIs of everything in it)."""
        rows = await self._services().store.notebooks.list_with_counts()
        return [
            Resource(
                uri=notebook_uri(nb.id),
                name=nb.name,
                description=f"{nb.description} ({sources} sources, {notes} notes)".strip(),
                mime_type="text/markdown",
            )
            for nb, sources, notes in rows
        ]

    async def notebook(self, notebook: str) -> str:
        """A notebook: its description, and each source and note with the URI that reads it."""
        store = self._services().store
        nb = await self._notebook(notebook)
        source_ids = (await store.notebooks.source_ids([nb.id]))[nb.id]
        titles = await store.sources.titles(source_ids)
        notes = await store.notebooks.notes(nb.id)
        lines = [f"# {nb.name}", ""]
        if nb.description:
            lines += [nb.description, ""]
        lines += [f"id: {nb.id}; {len(source_ids)} sources, {len(notes)} notes", "", "## Sources"]
        lines += [
            f"- {titles.get(one, '(untitled)')}: {record_uri(nb.id, one)}" for one in source_ids
        ] or ["(none yet)"]
        lines += ["", "## Notes"]
        lines += [
            f"- {note.title or '(untitled)'}: {record_uri(nb.id, note.id)}" for note in notes
        ] or ["(none yet)"]
        return "\n".join(lines) + "\n"

    async def source(
        self,
        notebook: str,
        source: str,
        part: int | None = None,
        start: int | None = None,
        end: int | None = None,
    ) -> str:
        """A source's text: part 1 of a long one (each part says where the next one is)."""
        store = self._services().store
        nb = await self._notebook(notebook)
        source_id = normalize_id(source, "source")
        if source_id not in (await store.notebooks.source_ids([nb.id]))[nb.id]:
            raise NotFoundError(source_id, f"{source_id} is not in {nb.id}")
        text = (await store.sources.get(source_id)).full_text
        uri = record_uri(nb.id, source_id)
        return page_of(text, uri, part=part, start=start, end=end).body()

    async def note(
        self,
        notebook: str,
        note: str,
        part: int | None = None,
        start: int | None = None,
        end: int | None = None,
    ) -> str:
        """A note's text."""
        nb = await self._notebook(notebook)
        found = await self._services().store.notes.get(normalize_id(note, "note"))
        if found.notebook != nb.id:
            raise NotFoundError(found.id, f"{found.id} is not in {nb.id}")
        uri = record_uri(nb.id, found.id)
        return page_of(found.content, uri, part=part, start=start, end=end).body()

    async def insight(
        self,
        notebook: str,
        insight: str,
        part: int | None = None,
        start: int | None = None,
        end: int | None = None,
    ) -> str:
        """An insight (summary, key points, ...) of one of the notebook's sources."""
        store = self._services().store
        nb = await self._notebook(notebook)
        insight_id = normalize_id(insight, "source_insight")
        found = (await store.sources.get_insights([insight_id])).get(insight_id)
        if found is None:
            raise NotFoundError(insight_id)
        if found.source not in (await store.notebooks.source_ids([nb.id]))[nb.id]:
            raise NotFoundError(insight_id, f"{insight_id} is not in {nb.id}")
        uri = record_uri(nb.id, insight_id)
        return page_of(found.content, uri, part=part, start=start, end=end).body()

    async def _notebook(self, key: str) -> Notebook:
        return await self._services().store.notebooks.get(normalize_id(key, "notebook"))
