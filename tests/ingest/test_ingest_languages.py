"""Each chunk's language, read when it is made, with its source's language as the fallback."""

from __future__ import annotations

from open_notebook.ingest._languages import with_languages
from open_notebook.store import ChunkRow
from open_notebook.text import LanguageDetector

FRENCH = (
    "La ville est située au bord du fleuve, et ses habitants vivent depuis des siècles de la "
    "pêche et du commerce avec les villages voisins."
)
ENGLISH = (
    "The city lies on the bank of the river, and its people have lived for centuries from "
    "fishing and from trade with the villages nearby."
)


def _rows(*texts: str) -> list[ChunkRow]:
    return [
        ChunkRow(ord=index, text=text, token_count=len(text.split()), char_start=0, char_end=0)
        for index, text in enumerate(texts)
    ]


def test_each_chunk_of_a_mixed_text_gets_its_own_language() -> None:
    rows = with_languages(_rows(FRENCH, FRENCH, ENGLISH, "1990 - 2000"), LanguageDetector())
    # The digits say nothing: they take the language of the text's first chunks, mostly French.
    assert [row.language for row in rows] == ["fr", "fr", "en", "fr"]


def test_a_text_of_one_chunk_reads_as_its_chunk_does() -> None:
    detector = LanguageDetector()
    for text in (FRENCH, ENGLISH, "東京は日本の首都です", "12345"):
        (row,) = with_languages(_rows(text), detector)
        assert row.language == detector.detect(text)
