from __future__ import annotations

from open_notebook.graphs import existing_ids
from open_notebook.llm import CitationStatus, RefKind, check_citations, parse_citations, parse_marks
from open_notebook.store import Store
from open_notebook.store._sources import NewSource

MANIFEST = {
    "included": [
        {"id": "source:abc", "duplicates": ["source:abc_copy"]},
        {"id": "note:n1", "duplicates": []},
        {"id": "source_insight:i1"},
    ],
    "dropped": [{"id": "source:far", "reason": "budget"}],
}


def test_parse_counts_every_marker_variant() -> None:
    answer = (
        "Bread rises [source:abc]. Salt matters [source:abc, note:n1]; see also "
        "【source_insight:i1】 and [insight: i1] and [Source:xyz] and [note:n1; source:far]. "
        "Not a citation: source:plain or [see page 4]."
    )
    cited = parse_citations(answer)
    assert cited == {
        "source:abc": 2,
        "note:n1": 2,
        "source_insight:i1": 2,
        "source:xyz": 1,
        "source:far": 1,
    }


def test_statuses_from_manifest_and_known_ids() -> None:
    cited = parse_citations(
        "[source:abc] [source:abc_copy] [note:n1] [source:far] [note:real] [source:madeup]"
    )
    checked = {c.id: c.status for c in check_citations(cited, MANIFEST, existing={"note:real"})}
    assert checked == {
        "source:abc": CitationStatus.VALID,
        "source:abc_copy": CitationStatus.VALID,  # an exact duplicate of an included item
        "note:n1": CitationStatus.VALID,
        "source:far": CitationStatus.NOT_IN_CONTEXT,  # dropped by the budget
        "note:real": CitationStatus.NOT_IN_CONTEXT,  # exists in the store, never sent
        "source:madeup": CitationStatus.UNKNOWN,
    }


def test_no_markers_no_citations() -> None:
    assert check_citations(parse_citations("No brackets here."), MANIFEST) == []


async def test_existing_ids_asks_the_store(store: Store) -> None:
    notebook = await store.notebooks.create("Baking")
    source = await store.sources.create(
        NewSource(title="Starter", full_text="Feed the starter daily."), notebook_ids=[notebook.id]
    )
    note = await store.notes.create(notebook.id, "Use rye flour.")
    found = await existing_ids(
        store, [source.id, note.id, "source:nothere", "note:nothere", "source_insight:nothere"]
    )
    assert found == {source.id, note.id}


def test_marks_hold_passage_numbers_handles_and_record_ids() -> None:
    answer = (
        "Rises [2]. Both [1, 3] and [passage 4]. Full [source:abc#c12] and local [#c3.2]. "
        "Record [note:n1]. In [1850] nothing; [see page 4] is text."
    )
    marks = parse_marks(answer)
    assert [[(ref.kind, ref.value) for ref in mark.refs] for mark in marks] == [
        [(RefKind.NUMBER, "2")],
        [(RefKind.NUMBER, "1"), (RefKind.NUMBER, "3")],
        [(RefKind.NUMBER, "4")],
        [(RefKind.HANDLE, "source:abc#c12")],
        [(RefKind.LOCAL, "#c3.2")],
        [(RefKind.RECORD, "note:n1")],
    ]
    assert answer[marks[0].start : marks[0].end] == "[2]"
    # A handle counts as a citation of its record.
    assert parse_citations(answer) == {"source:abc": 1, "note:n1": 1}
