"""Helpers shared by the chat graph tests (fixtures live in conftest.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from open_notebook.config import Settings
from open_notebook.llm import ChatMessage, Role

STARTER_TEXT = (
    "A sourdough starter is a culture of wild yeast and lactic acid bacteria. "
    "Feed it equal weights of flour and water every day and keep it at room temperature.\n\n"
    "Rye flour makes a starter more active because it carries more wild yeast. "
    "A ripe starter doubles in four to six hours and smells pleasantly sour."
)


@dataclass(frozen=True, slots=True)
class Seeded:
    notebook_id: str
    source_id: str
    insight_id: str
    note_id: str
    other_source_id: str


def loopback_settings(tmp_path: Path, base_url: str, window: int = 2048) -> Settings:
    return Settings(
        data_dir=tmp_path,
        database_url="mem://",
        llm_provider="openai",
        llm_model="loop",
        llm_base_url=base_url,
        llm_context_window=window,
        llm_answer_tokens=128,
        # The graph's answer path is under test: a question the seeded notebook does not cover
        # still goes to the model (refusing is tested on its own).
        low_coverage="warn",
    )


def sent_messages(request: dict[str, object]) -> list[ChatMessage]:
    raw = request["messages"]
    assert isinstance(raw, list)
    return [ChatMessage(Role(m["role"]), m["content"]) for m in raw]
