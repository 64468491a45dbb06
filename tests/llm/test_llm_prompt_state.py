"""Each request starts from its instructions read alone (``llm/_kv_state.py``): kept on disk for
later requests and processes, and the same answer to the same question whatever came before."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest

from open_notebook.config import LocalModelName
from open_notebook.llm import ChatMessage, LocalModel, Role, model_spec
from open_notebook.llm._kv_state import KEPT
from open_notebook.llm._local import private_state_dir

# A Qwen model: Gemma 3's sliding-window layers keep llama.cpp from reusing a cached prompt.
QWEN = model_spec(LocalModelName.QWEN_05B)
RULES = (
    "You answer questions about the weather in one word. The answer is a single English word, "
    "written in lower case, with no punctuation and nothing before or after it."
)
# A long shared start after the instructions: left to itself, llama.cpp would reuse it from the
# previous request and read only what follows, in other batches.
NOTES = "Notes on the weather. " + " ".join(
    f"On day {day} the sky was grey, the wind came from the west and it rained a little."
    for day in range(1, 13)
)


def _messages(question: str, rules: str = RULES) -> list[ChatMessage]:
    return [ChatMessage(Role.SYSTEM, rules), ChatMessage(Role.USER, question)]


async def _answer(model: LocalModel, question: str, rules: str = RULES) -> str:
    return "".join([one async for one in model.stream(_messages(question, rules), max_tokens=6)])


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One models folder for the module: the weights are joined and hashed once."""
    return tmp_path_factory.mktemp("prompt-state-models")


def _process(tmp_path: Path, models: Path) -> LocalModel:
    """A model as a CLI process makes it: its own llama.cpp server, the data dir's state."""
    return LocalModel(QWEN, models, context_window=1024, state_dir=tmp_path / "state")


def _instructions_tokens(model: LocalModel) -> int:
    return model.count_tokens(f"<|im_start|>system\n{RULES}<|im_end|>\n<|im_start|>user\n")


@pytest.mark.slow
async def test_the_instructions_are_read_once_and_kept_for_the_next_process(
    tmp_path: Path,
    models: Path,
) -> None:
    state = tmp_path / "state"
    first = _process(tmp_path, models)
    await _answer(first, "What colour is the sky on a clear day?")
    # The instructions were read alone first; the request read only what follows them.
    assert first.last_timings["cache_n"] >= _instructions_tokens(first) - 2
    first.close()
    (saved,) = state.iterdir()
    assert saved.suffix == ".kv"  # one file, no partial one left
    written = saved.stat().st_mtime_ns
    # Another model instance is another llama.cpp server, as in the next CLI process: it
    # restores the instructions instead of reading them.
    second = _process(tmp_path, models)
    await _answer(second, "What falls from clouds when it rains?")
    assert second.last_timings["cache_n"] >= _instructions_tokens(second) - 2
    second.close()
    assert [one.name for one in state.iterdir()] == [saved.name]
    assert saved.read_bytes() and saved.stat().st_mtime_ns >= written


@pytest.mark.slow
async def test_the_same_question_gets_the_same_answer_whatever_came_before(
    models: Path,
) -> None:
    """Token for token and log-probability for log-probability: the request is read the same
    way after another that shares a long start with it as in a process that asked nothing."""
    question = f"{NOTES}\nWhat was the weather like on day 12?"
    fresh = LocalModel(QWEN, models, context_window=2048)
    await _answer(fresh, question)
    alone = list(fresh.last_tokens)
    fresh.close()
    model = LocalModel(QWEN, models, context_window=2048)
    await _answer(model, f"{NOTES}\nWhere did the wind come from on day 3?")
    await _answer(model, question)
    assert model.last_timings["cache_n"] < _instructions_tokens(model) + 5
    assert model.last_tokens == alone
    model.close()


@pytest.mark.slow
async def test_a_saved_state_that_does_not_restore_is_removed_and_made_again(
    tmp_path: Path,
    models: Path,
) -> None:
    first = _process(tmp_path, models)
    await _answer(first, "What colour is the sky on a clear day?")
    first.close()
    (saved,) = (tmp_path / "state").iterdir()
    saved.write_bytes(b"not a llama.cpp state file")
    second = _process(tmp_path, models)
    assert await _answer(second, "What falls from clouds when it rains?")
    assert second.last_timings["cache_n"] >= _instructions_tokens(second) - 2
    second.close()
    # The broken file went; the second process saved its own.
    assert saved.read_bytes() != b"not a llama.cpp state file"


@pytest.mark.slow
async def test_each_text_of_instructions_has_its_file_and_only_the_newest_are_kept(
    tmp_path: Path,
    models: Path,
) -> None:
    state = tmp_path / "state"
    model = _process(tmp_path, models)
    for number in range(KEPT + 2):
        await _answer(model, "Is it raining?", f"{RULES} Rule {number}.")
    await _answer(model, "Is it raining?", f"{RULES} Rule {KEPT + 1}.")
    model.close()
    assert len(list(state.glob("*.kv"))) == KEPT
    assert not list(state.glob("*.part"))


def test_a_private_state_folder_goes_with_its_model_even_unclosed() -> None:
    """A model given no writable state folder makes its own; a script that never closes the
    model, or drops it, leaves none behind (each held a 3 MB saved prompt)."""
    script = (
        "from open_notebook.llm._local import private_state_dir\n"
        "class Owner: pass\n"
        "owner = Owner()\n"
        "folder, _ = private_state_dir(owner)\n"
        "(folder / 'state.kv').write_bytes(b'x')\n"
        "print(folder)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    left = Path(done.stdout.strip())
    assert left.name.startswith("open-notebook-slot-")
    assert not left.exists()


def test_a_private_state_folder_goes_when_its_model_is_dropped() -> None:
    class Owner:
        pass

    owner = Owner()
    folder, forget = private_state_dir(owner)
    assert folder.is_dir() and forget.alive
    del owner
    gc.collect()
    assert not folder.exists()
