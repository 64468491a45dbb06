"""Recordings transcribed offline by Whisper tiny.en (the speech extra), with their times."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from office_support import spoken_wav
from open_notebook.errors import ExtractionError
from open_notebook.ingest import ExtractOptions, SourceFormat, extract_bytes, extract_file

FIRST = "Merchants stored copper and wheat by the quay."
THEN = "In the spring the river flooded the lower town."


def test_a_recording_is_transcribed_with_the_time_of_each_segment(tmp_path: Path) -> None:
    recording = spoken_wav(FIRST, tmp_path / "talk.wav", pause_s=4.0, then=THEN)
    extracted = extract_file(recording, max_bytes=10**8)
    assert extracted.fmt is SourceFormat.AUDIO and extracted.chunk_format == "text"
    text = extracted.text.lower()
    assert text.startswith("[00:00] ")
    # tiny.en on a synthetic voice: the content words come through, in order.
    words = ["copper", "wheat", "spring", "river", "flooded", "town"]
    assert [text.index(word) for word in words] == sorted(text.index(word) for word in words)
    times = re.findall(r"^\[(\d\d):(\d\d)\]", extracted.text, re.MULTILINE)
    seconds = [int(m) * 60 + int(s) for m, s in times]
    # The second sentence starts after the first (~3 s) and four seconds of silence.
    assert len(seconds) >= 2 and seconds == sorted(seconds) and seconds[-1] >= 5
    assert extracted.ocr_pages == ()


def test_bad_and_too_long_recordings_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ExtractionError, match="not a readable recording"):
        extract_bytes("cut.ogg", b"OggS" + b"\0" * 200)
    data = spoken_wav("A short sentence.", tmp_path / "short.wav").read_bytes()
    with pytest.raises(ExtractionError, match="the limit is 1 s"):
        extract_bytes("short.wav", data, options=ExtractOptions(max_audio_seconds=1))
