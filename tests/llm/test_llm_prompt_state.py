from __future__ import annotations

from pathlib import Path

import pytest

from open_notebook.config import LocalModelName
from open_notebook.llm import ChatMessage, LocalModel, Role, model_spec

# A Qwen model: Gemma 3's sliding-window layers keep llama.cpp from reusing a cached prompt.
QWEN = model_spec(LocalModelName.QWEN_05B)
RULES = (
    "You answer questions about the weather in one word. The answer is a single English word, "
    "written in lower case, with no punctuation and nothing before or after it."
)


def _messages(question: str) -> list[ChatMessage]:
    return [ChatMessage(Role.SYSTEM, RULES), ChatMessage(Role.USER, question)]


async def _answer(model: LocalModel, question: str) -> str:
    return "".join([one async for one in model.stream(_messages(question), max_tokens=4)])


@pytest.mark.slow
async def test_a_new_process_starts_from_the_prompt_the_last_one_read(tmp_path: Path) -> None:
    models, state = tmp_path / "models", tmp_path / "state"
    first = LocalModel(QWEN, models, context_window=1024, state_dir=state)
    await _answer(first, "What colour is the sky on a clear day?")
    assert first.last_timings["cache_n"] == 0
    first.close()
    saved = list(state.iterdir())
    assert [one.suffix for one in saved] == [".kv"]  # one file, no partial one left
    # Another model instance is another llama.cpp server, as in the next CLI process: it reads
    # only what follows the instructions the saved prompt shares with its own.
    second = LocalModel(QWEN, models, context_window=1024, state_dir=state)
    await _answer(second, "What falls from clouds when it rains?")
    shared = second.count_tokens(f"<|im_start|>system\n{RULES}<|im_end|>\n<|im_start|>user\nWhat")
    assert second.last_timings["cache_n"] >= shared - 2
    second.close()


@pytest.mark.slow
async def test_a_saved_prompt_that_does_not_restore_is_removed(tmp_path: Path) -> None:
    models, state = tmp_path / "models", tmp_path / "state"
    first = LocalModel(QWEN, models, context_window=1024, state_dir=state)
    await _answer(first, "What colour is the sky on a clear day?")
    first.close()
    (saved,) = state.iterdir()
    saved.write_bytes(b"not a llama.cpp state file")
    second = LocalModel(QWEN, models, context_window=1024, state_dir=state)
    assert await _answer(second, "What falls from clouds when it rains?")
    assert second.last_timings["cache_n"] == 0
    second.close()
    # The broken file went; the second process saved its own.
    assert saved.read_bytes() != b"not a llama.cpp state file"
