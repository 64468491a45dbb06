"""Writing prepared sources in small groups, one transaction per group."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final

from open_notebook.domain import Source
from open_notebook.errors import ExtractionError, InvalidInputError
from open_notebook.ingest._types import IngestResult, Prepared
from open_notebook.store import NewSource, Store

# A group shares one transaction: about half the cost of one each for small sources, while large
# transactions get slower (see SourceRepository.create_many and chunks.STAGE_ABOVE_CHUNKS).
GROUP_SOURCES: Final = 8
GROUP_CHUNKS: Final = 32

ItemError = ExtractionError | InvalidInputError


async def commit_many(
    store: Store, notebook_id: str | None, prepared: Sequence[Prepared]
) -> list[IngestResult | ItemError]:
    """Store prepared sources, or link the stored ones with the same text; results in order.

    The hashes are looked up again first: an item prepared earlier may have stored the same text
    since. Of several items with one text, the first is stored and the others link to it. An
    item that cannot be stored is returned as its error; the others are stored all the same.
    """
    fresh = await store.sources.find_by_hash(
        list({one.digest: None for one in prepared if one.existing is None})
    )
    firsts: dict[str, Prepared] = {}
    for one in prepared:
        if one.existing is None and one.digest not in fresh:
            firsts.setdefault(one.digest, one)
    created = await _create(store, notebook_id, list(firsts.values()))
    outcome: dict[str, Source | ItemError] = dict(zip(firsts, created, strict=True))
    results: list[IngestResult | ItemError] = []
    linked: dict[str, None] = {}
    for one in prepared:
        existing = one.existing or fresh.get(one.digest)
        if existing is not None:
            linked[existing.id] = None
            results.append(IngestResult(source=existing, created=False, chunk_count=0))
            continue
        made = outcome[one.digest]
        if not isinstance(made, Source):
            results.append(made)
        elif firsts[one.digest] is one:
            results.append(IngestResult(source=made, created=True, chunk_count=len(one.rows)))
        else:
            results.append(IngestResult(source=made, created=False, chunk_count=0))
    if linked and notebook_id is not None:
        await store.notebooks.link_sources(notebook_id, list(linked))
    return results


async def _create(
    store: Store, notebook_id: str | None, todo: list[Prepared]
) -> list[Source | ItemError]:
    notebooks = [notebook_id] if notebook_id is not None else []
    created: list[Source | ItemError] = []
    # One group after the other on purpose: small transactions (see GROUP_SOURCES).
    for group in _groups(todo):
        try:
            created.extend(
                await store.sources.create_many(
                    [_new_source(one) for one in group],
                    notebook_ids=notebooks,
                    chunks=[one.rows for one in group],
                )
            )
        except (ExtractionError, InvalidInputError) as error:
            if len(group) == 1:
                created.append(error)
            else:  # find the item at fault; the others are stored one by one
                for one in group:
                    created.extend(await _create(store, notebook_id, [one]))
    return created


def _groups(todo: list[Prepared]) -> Iterator[list[Prepared]]:
    group: list[Prepared] = []
    chunks = 0
    for one in todo:
        if group and (len(group) == GROUP_SOURCES or chunks + len(one.rows) > GROUP_CHUNKS):
            yield group
            group, chunks = [], 0
        group.append(one)
        chunks += len(one.rows)
    if group:
        yield group


def _new_source(prepared: Prepared) -> NewSource:
    extracted = prepared.extracted
    return NewSource(
        title=extracted.title,
        full_text=extracted.text,
        asset=extracted.asset,
        token_count=prepared.tokens,
    )
