"""The context builder: the best context that fits a token budget, with a manifest of why.

    counter = BpeTokenCounter(settings.tokenizer)  # loaded once by whoever owns the services
    request = ContextRequest(
        notebook_id="notebook:abc", query="why is my loaf dense", budget=800, counter=counter
    )
    payload = await build_context(request, reader=store.context, searcher=search_service)
    payload.rendered, payload.total_tokens, payload.passages, payload.to_dict()

With a question, the context is made of passages (the sentences of the chunks search found,
chosen by expected evidence per token); without one, of records (the seed's sources, insights
and notes, cut to fit where they must). :func:`pack_chunks` is plain top-k chunk packing, the
baseline the builder is measured against (``open-notebook eval --context``).

Everything below the entry point is pure: candidates in, rendered text and decisions out; the
token counter is passed in and counts the text that will be sent.
"""

from open_notebook.context._baseline import ChunkPacking, pack_chunks
from open_notebook.context._build import build_context
from open_notebook.context._config import (
    ContextConfig,
    InclusionLevel,
    check_bool,
    check_budget,
    id_list,
    optional_number,
    parse_counter,
    parse_format,
    parse_inclusion,
    parse_query,
)
from open_notebook.context._dedup import DEFAULT_NEAR_THRESHOLD, Deduper, deduplicate
from open_notebook.context._manifest import build_manifest, canonical_json, content_hash
from open_notebook.context._memo import ContextMemo
from open_notebook.context._model import (
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
from open_notebook.context._payload import ContextPayload, Passage, RecordEntry, passage_dict
from open_notebook.context._question.assemble import PassageAssembly, assemble_passages
from open_notebook.context._question.sentences import RankedChunk
from open_notebook.context._record.assemble import Assembly, assemble
from open_notebook.context._record.build import fit_records, record_payload, useful_body_tokens
from open_notebook.context._record.fit import FitParams, place_whole, shrink, stub_tokens
from open_notebook.context._record.ledger import SelectOptions
from open_notebook.context._record.select import Selection, select
from open_notebook.context._render import (
    RunText,
    label_of,
    literal_markdown,
    record_text,
    render_block,
    render_document,
    render_passages,
    shared_labels,
)
from open_notebook.context._request import ContextRequest, Searcher, VectorSearcher
from open_notebook.store import ContextReader

__all__ = [
    "DEFAULT_NEAR_THRESHOLD",
    "Assembly",
    "Candidate",
    "ChunkPacking",
    "ContextConfig",
    "ContextMemo",
    "ContextPayload",
    "ContextReader",
    "ContextRequest",
    "Deduper",
    "DropReason",
    "Dropped",
    "FitParams",
    "InclusionLevel",
    "ItemType",
    "Passage",
    "PassageAssembly",
    "Piece",
    "Placed",
    "RankedChunk",
    "RecordEntry",
    "RenderFormat",
    "RunText",
    "Searcher",
    "VectorSearcher",
    "SelectOptions",
    "Selection",
    "assemble",
    "assemble_passages",
    "build_context",
    "build_manifest",
    "canonical_json",
    "check_bool",
    "check_budget",
    "content_hash",
    "deduplicate",
    "fit_records",
    "id_list",
    "optional_number",
    "pack_chunks",
    "parse_counter",
    "label_of",
    "literal_markdown",
    "parse_format",
    "parse_inclusion",
    "parse_query",
    "passage_dict",
    "place_whole",
    "prioritize",
    "record_payload",
    "record_text",
    "render_block",
    "render_document",
    "render_passages",
    "select",
    "shared_labels",
    "shrink",
    "sort_key",
    "stub_tokens",
    "useful_body_tokens",
]
