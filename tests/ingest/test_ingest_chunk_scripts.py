"""Chunks hold whole sentences in every script: sized in context tokens, capped by the embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

from open_notebook.config import Settings
from open_notebook.embeddings import OnnxMiniLMEmbedder
from open_notebook.ingest import ChunkSpan, chunk_text
from open_notebook.ingest._embed import ChunkEmbedder
from open_notebook.segment import sentences
from open_notebook.tokens import BpeTokenCounter

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "scripts"
ENGLISH = (
    "The Normans were the people who in the 10th and 11th centuries gave their name to Normandy, "
    "a region in France. They were descended from Norse raiders and pirates from Denmark, "
    "Iceland and Norway who, under their leader Rollo, agreed to swear fealty to King Charles "
    "III of West Francia. Through generations of assimilation and mixing with the native "
    "Frankish and Roman-Gaulish populations, their descendants would gradually merge with the "
    "Carolingian-based cultures of West Francia. "
)


@pytest.fixture(scope="module")
def counter() -> BpeTokenCounter:
    return BpeTokenCounter()


@pytest.fixture(scope="module")
def minilm_chunker(
    counter: BpeTokenCounter, tmp_path_factory: pytest.TempPathFactory
) -> ChunkEmbedder:
    settings = Settings(data_dir=tmp_path_factory.mktemp("data"), database_url="mem://")
    return ChunkEmbedder(OnnxMiniLMEmbedder(), settings, counter)


def _one_paragraph(language: str, repeats: int = 3) -> str:
    """The sample's paragraphs joined into one, so only sentences can end a chunk."""
    text = (SAMPLES / f"{language}.txt").read_text(encoding="utf-8")
    return " ".join([" ".join(text.split("\n\n")).replace("\n", " ").strip()] * repeats)


def _assert_whole_sentences(text: str, chunks: list[ChunkSpan]) -> None:
    spans = list(sentences(text, 0, len(text)))
    starts, ends = {start for start, _ in spans}, {end for _, end in spans}
    assert chunks
    for chunk in chunks:
        assert text[chunk.char_start : chunk.char_end] == chunk.text
        assert chunk.char_start in starts and chunk.char_end in ends, chunk.text[-40:]


@pytest.mark.parametrize("language", ["ru", "ar", "hi", "de"])
def test_a_chunk_holds_several_whole_sentences_in_every_script(
    minilm_chunker: ChunkEmbedder, counter: BpeTokenCounter, language: str
) -> None:
    text = _one_paragraph(language)
    chunks = minilm_chunker.spans(text, "text")
    _assert_whole_sentences(text, chunks)
    target = minilm_chunker.target
    for chunk in chunks:
        assert chunk.token_count <= target
        # Counted by sentence: a BPE may merge or split a token where two sentences meet.
        assert abs(counter.count(chunk.text) - chunk.token_count) <= 3
    # Sized in MiniLM's pieces, a Russian or Arabic chunk held ~50 context tokens (one sentence).
    full = chunks[:-1]
    assert sum(chunk.token_count for chunk in full) / len(full) >= target * 0.5
    assert sum(len(list(sentences(c.text, 0, len(c.text)))) for c in full) / len(full) >= 2


def test_the_embedder_cap_binds_on_text_it_reads(minilm_chunker: ChunkEmbedder) -> None:
    # German: Latin script, which MiniLM reads, at ~3 characters a piece: 200 context tokens
    # would be ~280 pieces, more than the 256 it reads.
    embedder = minilm_chunker.embedder
    text = _one_paragraph("de", repeats=4)
    chunks = minilm_chunker.spans(text, "text")
    _assert_whole_sentences(text, chunks)
    assert all(embedder.count_tokens(chunk.text) <= embedder.max_tokens for chunk in chunks)
    assert max(embedder.count_tokens(chunk.text) for chunk in chunks) > embedder.max_tokens * 0.7
    # Russian: MiniLM reads no Cyrillic, so its cap does not bind there.
    russian = minilm_chunker.spans(_one_paragraph("ru"), "text")
    assert max(embedder.count_tokens(chunk.text) for chunk in russian) > embedder.max_tokens


def test_chinese_chunks_end_at_sentence_marks(minilm_chunker: ChunkEmbedder) -> None:
    text = (
        "北京是中华人民共和国的首都，也是全国的政治和文化中心。长江是亚洲最长的河流，流经中国多个省份。"
        * 20
    )
    chunks = minilm_chunker.spans(text, "text")
    _assert_whole_sentences(text, chunks)
    assert all(chunk.text.endswith("。") for chunk in chunks)
    assert all(chunk.token_count <= minilm_chunker.target for chunk in chunks)


def test_english_chunks_are_as_large_as_when_sized_in_word_pieces(
    minilm_chunker: ChunkEmbedder,
) -> None:
    text = ENGLISH * 30
    embedder = minilm_chunker.embedder
    new = minilm_chunker.spans(text, "text")
    old = chunk_text(text, count_tokens=embedder.count_tokens, max_tokens=200, overlap=32)
    _assert_whole_sentences(text, new)
    new_chars = sum(len(chunk.text) for chunk in new) / len(new)
    old_chars = sum(len(chunk.text) for chunk in old) / len(old)
    assert 0.9 <= new_chars / old_chars <= 1.25
    assert all(embedder.count_tokens(chunk.text) <= embedder.max_tokens for chunk in new)


def test_a_sentence_longer_than_the_cap_is_cut_within_it(minilm_chunker: ChunkEmbedder) -> None:
    embedder = minilm_chunker.embedder
    text = "Überschallgeschwindigkeit, " * 120 + "Ende."
    chunks = minilm_chunker.spans(text, "text")
    assert len(chunks) > 1
    assert all(embedder.count_tokens(chunk.text) <= embedder.max_tokens for chunk in chunks)
    assert all(chunk.token_count <= minilm_chunker.target for chunk in chunks)
