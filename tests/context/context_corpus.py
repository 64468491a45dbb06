"""A small notebook for the context tests: one long source, small ones, insights, notes."""

from __future__ import annotations

from dataclasses import dataclass

from open_notebook.store import Store
from open_notebook.store._chunks import ChunkRow
from open_notebook.store._sources import NewSource


@dataclass(frozen=True)
class Corpus:
    notebook_id: str
    big_source_id: str
    small_source_ids: tuple[str, ...]
    insight_ids: tuple[str, ...]
    note_ids: tuple[str, ...]


def sentence_chunks(text: str, per_chunk: int = 5) -> list[ChunkRow]:
    """Chunks of a few sentences each, with their character offsets (as ingestion stores them)."""
    rows: list[ChunkRow] = []
    starts = [0]
    for index, char in enumerate(text):
        if char == "." and index + 1 < len(text):
            starts.append(index + 2)
    bounds = starts[::per_chunk] + [len(text)]
    for order, (start, end) in enumerate(zip(bounds, bounds[1:], strict=False)):
        piece = text[start:end].strip()
        if piece:
            rows.append(ChunkRow(order, piece, len(piece.split()), start, start + len(piece)))
    return rows


BIG_TEXT = " ".join(
    f"Paragraph {i} of the annual report discusses {topic} in detail."
    for i, topic in enumerate(["revenue", "costs", "hiring", "weather", "turbines"] * 400)
)


async def make_corpus(store: Store) -> Corpus:
    notebook = await store.notebooks.create("Research")
    big = await store.sources.create(
        NewSource("Annual report", BIG_TEXT),
        notebook_ids=[notebook.id],
        chunks=sentence_chunks(BIG_TEXT),
    )
    smalls = []
    for index, topic in enumerate(["wind turbines", "solar panels", "battery storage"]):
        text = f"Source {index} explains {topic}. It has two sentences about {topic}."
        created = await store.sources.create(
            NewSource(f"About {topic}", text),
            notebook_ids=[notebook.id],
            chunks=sentence_chunks(text, 1),
        )
        smalls.append(created.id)
    insights = []
    for kind, content in [
        ("summary", "The report covers revenue and turbines."),
        ("keys", "Costs fell."),
    ]:
        insight = await store.sources.add_insight(big.id, kind, content)
        insights.append(insight.id)
    notes = []
    for title, content in [
        ("Todo", "Check the turbine numbers."),
        ("Idea", "Compare solar and wind."),
    ]:
        note = await store.notes.create(notebook.id, content, title=title)
        notes.append(note.id)
    return Corpus(notebook.id, big.id, tuple(smalls), tuple(insights), tuple(notes))
