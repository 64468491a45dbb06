"""Read a GGUF file's header: the metadata that says what model the file claims to be."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Final

_MAGIC: Final = b"GGUF"
_STRING: Final = 8
_ARRAY: Final = 9
_SCALARS: Final = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
# No header key is this long; a larger length means the bytes are not a GGUF header.
_MAX_STRING: Final = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class GgufHeader:
    """The scalar and string metadata of a GGUF file (arrays are counted, not kept)."""

    version: int
    tensors: int
    values: dict[str, object] = field(default_factory=dict)

    @property
    def architecture(self) -> str:
        return str(self.values.get("general.architecture", ""))

    @property
    def name(self) -> str:
        return str(self.values.get("general.name", ""))

    @property
    def chat_template(self) -> str:
        return str(self.values.get("tokenizer.chat_template", ""))

    @property
    def file_type(self) -> int | None:
        value = self.values.get("general.file_type")
        return value if isinstance(value, int) else None


def read_gguf_header(path: Path) -> GgufHeader:
    """The header of the GGUF file at ``path``.

    Raises:
        ValueError: the file is not GGUF (or its header is cut short).
        OSError: it cannot be read.
    """
    with path.open("rb") as file:
        if file.read(4) != _MAGIC:
            raise ValueError("no GGUF magic")
        version, tensors, count = struct.unpack("<IQQ", _exact(file, 20))
        values: dict[str, object] = {}
        for _ in range(count):
            key = _string(file)
            (kind,) = struct.unpack("<I", _exact(file, 4))
            values[key] = _value(file, kind)
    return GgufHeader(version, tensors, values)


def _exact(file: BinaryIO, size: int) -> bytes:
    data = file.read(size)
    if len(data) != size:
        raise ValueError("the GGUF header is cut short")
    return data


def _string(file: BinaryIO) -> str:
    (size,) = struct.unpack("<Q", _exact(file, 8))
    if size > _MAX_STRING:
        raise ValueError("a GGUF string is too long")
    return _exact(file, size).decode("utf-8", "replace")


def _value(file: BinaryIO, kind: int) -> object:
    if kind == _STRING:
        return _string(file)
    if kind == _ARRAY:
        item, count = struct.unpack("<IQ", _exact(file, 12))
        if item in _SCALARS:  # fixed-size items: skip them at once
            file.seek(count * struct.calcsize(_SCALARS[item]), 1)
        else:
            for _ in range(count):
                _value(file, item)
        return f"<array of {count}>"
    fmt = _SCALARS.get(kind)
    if fmt is None:
        raise ValueError(f"unknown GGUF value type {kind}")
    (value,) = struct.unpack(fmt, _exact(file, struct.calcsize(fmt)))
    return value
