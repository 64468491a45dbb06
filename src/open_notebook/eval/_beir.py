"""Reading a dataset in BEIR layout: ``corpus.jsonl``, ``queries.jsonl``, ``qrels/test.tsv``."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from open_notebook.errors import InvalidInputError, NotFoundError

# The text formats a corpus line may declare (``"format"``): how ingest reads its text. BEIR's
# own fields say nothing of it, and its corpora are plain text.
DOCUMENT_FORMATS: Final = frozenset({"text", "markdown"})


@dataclass(frozen=True, slots=True)
class Document:
    id: str
    title: str
    text: str
    # "markdown": its headings are sections, as the product reads a Markdown file.
    format: str = "text"

    @property
    def full_text(self) -> str:
        """Title and body as one text (the title only once when the body already starts with it)."""
        title, body = self.title.strip(), self.text.strip()
        if not title or body.lower().startswith(title.lower()):
            return body or title
        return f"{title}\n\n{body}"


@dataclass(frozen=True, slots=True)
class Dataset:
    """A judged collection. ``answers`` and ``evidence`` hold the optional fields of the queries
    (answer strings, and the sentences of the corpus holding them), only for queries that have
    them."""

    name: str
    documents: tuple[Document, ...]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    answers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    evidence: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def load_dataset(directory: Path) -> Dataset:
    """Read a BEIR dataset; only queries with judgments are kept.

    Raises:
        NotFoundError: a required file is missing.
        InvalidInputError: a line is not the expected JSON or TSV.
    """
    paths = [directory / "corpus.jsonl", directory / "queries.jsonl", directory / "qrels/test.tsv"]
    for path in paths:
        if not path.is_file():
            raise NotFoundError(str(path), f"{path} not found (expected BEIR layout)")
    documents = load_corpus(directory)
    qrels = _qrels(paths[2])
    rows = [row for row in _jsonl(paths[1]) if str(row["_id"]) in qrels]
    queries = {str(row["_id"]): str(row["text"]) for row in rows}
    return Dataset(
        directory.name,
        documents,
        queries,
        {q: qrels[q] for q in queries},
        answers=_strings(rows, "answers"),
        evidence=_strings(rows, "evidence"),
    )


def load_corpus(directory: Path) -> tuple[Document, ...]:
    """The documents of a BEIR dataset (``corpus.jsonl`` only).

    Raises:
        NotFoundError: ``corpus.jsonl`` is missing.
        InvalidInputError: a line is not the expected JSON, or declares an unknown format.
    """
    path = directory / "corpus.jsonl"
    if not path.is_file():
        raise NotFoundError(str(path), f"{path} not found (expected BEIR layout)")
    return tuple(
        Document(
            str(row["_id"]),
            str(row.get("title") or ""),
            str(row.get("text") or ""),
            _format(row, path),
        )
        for row in _jsonl(path)
    )


def _format(row: Mapping[str, object], path: Path) -> str:
    declared = row.get("format", "text")
    if not isinstance(declared, str) or declared not in DOCUMENT_FORMATS:
        known = ", ".join(sorted(DOCUMENT_FORMATS))
        raise InvalidInputError(
            f"{path}: document {row['_id']!r} has format {declared!r}; expected one of {known}"
        )
    return declared


def _strings(rows: list[dict[str, object]], name: str) -> dict[str, tuple[str, ...]]:
    """A list-of-strings field of the queries that have it (non-empty strings only)."""
    found: dict[str, tuple[str, ...]] = {}
    for row in rows:
        value = row.get(name)
        if isinstance(value, list):
            strings = tuple(one for one in value if isinstance(one, str) and one.strip())
            if strings:
                found[str(row["_id"])] = strings
    return found


def _jsonl(path: Path) -> Iterator[dict[str, object]]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInputError(f"{path}:{number} is not JSON: {exc}") from None
            if not isinstance(row, dict) or "_id" not in row:
                raise InvalidInputError(f"{path}:{number}: expected an object with '_id'")
            yield row


def _qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t")
        for number, row in enumerate(reader, start=1):
            if number == 1 and row and row[0] == "query-id":
                continue
            if len(row) < 3:
                raise InvalidInputError(f"{path}:{number}: expected query-id, corpus-id, score")
            try:
                qrels.setdefault(row[0], {})[row[1]] = int(row[2])
            except ValueError:
                raise InvalidInputError(
                    f"{path}:{number}: score {row[2]!r} is not an int"
                ) from None
    return qrels
