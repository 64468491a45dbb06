"""A question searched as an ask searches it: as asked, and also in the notebook's language when
its first hits are written in another one.

A question in one language about sources in another meets them only through the multilingual
vectors: its words match none of theirs. A language model reads both languages far better, so
the caller may pass a :data:`Translate` (``open_notebook.llm.translate_question`` behind it);
the translation is searched too and the two lists merged, each hit at its better standing
(:func:`open_notebook.search._parts.merge_readings`). Search itself knows no language model:
the translation comes from above.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import Final

from open_notebook.text import LanguageDetector

# The first hits (or passages) whose language is the notebook's, as the question meets it.
LANGUAGE_HITS: Final = 5

# (question, the language to put it in (ISO 639-1), the titles of its first hits) -> the
# question in that language, or None when there is no translation to search with.
Translate = Callable[[str, str, Sequence[str]], Awaitable[str | None]]


def other_language(
    texts: Sequence[str], question: str, languages: LanguageDetector, *, asker: str = ""
) -> str | None:
    """The language most of the first ``texts`` (a search's hits, a build's passages) are
    written in, when the question is in another one (both known, the question's read with its
    ``asker``'s own language); ``None`` otherwise."""
    asked = languages.detect(question, asker=asker)
    found = Counter(languages.detect(text) for text in texts[:LANGUAGE_HITS])
    found.pop("", None)
    if not asked or not found:
        return None
    language, count = found.most_common(1)[0]
    if language == asked or 2 * count <= min(LANGUAGE_HITS, len(texts)):
        return None
    return language
