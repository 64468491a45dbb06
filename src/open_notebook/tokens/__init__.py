"""Token counting of the exact text sent to a model, offline.

The BPE files ship inside the ``bpe-openai`` wheel (byte-identical to tiktoken's), so nothing is
downloaded; there is no silent word-count fallback.
"""

from open_notebook.tokens._counter import BpeTokenCounter, TokenCounter

__all__ = ["BpeTokenCounter", "TokenCounter"]
