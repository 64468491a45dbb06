"""Notebook-scoped search: vector, BM25, or both fused (``_fusion.py`` says how)."""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np
import numpy.typing as npt

from open_notebook.config import Settings
from open_notebook.embeddings import readable_scripts, reads_language
from open_notebook.errors import InvalidInputError
from open_notebook.ids import normalize_id
from open_notebook.search._asked import Translate, other_language
from open_notebook.search._fusion import DEFAULT_RRF_K
from open_notebook.search._highlight import snippets, term_pattern
from open_notebook.search._hits import RankedId, hits_from
from open_notebook.search._hybrid import HybridFusion
from open_notebook.search._parts import merge_parts, merge_readings
from open_notebook.search._query import PreparedQuery, prepare_query
from open_notebook.search._sentences import RERANK_DEPTH, best_sentences, rerank_by_sentences
from open_notebook.search._snapshots import SnapshotCache
from open_notebook.search._types import HitScores, HitType, SearchHit, SearchMode, SearchResult
from open_notebook.search._vectors import VectorSnapshot
from open_notebook.store import Store
from open_notebook.text import DEFAULT_LANGUAGE, LanguageDetector, question_parts

MAX_LIMIT = 1000
# Highlight terms come from the start of a huge query only (the regex stays small).
_HIGHLIGHT_QUERY_CHARS = 4096
ALL_TYPES = frozenset(HitType)


class QueryEmbedder(Protocol):
    """What search needs of an embedder (``open_notebook.embeddings.Embedder`` fits)."""

    model_id: str
    max_tokens: int

    @property
    def dim(self) -> int: ...

    def embed_query(self, text: str) -> npt.NDArray[np.float32]: ...


@dataclass(frozen=True, slots=True)
class _Request:
    query: PreparedQuery
    notebook_id: str | None
    mode: SearchMode
    limit: int
    kinds: frozenset[HitType]

    @property
    def pool(self) -> int:
        """Candidates taken from each list: fusion needs more than the final limit."""
        return (
            self.limit
            if self.mode is not SearchMode.HYBRID
            else min(MAX_LIMIT, max(100, 3 * self.limit))
        )


@dataclass(frozen=True, slots=True)
class _EarlyVectors:
    """The query vector, and hits from a snapshot that may turn out stale; a pair of models'
    halves, to weigh them again for another snapshot's languages."""

    vector: npt.NDArray[np.float32] | None
    snapshot: VectorSnapshot | None
    hits: list[tuple[str, float]]
    halves: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]] | None = None


class SearchService:
    """Search chunks of one notebook (or all) by meaning, by words, or both.

    Hybrid fusion follows ``settings.search_fusion`` and ``settings.search_feedback``.

    Args:
        rrf_k: the ``k`` of reciprocal-rank fusion (larger flattens rank differences).
        weights: RRF weights of the (vector, BM25) lists (the default fusion weighs per query).
    """

    def __init__(
        self,
        store: Store,
        embedder: QueryEmbedder,
        settings: Settings,
        *,
        rrf_k: int = DEFAULT_RRF_K,
        weights: tuple[float, float] = (1.0, 1.0),
        exact_limit: int = 8_192,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._settings = settings
        self.fusion = HybridFusion(
            settings.search_fusion,
            feedback=settings.search_feedback,
            scripts=readable_scripts(embedder),
            rrf_k=rrf_k,
            rrf_weights=weights,
        )
        self.snapshots = SnapshotCache(store, exact_limit=exact_limit)
        self._languages = LanguageDetector()

    async def search(
        self,
        query: str,
        *,
        notebook_id: str | None = None,
        mode: SearchMode | str = SearchMode.HYBRID,
        limit: int = 10,
        min_score: float | None = None,
        types: Collection[HitType | str] = ALL_TYPES,
        asker: str = "",
    ) -> list[SearchHit]:
        """Ranked chunk-level hits.

        ``min_score`` applies to the mode's own score: cosine (vector), BM25 (text) or the fused
        score (hybrid: 0-1, or the RRF score with ``search_fusion=rrf``). ``asker``: the
        language the asker reads (an ISO 639-1 code), which settles the language of a query
        whose words leave it open, and with it the stemmer and the vector that read it.

        Raises:
            InvalidInputError: empty query, limit outside 1-1000, unknown mode or type.
            NotFoundError: the notebook does not exist.
            EmbeddingModelMismatchError: stored vectors come from another embedding model.
        """
        found = await self.search_with_vector(
            query,
            notebook_id=notebook_id,
            mode=mode,
            limit=limit,
            min_score=min_score,
            types=types,
            asker=asker,
        )
        return found.hits

    def asked_by(self, asker: str) -> AskedSearch:
        """This search reading every query in ``asker``'s language (an ISO 639-1 code; ``""``:
        none), for a caller that searches without naming it (a context build)."""
        return AskedSearch(self, asker)

    async def search_with_vector(
        self,
        query: str,
        *,
        notebook_id: str | None = None,
        mode: SearchMode | str = SearchMode.HYBRID,
        limit: int = 10,
        min_score: float | None = None,
        types: Collection[HitType | str] = ALL_TYPES,
        asker: str = "",
    ) -> SearchResult:
        """:meth:`search`'s hits, with the query's vector it embedded when the query's detected
        language is one the embedder declares it was trained on (see :class:`SearchResult`).
        ``asker`` is the asker's own language, which reads a short question's language
        (:meth:`open_notebook.text.LanguageDetector.detect`).

        A hybrid search of a question that asks several things also searches each part and
        merges the lists (:mod:`open_notebook.search._parts`); the vector is the whole's, and
        each part's comes beside it."""
        request = self._request(query, notebook_id, mode, limit, types, asker)
        parts = question_parts(request.query.text, request.query.language)
        whole = await self._search_one(request, min_score)
        if request.mode is not SearchMode.HYBRID or len(parts) < 2:
            return whole
        found = [
            await self._search_one(replace(request, query=self._part(part, request)), min_score)
            for part in parts
        ]
        hits = merge_parts(whole.hits, [one.hits for one in found], request.limit)
        vectors = tuple(one.question_vector for one in found if one.question_vector is not None)
        return SearchResult(hits, whole.question_vector, vectors)

    async def search_translated(
        self,
        asked: SearchResult,
        translation: str,
        *,
        notebook_id: str | None = None,
        limit: int = 10,
    ) -> SearchResult:
        """A hybrid search of ``translation`` (the question in the notebook's language), its
        hits merged with ``asked`` (the question's own search), each at its better standing
        (:mod:`open_notebook.search._parts`); the vector is the translation's, as the builder
        weighs the sentences by the translation's terms."""
        found = await self.search_with_vector(translation, notebook_id=notebook_id, limit=limit)
        hits = merge_readings(found.hits, [asked.hits], limit)
        return SearchResult(hits, found.question_vector, found.part_vectors)

    async def search_as_asked(
        self,
        question: str,
        *,
        notebook_id: str | None = None,
        mode: SearchMode | str = SearchMode.HYBRID,
        limit: int = 10,
        translate: Translate | None = None,
        asker: str = "",
    ) -> tuple[str, SearchResult]:
        """The search an ask makes (:mod:`open_notebook.search._asked`): ``question`` searched as
        asked and, with ``translate``, also in the language its first hits are written in when
        that is another one. Returns the wording the hits were found for (the translation when
        one was searched: the builder weighs sentences by its terms) and the hits."""
        asked = await self.search_with_vector(
            question, notebook_id=notebook_id, mode=mode, limit=limit, asker=asker
        )
        if translate is None:
            return question, asked
        texts = [hit.text for hit in asked.hits]
        target = other_language(texts, question, self._languages, asker=asker)
        if target is None:
            return question, asked
        titles = list(dict.fromkeys(hit.parent_title for hit in asked.hits))
        translation = await translate(question, target, titles)
        if translation is None:
            return question, asked
        merged = await self.search_translated(
            asked, translation, notebook_id=notebook_id, limit=limit
        )
        return translation, merged

    def _part(self, text: str, request: _Request) -> PreparedQuery:
        return prepare_query(
            text, max_tokens=self._embedder.max_tokens, language=request.query.language
        )

    async def _search_one(self, request: _Request, min_score: float | None) -> SearchResult:
        # The stamp's round trip (the only one) runs while this thread embeds the query and
        # searches the snapshot loaded last; a changed stamp means a reload and a new search.
        stamp_read = asyncio.ensure_future(self._store.scopes.stamp(request.notebook_id))
        try:
            await asyncio.sleep(0)  # sends the stamp query before the CPU work below
            early = self._search_loaded(request)
        finally:
            # Always awaited, so its error (an unknown notebook) is never left unretrieved.
            stamp = await stamp_read
        snapshot = await self.snapshots.snapshot(request.notebook_id, stamp)
        vector_hits: list[tuple[str, float]] = []
        vector = early.vector
        if early.halves is not None and early.snapshot is not snapshot:
            vector = self._weighted(early.halves, request, snapshot)
        if vector is not None:
            vector = self._stored_space(snapshot, vector, early.halves)
            vector_hits = (
                early.hits
                if early.snapshot is snapshot
                else snapshot.search(vector, request.pool, request.kinds)
            )
        text_hits: list[tuple[str, float]] = []
        lexical = 1.0
        if request.mode is not SearchMode.VECTOR:
            text = self.snapshots.text(request.notebook_id, snapshot)
            text_hits = text.search(request.query.bm25_text, request.pool, request.kinds)
            lexical = text.coverage(request.query.bm25_text)
        ranked = self._rank(request, snapshot, (vector, lexical), vector_hits, text_hits, min_score)
        question = self._sentence_question(request, vector)
        if question is not None and request.mode is SearchMode.HYBRID:
            read = await self._store.chunks.sentence_vectors(
                [one.id for one in ranked[:RERANK_DEPTH]]
            )
            ranked = rerank_by_sentences(ranked, best_sentences(question, read))
        pattern = term_pattern(
            request.query.text[:_HIGHLIGHT_QUERY_CHARS], request.query.language or DEFAULT_LANGUAGE
        )
        hits = hits_from(snapshot.catalog, ranked, lambda text: snippets(text, pattern))
        return SearchResult(hits, question)

    def _sentence_question(
        self, request: _Request, vector: npt.NDArray[np.float32] | None
    ) -> npt.NDArray[np.float32] | None:
        """The question's vector as stored sentence vectors are compared with it (by the builder
        and the hybrid list's re-reading), or ``None``: no vector, one from another model's
        space, or a language the embedder was not trained on."""
        if vector is None or vector.shape[0] != self._embedder.dim:
            return None
        if not reads_language(self._embedder, request.query.language):
            return None
        for_sentences = getattr(self._embedder, "for_sentences", None)
        if for_sentences is None:
            return vector
        scaled: npt.NDArray[np.float32] = for_sentences(vector)
        return scaled

    def _read_columns(self, vector: npt.NDArray[np.float32] | None) -> npt.NDArray[np.bool_] | None:
        """The columns a pair of models' question was read with (``None``: all of them)."""
        columns = getattr(self._embedder, "read_columns", None)
        if vector is None or columns is None or vector.shape[0] != self._embedder.dim:
            return None
        read: npt.NDArray[np.bool_] = columns(vector)
        return read

    def _stored_space(
        self,
        snapshot: VectorSnapshot,
        vector: npt.NDArray[np.float32],
        halves: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]] | None,
    ) -> npt.NDArray[np.float32]:
        """The query's vector in the space of the scope's stored vectors.

        Vectors stored by one model of a pair (MiniLM alone, before the pair was the default)
        are searched with the question's half of that model until ``rebuild-embeddings``
        re-embeds them; any other model is refused.

        Raises:
            EmbeddingModelMismatchError: stored vectors come from another embedding model.
        """
        model = (self._embedder.model_id, self._embedder.dim)
        if len(snapshot.models) == 1 and model not in snapshot.models:
            ((stored, dim),) = snapshot.models
            models = [getattr(self._embedder, one, None) for one in ("first", "second")]
            ids = [getattr(one, "model_id", None) for one in models]
            half = getattr(self._embedder, "half", None)
            if halves is not None and stored in ids:
                # That model's own reading of the question, whatever its language.
                part: npt.NDArray[np.float32] | None = halves[ids.index(stored)]
            else:
                part = half(vector, stored) if half is not None else None
            if part is not None and part.shape[0] == dim:
                return part
        snapshot.check_model(*model)
        return vector

    def _search_loaded(self, request: _Request) -> _EarlyVectors:
        """Embed the query and search the scope's last loaded snapshot, if it is of this model."""
        if request.mode is SearchMode.TEXT:
            return _EarlyVectors(None, None, [])
        loaded = self.snapshots.latest(request.notebook_id)
        # A pair of models reads the question with the halves its and the notebook's languages
        # call for (``embeddings/_paired.py``).
        halves_of = getattr(self._embedder, "embed_halves", None)
        halves = halves_of(request.query.embed_text) if halves_of is not None else None
        if halves is not None:
            vector = self._weighted(halves, request, loaded)
        else:
            vector = self._embedder.embed_query(request.query.embed_text)
        if loaded is None or loaded.models != {(self._embedder.model_id, self._embedder.dim)}:
            return _EarlyVectors(vector, None, [], halves)
        hits = loaded.search(vector, request.pool, request.kinds)
        return _EarlyVectors(vector, loaded, hits, halves)

    def _weighted(
        self,
        halves: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]],
        request: _Request,
        snapshot: VectorSnapshot | None,
    ) -> npt.NDArray[np.float32]:
        scope = (
            None if snapshot is None else self.fusion.scope_languages(request.notebook_id, snapshot)
        )
        vector: npt.NDArray[np.float32] = self._embedder.weighted(  # type: ignore[attr-defined]
            halves, request.query.language, scope or None
        )
        return vector

    def _request(
        self,
        query: object,
        notebook_id: str | None,
        mode: SearchMode | str,
        limit: object,
        types: Collection[HitType | str],
        asker: str = "",
    ) -> _Request:
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
            raise InvalidInputError(f"limit must be 1-{MAX_LIMIT}, got {limit!r}", field="limit")
        try:
            # "bm25" is the CLI's and the name for text search.
            parsed_mode = SearchMode("text" if mode == "bm25" else mode)
            kinds = frozenset(HitType(kind) for kind in types)
        except ValueError as exc:
            raise InvalidInputError(str(exc), field="mode/types") from None
        if not kinds:
            raise InvalidInputError("types must name at least one hit type", field="types")
        return _Request(
            query=prepare_query(
                query,
                max_tokens=self._embedder.max_tokens,
                language=self._languages.detect(query, asker=asker)
                if isinstance(query, str)
                else "",
            ),
            notebook_id=None if notebook_id is None else normalize_id(notebook_id, "notebook"),
            mode=parsed_mode,
            limit=limit,
            kinds=kinds,
        )

    def _rank(
        self,
        request: _Request,
        snapshot: VectorSnapshot,
        evidence: tuple[npt.NDArray[np.float32] | None, float],
        vector_hits: list[tuple[str, float]],
        text_hits: list[tuple[str, float]],
        min_score: float | None,
    ) -> list[RankedId]:
        """The best ``limit`` hits; each list's score is its mode's own (cosine, BM25, fused).
        ``evidence``: the query's vector and the share of its term weight the text index holds."""
        vector, lexical = evidence
        cosine = dict(vector_hits)
        bm25 = dict(text_hits)
        weights = None
        if request.mode is SearchMode.VECTOR:
            fused = vector_hits
        elif request.mode is SearchMode.TEXT:
            fused = text_hits
        else:
            fused, weights = self.fusion.fuse(
                request.notebook_id,
                snapshot,
                (request.query.text, vector),
                vector_hits,
                text_hits,
                lexical,
                request.query.language,
                self._read_columns(vector),
            )
        if min_score is not None:
            fused = [(chunk, score) for chunk, score in fused if score >= min_score]
        return [
            RankedId(
                chunk,
                HitScores(
                    vector=cosine.get(chunk), bm25=bm25.get(chunk), fused=score, weights=weights
                ),
            )
            for chunk, score in fused[: request.limit]
        ]


@dataclass(frozen=True, slots=True)
class AskedSearch:
    """A :class:`SearchService` that reads every query in one asker's language (a request's
    ``Accept-Language``, a terminal's locale): the searcher of a context built for that asker."""

    service: SearchService
    asker: str

    async def search(
        self,
        query: str,
        *,
        notebook_id: str | None = None,
        mode: SearchMode | str = SearchMode.HYBRID,
        limit: int = 10,
    ) -> list[SearchHit]:
        return await self.service.search(
            query, notebook_id=notebook_id, mode=mode, limit=limit, asker=self.asker
        )

    async def search_with_vector(
        self,
        query: str,
        *,
        notebook_id: str | None = None,
        mode: SearchMode | str = SearchMode.HYBRID,
        limit: int = 10,
    ) -> SearchResult:
        return await self.service.search_with_vector(
            query, notebook_id=notebook_id, mode=mode, limit=limit, asker=self.asker
        )
