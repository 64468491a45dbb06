"""Sheets and CSV files as Markdown tables, cut into row blocks that each fit one chunk.

Every block is a section of its own (``# Sheet Budget, rows 2-41``) that repeats the header
row, so a chunk of a large sheet still says what its columns are; the chunker keeps a section
that fits its budget whole.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Final

from open_notebook.errors import ExtractionError
from open_notebook.ingest._readers import OLE_MAGIC, check_zip, decode_text
from open_notebook.ingest._types import ExtractOptions, Read

_DELIMITERS: Final = ",;\t|"
_SNIFF_CHARS: Final = 64 * 1024
# A block fills this share of a chunk: the heading and the tokenizer's counting across the
# block's lines take the rest.
_FILL: Final = 0.85
_CHARS_PER_TOKEN: Final = 3  # estimate without a tokenizer: tables are dense in word pieces


def read_csv(name: str, data: bytes, options: ExtractOptions) -> Read:
    """A CSV (or TSV, ; or | separated) file as one table; the first row is the header."""
    text = decode_text(name, data)
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(
            text[:_SNIFF_CHARS], delimiters=_DELIMITERS
        )
    except csv.Error:
        dialect = csv.excel
    try:
        rows = list(_capped(name, csv.reader(io.StringIO(text, newline=""), dialect), options))
    except csv.Error as error:
        raise ExtractionError(name, f"not a readable CSV file ({error})") from error
    label = _stem(name)
    blocks = list(table_blocks(label, rows, options))
    if not blocks:
        raise ExtractionError(name, "the CSV file has no cells with text")
    return Read(label, "\n\n".join(blocks))


def read_xlsx(name: str, data: bytes, options: ExtractOptions) -> Read:
    """Every sheet of a workbook (cached values of formulas), in the workbook's order."""
    # Deferred on purpose: openpyxl loads only when a workbook is read.
    import openpyxl
    from openpyxl.utils.exceptions import InvalidFileException

    if data.startswith(OLE_MAGIC):
        raise ExtractionError(name, "password-protected or an old .xls workbook: save as .xlsx")
    check_zip(name, data, "XLSX")
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (InvalidFileException, zipfile.BadZipFile, KeyError, ValueError, OSError) as error:
        raise ExtractionError(name, f"not a readable XLSX file ({error})") from error
    try:
        blocks: list[str] = []
        cells = 0
        for sheet in book.worksheets:
            rows = list(_capped(name, sheet.iter_rows(values_only=True), options, cells))
            cells += sum(len(row) for row in rows)
            blocks.extend(table_blocks(f"Sheet {sheet.title}", rows, options))
        title = book.properties.title if book.properties and book.properties.title else ""
    except (KeyError, ValueError, TypeError, zipfile.BadZipFile) as error:
        raise ExtractionError(name, f"not a readable XLSX file ({error})") from error
    finally:
        book.close()
    if not blocks:
        raise ExtractionError(name, "the workbook has no cells with text")
    return Read(str(title or _stem(name)), "\n\n".join(blocks))


def _capped(
    name: str, rows: Iterable[Sequence[object]], options: ExtractOptions, already: int = 0
) -> Iterator[Sequence[object]]:
    cells = already
    for row in rows:
        cells += len(row)
        if cells > options.max_table_cells:
            raise ExtractionError(
                name,
                f"more than {options.max_table_cells} cells (OPEN_NOTEBOOK_MAX_TABLE_CELLS): "
                "split the sheet",
            )
        yield row


def table_blocks(
    label: str, rows: Sequence[Sequence[object]], options: ExtractOptions
) -> Iterator[str]:
    """Markdown sections of ``rows`` (the first non-empty row is the header), each at most
    one chunk's worth of tokens with the header repeated."""
    numbered = [(number, [_cell(one) for one in row]) for number, row in enumerate(rows, 1)]
    numbered = [(number, cells) for number, cells in numbered if any(cells)]
    if not numbered:
        return
    width = max(
        max((i + 1 for i, one in enumerate(cells) if one), default=0) for _, cells in numbered
    )
    header = numbered[0][1]
    head = _line(header, width) + "\n" + "|" + " --- |" * width
    body = numbered[1:]
    if not body:
        yield f"# {label}\n\n{head}"
        return
    count = _counter(options)
    budget = int(options.block_tokens * _FILL) - count(f"# {label}, rows 00000-00000") - count(head)
    start, last, used = body[0][0], body[0][0], 0
    lines: list[str] = []
    for number, cells in body:
        line = _line(cells, width)
        cost = count(line) + 1
        if lines and used + cost > budget:
            yield _block(label, start, last, head, lines, len(body) == len(lines))
            start, used, lines = number, 0, []
        lines.append(line)
        used += cost
        last = number
    yield _block(label, start, last, head, lines, len(body) == len(lines))


def _block(label: str, first: int, last: int, head: str, lines: list[str], whole: bool) -> str:
    heading = label if whole else f"{label}, rows {first}-{last}"
    return f"# {heading}\n\n{head}\n" + "\n".join(lines)


def _counter(options: ExtractOptions) -> Callable[[str], int]:
    """Tokens of a text without the model's special tokens (estimated without a tokenizer)."""
    count_tokens = options.count_tokens
    if count_tokens is None:
        return lambda text: len(text) // _CHARS_PER_TOKEN + 1
    overhead = count_tokens("")
    return lambda text: count_tokens(text) - overhead


def _line(cells: list[str], width: int) -> str:
    padded = cells[:width] + [""] * (width - len(cells))
    return "| " + " | ".join(padded) + " |"


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, dt.datetime) and value.time() == dt.time():
        value = value.date()
    text = value.isoformat() if isinstance(value, dt.date | dt.time) else str(value)
    return " ".join(text.split()).replace("|", "\\|")


def _stem(name: str) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[0] if "." in base else base
