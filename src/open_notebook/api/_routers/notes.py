"""Notes (chunked and embedded, so search finds them) and source insights."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from open_notebook.api._deps import IngestorDep, StoreDep
from open_notebook.api._schemas.records import (
    InsightCreate,
    InsightPublic,
    InsightsPublic,
    NoteCreate,
    NotePublic,
    NotesPublic,
    NoteUpdate,
)
from open_notebook.errors import NotFoundError
from open_notebook.ids import normalize_id

router = APIRouter(prefix="/api", tags=["notes and insights"])


@router.post("/notes", status_code=201)
async def create_note(body: NoteCreate, ingestor: IngestorDep) -> NotePublic:
    note = await ingestor.add_note(
        body.notebook_id, body.content, title=body.title, note_type=body.note_type
    )
    return NotePublic.model_validate(note)


@router.get("/notes")
async def list_notes(
    store: StoreDep, notebook_id: Annotated[str, Query(min_length=1, max_length=160)]
) -> NotesPublic:
    notebook = await store.notebooks.get(notebook_id)
    notes = await store.notebooks.notes(notebook.id)
    return NotesPublic(data=[NotePublic.model_validate(one) for one in notes], count=len(notes))


@router.get("/notes/{note_id}")
async def read_note(note_id: str, store: StoreDep) -> NotePublic:
    return NotePublic.model_validate(await store.notes.get(note_id))


@router.patch("/notes/{note_id}")
async def update_note(note_id: str, body: NoteUpdate, ingestor: IngestorDep) -> NotePublic:
    """Change a note; new content is re-chunked and re-embedded in the same transaction."""
    note = await ingestor.update_note(note_id, content=body.content, title=body.title)
    return NotePublic.model_validate(note)


@router.delete("/notes/{note_id}", status_code=204)
async def delete_note(note_id: str, store: StoreDep) -> None:
    await store.notes.delete(note_id)


@router.post("/sources/{source_id}/insights", status_code=201)
async def create_insight(
    source_id: str, body: InsightCreate, ingestor: IngestorDep
) -> InsightPublic:
    insight = await ingestor.add_insight(source_id, body.insight_type, body.content)
    return InsightPublic.model_validate(insight)


@router.get("/sources/{source_id}/insights")
async def list_insights(source_id: str, store: StoreDep) -> InsightsPublic:
    source = await store.sources.get(source_id)
    insights = (await store.sources.insights_for([source.id]))[source.id]
    data = [InsightPublic.model_validate(one) for one in insights]
    return InsightsPublic(data=data, count=len(data))


@router.get("/insights/{insight_id}")
async def read_insight(insight_id: str, store: StoreDep) -> InsightPublic:
    canonical = normalize_id(insight_id, "source_insight")
    found = await store.sources.get_insights([canonical])
    if canonical not in found:
        raise NotFoundError(canonical)
    return InsightPublic.model_validate(found[canonical])


@router.delete("/insights/{insight_id}", status_code=204)
async def delete_insight(insight_id: str, store: StoreDep) -> None:
    await store.sources.delete_insight(normalize_id(insight_id, "source_insight"))
