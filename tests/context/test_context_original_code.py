"""Code written for the original context builder, through the seed's public names only.

Written the way the reference's own tests and extensions are: ``from open_notebook.utils import
token_count``, a subclass with async hooks, a replaced ``Source.get``, a ``ContextConfig``
assigned after it is made, ``metadata.config``; builds take no store (the process default is the
test's ``mem://`` store), as the reference's never did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from open_notebook.errors import InvalidInputError, NotFoundError
from open_notebook.store import NewSource, Store
from open_notebook.utils import token_count
from open_notebook.utils.context_builder import (
    ContextBuilder,
    ContextConfig,
    ContextItem,
    Note,
    Source,
    build_notebook_context,
    build_source_context,
)


@dataclass(frozen=True)
class Shelf:
    notebook_id: str
    sources: tuple[str, ...]  # S1, S2, S3
    insights: dict[str, tuple[str, ...]]  # by source
    notes: tuple[str, ...]


TOPICS = ("wind turbines", "solar panels", "battery storage")


@pytest.fixture
async def shelf(default_store: Store) -> Shelf:
    """A notebook of three sources with two insights each, and two notes."""
    store = default_store
    notebook = await store.notebooks.create("Energy")
    sources, insights = [], {}
    for index, topic in enumerate(TOPICS):
        text = f"Source {index + 1} explains {topic}. It has a second sentence on {topic}."
        created = await store.sources.create(
            NewSource(f"About {topic}", text), notebook_ids=[notebook.id]
        )
        sources.append(created.id)
        added = [
            await store.sources.add_insight(created.id, kind, f"{kind} of {topic}.")
            for kind in ("summary", "key points")
        ]
        insights[created.id] = tuple(one.id for one in added)
    notes = [
        (await store.notes.create(notebook.id, content, title=title)).id
        for title, content in [("Todo", "Check the turbine numbers."), ("Idea", "Compare both.")]
    ]
    return Shelf(notebook.id, tuple(sources), insights, tuple(notes))


def _ids(ctx: dict[str, Any], group: str) -> list[str]:
    return [item["id"] for item in ctx[group]]


# The reference's own tests of the class (tests/test_utils.py, its last version with the class).


def test_context_config_defaults() -> None:
    config = ContextConfig()
    assert config.sources == {}
    assert config.notes == {}
    assert config.include_insights is True
    assert config.include_notes is True
    assert config.priority_weights is not None
    assert {"source", "note", "insight"} <= set(config.priority_weights)


def test_context_builder_initialization() -> None:
    builder = ContextBuilder(
        source_id="source:123", notebook_id="notebook:456", max_tokens=1000, include_insights=False
    )
    assert builder.source_id == "source:123"
    assert builder.notebook_id == "notebook:456"
    assert builder.max_tokens == 1000
    assert builder.include_insights is False
    assert builder.context_config.max_tokens == 1000
    assert builder.context_config.include_insights is False


def test_token_count_is_documented_where_the_reference_has_it() -> None:
    # o200k_base: "Hello", ",", " world", "!"; the reference's offline fallback said 2.
    assert token_count("Hello, world!") == 4


# A record's context dict as an item's content, counted on what is sent.


def test_an_item_holds_a_records_context_dict_and_counts_what_is_sent() -> None:
    context = {"id": "source:a", "title": "Wind", "full_text": "Wind is cheap.", "topics": ["x"]}
    item = ContextItem(id="source:a", type="source", content=context)
    assert item.text == 'Wind is cheap.\n\ntopics: ["x"]'
    assert item.token_count == token_count(item.text)
    assert item.token_count < token_count(str(context))
    reordered = ContextItem(id="source:a", type="source", content=dict(reversed(context.items())))
    assert reordered.text == item.text
    with pytest.raises(InvalidInputError, match="content"):
        ContextItem(id="source:a", type="source", content=["not", "a", "dict"])  # type: ignore[arg-type]


# A subclass with async hooks, as projects built on the reference write them.


class GlossaryBuilder(ContextBuilder):
    """Skips notes titled "Todo" and adds a glossary passed as ``custom_glossary``."""

    async def _add_note_context(self, note_id: str, inclusion_level: str = "full content") -> None:
        note = await self.note_by_id(note_id)
        if note["title"] != "Todo":
            await super()._add_note_context(note_id, inclusion_level)

    async def note_by_id(self, note_id: str) -> dict[str, Any]:
        return (await Note.get(note_id)).get_context(context_size="short")

    async def _process_custom_params(self) -> None:
        glossary = self.params.get("custom_glossary")
        if glossary:
            context = {"id": "note:glossary", "title": "Glossary", "content": glossary}
            self.add_item(
                ContextItem(id="note:glossary", type="note", content=context, priority=200)
            )


async def test_a_subclass_with_async_hooks_changes_the_build(shelf: Shelf) -> None:
    builder = GlossaryBuilder(
        notebook_id=shelf.notebook_id, custom_glossary="kWh: a unit of energy.", max_tokens=2000
    )
    ctx = await builder.build()
    assert _ids(ctx, "notes") == ["note:glossary", shelf.notes[1]]
    assert "### [note:glossary] Glossary\nkWh: a unit of energy." in ctx["rendered"]
    assert "Check the turbine numbers." not in ctx["rendered"]
    assert (await builder.build())["rendered"] == ctx["rendered"]  # gathered afresh, once
    plain = await ContextBuilder(notebook_id=shelf.notebook_id, max_tokens=2000).build()
    assert sorted(_ids(plain, "notes")) == sorted(shelf.notes)


# A replaced Source.get, as the reference's tests replace it.


async def test_a_replaced_source_get_changes_the_build(
    shelf: Shelf, monkeypatch: pytest.MonkeyPatch
) -> None:
    stock = Source.get
    redacted, missing = shelf.sources[0], shelf.sources[1]

    async def replaced(source_id: str) -> Source:
        if source_id == missing:
            raise NotFoundError(source_id)
        found = await stock(source_id)
        return (
            found.model_copy(update={"full_text": "[redacted]"}) if found.id == redacted else found
        )

    monkeypatch.setattr(Source, "get", replaced)
    ctx = await build_notebook_context(shelf.notebook_id, max_tokens=2000)
    rendered = ctx["rendered"]
    assert "[redacted]" in rendered and "Source 1 explains" not in rendered
    assert "Source 3 explains" in rendered
    reasons = {entry["id"]: entry["reason"] for entry in ctx["manifest"]["dropped"]}
    assert reasons == {missing: "not_found"}


# ContextConfig: assignable, validated when the build reads it, and a selection when it names.


async def test_a_config_that_names_records_sends_only_those(shelf: Shelf) -> None:
    config = ContextConfig(sources={shelf.sources[1]: "insights"}, max_tokens=800)
    ctx = await build_notebook_context(shelf.notebook_id, context_config=config)
    assert _ids(ctx, "sources") == []
    assert sorted(_ids(ctx, "insights")) == sorted(shelf.insights[shelf.sources[1]])
    assert _ids(ctx, "notes") == []  # the config names what to send: nothing else is
    assert "Source 1 explains" not in ctx["rendered"]
    assert "Source 3 explains" not in ctx["rendered"]
    config = ContextConfig(
        sources={shelf.sources[2]: "full content"}, notes={shelf.notes[1]: "full content"}
    )
    ctx = await build_notebook_context(shelf.notebook_id, context_config=config)
    assert (_ids(ctx, "sources"), _ids(ctx, "notes")) == ([shelf.sources[2]], [shelf.notes[1]])


async def test_a_config_assigned_after_it_is_made_is_what_the_build_reads(shelf: Shelf) -> None:
    config = ContextConfig(max_tokens=800)
    config.sources = {shelf.sources[1].split(":", 1)[1]: "🟡 insights"}  # a bare key, as stored
    ctx = await build_notebook_context(shelf.notebook_id, context_config=config)
    assert _ids(ctx, "sources") == []
    assert sorted(_ids(ctx, "insights")) == sorted(shelf.insights[shelf.sources[1]])
    builder = ContextBuilder(notebook_id=shelf.notebook_id, context_config=config)
    builder.context_config.max_tokens = 60
    assert (await builder.build())["total_tokens"] <= 60
    config.sources = {shelf.sources[0]: "maybe"}
    with pytest.raises(InvalidInputError, match="inclusion level"):
        await build_notebook_context(shelf.notebook_id, context_config=config)


async def test_without_a_config_a_notebook_sends_everything(shelf: Shelf) -> None:
    ctx = await build_notebook_context(shelf.notebook_id, max_tokens=5000)
    assert sorted(_ids(ctx, "sources")) == sorted(shelf.sources)
    every_insight = [one for ones in shelf.insights.values() for one in ones]
    assert sorted(_ids(ctx, "insights")) == sorted(every_insight)
    assert sorted(_ids(ctx, "notes")) == sorted(shelf.notes)
    # A config that only excludes is not a selection: the rest is sent as without one.
    config = ContextConfig(sources={shelf.sources[0]: "not in context"})
    ctx = await build_notebook_context(shelf.notebook_id, context_config=config, max_tokens=5000)
    assert sorted(_ids(ctx, "sources")) == sorted(shelf.sources[1:])
    assert sorted(_ids(ctx, "notes")) == sorted(shelf.notes)


async def test_metadata_config_reports_what_the_build_used(shelf: Shelf) -> None:
    ctx = await build_source_context(
        source_id=shelf.sources[0], include_insights=False, max_tokens=600
    )
    assert ctx["insights"] == []
    config = ctx["metadata"]["config"]
    assert config["include_insights"] is False
    assert config["max_tokens"] == 600
    assert config["include_notes"] is True
