"""Notebook-scoped search: vector, BM25 full text, and hybrid (both lists weighed and fused).

service = SearchService(store, embedder, settings)
hits = await service.search("lift of a wing", notebook_id="notebook:abc", mode=SearchMode.HYBRID)
groups = group_by_parent(hits)

The text analysis of BM25 lives in :mod:`open_notebook.text` (the one home of language
detection, stems, stop words and n-grams); ``words``, ``WordTerms`` and ``query_terms`` are
re-exported here for the callers that import them from search.
"""

from open_notebook.config import FusionMethod
from open_notebook.search._asked import Translate, other_language
from open_notebook.search._fusion import DEFAULT_RRF_K, convex_fuse, rrf_fuse
from open_notebook.search._hits import ParentGroup, group_by_parent
from open_notebook.search._service import MAX_LIMIT, AskedSearch, QueryEmbedder, SearchService
from open_notebook.search._types import (
    FusionWeights,
    HitScores,
    HitType,
    SearchHit,
    SearchMode,
    SearchResult,
)
from open_notebook.text import WordTerms, query_terms, words

__all__ = [
    "DEFAULT_RRF_K",
    "MAX_LIMIT",
    "AskedSearch",
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
    "Translate",
    "WordTerms",
    "convex_fuse",
    "group_by_parent",
    "other_language",
    "query_terms",
    "rrf_fuse",
    "words",
]
