"""The language of each chunk, detected when it is made (stored with it; see text/_detect.py).

Per chunk, not per source: a source may mix languages (a French article quoting English, a
bilingual report), and BM25 stems each chunk as it is written. The source's language, read
from its first chunks together, is the prior for a chunk too short or too plain to tell
(a heading, a table row, digits). CLD2 reads a 1,000-character chunk in ~0.15 ms, far less than
embedding it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from open_notebook.store import ChunkRow
from open_notebook.text import LanguageDetector
from open_notebook.text._detect import SAMPLE_CHARS


def with_languages(rows: Sequence[ChunkRow], detector: LanguageDetector) -> list[ChunkRow]:
    """``rows`` (the chunks of one text) with the language of each."""
    if not rows:
        return []
    sample: list[str] = []
    size = 0
    for row in rows:
        if size >= SAMPLE_CHARS:
            break
        sample.append(row.text)
        size += len(row.text)
    joined = "\n".join(sample)[:SAMPLE_CHARS]
    prior = detector.detect(joined)
    # A chunk that starts with the whole sample (a text of one chunk, a first chunk longer than
    # the sample) reads the same characters again: its language is the prior.
    return [
        replace(
            row,
            language=prior
            if row.text[:SAMPLE_CHARS] == joined
            else detector.detect(row.text, prior=prior),
        )
        for row in rows
    ]
