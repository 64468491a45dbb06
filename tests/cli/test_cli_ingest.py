"""``add``, ``note add``, ``insight add`` and ``rebuild-embeddings`` through the Typer app."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import Invoke, json_of


@pytest.fixture
def notebook_id(cli: Invoke) -> str:
    return str(json_of(cli("--json", "notebook", "create", "Bread"))["id"])


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_add_folder_recursively_and_files(cli: Invoke, notebook_id: str, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _write(docs, "a.md", "# Starter\n\nA starter is flour, water, yeasts and bacteria.")
    _write(docs / "deeper", "b.txt", "Cold kitchens make dense loaves; use warmer water.")
    result = cli("add", str(docs), "--notebook", "Bread", "--json")
    assert result.exit_code == 0, result.output
    report = json_of(result)
    assert report["notebook_id"] == notebook_id
    titles = sorted(source["title"] for source in report["sources"])
    assert titles == ["Cold kitchens make dense loaves; use warmer water.", "Starter"]
    assert all(source["id"].startswith("source:") for source in report["sources"])
    assert all(source["chunk_count"] >= 1 and source["created"] for source in report["sources"])
    assert report["failures"] == []

    again = json_of(cli("--json", "add", str(docs / "a.md"), "--notebook", notebook_id))
    assert [source["created"] for source in again["sources"]] == [False]  # idempotent by hash
    shown = json_of(cli("--json", "notebook", "show", notebook_id))
    assert len(shown["sources"]) == 2


def test_a_folder_s_readme_that_lists_its_files_is_skipped_and_said(
    cli: Invoke, notebook_id: str, tmp_path: Path
) -> None:
    corpus = Path(__file__).resolve().parents[2] / "src" / "open_notebook" / "demo_corpus"
    docs = tmp_path / "demo"
    for path in sorted(corpus.glob("*.md"))[:3] + [corpus / "README.md"]:
        _write(docs, path.name, path.read_text(encoding="utf-8"))
    # A README of prose in a folder of its own is content: it is added.
    _write(docs / "notes", "README.md", "# Notes\n\nFeed the starter twice a day in summer.")
    _write(docs / "notes", "rye.md", "# Rye\n\nRye flour forms little gluten.")
    result = cli("--json", "add", str(docs), "-n", notebook_id)
    assert result.exit_code == 0, result.output
    report = json_of(result)
    assert [one["item"] for one in report["skipped"]] == [str(docs / "README.md")]
    titles = {source["title"] for source in report["sources"]}
    assert len(titles) == 5 and "Notes" in titles
    assert not any("Demo corpus" in title for title in titles)
    shown = cli("add", str(docs), "-n", notebook_id)
    said = " ".join(shown.stdout.split())  # Rich wraps long lines
    assert f"skipped {docs / 'README.md'}: it lists the folder's files" in said
    # Named on its own, the same README is added.
    named = json_of(cli("--json", "add", str(docs / "README.md"), "-n", notebook_id))
    assert named["skipped"] == [] and named["sources"][0]["created"] is True


def test_add_reports_each_bad_item_and_exits_2(
    cli: Invoke, notebook_id: str, tmp_path: Path
) -> None:
    good = _write(tmp_path, "good.md", "Rye flour forms little gluten.")
    empty = _write(tmp_path, "empty.txt", "")
    result = cli("add", str(good), str(empty), str(tmp_path / "missing.pdf"), "-n", notebook_id)
    assert result.exit_code == 2
    assert "added" in result.stdout
    assert "empty.txt" in result.stderr
    assert "missing.pdf" in result.stderr


def test_add_to_unknown_notebook_exits_2(cli: Invoke, tmp_path: Path) -> None:
    path = _write(tmp_path, "x.md", "text")
    result = cli("add", str(path), "--notebook", "nope")
    assert result.exit_code == 2
    assert "no notebook has the id or name 'nope'" in result.stderr


def test_note_add_from_argument_file_and_stdin(
    cli: Invoke, notebook_id: str, tmp_path: Path
) -> None:
    inline = json_of(cli("--json", "note", "add", "Feed at night", "-n", "Bread", "-t", "plan"))
    assert inline["id"].startswith("note:")
    assert inline["title"] == "plan"
    assert inline["notebook"] == notebook_id
    path = _write(tmp_path, "note.md", "Bake at 250 C with the lid on.")
    from_file = json_of(cli("--json", "note", "add", "-n", "Bread", "--file", str(path)))
    assert from_file["content"] == "Bake at 250 C with the lid on."
    piped = json_of(cli("--json", "note", "add", "-", "-n", "Bread", input="from stdin"))
    assert piped["content"] == "from stdin"
    assert len(json_of(cli("--json", "notebook", "show", notebook_id))["notes"]) == 3


def test_note_add_without_text_exits_2(cli: Invoke, notebook_id: str) -> None:
    result = cli("note", "add", "--notebook", notebook_id)
    assert result.exit_code == 2
    assert "no text given" in result.stderr


def test_insight_add_and_unknown_source(cli: Invoke, notebook_id: str, tmp_path: Path) -> None:
    path = _write(tmp_path, "s.md", "Hydration is water over flour.")
    source_id = json_of(cli("--json", "add", str(path), "-n", notebook_id))["sources"][0]["id"]
    insight = json_of(
        cli("--json", "insight", "add", "-s", source_id, "--type", "summary", "Water / flour.")
    )
    assert insight["id"].startswith("source_insight:")
    assert insight["source"] == source_id
    missing = cli("insight", "add", "--source", "source:nothere", "text")
    assert missing.exit_code == 2
    assert "source:nothere" in missing.stderr


def test_rebuild_embeddings_counts_chunks(cli: Invoke, notebook_id: str, tmp_path: Path) -> None:
    path = _write(tmp_path, "s.md", "Scoring lets the loaf open where you choose.")
    added = json_of(cli("--json", "add", str(path), "-n", notebook_id))
    rebuilt = cli("--json", "rebuild-embeddings")
    assert rebuilt.exit_code == 0, rebuilt.output
    assert json_of(rebuilt) == {"chunks": added["sources"][0]["chunk_count"]}
