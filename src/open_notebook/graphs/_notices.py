"""What a turn says when the notebook does not cover its question, in the question's language.

The answer is written in the question's language (see ``_prompt.py``); a notice in English under
a French question reads as a fault of the product, not as the honest "no" it is. Each language
here has both notices, and the heading of the nearest passages offered under them, written by
hand; a language without them gets the English ones.
"""

from __future__ import annotations

from typing import Final

from open_notebook.llm import OffQuestion
from open_notebook.text import LanguageDetector

# The question could not be answered from the notebook: nothing was asked of the model.
NOT_COVERED: Final = {
    "en": (
        "The notebook does not cover this question: none of its passages matches it well enough "
        "to answer from."
    ),
    "es": (
        "El cuaderno no trata esta pregunta: ninguno de sus pasajes se ajusta a ella lo "
        "suficiente para responder a partir de él."
    ),
    "fr": (
        "Le carnet ne couvre pas cette question : aucun de ses passages n'y correspond assez "
        "pour y répondre."
    ),
    "de": (
        "Das Notizbuch behandelt diese Frage nicht: Keine seiner Passagen passt gut genug zu ihr, "
        "um daraus zu antworten."
    ),
    "it": (
        "Il taccuino non tratta questa domanda: nessuno dei suoi passaggi vi corrisponde "
        "abbastanza per rispondere."
    ),
    "pt": (
        "O caderno não trata desta pergunta: nenhum dos seus trechos corresponde a ela o "
        "suficiente para responder."
    ),
    "nl": (
        "Het notitieboek behandelt deze vraag niet: geen van zijn passages past er goed genoeg "
        "bij om op te antwoorden."
    ),
    "ru": (
        "Блокнот не охватывает этот вопрос: ни один из его фрагментов не соответствует ему "
        "настолько, чтобы на него ответить."
    ),
    "zh": "笔记本没有涉及这个问题：没有任何段落与它足够相符，无法据此回答。",
    "ja": (
        "このノートブックはこの質問を扱っていません。回答の根拠になるほど一致する箇所がありません。"
    ),
}
# The question is answered anyway (``low_coverage=warn``): the notice stands above the answer.
WARNING: Final = {
    "en": (
        "The notebook does not seem to cover this question: none of its passages matches it "
        "well. The answer below is not grounded in your sources."
    ),
    "es": (
        "El cuaderno no parece tratar esta pregunta: ninguno de sus pasajes se ajusta bien a "
        "ella. La respuesta siguiente no se basa en sus fuentes."
    ),
    "fr": (
        "Le carnet ne semble pas couvrir cette question : aucun de ses passages n'y correspond "
        "bien. La réponse ci-dessous ne s'appuie pas sur vos sources."
    ),
    "de": (
        "Das Notizbuch scheint diese Frage nicht zu behandeln: Keine seiner Passagen passt gut "
        "zu ihr. Die folgende Antwort stützt sich nicht auf Ihre Quellen."
    ),
    "it": (
        "Il taccuino non sembra trattare questa domanda: nessuno dei suoi passaggi vi "
        "corrisponde bene. La risposta seguente non si basa sulle tue fonti."
    ),
    "pt": (
        "O caderno não parece tratar desta pergunta: nenhum dos seus trechos corresponde bem a "
        "ela. A resposta abaixo não se baseia nas suas fontes."
    ),
    "nl": (
        "Het notitieboek lijkt deze vraag niet te behandelen: geen van zijn passages past er "
        "goed bij. Het antwoord hieronder steunt niet op je bronnen."
    ),
    "ru": (
        "Похоже, блокнот не охватывает этот вопрос: ни один из его фрагментов ему не "
        "соответствует. Ответ ниже не опирается на ваши источники."
    ),
    "zh": "笔记本似乎没有涉及这个问题：没有任何段落与它相符。下面的回答并非基于你的资料。",
    "ja": (
        "このノートブックはこの質問を扱っていないようです。一致する箇所がありません。"
        "以下の回答はあなたの資料に基づいていません。"
    ),
}


# Above the passages nearest to an uncovered question: what they are, and that they do not answer.
NEAREST_HEADING: Final = {
    "en": (
        "Nearest in your notebook — not an answer: these passages come closest to the question, "
        "and none of them answers it."
    ),
    "es": (
        "Lo más cercano en su cuaderno — no es una respuesta: estos pasajes son los que más se "
        "acercan a la pregunta, y ninguno la responde."
    ),
    "fr": (
        "Au plus près dans votre carnet — ce n'est pas une réponse : ces passages sont les plus "
        "proches de la question, et aucun n'y répond."
    ),
    "de": (
        "Am nächsten in Ihrem Notizbuch — keine Antwort: Diese Passagen kommen der Frage am "
        "nächsten, und keine beantwortet sie."
    ),
    "it": (
        "I più vicini nel tuo taccuino — non è una risposta: questi passaggi sono i più vicini "
        "alla domanda, e nessuno vi risponde."
    ),
    "pt": (
        "O mais próximo no seu caderno — não é uma resposta: estes trechos são os que mais se "
        "aproximam da pergunta, e nenhum a responde."
    ),
    "nl": (
        "Het dichtst bij in je notitieboek — geen antwoord: deze passages komen het dichtst bij "
        "de vraag, en geen ervan beantwoordt haar."
    ),
    "ru": (
        "Ближайшее в вашем блокноте — не ответ: эти фрагменты ближе всего к вопросу, но ни один "
        "из них на него не отвечает."
    ),
    "zh": "笔记本中最接近的内容 — 不是答案：这些段落与问题最接近，但没有一段回答了它。",
    "ja": (
        "ノートブックで最も近い箇所 — 回答ではありません：これらの箇所が質問に最も近いものの、"
        "どれも質問に答えていません。"
    ),
}

# The answer's sentences come from passages about something else than the question: the reader
# is shown the passage that matches the question best, quoted under this.
OFF_QUESTION: Final = {
    "en": (
        "This may not answer your question: the answer comes from a passage about something "
        "else. The passage that matches your question best says:"
    ),
    "es": (
        "Puede que esto no responda a su pregunta: la respuesta viene de un pasaje que trata de "
        "otra cosa. El pasaje que mejor se ajusta a su pregunta dice:"
    ),
    "fr": (
        "Ceci ne répond peut-être pas à votre question : la réponse vient d'un passage qui "
        "parle d'autre chose. Le passage le plus proche de votre question dit :"
    ),
    "de": (
        "Das beantwortet Ihre Frage vielleicht nicht: Die Antwort stammt aus einer Passage über "
        "etwas anderes. Die Passage, die am besten zu Ihrer Frage passt, lautet:"
    ),
    "it": (
        "Questo potrebbe non rispondere alla tua domanda: la risposta viene da un passaggio che "
        "parla d'altro. Il passaggio più vicino alla tua domanda dice:"
    ),
    "pt": (
        "Isto pode não responder à sua pergunta: a resposta vem de um trecho sobre outro "
        "assunto. O trecho que melhor corresponde à sua pergunta diz:"
    ),
    "nl": (
        "Dit beantwoordt je vraag misschien niet: het antwoord komt uit een passage over iets "
        "anders. De passage die het best bij je vraag past, zegt:"
    ),
    "ru": (
        "Возможно, это не ответ на ваш вопрос: ответ взят из фрагмента о другом. Фрагмент, "
        "который лучше всего соответствует вопросу, гласит:"
    ),
    "zh": "这可能没有回答你的问题：答案来自一个讲别的内容的段落。与你的问题最相符的段落是：",
    "ja": (
        "これは質問への回答ではないかもしれません。回答は別の内容の箇所から来ています。"
        "質問に最も合う箇所は次のとおりです："
    ),
}


def coverage_notice(
    question: str, *, refused: bool, languages: LanguageDetector, asker: str = ""
) -> str:
    """The notice for a question the notebook does not cover, in the question's language
    (read with the ``asker``'s own, :meth:`open_notebook.text.LanguageDetector.detect`)."""
    notices = NOT_COVERED if refused else WARNING
    return notices.get(languages.detect(question, asker=asker), notices["en"])


def nearest_heading(question: str, *, languages: LanguageDetector, asker: str = "") -> str:
    """The heading over the passages nearest to an uncovered question, in its language: the
    part before " — " names them, the rest says they are not an answer."""
    return NEAREST_HEADING.get(languages.detect(question, asker=asker), NEAREST_HEADING["en"])


# The answer only says the question back.
RESTATES_QUESTION: Final = {
    "en": (
        "This may not answer your question: the answer only says the question back. The "
        "passage that matches your question best says:"
    ),
    "es": (
        "Puede que esto no responda a su pregunta: la respuesta solo repite la pregunta. El "
        "pasaje que mejor se ajusta a su pregunta dice:"
    ),
    "fr": (
        "Ceci ne répond peut-être pas à votre question : la réponse ne fait que la redire. Le "
        "passage le plus proche de votre question dit :"
    ),
    "de": (
        "Das beantwortet Ihre Frage vielleicht nicht: Die Antwort wiederholt nur die Frage. Die "
        "Passage, die am besten zu Ihrer Frage passt, lautet:"
    ),
    "it": (
        "Questo potrebbe non rispondere alla tua domanda: la risposta si limita a ripeterla. Il "
        "passaggio più vicino alla tua domanda dice:"
    ),
    "pt": (
        "Isto pode não responder à sua pergunta: a resposta apenas repete a pergunta. O trecho "
        "que melhor corresponde à sua pergunta diz:"
    ),
    "nl": (
        "Dit beantwoordt je vraag misschien niet: het antwoord herhaalt alleen de vraag. De "
        "passage die het best bij je vraag past, zegt:"
    ),
    "ru": (
        "Возможно, это не ответ на ваш вопрос: ответ лишь повторяет вопрос. Фрагмент, который "
        "лучше всего соответствует вопросу, гласит:"
    ),
    "zh": "这可能没有回答你的问题：答案只是把问题重复了一遍。与你的问题最相符的段落是：",
    "ja": (
        "これは質問への回答ではないかもしれません。回答は質問を繰り返しているだけです。"
        "質問に最も合う箇所は次のとおりです："
    ),
}

# No passage of the context holds any sentence of the answer.
UNHELD_ANSWER: Final = {
    "en": (
        "This may not answer your question: no passage of the context says it. The passage "
        "that matches your question best says:"
    ),
    "es": (
        "Puede que esto no responda a su pregunta: ningún pasaje del contexto lo dice. El "
        "pasaje que mejor se ajusta a su pregunta dice:"
    ),
    "fr": (
        "Ceci ne répond peut-être pas à votre question : aucun passage du contexte ne le dit. "
        "Le passage le plus proche de votre question dit :"
    ),
    "de": (
        "Das beantwortet Ihre Frage vielleicht nicht: Keine Passage des Kontexts sagt das. Die "
        "Passage, die am besten zu Ihrer Frage passt, lautet:"
    ),
    "it": (
        "Questo potrebbe non rispondere alla tua domanda: nessun passaggio del contesto lo "
        "dice. Il passaggio più vicino alla tua domanda dice:"
    ),
    "pt": (
        "Isto pode não responder à sua pergunta: nenhum trecho do contexto o diz. O trecho que "
        "melhor corresponde à sua pergunta diz:"
    ),
    "nl": (
        "Dit beantwoordt je vraag misschien niet: geen passage uit de context zegt dit. De "
        "passage die het best bij je vraag past, zegt:"
    ),
    "ru": (
        "Возможно, это не ответ на ваш вопрос: ни один фрагмент контекста этого не говорит. "
        "Фрагмент, который лучше всего соответствует вопросу, гласит:"
    ),
    "zh": "这可能没有回答你的问题：上下文中没有任何段落这样说。与你的问题最相符的段落是：",
    "ja": (
        "これは質問への回答ではないかもしれません。文脈のどの箇所にもそう書かれていません。"
        "質問に最も合う箇所は次のとおりです："
    ),
}

_OFF_QUESTION_NOTICES: Final = {
    OffQuestion.ELSEWHERE: OFF_QUESTION,
    OffQuestion.RESTATES: RESTATES_QUESTION,
    OffQuestion.UNHELD: UNHELD_ANSWER,
}


def off_question_notice(
    question: str,
    *,
    languages: LanguageDetector,
    reason: OffQuestion = OffQuestion.ELSEWHERE,
    asker: str = "",
) -> str:
    """What stands above the best evidence shown beside an answer that does not answer, in the
    question's language: why it does not (:attr:`open_notebook.llm.AnswerCheck.reason`)."""
    notices = _OFF_QUESTION_NOTICES[reason]
    return notices.get(languages.detect(question, asker=asker), notices["en"])
