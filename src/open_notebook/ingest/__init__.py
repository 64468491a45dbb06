"""Ingestion: extract text from files and pages, chunk it for the embedder, embed, store.

ingestor = Ingestor(store, embedder, settings)
result = await ingestor.add_file(notebook_id, Path("report.pdf"))
results = await ingestor.add_paths(notebook_id, ["docs/", "https://example.org/page"])
"""

from open_notebook.ingest._batch import BatchIngestError, ProgressCallback
from open_notebook.ingest._chunking import ChunkSpan, CountTokens, chunk_text
from open_notebook.ingest._extract import (
    SUPPORTED_SUFFIXES,
    detect_format,
    extract_bytes,
    extract_file,
)
from open_notebook.ingest._fetch import check_url, fetch_url
from open_notebook.ingest._folders import folder_indexes
from open_notebook.ingest._insights import CompletionModel
from open_notebook.ingest._pipeline import Ingestor
from open_notebook.ingest._rebuild import check_embedding_model
from open_notebook.ingest._types import (
    Extracted,
    ExtractOptions,
    IngestFailure,
    IngestProgress,
    IngestResult,
    SourceFormat,
)

__all__ = [
    "SUPPORTED_SUFFIXES",
    "BatchIngestError",
    "ChunkSpan",
    "CompletionModel",
    "CountTokens",
    "ExtractOptions",
    "Extracted",
    "IngestFailure",
    "IngestProgress",
    "IngestResult",
    "Ingestor",
    "ProgressCallback",
    "SourceFormat",
    "check_embedding_model",
    "check_url",
    "chunk_text",
    "detect_format",
    "extract_bytes",
    "extract_file",
    "fetch_url",
    "folder_indexes",
]
