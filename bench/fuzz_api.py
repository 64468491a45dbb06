"""Fuzz the HTTP API from its own OpenAPI schema with schemathesis: zero 5xx allowed.

Loads the app in-process over ASGI (schemathesis runs its lifespan once: a ``mem://`` store and
the fake embedder), seeds one notebook with a source, a note and an insight so generated cases can
also reach existing records, then sends positive (schema-valid) and negative (schema-breaking)
cases to every operation, with the right bearer token and sometimes without it.

    python -m bench.fuzz_api [--examples N] [--seed S]

Needs ``schemathesis==4.32.5`` (``make fuzz`` installs it). Exit status 1 on any 5xx, on a
transport error, or when fewer than ``--min-cases`` cases ran.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, seed, settings
from hypothesis.errors import HypothesisException
from pydantic import SecretStr
from schemathesis import GenerationMode
from schemathesis.python import asgi

from open_notebook.api import create_app
from open_notebook.config import Settings
from open_notebook.llm import OpenAICompatibleModel
from open_notebook.llm.testing import LoopbackChatServer
from open_notebook.tokens import BpeTokenCounter

TOKEN = "fuzz-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@dataclass
class Tally:
    cases: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    per_operation: Counter[str] = field(default_factory=Counter)
    bad_requests: Counter[str] = field(default_factory=Counter)
    server_errors: list[str] = field(default_factory=list)
    generation_errors: list[str] = field(default_factory=list)


def _seed_records(app: Any) -> dict[str, str]:
    with asgi.get_client(app) as client:
        client.headers.update(AUTH)
        notebook = client.post("/api/notebooks", json={"name": "fuzz"}).json()["id"]
        source = client.post(
            "/api/sources",
            json={
                "title": "seed",
                "text": "Aerofoils and boundary layers.",
                "notebook_id": notebook,
            },
        ).json()["id"]
        note = client.post(
            "/api/notes", json={"notebook_id": notebook, "content": "lift and drag"}
        ).json()["id"]
        insight = client.post(
            f"/api/sources/{source}/insights", json={"insight_type": "summary", "content": "lift"}
        ).json()["id"]
    return {"notebook_id": notebook, "source_id": source, "note_id": note, "insight_id": insight}


def _fuzz_operation(
    operation: Any,
    mode: GenerationMode,
    args: argparse.Namespace,
    tally: Tally,
    known: dict[str, str] | None = None,
) -> None:
    label = f"{operation.label} [{mode.value}{', known ids' if known else ''}]"
    strategy = operation.as_strategy(generation_mode=mode, path_parameters=known)

    @seed(args.seed)
    @settings(
        max_examples=args.examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )
    @given(case=strategy)
    def run(case: Any) -> None:
        # One case in ten goes without the token: the guard must answer 401, never 5xx.
        if tally.cases % 10:
            case.headers = {**(case.headers or {}), **AUTH}
        elif case.headers:
            case.headers.pop("Authorization", None)
        response = case.call()
        tally.cases += 1
        tally.statuses[response.status_code] += 1
        tally.per_operation[label] += 1
        if response.status_code == 400:
            tally.bad_requests[label] += 1
        if response.status_code >= 500:
            tally.server_errors.append(
                f"{label}: {response.status_code} {response.text[:200]}\n  {case.as_curl_command()}"
            )

    try:
        run()
    except HypothesisException as exc:
        tally.generation_errors.append(f"{label}: {type(exc).__name__}: {exc}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=60, help="max cases per operation and mode")
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--min-cases", type=int, default=1000)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="fuzz-api-") as data_dir:
        return _fuzz(args, Path(data_dir))


def _fuzz(args: argparse.Namespace, data_dir: Path) -> int:
    app_settings = Settings(
        data_dir=data_dir,
        database_url="mem://",
        embedding_provider="fake",
        api_token=SecretStr(TOKEN),
        url_timeout_s=2.0,
    )
    # Chat goes to a loopback OpenAI-compatible model: the real streaming path, no weights.
    chat_server = LoopbackChatServer(answer="Lift comes from pressure [source:x].").__enter__()
    model = OpenAICompatibleModel(
        base_url=chat_server.base_url,
        model="loopback",
        context_window=8192,
        counter=BpeTokenCounter("o200k_base"),
    )
    app = create_app(app_settings, llm=model)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    seeded = _seed_records(app)
    print(f"seeded records: {seeded}")
    tally = Tally()
    started = time.perf_counter()
    operations = [result.ok() for result in schema.get_all_operations()]
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            _fuzz_operation(operation, mode, args, tally)
    # Again with the ids of stored records, so cases get past "not found" into the routes;
    # deletes go last so the records are there for everything else.
    for operation in sorted(operations, key=lambda op: op.method.upper() == "DELETE"):
        names = {parameter.name for parameter in operation.path_parameters}
        if names and names <= set(seeded):
            known = {name: seeded[name] for name in names}
            _fuzz_operation(operation, GenerationMode.POSITIVE, args, tally, known)
    elapsed = time.perf_counter() - started
    _report(tally, elapsed)
    chat_server.__exit__(None, None, None)
    failed = bool(tally.server_errors) or tally.cases < args.min_cases
    return 1 if failed else 0


def _report(tally: Tally, elapsed: float) -> None:
    print(
        f"\n{tally.cases} cases in {elapsed:.1f} s over {len(tally.per_operation)} operation/modes"
    )
    for label, count in sorted(tally.per_operation.items()):
        print(f"  {count:5d}  {label}")
    print("status codes: " + ", ".join(f"{k}: {v}" for k, v in sorted(tally.statuses.items())))
    print(f"400 (unparseable body) by operation: {dict(tally.bad_requests)}")
    five = sum(v for k, v in tally.statuses.items() if k >= 500)
    print(f"5xx responses: {five}")
    for line in tally.server_errors[:20]:
        print("  " + line)
    for line in tally.generation_errors:
        print("  generation: " + line)


if __name__ == "__main__":
    sys.exit(main())
