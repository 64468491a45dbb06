"""The token counter: exact counts, a refused unknown encoding, and an encoding loaded only by a
process that counts (importing ``bpe_openai`` costs a process about 0.7 s of CPU)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from open_notebook.errors import ConfigurationError
from open_notebook.tokens import BpeTokenCounter


def test_an_unknown_encoding_is_refused_when_the_counter_is_built() -> None:
    with pytest.raises(ConfigurationError, match="unknown tokenizer"):
        BpeTokenCounter("no_such_base")


def test_counts_and_cuts_in_the_encodings_tokens() -> None:
    counter = BpeTokenCounter()
    assert counter.count("") == 0
    text = "Sourdough bread comes out dense when the kitchen is cold."
    count = counter.count(text)
    assert 8 <= count <= len(text.split()) + 4
    cut = counter.truncate(text, 3)
    assert text.startswith(cut) and counter.count(cut) <= 3


def test_a_process_that_never_counts_never_loads_the_encoding(tmp_path: Path) -> None:
    code = f"""
        import asyncio, sys
        from open_notebook.config import Settings
        from open_notebook.store import open_store
        from open_notebook.tokens import BpeTokenCounter

        async def main():
            store = await open_store(Settings(database_url="surrealkv://{tmp_path / "db"}"))
            await store.notebooks.create("no counting")
            await store.close()
            counter = BpeTokenCounter()
            print("after open:", "bpe_openai" in sys.modules)
            counter.count("one count")
            print("after a count:", "bpe_openai" in sys.modules)

        asyncio.run(main())
        """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["after open: False", "after a count: True"]


def test_warm_up_loads_the_encoding_before_the_first_count() -> None:
    counter = BpeTokenCounter()
    counter.warm_up()
    assert "bpe_openai" in sys.modules
    assert counter.count("warm") >= 1
