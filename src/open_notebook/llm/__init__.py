"""Language models behind one streaming protocol, token planning, and citation checking."""

from open_notebook.config import LlmProvider
from open_notebook.llm._budget import (
    MIN_CONTEXT_TOKENS,
    TokenPlan,
    check_request_fits,
    plan_budget,
)
from open_notebook.llm._citations import (
    Citation,
    CitationStatus,
    check_citations,
    parse_citations,
    unresolved,
)
from open_notebook.llm._esperanto import EsperantoModel
from open_notebook.llm._factory import create_language_model, shared_local_model
from open_notebook.llm._local import (
    LOCAL_MODEL_ID,
    LocalGemmaModel,
    ensure_model_file,
    gemma_prompt,
)
from open_notebook.llm._openai import OpenAICompatibleModel
from open_notebook.llm._types import ChatMessage, LanguageModel, Role, collect

__all__ = [
    "LOCAL_MODEL_ID",
    "MIN_CONTEXT_TOKENS",
    "ChatMessage",
    "Citation",
    "CitationStatus",
    "EsperantoModel",
    "LanguageModel",
    "LlmProvider",
    "LocalGemmaModel",
    "OpenAICompatibleModel",
    "Role",
    "TokenPlan",
    "check_citations",
    "check_request_fits",
    "collect",
    "create_language_model",
    "ensure_model_file",
    "gemma_prompt",
    "parse_citations",
    "plan_budget",
    "shared_local_model",
    "unresolved",
]
