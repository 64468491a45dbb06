"""The local models (GGUF) in-process through ``xllamacpp``: the offline default.

``xllamacpp.Server`` runs llama.cpp's server loop inside this process. Generation goes through its
direct ``handle_completions`` call (no socket); exact token counts come from the same server's
``/tokenize`` route on loopback, guarded by a random API key made for this process. Which model,
where its weights come from and whether it writes or quotes: :mod:`open_notebook.llm._models`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import shutil
import tempfile
import threading
import weakref
from collections.abc import AsyncIterator, Sequence
from itertools import takewhile
from pathlib import Path
from typing import Any, Final

import httpx

from open_notebook.errors import ModelError
from open_notebook.llm._cite_grammar import cite_grammar
from open_notebook.llm._kv_state import PromptState
from open_notebook.llm._models import LocalModelSpec, Template, ensure_model_file
from open_notebook.llm._quotes import Quote, quote_grammar
from open_notebook.llm._templates import CHATML_STOPS, GEMMA_STOPS, render_prompt
from open_notebook.llm._types import ChatMessage, Role, collect

log = logging.getLogger(__name__)

# The models read 32k tokens; CPU prefill runs at tens to hundreds of tokens/s, so the default
# window is smaller to keep one answer within seconds, not minutes.
DEFAULT_LOCAL_WINDOW: Final = 8_192
# One thread decodes: with two and another process holding a core, decoding collapses
# (bench/answers.py). The prompt is read on every usable core (``batch_threads``): measured in
# one run on the idle 2-core machine, the 0.5B read 109 tokens/s on 2 against 64 on 1, and
# with a core kept busy 62 against 60, decoding on 1 thread either way (23.5-23.7 tokens/s).
DEFAULT_THREADS: Final = 1
_DONE: Final = object()


def _usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _writable(folder: Path) -> bool:
    """``folder`` exists or was made, and can be written (a read-only data dir keeps no state:
    every process then reads its whole prompt)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK)


def private_state_dir(owner: object) -> tuple[Path, weakref.finalize[Any, Any]]:
    """A temporary folder of ``owner``'s own and what removes it: called by its close, else when
    ``owner`` is collected or the process exits (a script that never closes its model leaves no
    saved prompt state behind)."""
    folder = Path(tempfile.mkdtemp(prefix="open-notebook-slot-"))
    return folder, weakref.finalize(owner, shutil.rmtree, folder, ignore_errors=True)


def runtime_features() -> str:
    """The vector instructions the llama.cpp in use was built for: ``AVX, AVX2`` for the
    prebuilt wheel, AVX-512 and VNNI too after ``make native`` on a CPU that has them."""
    import xllamacpp  # deferred on purpose: the model runtime loads with the model

    flags = [part.split(":")[-1].strip() for part in str(xllamacpp.get_system_info()).split("|")]
    built = [flag.split("=")[0].strip() for flag in flags if flag.replace(" ", "").endswith("=1")]
    return ", ".join(one for one in built if "AVX" in one) or "no AVX"


class LocalModel:
    """A local GGUF model, loaded lazily once per instance (share one per process)."""

    def __init__(
        self,
        spec: LocalModelSpec,
        models_dir: Path,
        *,
        context_window: int = DEFAULT_LOCAL_WINDOW,
        threads: int = DEFAULT_THREADS,
        batch_threads: int | None = None,
        seed: int | None = None,
        state_dir: Path | None = None,
    ) -> None:
        self.spec = spec
        self.model_id = spec.model_id
        self.context_window = min(context_window, spec.max_window)
        # The model's own context budget, the one its answers are measured at.
        self.context_budget: int | None = spec.context_budget
        self.context_words: int | None = spec.context_words
        self._models_dir = models_dir
        self.threads = threads
        # llama.cpp's batch threads, which read the prompt; decoding runs on ``threads``.
        self.batch_threads = (
            max(threads, _usable_cores()) if batch_threads is None else batch_threads
        )
        # A fixed sampling seed makes an answer repeatable (benchmarks); None samples afresh.
        self._seed = seed
        # Where each request's instructions are kept, read, for every later request and process
        # (None, or a folder that cannot be written: a folder of this instance's own).
        self._state_dir = state_dir
        # What removes that folder of its own, once made.
        self._forget_own_state: weakref.finalize[Any, Any] | None = None
        self._state: PromptState | None = None
        self._server: Any = None
        self._http: httpx.Client | None = None
        self._load_lock = threading.Lock()
        # One request at a time sets the slot to its instructions and reads the rest after them.
        self._turn = threading.Lock()
        # Counts and speeds of the last finished generation, as llama.cpp reported them.
        self.last_usage: dict[str, int] = {}
        self.last_timings: dict[str, float] = {}
        # Each token of the last finished generation with its log-probability.
        self.last_tokens: list[tuple[str, float]] = []

    def warm_up(self) -> None:
        """Load the model now (blocking); later calls are free."""
        self._ensure_server()

    def close(self) -> None:
        """Let the model go (llama.cpp frees it with its server); a later call loads it again."""
        with self._load_lock:
            if self._http is not None:
                self._http.close()
            self._server, self._http, self._state = None, None, None
            if self._forget_own_state is not None:
                self._forget_own_state()
            self._forget_own_state = None

    @property
    def loopback_url(self) -> str | None:
        """Where llama.cpp's in-process server listens (API-key protected), once loaded."""
        return None if self._server is None else str(self._server.listening_address)

    def _ensure_server(self) -> Any:
        with self._load_lock:
            if self._server is None:
                self._server, self._http = self._start()
            return self._server

    def _start(self) -> tuple[Any, httpx.Client]:
        import xllamacpp  # deferred on purpose: the model runtime loads with the model

        path = ensure_model_file(self.spec, self._models_dir)
        key = secrets.token_urlsafe(24)
        params = self.server_params(path, key)
        folder = self._state_dir
        if folder is None or not _writable(folder):
            folder, self._forget_own_state = private_state_dir(self)
        self._state = PromptState(
            folder,
            model_sha256=self.spec.sha256,
            window=self.context_window,
            runtime=str(getattr(xllamacpp, "__version__", "")),
        )
        params.endpoint_slots = True
        # llama.cpp joins this prefix and a file name as strings.
        params.slot_save_path = f"{folder}{os.sep}"
        try:
            server = xllamacpp.Server(params)
        except RuntimeError as exc:
            raise ModelError(f"cannot load the local model {path}: {exc}") from exc
        http = httpx.Client(
            base_url=str(server.listening_address),
            headers={"Authorization": f"Bearer {key}"},
            timeout=30.0,
        )
        return server, http

    def server_params(self, path: Path, key: str) -> Any:
        """llama.cpp's parameters for this model (``xllamacpp.CommonParams``)."""
        import xllamacpp  # deferred on purpose: the model runtime loads with the model

        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_ctx = self.context_window
        params.n_parallel = 1
        params.cpuparams.n_threads = self.threads
        params.cpuparams_batch.n_threads = self.batch_threads
        params.warmup = False
        params.verbosity = 1
        params.api_keys = [key]
        return params

    def count_tokens(self, text: str) -> int:
        return len(self._tokenize(text, with_bos=False))

    def count_messages(self, messages: Sequence[ChatMessage]) -> int:
        return len(self._tokenize(render_prompt(self.spec, messages), with_bos=True))

    def _tokenize(self, text: str, *, with_bos: bool) -> list[int]:
        self._ensure_server()
        assert self._http is not None
        body = {"content": text, "add_special": with_bos, "parse_special": True}
        try:
            response = self._http.post("/tokenize", json=body)
            response.raise_for_status()
        except httpx.HTTPError as exc:
            raise ModelError(f"the local model's tokenizer failed: {exc}") from exc
        tokens: list[int] = response.json()["tokens"]
        return tokens

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        stop: Sequence[str] = (),
        quote: Sequence[Quote] = (),
        cite: Sequence[int] = (),
    ) -> AsyncIterator[str]:
        server = await asyncio.to_thread(self._ensure_server)
        instructions = instructions_of(self.spec, messages)
        request = self._request(messages, max_tokens, stop, quote, cite)
        # Without instructions of its own a request is read whole, from an empty slot.
        request["cache_prompt"] = bool(instructions)
        run = _Run(asyncio.get_running_loop(), self, instructions)
        task = asyncio.create_task(asyncio.to_thread(run.execute, server, request))
        try:
            while (item := await run.queue.get()) is not _DONE:
                if isinstance(item, ModelError):
                    raise item
                yield str(item)
        finally:
            run.cancelled = True  # tells llama.cpp to stop if the reader went away early
            await task

    def start_from(self, server: Any, instructions: str) -> None:
        """Set the slot to hold exactly ``instructions``, read (see ``_kv_state``); the caller
        holds ``_turn``."""
        if not instructions or self._state is None or self._http is None:
            return
        read = {"prompt": instructions, "n_predict": 0, "cache_prompt": False, "stream": False}
        self._state.start_from(
            self._http, instructions, lambda: server.handle_completions(read, _ignore)
        )

    def _request(
        self,
        messages: Sequence[ChatMessage],
        max_tokens: int,
        stop: Sequence[str],
        quote: Sequence[Quote],
        cite: Sequence[int] = (),
    ) -> dict[str, Any]:
        template_stops = GEMMA_STOPS if self.spec.template is Template.GEMMA else CHATML_STOPS
        request: dict[str, Any] = {
            "prompt": render_prompt(self.spec, messages),
            "max_tokens": max_tokens,
            "stream": True,
            "stop": [*template_stops, *stop],
            "temperature": 0.2,
            "repeat_penalty": 1.15,
        }
        if not self.spec.quoting:
            # A model that writes answers greedily: the same question gets the same answer,
            # and the bench's quality numbers do not depend on a draw.
            # Each token's log-probability comes back with it: how sure the model was.
            request.update(temperature=0.0, repeat_penalty=1.0, n_probs=1)
            marks = cite_grammar(cite)
            if marks is not None:
                request["grammar"] = marks
        grammar = quote_grammar(quote) if quote and self.spec.quoting else None
        if grammar is not None:
            # Quoting is choosing: the most likely of the quotes, taken greedily, and no
            # penalty on repeating the passage's own words.
            request.update(grammar=grammar, temperature=0.0, repeat_penalty=1.0)
        if self._seed is not None:
            request["seed"] = self._seed
        return request

    async def complete(
        self, messages: Sequence[ChatMessage], *, max_tokens: int, stop: Sequence[str] = ()
    ) -> str:
        return await collect(self.stream(messages, max_tokens=max_tokens, stop=stop))


class _Run:
    """One generation: llama.cpp's callback thread feeds an asyncio queue."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, model: LocalModel, instructions: str
    ) -> None:
        self.loop = loop
        self.model = model
        self.instructions = instructions
        self.queue: asyncio.Queue[object] = asyncio.Queue()
        self.cancelled = False
        self.tokens: list[tuple[str, float]] = []

    def execute(self, server: Any, request: dict[str, Any]) -> None:
        try:
            with self.model._turn:
                self.model.start_from(server, self.instructions)
                server.handle_completions(request, self.on)
        except (RuntimeError, ValueError) as exc:
            self._put(ModelError(f"the local model failed: {exc}"))
        finally:
            # Whatever happened, the reader must wake up and stop waiting.
            self._put(_DONE)

    def _put(self, item: object) -> None:
        self.loop.call_soon_threadsafe(self.queue.put_nowait, item)

    def on(self, chunk: dict[str, Any]) -> bool:
        """Handle one chunk from llama.cpp; returning True asks it to stop."""
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices:
            error = chunk.get("error", chunk)
            self._put(ModelError(f"the local model failed: {error}"))
            self._put(_DONE)
            return True
        text = choices[0].get("text") or ""
        if text:
            self._put(text)
        for one in (choices[0].get("logprobs") or {}).get("content") or ():
            self.tokens.append((str(one.get("token", "")), float(one.get("logprob", 0.0))))
        if choices[0].get("finish_reason") is not None:
            self.model.last_tokens = list(self.tokens)
            usage = chunk.get("usage") or {}
            self.model.last_usage = {k: int(v) for k, v in usage.items() if isinstance(v, int)}
            timings = chunk.get("timings") or {}
            self.model.last_timings = {
                k: float(v) for k, v in timings.items() if isinstance(v, int | float)
            }
            self._put(_DONE)
        return self.cancelled


def instructions_of(spec: LocalModelSpec, messages: Sequence[ChatMessage]) -> str:
    """The prompt's fixed start: its leading system messages in the model's template, up to
    where the first other message's text begins (empty without system messages)."""
    lead = list(takewhile(lambda message: message.role is Role.SYSTEM, messages))
    if not lead or len(lead) == len(messages):
        return ""
    marker = "\x00"
    rendered = render_prompt(spec, [*lead, ChatMessage(Role.USER, marker)])
    return rendered.split(marker, 1)[0]


def _ignore(_chunk: dict[str, Any]) -> bool:
    return False
