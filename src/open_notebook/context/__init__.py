"""Pure context assembly: candidates → dedup → prioritize → fit (shrink before drop) → render.

Nothing here does I/O; the token counter is passed in and counts the text that will be sent.
"""

from open_notebook.context.assemble import Assembly, assemble
from open_notebook.context.dedup import DEFAULT_NEAR_THRESHOLD, Deduper, deduplicate
from open_notebook.context.fit import FitParams, place_whole, shrink, stub_tokens
from open_notebook.context.manifest import build_manifest, canonical_json, content_hash
from open_notebook.context.model import (
    Candidate,
    Dropped,
    DropReason,
    ItemType,
    Piece,
    Placed,
    RenderFormat,
    prioritize,
    sort_key,
)
from open_notebook.context.render import render_block, render_document
from open_notebook.context.select import Selection, SelectOptions, select

__all__ = [
    "DEFAULT_NEAR_THRESHOLD",
    "Assembly",
    "Candidate",
    "Deduper",
    "DropReason",
    "Dropped",
    "FitParams",
    "ItemType",
    "Piece",
    "Placed",
    "RenderFormat",
    "SelectOptions",
    "Selection",
    "assemble",
    "build_manifest",
    "canonical_json",
    "content_hash",
    "deduplicate",
    "place_whole",
    "prioritize",
    "render_block",
    "render_document",
    "select",
    "shrink",
    "sort_key",
    "stub_tokens",
]
