"""Sources: add from text, an uploaded file or a URL (chunked and embedded), read, list, delete."""

from __future__ import annotations

from pathlib import PurePath
from typing import Annotated

from fastapi import APIRouter, File, Form, Query, UploadFile

from open_notebook.api._deps import IngestorDep, SettingsDep, StoreDep
from open_notebook.api._errors import BodyTooLargeError
from open_notebook.api._schemas.records import (
    SourceAdded,
    SourceCreate,
    SourceDetail,
    SourceFromUrl,
    SourcePublic,
    SourcesPublic,
    SourceTextPublic,
)
from open_notebook.domain import Source, text_span
from open_notebook.ids import normalize_id
from open_notebook.ingest import IngestResult

router = APIRouter(prefix="/api/sources", tags=["sources"])

_MAX_OFFSET = 2**31 - 1


def _public(source: Source, notebook_ids: list[str]) -> dict[str, object]:
    asset = source.asset
    return {
        **source.model_dump(include={"id", "title", "topics", "token_count", "created", "updated"}),
        "url": asset.url if asset else None,
        "file_name": PurePath(asset.file_path).name if asset and asset.file_path else None,
        "ocr_pages": asset.ocr_pages if asset else None,
        "ocr_engine": asset.ocr_engine if asset else None,
        "notebook_ids": notebook_ids,
    }


def _added(result: IngestResult, notebook_id: str | None) -> SourceAdded:
    return SourceAdded.model_validate(
        {
            **_public(result.source, [notebook_id] if notebook_id else []),
            "already_stored": not result.created,
            "chunk_count": result.chunk_count,
        }
    )


@router.post("", status_code=201)
async def create_source(body: SourceCreate, ingestor: IngestorDep) -> SourceAdded:
    """Add a source from text: chunked, embedded and stored in one transaction."""
    result = await ingestor.add_text(body.notebook_id, body.title, body.text)
    return _added(result, body.notebook_id)


@router.post("/url", status_code=201)
async def create_source_from_url(body: SourceFromUrl, ingestor: IngestorDep) -> SourceAdded:
    """Fetch a web page (public addresses only unless allowed) and add its main text."""
    result = await ingestor.add_url(body.notebook_id, body.url)
    return _added(result, body.notebook_id)


@router.post("/upload", status_code=201)
async def upload_source(
    file: Annotated[
        UploadFile,
        File(
            description="PDF (scanned pages by OCR), DOCX, PPTX, XLSX, CSV, EPUB, an image "
            "(PNG, JPEG, TIFF, WebP by OCR), a recording (transcribed), HTML, Markdown or text"
        ),
    ],
    ingestor: IngestorDep,
    settings: SettingsDep,
    notebook_id: Annotated[str | None, Form(max_length=160)] = None,
) -> SourceAdded:
    """Upload a file (at most ``OPEN_NOTEBOOK_MAX_UPLOAD_BYTES``) and add its text."""
    if file.size is not None and file.size > settings.max_upload_bytes:
        raise BodyTooLargeError(settings.max_upload_bytes, "upload")
    notebook = normalize_id(notebook_id, "notebook") if notebook_id else None
    data = await file.read()
    name = PurePath(file.filename or "upload.txt").name
    result = await ingestor.add_file(notebook, name, data)
    return _added(result, notebook)


@router.get("")
async def list_sources(
    store: StoreDep,
    notebook_id: Annotated[str | None, Query(max_length=160)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> SourcesPublic:
    """Sources of a notebook, or of the whole library (without their full text)."""
    if notebook_id is not None:
        sources = (await store.notebooks.sources(notebook_id))[offset : offset + limit]
    else:
        sources = await store.sources.list_all(limit=limit, start=offset)
    memberships = await store.sources.notebooks_of([one.id for one in sources])
    data = [SourcePublic.model_validate(_public(one, memberships[one.id])) for one in sources]
    return SourcesPublic(data=data, count=len(data))


@router.get("/{source_id}")
async def read_source(source_id: str, store: StoreDep) -> SourceDetail:
    source = await store.sources.get(source_id)
    memberships = await store.sources.notebooks_of([source.id])
    return SourceDetail.model_validate(
        {**_public(source, memberships[source.id]), "full_text": source.full_text}
    )


@router.get("/{source_id}/text")
async def read_source_text(
    source_id: str,
    store: StoreDep,
    start: Annotated[int, Query(ge=0, le=_MAX_OFFSET)] = 0,
    end: Annotated[int | None, Query(ge=0, le=_MAX_OFFSET)] = None,
) -> SourceTextPublic:
    """Characters ``[start, end)`` of a source's text (clamped to its length, like a slice):
    the passage a search hit or a citation names, with as much around it as asked for."""
    source = await store.sources.get(source_id)
    begin, stop = text_span(len(source.full_text), start, end)
    return SourceTextPublic(
        id=source.id,
        title=source.title,
        length=len(source.full_text),
        start=begin,
        end=stop,
        text=source.full_text[begin:stop],
    )


@router.delete("/{source_id}", status_code=204)
async def delete_source(source_id: str, store: StoreDep) -> None:
    """Delete a source with its chunks, insights and notebook links."""
    await store.sources.delete(source_id)
