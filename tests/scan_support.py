"""Scans for the OCR tests (rendered by bench/_scans.py, the pages bench/ingest.py times too),
the English and French texts they show, and PDFs joined page by page."""

from __future__ import annotations

import io

from bench._scans import cer, image_pdf, png_bytes, scan
from pypdf import PdfReader, PdfWriter

__all__ = ["ENGLISH", "FRENCH", "cer", "image_pdf", "joined_pdf", "png_bytes", "scan"]

ENGLISH = (
    "The harbour of Valparaiso received forty ships in the winter of 1891.\n"
    "Merchants stored copper, wheat and nitrate in the warehouses by the quay."
)
FRENCH = (
    "Les élèves du lycée ont étudié la géométrie pendant trois années.\n"
    "Où sont passés les cahiers de François? Ça dépend du garçon."
)


def joined_pdf(*documents: bytes) -> bytes:
    """The pages of several PDFs, in the order given."""
    writer = PdfWriter()
    for data in documents:
        for page in PdfReader(io.BytesIO(data)).pages:
            writer.add_page(page)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()
