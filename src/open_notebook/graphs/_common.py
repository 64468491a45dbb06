"""State, dependencies and the nodes of a grounded chat turn.

load session → plan tokens → build context → check coverage → answer (streamed) → attribute
→ persist. What differs between chatting with a notebook and with one source is the context
strategy (:data:`ContextFactory`), not the graph.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Final, Protocol

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from open_notebook.config import LowCoverage, PassageOrder
from open_notebook.graphs._context import ContextBuild, FittedContext, empty_context, fit_context
from open_notebook.graphs._literal import LiteralStream
from open_notebook.graphs._notices import coverage_notice, nearest_heading, off_question_notice
from open_notebook.graphs._prompt import frame
from open_notebook.graphs._sessions import ChatSessions, SessionKind, StoredMessage, Turn
from open_notebook.llm import (
    MIN_CONTEXT_TOKENS,
    AnswerCheck,
    AttributedSentence,
    ChatMessage,
    Citation,
    CitationIndex,
    CitedBy,
    Coverage,
    CoverageCheck,
    LanguageModel,
    NumberedPassage,
    Role,
    SupportScorer,
    TokenPlan,
    accepted_answer_translation,
    answer_translation_request,
    attribute,
    check_answer,
    check_citations,
    check_coverage,
    check_request_fits,
    check_translated,
    collect,
    marked_sentences,
    number_passages,
    parse_marks,
    plan_budget,
    quote_choices,
    unresolved,
)
from open_notebook.store import Store
from open_notebook.text import LanguageDetector, question_parts

# A first build within this share of a words budget's tokens is kept as it is.
WORDS_SLACK: Final = 0.05


class ContextFactory(Protocol):
    """(target id, question) -> a build function taking a token budget; ``asker`` is the
    asker's own language (:attr:`ChatState.asker`), which reads a short question's language."""

    def __call__(self, target: str, question: str, /, *, asker: str = "") -> ContextBuild: ...


CompiledGraph = CompiledStateGraph[Any, Any, Any, Any]


@dataclass(frozen=True, slots=True)
class ChatDeps:
    """What the nodes need, passed as ``config["configurable"]["deps"]``."""

    store: Store
    llm: LanguageModel
    sessions: ChatSessions
    context: ContextFactory
    scorer: SupportScorer
    answer_tokens: int = 256
    low_coverage: LowCoverage = LowCoverage.REFUSE
    passage_order: PassageOrder = PassageOrder.READING
    question_first: bool = False
    # Reads the question's language: the answer is asked for in it, and notices are said in it.
    languages: LanguageDetector = field(default_factory=LanguageDetector)


@dataclass
class ChatState:
    """One turn of a conversation about a source or a notebook."""

    question: str
    target: str
    kind: SessionKind
    session_id: str | None = None
    max_context_tokens: int | None = None
    # The language the asker reads (their browser's Accept-Language, their locale), an ISO
    # 639-1 code or "": it settles the language of a question whose words leave it open.
    asker: str = ""
    turns: list[Turn] = field(default_factory=list)
    kept: int = 0  # newest turns kept in the request
    language: str = ""  # the question's language by name ("Spanish"), "" when not known
    asked: int = 1  # the things the question asks (text.question_parts)
    plan: TokenPlan | None = None
    context: FittedContext | None = None
    seen: tuple[NumberedPassage, ...] = ()  # every passage the model sees in this request
    coverage: CoverageCheck | None = None
    refused: bool = False
    # What the turn says above (or instead of) its answer when the question is not covered,
    # and over the passages nearest to it, in the question's language.
    notice: str | None = None
    nearest_heading: str | None = None
    # Whether the answer answers the question (not only whether a passage holds it), and what
    # the reader is told above the best evidence when it does not.
    answer_check: AnswerCheck | None = None
    off_question: str | None = None
    request_tokens: int = 0
    answer: str = ""
    # The wording the context was searched and built for, when it is not the question's (the
    # model's translation into the passages' language); set where coverage is judged.
    searched: str | None = None
    # The answer as the model wrote it from the passages, in their language, when it was then put
    # into the asker's (``answer``); "" otherwise.
    draft: str = ""
    citations: list[Citation] = field(default_factory=list)
    sentences: tuple[AttributedSentence, ...] = ()

    @property
    def kept_turns(self) -> list[Turn]:
        return self.turns[len(self.turns) - self.kept :] if self.kept else []

    @property
    def history(self) -> list[ChatMessage]:
        return [message for turn in self.kept_turns for message in turn.messages()]

    @property
    def shown(self) -> list[NumberedPassage]:
        """Passages whose text the kept history holds."""
        return [one for turn in self.kept_turns for one in turn.passages]


def seen_passages(
    shown: Sequence[NumberedPassage], sent: Sequence[NumberedPassage]
) -> tuple[NumberedPassage, ...]:
    """The passages of the kept history and of this turn, once each (this turn's first)."""
    seen: dict[int, NumberedPassage] = {one.number: one for one in sent}
    for one in shown:
        seen.setdefault(one.number, one)
    return tuple(seen.values())


def deps_of(config: RunnableConfig) -> ChatDeps:
    deps = (config.get("configurable") or {}).get("deps")
    if not isinstance(deps, ChatDeps):
        raise TypeError("the chat graphs need config['configurable']['deps'] = ChatDeps(...)")
    return deps


async def load_session(state: ChatState, *, config: RunnableConfig) -> dict[str, Any]:
    """Check the given session belongs to the target and read its earlier turns.

    A new conversation gets its session only in :func:`persist`, so a failed first answer
    leaves no empty session behind.
    """
    if state.session_id is None:
        return {"turns": []}
    deps = deps_of(config)
    session_id = await deps.sessions.open(state.session_id, kind=state.kind, target=state.target)
    return {"session_id": session_id, "turns": await deps.sessions.turns(session_id)}


async def plan_tokens(state: ChatState, *, config: RunnableConfig) -> dict[str, Any]:
    """Name the question's language; split the window before any call; trim history
    oldest-first when it does not fit."""
    deps = deps_of(config)
    code = deps.languages.detect(state.question, asker=state.asker)
    language = deps.languages.name(code)
    asked = len(question_parts(state.question, code))

    def framed(history: Sequence[ChatMessage], context: str) -> list[ChatMessage]:
        return frame(
            state.question,
            history,
            context,
            question_first=deps.question_first,
            language=language,
        )

    plan, kept = await asyncio.to_thread(
        lambda: plan_budget(
            deps.llm,
            frame=framed,
            turns=[turn.messages() for turn in state.turns],
            answer_tokens=deps.answer_tokens,
            max_context_tokens=state.max_context_tokens,
            asked=asked,
        )
    )
    return {"plan": plan, "kept": kept, "language": language, "asked": asked}


async def build_context(state: ChatState, *, config: RunnableConfig) -> dict[str, Any]:
    """Build the target's context within the planned budget (in the model's tokens); passages
    the kept history shows are named by number, not sent again."""
    deps = deps_of(config)
    assert state.plan is not None
    if state.plan.context_budget < MIN_CONTEXT_TOKENS // 2:
        return {"context": empty_context(), "seen": seen_passages(state.shown, ())}
    shown = state.shown
    known = [one for turn in state.turns for one in turn.passages]
    history = state.history

    def request_tokens(context: str) -> int:
        return deps.llm.count_messages(
            frame(
                state.question,
                history,
                context,
                question_first=deps.question_first,
                language=state.language,
            )
        )

    build = deps.context(state.target, state.question, asker=state.asker)

    async def fitted_to(budget: int) -> FittedContext:
        return await fit_context(
            build,
            lambda payload: number_passages(
                payload.passages, shown=shown, known=known, order=deps.passage_order
            ),
            deps.llm,
            budget,
            request_tokens=request_tokens,
            limit=deps.llm.context_window - deps.answer_tokens,
        )

    plan = state.plan
    fitted = await fitted_to(plan.context_budget)
    words = deps.llm.context_words if state.max_context_tokens is None else None
    # Each thing the question asks gets the words a question gets (plan_budget says why).
    words = words * state.asked if words is not None else None
    wanted = budget_for_words(fitted, words, plan)
    if wanted is not None:
        plan = replace(plan, context_budget=wanted)
        fitted = await fitted_to(wanted)
    return {"context": fitted, "seen": seen_passages(shown, fitted.prompt.sent), "plan": plan}


def budget_for_words(fitted: FittedContext, words: int | None, plan: TokenPlan) -> int | None:
    """The budget that holds ``words`` words of context at the tokens per word of ``fitted``
    (what its language's words cost in the model's tokens), within what the plan leaves free;
    ``None`` when the model's budget is not in words or the first build is near enough."""
    written = len(fitted.prompt.text.split())
    if words is None or written == 0 or fitted.model_tokens == 0:
        return None
    free = plan.window - plan.answer_tokens - plan.prompt_tokens - plan.history_tokens
    wanted = min(round(words * fitted.model_tokens / written), free)
    return wanted if abs(wanted - plan.context_budget) > WORDS_SLACK * plan.context_budget else None


async def check_question_coverage(state: ChatState, *, config: RunnableConfig) -> dict[str, Any]:
    """Judge whether this turn's passages cover the question; say so before any answer."""
    deps = deps_of(config)
    context = state.context or empty_context()
    prompt = context.prompt
    check = await asyncio.to_thread(check_coverage, state.question, prompt.visible, deps.scorer)
    # A context searched and built for the question in the notebook's language (a translation,
    # :func:`open_notebook.chat.notebook_context_factory`) is judged for that wording too: the
    # question's own is read across languages by the multilingual model alone.
    searched = _searched_as(context, state.question)
    if searched is not None:
        other = await asyncio.to_thread(check_coverage, searched, prompt.visible, deps.scorer)
        if other.score > check.score:
            check = other
    refused = check.coverage is Coverage.LOW and deps.low_coverage is LowCoverage.REFUSE
    write = get_stream_writer()
    notice = heading = None
    if check.coverage is Coverage.LOW:
        notice = coverage_notice(
            state.question, refused=refused, languages=deps.languages, asker=state.asker
        )
        heading = nearest_heading(state.question, languages=deps.languages, asker=state.asker)
    write({"coverage": {**check.as_dict(), "notice": notice}})
    said = {"coverage": check, "notice": notice, "nearest_heading": heading, "searched": searched}
    if refused:
        write({"token": notice})
        return {**said, "refused": True, "answer": notice}
    return said


def _best_record(context: FittedContext) -> frozenset[int]:
    """The numbers, as sent, of the passages of the record whose passage the builder valued
    most (none without a build)."""
    payload = context.payload
    if payload is None or not payload.passages:
        return frozenset()
    top = max(payload.passages, key=lambda one: one.relevance)
    sent = context.prompt.sent
    record = next((one.record_id for one in sent if one.handle == top.handle), None)
    return frozenset(one.number for one in sent if record is not None and one.record_id == record)


def _searched_as(context: FittedContext, question: str) -> str | None:
    """The wording the context was searched and built for, when it is not the question's."""
    payload = context.payload
    query = payload.request.query if payload is not None else None
    return query if query and query.strip() != question.strip() else None


async def generate(state: ChatState, *, config: RunnableConfig) -> dict[str, Any]:
    """Send the framed request and stream the answer's deltas to the caller as they come.

    A question searched in the notebook's language (a translation, see :func:`_searched_as`) is
    answered in that language, from the translation, and the answer is then put into the
    asker's language, which is sent whole once checked (:mod:`open_notebook.llm._translate`)."""
    if state.refused:
        return {}
    deps = deps_of(config)
    context = state.context or empty_context()
    searched = state.searched if state.language else None
    asked = searched or state.question
    language = deps.languages.name(deps.languages.detect(searched)) if searched else ""
    if language == state.language:
        asked, language = state.question, ""
    messages = frame(
        asked,
        state.history,
        context.rendered,
        question_first=deps.question_first,
        language=language or state.language,
    )
    used = await asyncio.to_thread(check_request_fits, deps.llm, messages, deps.answer_tokens)
    write = get_stream_writer()
    parts: list[str] = []
    # The sentences of this request's passages that best match the question: a model that can
    # be held to quoting answers with one of them and its mark (the attribution still judges
    # it).
    quotes = await asyncio.to_thread(quote_choices, asked, state.seen, deps.scorer)
    stream = deps.llm.stream(
        messages,
        max_tokens=deps.answer_tokens,
        quote=quotes,
        cite=[one.number for one in state.seen],
    )
    draft = ""
    if language:
        draft = (await collect(stream)).strip()
        stream = _translated(
            deps.llm, draft, state.language, (state.question, asked), 2 * deps.answer_tokens
        )
    literal = LiteralStream()
    async for delta in stream:
        shown = literal.feed(delta)
        parts.append(shown)
        if shown:
            write({"token": shown})
    rest = literal.flush()
    if rest:
        parts.append(rest)
        write({"token": rest})
    answer = "".join(parts).strip()
    if not answer and draft:
        # No translation came back: the answer in the passages' language beats none.
        write({"token": draft})
        answer = draft
    return {"answer": answer, "draft": draft, "request_tokens": used}


async def _translated(
    llm: LanguageModel, draft: str, language: str, asked: tuple[str, str], max_tokens: int
) -> AsyncIterator[str]:
    """``draft`` put into ``language`` (its name) in the words of the question ``asked`` (as
    asked, as translated), whole: a reply that is not taken
    (:func:`~open_notebook.llm.accepted_answer_translation`) is asked for again without the
    question. Nothing for an empty draft (asked to translate nothing, a model writes something)."""
    if not draft:
        return
    reply = await llm.complete(
        answer_translation_request(draft, language, asked), max_tokens=max_tokens
    )
    taken = accepted_answer_translation(reply, draft)
    if taken is None:
        taken = await llm.complete(
            answer_translation_request(draft, language), max_tokens=max_tokens
        )
    yield taken


async def attribute_answer(state: ChatState, *, config: RunnableConfig) -> dict[str, Any]:
    """Check every citation the model wrote and attribute every sentence to a passage."""
    if state.refused:
        return {"sentences": (), "citations": []}
    deps = deps_of(config)
    context = state.context or empty_context()
    named = _named_records(state.answer)
    manifest = context.manifest
    existing = await existing_ids(deps.store, unresolved(named, manifest))
    checked = check_citations(named, manifest, existing)
    index = CitationIndex(
        visible=state.seen,
        known=[one for turn in state.turns for one in turn.passages],
        records={one.id: one.status for one in checked},
    )
    covered = state.coverage is None or state.coverage.covered
    sentences = await asyncio.to_thread(
        partial(attribute, question=state.question, covered=covered),
        state.answer,
        index,
        deps.scorer,
    )
    # A supported sentence need not answer: its source is read against the question too (and
    # against the wording the context was built for, in its passages' language).
    best = _best_record(context)
    check = await asyncio.to_thread(
        partial(_checked, searched=state.searched, draft=state.draft, covered=covered, best=best),
        state.question,
        sentences,
        index,
        deps.scorer,
    )
    reason = None if check is None else check.reason
    return {
        "sentences": sentences,
        "citations": _record_citations(sentences, index),
        "answer_check": check,
        "off_question": (
            None
            if reason is None
            else off_question_notice(
                state.question, languages=deps.languages, reason=reason, asker=state.asker
            )
        ),
    }


def _checked(
    question: str,
    sentences: Sequence[AttributedSentence],
    index: CitationIndex,
    scorer: SupportScorer,
    *,
    searched: str | None,
    draft: str,
    covered: bool,
    best: Collection[int],
) -> AnswerCheck | None:
    """The answer check of a turn: against the question, or, when the context was built for a
    translation, as :func:`~open_notebook.llm.check_translated` judges it (the draft attributed
    against the translation, both in the passages' language)."""
    passages = index.visible
    if searched is None:
        return check_answer(question, sentences, passages, scorer, best=best)
    drafted = attribute(draft, index, scorer, question=searched, covered=covered) if draft else None
    return check_translated(
        question, sentences, passages, scorer, searched=searched, drafted=drafted, best=best
    )


def _named_records(answer: str) -> dict[str, int]:
    named: dict[str, int] = {}
    for mark in parse_marks(answer):
        for ref in mark.refs:
            if ref.record_id is not None:
                named[ref.record_id] = named.get(ref.record_id, 0) + 1
    return named


def _record_citations(
    sentences: Sequence[AttributedSentence], index: CitationIndex
) -> list[Citation]:
    """The records the model cited (by number, handle or id), each checked once: ``valid`` when
    the model saw some passage of it."""
    counts: dict[str, int] = {}
    for sentence in sentences:
        for one in sentence.citations:
            if one.by is not CitedBy.MODEL:
                continue
            record = one.passage.record_id if one.passage is not None else one.record_id
            if record is not None:
                counts[record] = counts.get(record, 0) + 1
    return [
        Citation(record, index.record_status(record), count) for record, count in counts.items()
    ]


async def existing_ids(store: Store, ids: Sequence[str]) -> set[str]:
    """Which of ``ids`` name stored sources, notes or insights (one query per table)."""
    by_table: dict[str, list[str]] = {"source": [], "note": [], "source_insight": []}
    for record_id in ids:
        table = record_id.split(":", 1)[0]
        if table in by_table:
            by_table[table].append(record_id)
    lookups: list[Awaitable[Mapping[str, object]]] = [
        store.sources.get_many(by_table["source"]),
        store.notes.get_many(by_table["note"]),
        store.sources.get_insights(by_table["source_insight"]),
    ]
    found: set[str] = set()
    for result in await asyncio.gather(*lookups):
        found.update(result)
    return found


async def persist(state: ChatState, *, config: RunnableConfig) -> dict[str, Any]:
    """Store the turn: the question with the context it was sent with and the passages that
    context showed; the answer with its citations, sentences and plan."""
    deps = deps_of(config)
    session_id = state.session_id or await deps.sessions.open(
        None, kind=state.kind, target=state.target
    )
    context = state.context or empty_context()
    asked = {
        "context": context.rendered,
        "passages": [one.as_dict() for one in context.prompt.sent],
        "reused": [one.number for one in context.prompt.reused],
    }
    answered = {
        "citations": [citation.as_dict() for citation in state.citations],
        "sentences": marked_sentences(state.sentences),
        "coverage": state.coverage.as_dict() if state.coverage else None,
        "refused": state.refused,
        "notice": state.notice,
        "nearest_heading": state.nearest_heading,
        "answer_check": state.answer_check.as_dict() if state.answer_check else None,
        "off_question": state.off_question,
        "model_id": deps.llm.model_id,
        "context_tokens": context.model_tokens,
        "manifest": dict(context.manifest),
        "passages": [one.as_dict() for one in state.seen],
        "plan": state.plan.as_dict() if state.plan else {},
        "request_tokens": state.request_tokens,
        "included": [str(item.get("id")) for item in context.manifest.get("included") or []],
    }
    await deps.sessions.append(
        session_id,
        [
            StoredMessage(Role.USER, state.question, asked),
            StoredMessage(Role.ASSISTANT, state.answer, answered),
        ],
    )
    return {"session_id": session_id}


Node = Callable[..., Awaitable[dict[str, Any]]]


def linear_graph(name: str, nodes: Sequence[tuple[str, Node]]) -> CompiledGraph:
    """Compile nodes run one after another, START to END."""
    graph = StateGraph(ChatState)
    for node_name, node in nodes:
        # Nodes take ``config`` keyword-only (LangGraph passes it by name); typed loosely here
        # because langgraph's protocols spell it positional.
        graph.add_node(node_name, node)
    names = [node_name for node_name, _ in nodes]
    graph.add_edge(START, names[0])
    for before, after in itertools.pairwise(names):
        graph.add_edge(before, after)
    graph.add_edge(names[-1], END)
    return graph.compile(name=name)


def build_chat_graph(name: str) -> CompiledGraph:
    """load session → plan → context → coverage → answer (streamed) → attribute → persist."""
    return linear_graph(
        name,
        [
            ("load_session", load_session),
            ("plan", plan_tokens),
            ("context", build_context),
            ("coverage", check_question_coverage),
            ("generate", generate),
            ("attribute", attribute_answer),
            ("persist", persist),
        ],
    )
