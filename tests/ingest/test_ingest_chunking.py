"""Chunking: exact spans, limits in the embedder's word pieces, structure, scripts, speed."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from open_notebook.embeddings import FakeEmbedder, OnnxMiniLMEmbedder
from open_notebook.errors import InvalidInputError
from open_notebook.ingest import ChunkSpan, chunk_text, extract_file


@pytest.fixture(scope="module")
def minilm() -> OnnxMiniLMEmbedder:
    return OnnxMiniLMEmbedder()  # only the tokenizer is loaded by count_tokens


def _assert_exact(
    source: str,
    chunks: list[ChunkSpan],
    embedder: OnnxMiniLMEmbedder,
    limit: int,
    *,
    consecutive: bool = True,
) -> None:
    assert chunks
    for chunk in chunks:
        assert source[chunk.char_start : chunk.char_end] == chunk.text
        assert chunk.text == chunk.text.strip()
        assert embedder.count_tokens(chunk.text) == chunk.token_count <= limit
    starts = [chunk.char_start for chunk in chunks]
    assert starts == sorted(starts)
    if consecutive:
        _assert_joined(source, chunks)


def _assert_joined(source: str, chunks: list[ChunkSpan]) -> None:
    # Between two consecutive chunks lies only whitespace: a question's context joins them
    # again (open_notebook.context._question.sentences).
    for left, right in zip(chunks, chunks[1:], strict=False):
        assert not source[left.char_end : right.char_start].strip()


@pytest.mark.parametrize(
    "text",
    [
        "東京は日本の首都です。人口は約千四百万人です。" * 80,
        "東京都庁舎" * 900,  # CJK without any punctuation or space
        "مرحبا بالعالم. هذه جملة عربية للاختبار؟ " * 120,
        "😀👍🏽👨‍👩‍👧 " * 400 + "🇯🇵" * 300,
        "Mixed 日本語 text, عربي and emoji 🎉 in one line. " * 150,
        "https://example.org/" + "a1b2c3" * 600,  # one long token-dense word
    ],
)
def test_chunks_are_exact_spans_within_the_limit_in_any_script(
    minilm: OnnxMiniLMEmbedder, text: str
) -> None:
    chunks = chunk_text(text, count_tokens=minilm.count_tokens, max_tokens=64, overlap=8)
    _assert_exact(text, chunks, minilm, 64)
    covered = "".join(text[c.char_start : c.char_end] for c in chunks)
    assert len(covered) >= len(text.replace(" ", "")) * 0.9  # nothing big is dropped


def test_markdown_headings_become_heading_paths(minilm: OnnxMiniLMEmbedder) -> None:
    text = (
        "# Guide\n\nIntro text.\n\n## Install\n\nRun the installer.\n\n"
        "```\n# a comment, not a heading\n```\n\n### Linux\n\nUse apt.\n\n## Use\n\nOpen it."
    )
    chunks = chunk_text(text, count_tokens=minilm.count_tokens, max_tokens=256, fmt="markdown")
    _assert_exact(text, chunks, minilm, 256)
    paths = [chunk.heading_path for chunk in chunks]
    assert paths == [
        ("Guide",),
        ("Guide", "Install"),
        ("Guide", "Install", "Linux"),
        ("Guide", "Use"),
    ]
    assert "# a comment" in chunks[1].text
    plain = chunk_text(text, count_tokens=minilm.count_tokens, max_tokens=256, fmt="text")
    assert len(plain) == 1 and plain[0].heading_path == ()


def test_a_heading_with_nothing_under_it_opens_the_next_section(
    minilm: OnnxMiniLMEmbedder,
) -> None:
    # A title alone would be a chunk that matches every question on the topic and answers none.
    text = (
        "# Maintaining a starter\n\n## Feeding\n\nFeed it daily.\n\n## Storage\n\n"
        "### Cold\n\nKeep it in the refrigerator.\n\n## Empty at the end\n"
    )
    chunks = chunk_text(text, count_tokens=minilm.count_tokens, max_tokens=256, fmt="markdown")
    _assert_exact(text, chunks, minilm, 256)
    assert [(chunk.heading_path, chunk.text.splitlines()[0]) for chunk in chunks] == [
        (("Maintaining a starter", "Feeding"), "# Maintaining a starter"),
        (("Maintaining a starter", "Storage", "Cold"), "## Storage"),
        (("Maintaining a starter", "Empty at the end"), "## Empty at the end"),
    ]
    assert "Feed it daily." in chunks[0].text and "refrigerator" in chunks[1].text


def test_chunks_prefer_paragraph_ends(minilm: OnnxMiniLMEmbedder) -> None:
    paragraph = " ".join(["The river flows to the sea."] * 8)
    text = "\n\n".join([paragraph] * 6)
    chunks = chunk_text(text, count_tokens=minilm.count_tokens, max_tokens=120)
    _assert_exact(text, chunks, minilm, 120)
    assert all(chunk.text.endswith("sea.") for chunk in chunks)
    assert all(text[chunk.char_end : chunk.char_end + 2] in ("\n\n", "") for chunk in chunks)


def test_overlap_repeats_whole_sentences(minilm: OnnxMiniLMEmbedder) -> None:
    text = " ".join(f"Sentence number {index} is here." for index in range(200))
    without = chunk_text(text, count_tokens=minilm.count_tokens, max_tokens=64)
    with_overlap = chunk_text(text, count_tokens=minilm.count_tokens, max_tokens=64, overlap=16)
    _assert_exact(text, with_overlap, minilm, 64)
    assert all(a.char_end <= b.char_start for a, b in zip(without, without[1:], strict=False))
    overlapping = [
        a.char_end > b.char_start for a, b in zip(with_overlap, with_overlap[1:], strict=False)
    ]
    assert all(overlapping)
    assert len(with_overlap) > len(without)


def test_long_sentences_are_cut_at_spaces(minilm: OnnxMiniLMEmbedder) -> None:
    text = " ".join(["word"] * 3000)  # one sentence of 3000 pieces
    chunks = chunk_text(text, count_tokens=minilm.count_tokens, max_tokens=100)
    _assert_exact(text, chunks, minilm, 100)
    assert all(chunk.text.split(" ") == ["word"] * len(chunk.text.split(" ")) for chunk in chunks)


def test_empty_text_gives_no_chunks_and_bad_limits_are_refused(
    minilm: OnnxMiniLMEmbedder,
) -> None:
    assert chunk_text(" \n\n ", count_tokens=minilm.count_tokens, max_tokens=64) == []
    with pytest.raises(InvalidInputError, match="special tokens"):
        chunk_text("text", count_tokens=minilm.count_tokens, max_tokens=2)
    with pytest.raises(InvalidInputError, match="overlap"):
        chunk_text("text", count_tokens=minilm.count_tokens, max_tokens=64, overlap=64)


def test_works_with_a_counter_without_special_tokens() -> None:
    fake = FakeEmbedder()
    text = "alpha beta, gamma. " * 500
    chunks = chunk_text(text, count_tokens=fake.count_tokens, max_tokens=50)
    assert all(fake.count_tokens(chunk.text) == chunk.token_count <= 50 for chunk in chunks)


def test_a_5_mb_text_file_extracts_and_chunks_in_reasonable_time(
    minilm: OnnxMiniLMEmbedder, tmp_path: Path
) -> None:
    words = [
        "river",
        "lake",
        "mountain",
        "valley",
        "forest",
        "desert",
        "ocean",
        "island",
        "glacier",
        "canyon",
    ]
    rng = random.Random(7)
    paragraphs: list[str] = []
    size = 0
    while size < 5_000_000:
        sentences = [
            " ".join(rng.choice(words) for _ in range(rng.randint(4, 30))).capitalize() + "."
            for _ in range(rng.randint(1, 9))
        ]
        paragraphs.append(" ".join(sentences))
        size += len(paragraphs[-1]) + 2
    path = tmp_path / "big.txt"
    path.write_text("\n\n".join(paragraphs), encoding="utf-8")
    started = time.perf_counter()
    text = extract_file(path, max_bytes=10_000_000).text
    chunks = chunk_text(text, count_tokens=minilm.count_tokens, max_tokens=200, overlap=32)
    elapsed = time.perf_counter() - started
    assert elapsed < 60, f"5 MB took {elapsed:.1f} s"  # one tokenizer pass: ~4 s on 2 busy cores
    assert len(chunks) > 5_000_000 / 1500
    sample = chunks[:: max(1, len(chunks) // 300)]
    _assert_exact(text, sample, minilm, 200, consecutive=False)
    _assert_joined(text, chunks)
    assert chunks[-1].char_end == len(text)
