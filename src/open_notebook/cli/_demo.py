"""``open-notebook demo`` (``make demo``): the whole pipeline on the shipped corpus, offline.

Creates a notebook from ``demo_corpus/`` through the real ingest pipeline and the real ONNX
embedder, searches it, builds a budgeted context for a question and shows its manifest, then asks
the local language model and shows the answer sentence by sentence, each attributed to the
passage that supports it (quoted) or marked unsupported, or says that the notebook does not
cover the question. The database is a fresh embedded one
in ``<data dir>/demo`` so it can be explored afterwards with the CLI.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
import typer
from rich.console import Console

from open_notebook.cli._ask import AskOptions, answer, print_citations
from open_notebook.cli._ingest import ingest_paths
from open_notebook.cli._records import store_note
from open_notebook.cli._render import hits_table, manifest_table
from open_notebook.cli._runtime import CliState, ExitCode, Session, guard, state_of
from open_notebook.cli._services import notebook_context, search_service_for
from open_notebook.config import LlmProvider, Settings
from open_notebook.llm import model_spec
from open_notebook.search import SearchHit, SearchMode
from open_notebook.store import open_store

if TYPE_CHECKING:
    from open_notebook.chat import DoneEvent  # LangGraph loads only when the demo asks

T = TypeVar("T")

NOTEBOOK_NAME = "Sourdough (demo)"
SEARCH_QUERY = "why is my bread dense with a tight crumb"
QUESTION = "Why does sourdough bread come out dense, and how does temperature affect fermentation?"
CONTEXT_TOKENS = 900
NOTE_TITLE = "My kitchen"
NOTE_TEXT = (
    "My kitchen stays around 18 °C in winter, and my last two loaves were dense. "
    "Next time: warmer water for the dough and a longer bulk fermentation."
)


@dataclass(slots=True)
class DemoResult:
    """What each step produced, for the summary and for the end-to-end test."""

    notebook_id: str = ""
    sources: list[str] = field(default_factory=list)
    note_id: str = ""
    hits: list[SearchHit] = field(default_factory=list)
    context: dict[str, Any] = field(default_factory=dict)
    answer: DoneEvent | None = None
    seconds: dict[str, float] = field(default_factory=dict)


def corpus_files() -> list[Path]:
    """The shipped corpus documents (its README describes the corpus and is not part of it)."""
    folder = Path(str(resources.files("open_notebook") / "demo_corpus"))
    return sorted(path for path in folder.glob("*.md") if path.name != "README.md")


def demo_settings(base: Settings) -> Settings:
    """The settings with the database moved to a demo folder of the data dir."""
    return base.model_copy(update={"database_url": f"surrealkv://{demo_dir(base) / 'db'}"})


def demo_dir(settings: Settings) -> Path:
    return settings.data_dir / "demo"


async def _timed(result: DemoResult, step: str, call: Callable[[], Awaitable[T]]) -> T:
    started = time.perf_counter()
    value = await call()
    result.seconds[step] = time.perf_counter() - started
    return value


async def run_demo(
    state: CliState, *, ask: bool = True, context_tokens: int = CONTEXT_TOKENS
) -> DemoResult:
    """Run every step against the database in ``state.settings``; print as it goes."""
    store = await open_store(state.settings)
    try:
        session = Session(state, store)
        result = DemoResult()
        await _timed(result, "load embedder", lambda: _load_embedder(session))
        await _timed(result, "ingest", lambda: _ingest(session, result))
        await _timed(result, "search", lambda: _search(session, result))
        await _timed(result, "context", lambda: _context(session, result, context_tokens))
        if ask:
            await _timed(result, "ask", lambda: _ask(session, result))
        return result
    finally:
        await store.close()


async def _load_embedder(session: Session) -> None:
    out = session.state.out
    out.rule("[bold]1. Load the embedding model (offline, int8 ONNX)")
    embedder = session.embedder()
    await asyncio.to_thread(embedder.warm_up)
    out.print(f"{embedder.model_id}: {embedder.dim} dimensions, reads {embedder.max_tokens} tokens")


async def _ingest(session: Session, result: DemoResult) -> None:
    out = session.state.out
    files = corpus_files()
    out.rule(f"[bold]2. Create a notebook from {len(files)} documents")
    notebook = await session.store.notebooks.create(NOTEBOOK_NAME, "the shipped demo corpus")
    result.notebook_id = notebook.id
    report = await ingest_paths(session, notebook.id, [str(path) for path in files])
    result.sources = [source.id for source in report.sources]
    note = await store_note(session, notebook.id, NOTE_TEXT, title=NOTE_TITLE)
    result.note_id = note.id
    out.print(
        f"notebook [bold]{notebook.id}[/]: {len(result.sources)} sources, "
        f"{report.chunks} chunks embedded, and a note ({note.id})"
    )


async def _search(session: Session, result: DemoResult) -> None:
    out = session.state.out
    out.rule(f"[bold]3. Hybrid search (vectors + BM25): {SEARCH_QUERY!r}")
    service = search_service_for(session)
    hits = await service.search(
        SEARCH_QUERY, notebook_id=result.notebook_id, mode=SearchMode.HYBRID, limit=5
    )
    result.hits = list(hits)
    out.print(hits_table(result.hits))


async def _context(session: Session, result: DemoResult, budget: int) -> None:
    out = session.state.out
    out.rule(f"[bold]4. A {budget}-token context for: {QUESTION!r}")
    result.context = await notebook_context(
        session, result.notebook_id, query=QUESTION, max_tokens=budget, render_format="markdown"
    )
    print_compact_manifest(out, result.context, budget)


def print_compact_manifest(out: Console, payload: dict[str, Any], budget: int) -> None:
    """The included passages as a table; the dropped ones in one line, counted by reason."""
    manifest = payload.get("manifest") or {}
    out.print(manifest_table({**manifest, "dropped": []}, budget))
    included, dropped = manifest.get("included", []), manifest.get("dropped", [])
    reasons = Counter(str(entry.get("reason") or "unknown") for entry in dropped)
    summary = ", ".join(f"{count} {reason}" for reason, count in reasons.most_common())
    total = int(payload.get("total_tokens") or 0)
    out.print(
        f"{len(included)} included, {total} of {budget} tokens; "
        f"{len(dropped)} dropped" + (f" ({summary})" if summary else ""),
        highlight=False,
    )


def model_label(settings: Settings) -> str:
    """The model the demo asks, as a newcomer reads it."""
    if settings.llm_provider is LlmProvider.LOCAL:
        spec = model_spec(settings.local_model)
        return f"{spec.model_id}, in-process, no key"
    return f"{settings.llm_provider}: {settings.llm_model}"


async def _ask(session: Session, result: DemoResult) -> None:
    out = session.state.out
    out.rule(f"[bold]5. Ask the language model ({model_label(session.state.settings)})")
    out.print(f"[bold]Q:[/] {QUESTION}")
    # Asked as `ask` asks: the model's own context budget, the one its answers are measured at.
    options = AskOptions(QUESTION, result.notebook_id)
    result.answer = await answer(session, options)
    print_citations(session.state, result.answer)


def cli_command() -> str:
    """How to call the CLI from here: on PATH, in this virtualenv, or through the interpreter."""
    if shutil.which("open-notebook"):
        return "open-notebook"
    script = Path(sys.executable).parent / "open-notebook"
    if script.exists():
        return os.path.relpath(script) if script.is_relative_to(Path.cwd()) else str(script)
    return f"{sys.executable} -m open_notebook.cli"


def print_next_steps(state: CliState, result: DemoResult) -> None:
    """Timings and what to try next, with the demo database in every command."""
    out = state.out
    out.rule("[bold]Done")
    out.print("  ".join(f"{step}: {seconds:.1f}s" for step, seconds in result.seconds.items()))
    cli = cli_command()
    demo = f"{cli} --db {state.settings.resolved_database_url}"
    nb = result.notebook_id
    lines = [
        "",
        "Try next (the demo notebook stays in the demo database):",
        f"  {demo} notebook show {nb}",
        f'  {demo} search "what does rye flour change" --notebook {nb}',
        f'  {demo} context --notebook {nb} --query "how do I store a starter" --max-tokens 500'
        " --format xml",
        f'  {demo} ask "How do I revive a neglected starter?" --notebook {nb}',
        "Your own files, in your default data dir:",
        f'  {cli} notebook create "Research"',
        f"  {cli} add ~/Documents/papers/ https://example.org/page --notebook Research",
        f"  {cli} doctor     # model files, tokenizer, database, language model",
        f"  {cli} serve      # HTTP API, docs at http://127.0.0.1:5055/docs",
    ]
    # Soft wrap: a command broken over two lines cannot be pasted back into a shell.
    out.print("\n".join(lines), highlight=False, markup=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add ``demo`` to the root app."""
    app.command("demo")(demo)


def demo(ctx: typer.Context) -> None:
    """Run the whole pipeline on the shipped corpus, offline, in a fresh demo database."""
    state = state_of(ctx)
    moved = CliState(
        settings=demo_settings(state.settings), verbose=state.verbose, out=state.out, err=state.err
    )
    code = _run(moved)
    if code != ExitCode.OK:
        raise typer.Exit(code)


def _run(state: CliState) -> int:
    # A fresh database every run: only the demo's own folder is removed.
    shutil.rmtree(demo_dir(state.settings), ignore_errors=True)
    state.out.print(
        f"[bold]Open Notebook demo[/] — database {state.settings.resolved_database_url}"
    )
    started = time.perf_counter()
    try:
        result = guard(state, lambda: asyncio.run(run_demo(state)))
    except click.exceptions.Exit as exit_:
        return int(exit_.exit_code)
    result.seconds["total"] = time.perf_counter() - started
    print_next_steps(state, result)
    return int(ExitCode.OK)
