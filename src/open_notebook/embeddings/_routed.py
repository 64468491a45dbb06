"""One embedder per script: each text goes to the model that reads its writing system.

The int8 MiniLM reads Latin script well and Cyrillic, Arabic or CJK not at all (its English
word pieces split them into letters); USE multilingual v3 reads those scripts and is several
times faster, but is weaker than MiniLM on English. So a text whose letters are mostly in a
script that only the second model reads is embedded by it, and every other text (Latin, and
scripts neither model reads) by the first, exactly as the first alone would.

Both land in one vector space of both widths: a first-model vector fills the first ``dim``
columns and zeros the rest, a second-model vector the other way round. The query is routed by the
same rule, so a Latin query on Latin chunks scores exactly as with the first model alone (the
zeros add nothing), and a Chinese query meets Chinese chunks in USE's space. A query in one script
does not find chunks in the other's space (their product is 0): the price of keeping each
script with the model that reads it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from open_notebook.embeddings._protocol import (
    Embedder,
    Vectors,
    empty_vectors,
    reject_single_string,
)
from open_notebook.text import MOST_SCRIPTS, Script, readable_share, script_letters

# A text is the second model's when most of its letters are in scripts only it reads.
_MAJORITY = 0.5
# A text longer than this is judged by its start: the share of a script does not change.
_SAMPLE_CHARS = 2_000


class ScriptRoutedEmbedder:
    """``first`` for Latin (and unread scripts), ``second`` for the scripts only it reads."""

    def __init__(self, first: Embedder, second: Embedder) -> None:
        self.first = first
        self.second = second
        first_scripts = getattr(first, "scripts", None)
        second_scripts = getattr(second, "scripts", None)
        own = frozenset(first_scripts) if first_scripts is not None else MOST_SCRIPTS
        theirs = frozenset(second_scripts) if second_scripts is not None else MOST_SCRIPTS
        self._second_only = theirs - own
        self.scripts: frozenset[Script] = own | theirs
        self.model_id: str = f"{first.model_id}+{second.model_id}:by-script"
        # Both models read this much; USE reads any length, so it is held to MiniLM's 256.
        self.max_tokens: int = min(first.max_tokens, second.max_tokens)

    @property
    def dim(self) -> int:
        return self.first.dim + self.second.dim

    def routes_to_second(self, text: str) -> bool:
        counts = script_letters(text[:_SAMPLE_CHARS])
        return bool(counts) and readable_share(counts, self._second_only) > _MAJORITY

    def warm_up(self) -> None:
        self.first.warm_up()
        self.second.warm_up()

    def count_tokens(self, text: str) -> int:
        """Tokens of the model that reads ``text``."""
        model = self.second if self.routes_to_second(text) else self.first
        return model.count_tokens(text)

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self.embed_documents([text])[0]
        return vector

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        reject_single_string(texts)
        if not texts:
            return empty_vectors(self.dim)
        second = [index for index, text in enumerate(texts) if self.routes_to_second(text)]
        first = sorted(set(range(len(texts))) - set(second))
        result = np.zeros((len(texts), self.dim), dtype=np.float32)
        if first:
            result[first, : self.first.dim] = self.first.embed_documents(
                [texts[index] for index in first]
            )
        if second:
            result[second, self.first.dim :] = self.second.embed_documents(
                [texts[index] for index in second]
            )
        return result
