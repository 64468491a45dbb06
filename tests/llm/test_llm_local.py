from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from open_notebook.llm import (
    ChatMessage,
    LocalGemmaModel,
    Role,
    ensure_model_file,
    gemma_prompt,
)


def test_gemma_prompt_puts_system_text_in_the_first_user_turn() -> None:
    prompt = gemma_prompt(
        [
            ChatMessage(Role.SYSTEM, "Rules."),
            ChatMessage(Role.USER, "Q1"),
            ChatMessage(Role.ASSISTANT, "A1"),
            ChatMessage(Role.USER, "Q2"),
        ]
    )
    assert prompt == (
        "<start_of_turn>user\nRules.\n\nQ1<end_of_turn>\n"
        "<start_of_turn>model\nA1<end_of_turn>\n"
        "<start_of_turn>user\nQ2<end_of_turn>\n"
        "<start_of_turn>model\n"
    )
    assert gemma_prompt([ChatMessage(Role.USER, "Q")], "Answer:").endswith("model\nAnswer:")


def test_model_file_is_assembled_once_and_verified(tmp_path: Path) -> None:
    first = ensure_model_file(tmp_path)
    stamp = first.stat().st_mtime_ns
    assert ensure_model_file(tmp_path) == first
    assert first.stat().st_mtime_ns == stamp


@pytest.mark.slow
async def test_short_generation_streams_and_counts_exactly(gemma: LocalGemmaModel) -> None:
    messages = [
        ChatMessage(Role.SYSTEM, "Answer in one word."),
        ChatMessage(Role.USER, "What color is the sky on a clear day?"),
    ]
    deltas = [d async for d in gemma.stream(messages, max_tokens=8)]
    assert deltas and all(isinstance(d, str) for d in deltas)
    assert 1 <= gemma.last_usage["completion_tokens"] <= 8
    # Our count of the request is the model's own count of the prompt it evaluated.
    assert gemma.count_messages(messages) == gemma.last_usage["prompt_tokens"]
    assert gemma.count_tokens("Hello world") == 2


def test_loopback_server_refuses_requests_without_the_process_key(gemma: LocalGemmaModel) -> None:
    assert gemma.loopback_url is not None and gemma.loopback_url.startswith("http://127.0.0.1:")
    response = httpx.post(f"{gemma.loopback_url}/tokenize", json={"content": "hi"}, timeout=10)
    assert response.status_code == 401
