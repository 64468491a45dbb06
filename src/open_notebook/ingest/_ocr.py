"""OCR of page images with Debian's tesseract-ocr, one process per page.

Tesseract (5.x, LSTM models) was chosen over rapidocr's PP-OCR ONNX models: both read the test
scans without an error, tesseract ~7x faster on 2 shared cores and ~7x smaller to install
(/work/notes/ingest.md has the numbers). It runs as a subprocess with one OpenMP thread: its
threads thrash when the machine is loaded, and pages are read one after another anyway.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from open_notebook.errors import ExtractionError
from open_notebook.ingest._types import ExtractOptions

if TYPE_CHECKING:
    from PIL.Image import Image

_INSTALL: Final = (
    "install Debian's tesseract-ocr with its language models "
    "(apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-fra tesseract-ocr-spa; "
    "`make ocr` does it), or turn OCR off with OPEN_NOTEBOOK_OCR=false"
)
# Salt-and-pepper noise of a scan splits letters into specks; a 3x3 median removes specks of a
# pixel or two and keeps strokes of 3 px and more (12 pt text at 200 dpi has ~4 px strokes).
_MEDIAN: Final = 3


@dataclass(frozen=True, slots=True)
class OcrPage:
    text: str
    seconds: float


class Tesseract:
    """Runs ``tesseract`` on page images; checks once that it and its languages are there."""

    def __init__(self, options: ExtractOptions) -> None:
        self.options = options
        self._checked: str | None = None

    def engine(self, name: str) -> str:
        """``tesseract 5.3.0 (eng+fra+spa)``, once the program and every language are found."""
        if self._checked is None:
            self._checked = self._check(name)
        return self._checked

    def _check(self, name: str) -> str:
        command = shutil.which(self.options.ocr_command)
        if command is None:
            raise ExtractionError(
                name, f"OCR is needed but {self.options.ocr_command!r} is not installed: {_INSTALL}"
            )
        found = self._run([command, "--list-langs"], None, name).decode("utf-8", "replace")
        have = {line.strip() for line in found.splitlines()[1:]}
        wanted = self.options.ocr_languages.split("+")
        missing = [one for one in wanted if one not in have]
        if missing:
            raise ExtractionError(
                name,
                f"OCR languages {', '.join(missing)} are not installed (have "
                f"{', '.join(sorted(have)) or 'none'}): apt-get install "
                + " ".join(f"tesseract-ocr-{one.lower().replace('_', '-')}" for one in missing)
                + " or set OPEN_NOTEBOOK_OCR_LANGUAGES",
            )
        version = self._run([command, "--version"], None, name).decode("utf-8", "replace")
        first = version.splitlines()[0].strip() if version.strip() else "tesseract"
        return f"{first} ({self.options.ocr_languages})"

    def read(self, name: str, image: Image) -> OcrPage:
        """The text of one page image, lines kept, paragraphs separated by blank lines."""
        self.engine(name)
        started = time.perf_counter()
        command = shutil.which(self.options.ocr_command) or self.options.ocr_command
        png = _prepared_png(image)
        out = self._run(
            [command, "-", "-", "-l", self.options.ocr_languages, "--psm", "3"], png, name
        )
        text = out.decode("utf-8", "replace").replace("\f", "").strip()
        return OcrPage(text, time.perf_counter() - started)

    def _run(self, args: list[str], data: bytes | None, name: str) -> bytes:
        timeout = self.options.ocr_page_timeout_s
        try:
            done = subprocess.run(  # the configured OCR program, no shell
                args,
                input=data,
                capture_output=True,
                timeout=timeout,
                check=False,
                env={"OMP_THREAD_LIMIT": "1", "LC_ALL": "C.UTF-8"},
            )
        except subprocess.TimeoutExpired:
            raise ExtractionError(
                name,
                f"OCR of a page took longer than {timeout:g} s (OPEN_NOTEBOOK_OCR_PAGE_TIMEOUT_S)",
            ) from None
        except OSError as error:
            raise ExtractionError(
                name, f"OCR could not run ({error.strerror}): {_INSTALL}"
            ) from None
        if done.returncode != 0:
            detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise ExtractionError(name, f"OCR failed: {detail[-1] if detail else done.returncode}")
        return done.stdout


def flattened(image: Image) -> Image:
    """The image on a white background: transparent pixels of a PNG are paper, not ink."""
    # Deferred on purpose: Pillow loads only when an image or a scanned page is read.
    from PIL import Image as PilImage

    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        paper = PilImage.new("RGBA", rgba.size, (255, 255, 255, 255))
        return PilImage.alpha_composite(paper, rgba).convert("RGB")
    return image


def _prepared_png(image: Image) -> bytes:
    """Grayscale, despeckled, as PNG bytes for tesseract's standard input."""
    # Deferred on purpose: Pillow loads only when an image or a scanned page is read.
    from PIL import ImageFilter

    gray = flattened(image).convert("L").filter(ImageFilter.MedianFilter(_MEDIAN))
    buffer = io.BytesIO()
    gray.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()
