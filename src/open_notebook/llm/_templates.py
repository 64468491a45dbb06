"""The local models' chat templates: a request as the model reads it, and where it stops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from open_notebook.llm._models import LocalModelSpec, Template
from open_notebook.llm._types import ChatMessage, Role

# It is a small model that keeps writing turns of its own, echoes context blocks or invents the
# next question after its answer: stop at turn markers, context labels and a new "Question:".
GEMMA_STOPS: Final = ("<end_of_turn>", "<start_of_turn>", "<eos>", "\n### [", "\nQuestion:")
# Measured on this model: without a started reply it mostly echoes the prompt back; after
# "Answer:" it answers. The prefix is part of the prompt (and its count), never of the answer.
ANSWER_PREFIX: Final = "Answer:"
# ChatML (Qwen): the turn ends with <|im_end|>; the rest guard against a model writing on.
CHATML_STOPS: Final = ("<|im_end|>", "<|endoftext|>", "<|im_start|>", "\nQuestion:")


def gemma_prompt(messages: Sequence[ChatMessage], answer_prefix: str = "") -> str:
    """Render messages in Gemma's chat template (system text joins the first user turn)."""
    system = "\n\n".join(m.content for m in messages if m.role is Role.SYSTEM)
    turns: list[str] = []
    pending_system = system
    for message in messages:
        if message.role is Role.SYSTEM:
            continue
        role = "model" if message.role is Role.ASSISTANT else "user"
        content = message.content
        if role == "user" and pending_system:
            content, pending_system = f"{pending_system}\n\n{content}", ""
        turns.append(f"<start_of_turn>{role}\n{content}<end_of_turn>\n")
    if pending_system:
        turns.append(f"<start_of_turn>user\n{pending_system}<end_of_turn>\n")
    return "".join(turns) + "<start_of_turn>model\n" + answer_prefix


def chatml_prompt(messages: Sequence[ChatMessage]) -> str:
    """Render messages in ChatML (Qwen's template: system, user and assistant turns)."""
    turns = [f"<|im_start|>{m.role.value}\n{m.content}<|im_end|>\n" for m in messages]
    return "".join(turns) + "<|im_start|>assistant\n"


def render_prompt(spec: LocalModelSpec, messages: Sequence[ChatMessage]) -> str:
    """The request as the model reads it, in its own chat template."""
    if spec.template is Template.GEMMA:
        return gemma_prompt(messages, ANSWER_PREFIX)
    return chatml_prompt(messages)
