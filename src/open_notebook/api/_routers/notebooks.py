"""Notebooks: create, list, read, rename, delete (with cascade), and source membership."""

from __future__ import annotations

from fastapi import APIRouter

from open_notebook.api._deps import StoreDep
from open_notebook.api._schemas.records import (
    NotebookCreate,
    NotebookDetail,
    NotebookListed,
    NotebookPublic,
    NotebooksPublic,
    NotebookUpdate,
)
from open_notebook.ids import normalize_id

router = APIRouter(prefix="/api/notebooks", tags=["notebooks"])


@router.post("", status_code=201)
async def create_notebook(body: NotebookCreate, store: StoreDep) -> NotebookPublic:
    notebook = await store.notebooks.create(body.name, body.description)
    return NotebookPublic.model_validate(notebook)


@router.get("")
async def list_notebooks(store: StoreDep) -> NotebooksPublic:
    """Every notebook with its number of sources and of notes."""
    rows = await store.notebooks.list_with_counts()
    data = [
        NotebookListed.model_validate(
            {
                **NotebookPublic.model_validate(notebook).model_dump(),
                "source_count": sources,
                "note_count": notes,
            }
        )
        for notebook, sources, notes in rows
    ]
    return NotebooksPublic(data=data, count=len(data))


@router.get("/{notebook_id}")
async def read_notebook(notebook_id: str, store: StoreDep) -> NotebookDetail:
    """A notebook with the ids of its sources and notes."""
    notebook = await store.notebooks.get(notebook_id)
    sources = await store.notebooks.source_ids([notebook.id])
    notes = await store.notebooks.note_ids([notebook.id])
    return NotebookDetail.model_validate(
        {
            **NotebookPublic.model_validate(notebook).model_dump(),
            "source_ids": sources[notebook.id],
            "note_ids": notes[notebook.id],
        }
    )


@router.patch("/{notebook_id}")
async def update_notebook(
    notebook_id: str, body: NotebookUpdate, store: StoreDep
) -> NotebookPublic:
    notebook = await store.notebooks.update(
        notebook_id, name=body.name, description=body.description
    )
    return NotebookPublic.model_validate(notebook)


@router.delete("/{notebook_id}", status_code=204)
async def delete_notebook(notebook_id: str, store: StoreDep) -> None:
    """Delete a notebook, its notes, and the sources that belong to no other notebook."""
    await store.notebooks.delete(notebook_id)


@router.post("/{notebook_id}/sources/{source_id}", status_code=204)
async def link_source(notebook_id: str, source_id: str, store: StoreDep) -> None:
    """Add an existing source to a notebook (adding it twice is a no-op)."""
    await store.notebooks.link_sources(notebook_id, [source_id])


@router.delete("/{notebook_id}/sources/{source_id}", status_code=204)
async def unlink_source(notebook_id: str, source_id: str, store: StoreDep) -> None:
    """Remove a source from a notebook; the source itself stays."""
    notebook = await store.notebooks.get(notebook_id)
    source = await store.sources.get(source_id)
    await store.notebooks.unlink_source(notebook.id, normalize_id(source.id, "source"))
