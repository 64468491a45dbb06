"""How an evaluation searches a query: as written, or as an ask searches it.

An ask also searches a question in the notebook's language when its first hits are in another
(:meth:`SearchService.search_as_asked`, with a language model's :data:`Translate`); the
evaluations measure either search through this one object.
"""

from __future__ import annotations

from dataclasses import dataclass

from open_notebook.search import SearchMode, SearchResult, SearchService, Translate


@dataclass(frozen=True, slots=True)
class QuerySearch:
    """A notebook's search of every query: ``translate`` set, as an ask searches it."""

    service: SearchService
    notebook_id: str
    mode: SearchMode
    limit: int
    translate: Translate | None = None

    async def search(self, text: str) -> tuple[str, SearchResult]:
        """The wording the hits were found for (a translation, or ``text``) and the hits."""
        if self.translate is None:
            found = await self.service.search_with_vector(
                text, notebook_id=self.notebook_id, mode=self.mode, limit=self.limit
            )
            return text, found
        return await self.service.search_as_asked(
            text,
            notebook_id=self.notebook_id,
            mode=self.mode,
            limit=self.limit,
            translate=self.translate,
        )
