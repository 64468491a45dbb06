"""``open-notebook doctor``: check every part the pipeline needs, and say how to fix what fails."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum

import typer
from rich.table import Table

from open_notebook.cli._jsonout import emit_json
from open_notebook.cli._options import JsonFlag
from open_notebook.cli._runtime import CliState, ExitCode, guard, wants_json
from open_notebook.config import EmbeddingProvider, LlmProvider, Settings
from open_notebook.embeddings import create_embedder
from open_notebook.errors import OpenNotebookError
from open_notebook.llm import (
    LocalModel,
    create_language_model,
    model_spec,
    runtime_features,
    verify_model_file,
)
from open_notebook.store import open_store
from open_notebook.tokens import BpeTokenCounter


class Status(StrEnum):
    OK = "ok"
    WARN = "warn"
    FAIL = "fail"


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    status: Status
    detail: str
    seconds: float = 0.0


_STYLE = {Status.OK: "green", Status.WARN: "yellow", Status.FAIL: "bold red"}


async def check_embedder(settings: Settings) -> str:
    """Load the embedding model (its sha256 and the tokenizer's are verified) and embed a text."""
    embedder = create_embedder(settings)
    await asyncio.to_thread(embedder.warm_up)
    vector = await asyncio.to_thread(embedder.embed_query, "doctor check")
    detail = f"{embedder.model_id}: {vector.shape[0]}-d, reads {embedder.max_tokens} tokens"
    if settings.embedding_provider is EmbeddingProvider.MINILM_AND_USE:
        detail += "; MiniLM and USE side by side, every file's sha256 verified"
    if settings.embedding_provider is EmbeddingProvider.ONNX_MINILM:
        detail += "; model and tokenizer.json sha256 verified"
    if settings.embedding_provider is EmbeddingProvider.USE_MULTILINGUAL:
        detail += "; SentencePiece model and weights sha256 verified"
    if settings.embedding_provider is EmbeddingProvider.MINILM_USE:
        detail += "; MiniLM for Latin script, USE for Cyrillic, Arabic, CJK, Thai; sha256 verified"
    return detail


async def check_tokenizer(settings: Settings) -> str:
    counter = BpeTokenCounter(settings.tokenizer)
    return f"{counter.name}: 'hello world' is {counter.count('hello world')} tokens"


async def check_database(settings: Settings) -> str:
    """Open the database, apply migrations, and compare stored vectors with the configured model."""
    store = await open_store(settings)
    try:
        version = await store.version()
        notebooks = len(await store.notebooks.list_all())
        models = await store.chunks.embedding_models()
    finally:
        await store.close()
    stored = ", ".join(f"{model} ({count} chunks)" for model, count in models.items()) or "none"
    return (
        f"{version} at {settings.resolved_database_url}; {notebooks} notebooks; vectors: {stored}"
    )


async def check_llm(settings: Settings) -> str:
    """Build the configured language model and load it (the local model is prepared once)."""
    model = create_language_model(settings)
    detail = f"{settings.llm_provider}: {model.model_id}, window {model.context_window} tokens"
    if model.context_budget is not None:
        detail += f", {model.context_budget}-token context unless a request sets one"
    if settings.llm_provider is LlmProvider.LOCAL:
        # The whole file is hashed again here, whatever the stamp of its last check says.
        spec = model_spec(settings.local_model)
        path, header = await asyncio.to_thread(
            verify_model_file, spec, settings.data_dir / "models"
        )
        detail += (
            f"; {spec.name} ({'quotes' if spec.quoting else 'writes'} answers, "
            f"{_threads(model, settings)}); {path} {spec.size:,} bytes, sha256 "
            f"{spec.sha256} verified (joined from {len(spec.parts)} packages "
            f"{spec.parts[0].distribution}..{spec.parts[-1].distribution} "
            f"{spec.parts[0].version}); GGUF {header.architecture} {header.name!r}; "
            f"llama.cpp built for {runtime_features()}"
        )
    await asyncio.to_thread(model.warm_up)
    return detail


def _threads(model: object, settings: Settings) -> str:
    if isinstance(model, LocalModel):
        return f"decodes on {model.threads} thread(s), reads the prompt on {model.batch_threads}"
    return f"{settings.llm_threads} thread(s)"


async def _run_check(name: str, probe: Callable[[], Awaitable[str]]) -> Check:
    started = time.perf_counter()
    try:
        detail = await probe()
    except OpenNotebookError as exc:
        return Check(name, Status.FAIL, str(exc), time.perf_counter() - started)
    return Check(name, Status.OK, detail, time.perf_counter() - started)


async def run_checks(settings: Settings, *, skip_llm: bool = False) -> list[Check]:
    """Every check, in the order a newcomer would fix them."""
    checks = [
        await _run_check("embedding model", lambda: check_embedder(settings)),
        await _run_check("tokenizer", lambda: check_tokenizer(settings)),
        await _run_check("database", lambda: check_database(settings)),
    ]
    if skip_llm or settings.llm_provider is LlmProvider.NONE:
        checks.append(Check("language model", Status.WARN, "skipped: ask and chat need one"))
    else:
        checks.append(await _run_check("language model", lambda: check_llm(settings)))
    return checks


def register(app: typer.Typer) -> None:
    """Add ``doctor`` to the root app."""
    app.command("doctor")(doctor)


def doctor(
    ctx: typer.Context,
    skip_llm: bool = typer.Option(False, "--skip-llm", help="Do not load the language model."),
    json_flag: JsonFlag = False,
) -> None:
    """Check the embedding model, tokenizer, database and language model."""
    state = wants_json(ctx, json_flag)
    checks = guard(state, lambda: asyncio.run(run_checks(state.settings, skip_llm=skip_llm)))
    failed = any(check.status is Status.FAIL for check in checks)
    if state.json_output:
        emit_json({"ok": not failed, "checks": checks})
    else:
        _render(state, checks)
    if failed:
        raise typer.Exit(int(ExitCode.FAILURE))


def _render(state: CliState, checks: list[Check]) -> None:
    table = Table("check", "status", "detail", "time")
    for check in checks:
        style = _STYLE[check.status]
        table.add_row(
            check.name, f"[{style}]{check.status}[/]", check.detail, f"{check.seconds:.2f}s"
        )
    state.out.print(table)
