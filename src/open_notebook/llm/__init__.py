"""Language models behind one streaming protocol, token planning, numbered passages, citation
checking, and the attribution of an answer's sentences to the passages that support them."""

from open_notebook.config import LlmProvider
from open_notebook.llm._attribution import (
    AttributedSentence,
    CitationIndex,
    CitedBy,
    SentenceCitation,
    SupportStatus,
    attribute,
    split_sentences,
)
from open_notebook.llm._budget import (
    MIN_CONTEXT_TOKENS,
    TokenPlan,
    check_request_fits,
    plan_budget,
)
from open_notebook.llm._citations import (
    Citation,
    CitationStatus,
    Mark,
    Ref,
    RefKind,
    check_citations,
    parse_citations,
    parse_marks,
    unresolved,
)
from open_notebook.llm._cite_grammar import cite_grammar
from open_notebook.llm._coverage import NEAREST, Coverage, CoverageCheck, check_coverage
from open_notebook.llm._esperanto import EsperantoModel
from open_notebook.llm._factory import create_language_model
from open_notebook.llm._gguf import GgufHeader, read_gguf_header
from open_notebook.llm._local import LocalModel, runtime_features
from open_notebook.llm._marks import marked_sentences, reading_marks
from open_notebook.llm._models import (
    MODELS,
    LocalModelSpec,
    ensure_model_file,
    model_spec,
    verify_model_file,
)
from open_notebook.llm._openai import OpenAICompatibleModel
from open_notebook.llm._passages import (
    NumberedPassage,
    PromptContext,
    number_passages,
    plain_headings,
)
from open_notebook.llm._quotes import (
    Quotable,
    Quote,
    quotable_sentences,
    quote_choices,
    quote_grammar,
)
from open_notebook.llm._relevance import (
    ANSWER_BAR,
    AnswerCheck,
    OffQuestion,
    check_answer,
    check_translated,
)
from open_notebook.llm._support import SUPPORT_BAR, SupportMatrix, SupportScorer, numbers_in
from open_notebook.llm._templates import chatml_prompt, gemma_prompt
from open_notebook.llm._translate import (
    accepted_answer_translation,
    answer_translation_request,
    question_translator,
    translate_question,
)
from open_notebook.llm._types import ChatMessage, LanguageModel, Role, collect

__all__ = [
    "ANSWER_BAR",
    "MIN_CONTEXT_TOKENS",
    "NEAREST",
    "MODELS",
    "SUPPORT_BAR",
    "AnswerCheck",
    "AttributedSentence",
    "ChatMessage",
    "Citation",
    "CitationIndex",
    "CitationStatus",
    "CitedBy",
    "Coverage",
    "CoverageCheck",
    "EsperantoModel",
    "GgufHeader",
    "LanguageModel",
    "LlmProvider",
    "LocalModel",
    "LocalModelSpec",
    "Mark",
    "NumberedPassage",
    "OffQuestion",
    "OpenAICompatibleModel",
    "PromptContext",
    "Quotable",
    "Quote",
    "Ref",
    "RefKind",
    "Role",
    "SentenceCitation",
    "SupportMatrix",
    "SupportScorer",
    "SupportStatus",
    "TokenPlan",
    "attribute",
    "chatml_prompt",
    "check_answer",
    "check_citations",
    "cite_grammar",
    "check_coverage",
    "check_request_fits",
    "check_translated",
    "collect",
    "create_language_model",
    "ensure_model_file",
    "gemma_prompt",
    "marked_sentences",
    "model_spec",
    "number_passages",
    "plain_headings",
    "numbers_in",
    "parse_citations",
    "parse_marks",
    "plan_budget",
    "quote_choices",
    "quote_grammar",
    "quotable_sentences",
    "reading_marks",
    "runtime_features",
    "read_gguf_header",
    "split_sentences",
    "accepted_answer_translation",
    "answer_translation_request",
    "question_translator",
    "translate_question",
    "unresolved",
    "verify_model_file",
]
