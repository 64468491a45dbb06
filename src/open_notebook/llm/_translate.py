"""A question put into the language of the notebook it asks about, to search and judge with.

A question in one language about sources in another meets them only through a model trained
on both: its words match none of theirs (BM25), the English model cannot read it, and the
multilingual model places everyday domain words loosely ("masa madre" lies far from
"sourdough starter" for USE: cosine 0.11 with the sentence that answers, against 0.19 for the
English question). The language model reads both languages far better. It is asked to put the
question into the notebook's language in the words the notebook's own titles use for the same
things (the titles of the first hits: without them the 1.5B rendered "masa madre" as "mother's
bread"), and the translation is searched beside the question.

A reply that is not one line in the notebook's language, or that carries a citation mark, is not
taken.

The translation is searched and judged, and it is also what the model answers: a small model
reading passages in one language and writing in another misreads them (the 1.5B answered
"Los normandos eran cristianos." where the passage says Catholicism). It answers the
translation in the passages' language, and that answer is then put into the asker's language
(:func:`answer_translation_request`), its marks kept: on squad-es-on-en (Spanish questions,
English articles; 60 questions, `bench/answers`) the gold answer rose from 0.483 to 0.583 of
answers and supported sentences from 0.900 to 0.950. The answer's first word then waits for the
whole draft.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Final

from open_notebook.errors import ModelError
from open_notebook.llm._types import ChatMessage, LanguageModel, Role
from open_notebook.search import Translate
from open_notebook.text import LanguageDetector

log = logging.getLogger(__name__)

# A question and its translation are about as long; room for a long question's.
TRANSLATION_TOKENS: Final = 64
# Titles shown to the model: enough to name the notebook's things, few enough to read fast.
MAX_TITLES: Final = 6
# A reply this many times longer than the question is an answer, not a translation.
MAX_GROWTH: Final = 3
_MARK: Final = re.compile(r"\[\d+\]")
_QUOTES: Final = "\"'“”‘’«»「」"


def translation_request(question: str, language: str, titles: Sequence[str]) -> list[ChatMessage]:
    """The messages that ask for ``question`` in ``language`` (a language's English name),
    worded like the ``titles``."""
    shown = "; ".join(dict.fromkeys(one.strip() for one in titles if one.strip()))
    instruction = (
        f"Translate the user's question into {language}"
        + (", in the words of the titles below where they name the same things" if shown else "")
        + f". Reply with the {language} question only."
    )
    if shown:
        instruction += f"\n\nTitles: {shown}"
    return [ChatMessage(Role.SYSTEM, instruction), ChatMessage(Role.USER, question)]


def answer_translation_request(answer: str, language: str) -> list[ChatMessage]:
    """The messages that ask for ``answer`` in ``language`` (a language's English name), every
    citation mark where it stands."""
    instruction = (
        f"Translate the user's text into {language}. Keep every number in square brackets "
        "exactly as it is, at the end of its sentence. Reply with the translation only."
    )
    return [ChatMessage(Role.SYSTEM, instruction), ChatMessage(Role.USER, answer)]


async def translate_question(
    llm: LanguageModel,
    question: str,
    *,
    language: str,
    titles: Sequence[str],
    languages: LanguageDetector,
) -> str | None:
    """``question`` in the language ``language`` (ISO 639-1), or ``None`` when the model's reply
    is not a translation (see the module docstring) or the model fails."""
    name = languages.name(language)
    if not name:
        return None
    messages = translation_request(question, name, titles[:MAX_TITLES])
    try:
        reply = await llm.complete(messages, max_tokens=TRANSLATION_TOKENS, stop=["\n"])
    except ModelError as exc:
        log.warning("the question could not be translated to search with: %s", exc)
        return None
    return accepted_translation(reply, question, language, languages)


def question_translator(llm: LanguageModel, languages: LanguageDetector | None = None) -> Translate:
    """What search puts a question into a notebook's language with
    (:meth:`open_notebook.search.SearchService.search_as_asked`): ``llm``, asked as
    :func:`translate_question` asks it."""
    detector = languages or LanguageDetector()

    async def translate(question: str, language: str, titles: Sequence[str]) -> str | None:
        return await translate_question(
            llm, question, language=language, titles=titles, languages=detector
        )

    return translate


def accepted_translation(
    reply: str, question: str, language: str, languages: LanguageDetector
) -> str | None:
    """``reply`` as a translation of ``question`` into ``language``, or ``None``."""
    lines = [one for one in reply.strip().splitlines() if one.strip()]
    if not lines:
        return None
    text = lines[0].strip().strip(_QUOTES).strip()
    if not text or text == question.strip() or _MARK.search(text):
        return None
    if len(text) > MAX_GROWTH * len(question) + 20:
        return None
    if languages.detect(text) != language:
        return None
    return text
