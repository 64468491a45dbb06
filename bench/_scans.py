"""Scans made on the spot: text rendered by Pillow (DejaVu Sans, installed by .ci/ocr), a slight
rotation and salt-and-pepper noise, saved as PNG or as an image-only PDF; and the character error
rate of what OCR read back. bench/ingest.py and the OCR tests use the same pages."""

from __future__ import annotations

import io
import random
import textwrap
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
A4_200_DPI = (1654, 2339)


def scan(
    text: str, *, size: int = 30, angle: float = 1.2, noise: float = 0.02, seed: int = 7
) -> Image.Image:
    """``text`` (its lines) as a grayscale page at ~200 dpi (30 px is 11 pt): rotated by
    ``angle`` degrees, ``noise`` of its pixels set to random grays."""
    font = ImageFont.truetype(str(FONT), size)
    lines = text.splitlines()
    width = 180 + max(int(font.getlength(line)) for line in lines)
    height = 180 + len(lines) * int(size * 1.6)
    return _noisy(_drawn(lines, font, (width, height), size), angle, noise, seed)


def a4_scan(text: str, *, angle: float = 1.0, noise: float = 0.01, seed: int = 7) -> Image.Image:
    """A full A4 page at 200 dpi: ``text`` wrapped to the page, as much as fits."""
    font = ImageFont.truetype(str(FONT), 30)
    width, height = A4_200_DPI
    columns = int((width - 180) / font.getlength("n"))
    lines = textwrap.wrap(" ".join(text.split()), columns)[: (height - 180) // 48]
    return _noisy(_drawn(lines, font, A4_200_DPI, 30), angle, noise, seed)


def page_text(text: str) -> str:
    """The part of ``text`` that :func:`a4_scan` draws, as lines."""
    font = ImageFont.truetype(str(FONT), 30)
    columns = int((A4_200_DPI[0] - 180) / font.getlength("n"))
    return "\n".join(textwrap.wrap(" ".join(text.split()), columns)[: (A4_200_DPI[1] - 180) // 48])


def _drawn(
    lines: list[str], font: ImageFont.FreeTypeFont, size: tuple[int, int], px: int
) -> Image.Image:
    page = Image.new("L", size, 255)
    draw = ImageDraw.Draw(page)
    for number, line in enumerate(lines):
        draw.text((90, 90 + number * int(px * 1.6)), line, fill=0, font=font)
    return page


def _noisy(page: Image.Image, angle: float, noise: float, seed: int) -> Image.Image:
    page = page.rotate(angle, resample=Image.Resampling.BICUBIC, fillcolor=255)
    rng = random.Random(seed)
    pixels = page.load()
    assert pixels is not None
    width, height = page.size
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


def cer(expected: str, found: str) -> float:
    """Character error rate: edit distance over the expected length, whitespace runs as one
    space (OCR keeps words and lines, not how many spaces the source had)."""
    a, b = " ".join(expected.split()), " ".join(found.split())
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            substitute = previous[j - 1] + (char != other)
            current.append(min(previous[j] + 1, current[j - 1] + 1, substitute))
        previous = current
    return previous[-1] / max(len(a), 1)
