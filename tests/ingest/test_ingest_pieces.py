"""Tokenizing once: chunks sized and embedded from one pass of the tokenizer over the text."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from open_notebook.config import Settings
from open_notebook.embeddings import OnnxMiniLMEmbedder, PieceEmbedder
from open_notebook.ingest._embed import ChunkEmbedder


@pytest.fixture(scope="module")
def minilm() -> OnnxMiniLMEmbedder:
    return OnnxMiniLMEmbedder()


@pytest.mark.parametrize(
    ("text", "fmt"),
    [
        ("Héllo wörld. Ünïcödé façade, naïve café!\n\n" * 30, "text"),
        (
            "# Title\n\nSome text here.\n\n## Sub\n\nMore, with commas; and colons: yes.\n" * 12,
            "markdown",
        ),
        ("東京は日本の首都です。人口は約千四百万人です。" * 25, "text"),
        ("東京都庁舎" * 300, "text"),  # cut inside a run of CJK: those chunks are tokenized alone
        ("Mixed 日本語 text, عربي and emoji 🎉 in one line. " * 40, "text"),
        ("https://example.org/" + "a1b2c3-x" * 120, "text"),  # one long sentence, cut by tokens
    ],
)
def test_chunks_and_vectors_equal_those_of_tokenizing_each_chunk(
    minilm: OnnxMiniLMEmbedder, tmp_path: Path, text: str, fmt: str
) -> None:
    assert isinstance(minilm, PieceEmbedder)
    chunker = ChunkEmbedder(minilm, Settings(data_dir=tmp_path, database_url="mem://"))
    rows = chunker.rows(text, fmt)
    spans = chunker.spans(text, fmt)  # every sentence counted by itself
    assert len(rows) > 1
    assert [(one.char_start, one.char_end, one.token_count) for one in rows] == [
        (one.char_start, one.char_end, one.token_count) for one in spans
    ]
    expected = minilm.embed_documents([one.text for one in spans])
    assert np.array_equal(np.stack([np.asarray(one.embedding) for one in rows]), expected)


def test_embed_pieces_adds_the_special_tokens_and_truncates_like_the_text_path(
    minilm: OnnxMiniLMEmbedder,
) -> None:
    texts = ["Rivers carry water.", "word " * 400]
    pieces = [minilm.encode_pieces(text)[0] for text in texts]
    assert len(pieces[1]) > minilm.max_tokens
    assert np.array_equal(minilm.embed_pieces(pieces), minilm.embed_documents(texts))
