"""Scans made by the tests: text rendered by Pillow (DejaVu Sans, installed by .ci/ocr), a
slight rotation and salt-and-pepper noise, saved as PNG or as an image-only PDF; and the
character error rate of what OCR read back."""

from __future__ import annotations

import io
import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont
from pypdf import PdfReader, PdfWriter

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
ENGLISH = (
    "The harbour of Valparaiso received forty ships in the winter of 1891.\n"
    "Merchants stored copper, wheat and nitrate in the warehouses by the quay."
)
FRENCH = (
    "Les élèves du lycée ont étudié la géométrie pendant trois années.\n"
    "Où sont passés les cahiers de François? Ça dépend du garçon."
)


def scan(text: str, *, size: int = 30, angle: float = 1.2, noise: float = 0.02, seed: int = 7):
    """``text`` (lines) as a grayscale page at ~200 dpi: rotated by ``angle`` degrees, with
    ``noise`` of its pixels flipped to random grays."""
    font = ImageFont.truetype(str(FONT), size)
    lines = text.splitlines()
    width = 90 * 2 + max(int(font.getlength(line)) for line in lines)
    height = 90 * 2 + len(lines) * int(size * 1.6)
    page = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(page)
    for number, line in enumerate(lines):
        draw.text((90, 90 + number * int(size * 1.6)), line, fill=0, font=font)
    page = page.rotate(angle, resample=Image.Resampling.BICUBIC, fillcolor=255)
    rng = random.Random(seed)
    pixels = page.load()
    assert pixels is not None
    for _ in range(int(width * height * noise)):
        pixels[rng.randrange(width), rng.randrange(height)] = rng.choice((0, 90, 180, 255))
    return page


def png_bytes(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def image_pdf(*pages: Image.Image) -> bytes:
    """A PDF whose pages are only images (no text layer), 200 dpi."""
    buffer = io.BytesIO()
    first, *rest = pages
    first.save(buffer, format="PDF", save_all=True, append_images=rest, resolution=200.0)
    return buffer.getvalue()


def joined_pdf(*documents: bytes) -> bytes:
    """The pages of several PDFs, in the order given."""
    writer = PdfWriter()
    for data in documents:
        for page in PdfReader(io.BytesIO(data)).pages:
            writer.add_page(page)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def cer(expected: str, found: str) -> float:
    """Character error rate: edit distance over the expected length, whitespace runs as one
    space (OCR keeps words and lines; it does not know how many spaces the source had)."""
    a, b = " ".join(expected.split()), " ".join(found.split())
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other))
            )
        previous = current
    return previous[-1] / max(len(a), 1)
