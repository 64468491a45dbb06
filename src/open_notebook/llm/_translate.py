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
taken. Shown the titles, the model sometimes says one back as the question: "Comment conserver un
levain au réfrigérateur ?" became "How to maintain and revive a starter?" (the first hit's title,
"Maintaining and reviving a starter"), and the search found feeding ratios. A reply every term of
which is a term of one title (:func:`copies_title`) is asked for again, every word of the
question and not a title ("How to maintain and revive a starter in the refrigerator?"). It is
not the first request because, on 60 squad-es-on-en questions, that wording kept fewer of the
English question's terms (0.742 against 0.756).

The translation is searched and judged, and it is also what the model answers: a small model
reading passages in one language and writing in another misreads them (the 1.5B answered
"Los normandos eran cristianos." where the passage says Catholicism). It answers the
translation in the passages' language, and that answer is then put into the asker's language
(:func:`answer_translation_request`), its marks kept: on squad-es-on-en (Spanish questions,
English articles; 60 questions, `bench/answers`) the gold answer rose from 0.483 to 0.583 of
answers and supported sentences from 0.900 to 0.950. The answer's first word then waits for the
whole draft.

The answer is put back into the asker's words: the request shows the question as it was asked
beside its translation, so the things it names come back as the asker named them. Without that
the 1.5B wrote "starter" as "démarrage", "paille" or "motor" where the asker had said "levain" or
"masa madre". Shown that pair, it sometimes copies from the question instead of translating (a
count from the question's wording, "47,000" for the draft's 17,000, its marks dropped): a reply
whose numbers the draft does not hold, or that loses one of the draft's marks, is not taken
(:func:`accepted_answer_translation`), and the answer is translated again without the pair.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Final

from open_notebook.errors import ModelError
from open_notebook.llm._support import holds_numbers, number_readings, numbers_in
from open_notebook.llm._types import ChatMessage, LanguageModel, Role
from open_notebook.search import Translate
from open_notebook.text import LanguageDetector, TextTerms

log = logging.getLogger(__name__)

# A question and its translation are about as long; room for a long question's.
TRANSLATION_TOKENS: Final = 64
# Titles shown to the model: enough to name the notebook's things, few enough to read fast.
MAX_TITLES: Final = 6
# A reply this many times longer than the question is an answer, not a translation.
MAX_GROWTH: Final = 3
_MARK: Final = re.compile(r"\[\d+\]")
_QUOTES: Final = "\"'“”‘’«»「」"


def translation_request(
    question: str, language: str, titles: Sequence[str], *, every_word: bool = False
) -> list[ChatMessage]:
    """The messages that ask for ``question`` in ``language`` (a language's English name),
    worded like the ``titles``; ``every_word`` asks again after a reply that was a title."""
    shown = "; ".join(dict.fromkeys(one.strip() for one in titles if one.strip()))
    instruction = (
        f"Translate the user's question into {language}"
        + (", every word of it" if every_word else "")
        + (", in the words of the titles below where they name the same things" if shown else "")
        + f". Reply with the {language} question only"
        + (", not a title." if every_word else ".")
    )
    if shown:
        instruction += f"\n\nTitles: {shown}"
    return [ChatMessage(Role.SYSTEM, instruction), ChatMessage(Role.USER, question)]


def answer_translation_request(
    answer: str, language: str, asked: tuple[str, str] | None = None
) -> list[ChatMessage]:
    """The messages that ask for ``answer`` in ``language`` (a language's English name), every
    citation mark where it stands; ``asked`` is the question as asked and as it was translated,
    whose words the translation is to use (module docstring)."""
    instruction = (
        f"Translate the user's text into {language}. Keep every number in square brackets "
        "exactly as it is, at the end of its sentence. Reply with the translation only."
    )
    if asked is not None:
        question, translated = (one.strip() for one in asked)
        instruction += (
            f'\n\nThe reader\'s question, "{translated}", was asked in {language} as '
            f'"{question}": use the reader\'s words for the things it names.'
        )
    return [ChatMessage(Role.SYSTEM, instruction), ChatMessage(Role.USER, answer)]


def accepted_answer_translation(reply: str, draft: str) -> str | None:
    """``reply`` as a translation of the answer ``draft``, or ``None`` when it says a number
    the draft does not hold or loses one of its citation marks (module docstring)."""
    text = reply.strip()
    if not text or not set(_MARK.findall(draft)) <= set(_MARK.findall(text)):
        return None
    unmarked = _MARK.sub(" ", text)
    if not holds_numbers(number_readings(unmarked), numbers_in(_MARK.sub(" ", draft))):
        return None
    return text


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
    shown = titles[:MAX_TITLES]
    reply = await _reply(llm, translation_request(question, name, shown))
    taken = None if reply is None else accepted_translation(reply, question, language, languages)
    if taken is None or not copies_title(taken, shown, language):
        return taken
    again = await _reply(llm, translation_request(question, name, shown, every_word=True))
    return (again and accepted_translation(again, question, language, languages)) or taken


async def _reply(llm: LanguageModel, messages: list[ChatMessage]) -> str | None:
    """The model's one-line reply to a translation request, or ``None`` when the model fails."""
    try:
        return await llm.complete(messages, max_tokens=TRANSLATION_TOKENS, stop=["\n"])
    except ModelError as exc:
        log.warning("the question could not be translated to search with: %s", exc)
        return None


def copies_title(text: str, titles: Sequence[str], language: str) -> bool:
    """Whether every term of ``text``, read in ``language`` (ISO 639-1), is a term of one of
    ``titles``: a title said back, not a translation (module docstring)."""
    read = TextTerms((language,))
    terms = read(text)
    return bool(terms) and any(terms <= read(title) for title in titles)


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
