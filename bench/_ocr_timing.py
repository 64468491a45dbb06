"""OCR speed and accuracy for bench/ingest.py: full A4 scans (200 dpi, noise, a slight rotation)
of English and French passages, read through ``extract_bytes`` as an image-only PDF.

The same run times chunking and embedding the same text (MiniLM, the pipeline's next steps) as
the baseline a page costs without OCR. Each repeat alternates the two; medians are reported,
with the load average before and after (the machine is shared).
"""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path

from bench._scans import FONT, a4_scan, cer, image_pdf, page_text
from open_notebook.config import Settings
from open_notebook.embeddings import OnnxMiniLMEmbedder
from open_notebook.ingest import ExtractOptions, extract_bytes
from open_notebook.ingest._embed import ChunkEmbedder

_SETS = (("squad-long", "en"), ("piaf", "fr"))


def _passages(data: Path, count: int) -> list[tuple[str, str]]:
    """``count`` page-long texts, alternating English and French."""
    pools: list[list[tuple[str, str]]] = []
    for dataset, language in _SETS:
        texts: list[tuple[str, str]] = []
        with (data / dataset / "corpus.jsonl").open(encoding="utf-8") as handle:
            for line in handle:
                text = str(json.loads(line).get("text", ""))
                if len(text) > 3000:
                    texts.append((language, text))
                if len(texts) == count:
                    break
        pools.append(texts)
    mixed = [one for pair in zip(*pools, strict=False) for one in pair]
    return mixed[:count]


def ocr_report(data: Path, pages: int, repeats: int, embedder: OnnxMiniLMEmbedder) -> None:
    if not FONT.is_file():
        print(f"OCR: skipped, no font at {FONT} (run `make ocr`)")
        return
    chosen = _passages(data, pages)
    texts = [page_text(text) for _, text in chosen]
    pdf = image_pdf(*(a4_scan(text, seed=n) for n, text in enumerate(texts)))
    chunker = ChunkEmbedder(embedder, Settings(database_url="mem://"))
    load_before = os.getloadavg()
    per_page: list[float] = []
    ocr_wall: list[float] = []
    embed_wall: list[float] = []
    read = ""
    options = ExtractOptions(on_page=lambda _done, _total, took: per_page.append(took))
    for _ in range(repeats):
        started = time.perf_counter()
        read = extract_bytes("bench-scan.pdf", pdf, options=options).text
        ocr_wall.append(time.perf_counter() - started)
        started = time.perf_counter()
        chunker.rows_many([(text, "text") for text in texts])
        embed_wall.append(time.perf_counter() - started)
    load_after = os.getloadavg()
    ocr_s = statistics.median(ocr_wall) / len(texts)
    embed_s = statistics.median(embed_wall) / len(texts)
    languages = "+".join(language for language, _ in chosen)
    print(
        f"OCR: {len(texts)} A4 pages at 200 dpi ({languages}), {repeats} repeats; "
        f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after, "
        f"{os.cpu_count()} cores"
    )
    print(
        f"OCR (tesseract, extract_bytes)   : {ocr_s:6.2f} s/page  {60 / ocr_s:6.1f} pages/min  "
        f"(page times {min(per_page):.2f}-{max(per_page):.2f} s)"
    )
    print(
        f"chunk + embed the same text      : {embed_s:6.2f} s/page  {60 / embed_s:6.1f} pages/min"
    )
    pieces = read.split("\n\n")
    if len(pieces) == len(texts):
        rates = [cer(expected, found) for expected, found in zip(texts, pieces, strict=True)]
        shown = ", ".join(f"{rate:.2%}" for rate in rates)
        whole = cer("\n".join(texts), read)
        print(f"OCR character error rate per page: {shown} (all pages {whole:.2%})")
    else:
        print(f"OCR character error rate, all pages: {cer(' '.join(texts), read):.2%}")
    try:
        from bench._summary import record
    except ImportError:
        return
    record("ingest", "OCR s/page", ours=round(ocr_s, 2))
    record("ingest", "OCR pages/min", ours=round(60 / ocr_s, 1))
