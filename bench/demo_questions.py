"""Questions a reader of the demo notebook types, judged: what the development sets cannot show.

The development sets are plain text: no Markdown headings, no hard-wrapped lines, no lists. The
demo's sources (``open_notebook/demo_corpus``) are Markdown like most notes people keep, and
`make demo`'s notebook is what a new user asks first. ``bench/data/demo_questions.jsonl`` holds
48 short questions, one or more per section of the demo's sources, each with the phrases an
answer to it says (any one of them, case ignored). They were written from the sources, before
any change was measured on them.

* **contexts** (no model): the demo's sources as a BEIR dataset of Markdown documents, through
  :func:`open_notebook.eval.evaluate_context`: the builder and plain chunk packing of the same
  hybrid hits at each budget, ``answer_in`` the share of contexts holding one of the phrases.
* **answers** (``--answers``, the default local model): each question asked through the chat
  path (:func:`open_notebook.chat.ask_notebook`) of a notebook of the demo's sources, as the
  product asks it; an answer is right when it says one of the phrases and is not refused. Also
  refused, flagged by the answer check, and wrong answers flagged. The model decodes greedily,
  every request read from the same start, so the answers are the same in every run.

    python -m bench.demo_questions [--budgets 150,300,600] [--answers --models-dir DIR]
        [--out FILE]

``--out``: every answer as a JSON line (question, answer, right, refused, flagged, context).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from bench._summary import record
from open_notebook.chat import DoneEvent, ask_notebook
from open_notebook.cli._demo import corpus_files
from open_notebook.config import Settings
from open_notebook.embeddings import Embedder, create_embedder
from open_notebook.eval import evaluate_context
from open_notebook.ingest import Extracted, Ingestor, SourceFormat
from open_notebook.llm import LocalModel, model_spec
from open_notebook.store import open_store

NAME = "demo-questions"
QUESTIONS: Final = Path(__file__).parent / "data" / "demo_questions.jsonl"


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    text: str
    says: tuple[str, ...]

    def said_by(self, answer: str) -> bool:
        folded = " ".join(answer.split()).lower()
        return any(one.lower() in folded for one in self.says)


def questions() -> list[Question]:
    rows = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines()]
    return [Question(row["_id"], row["text"], tuple(row["answers"])) for row in rows if row]


def write_dataset(folder: Path, asked: Sequence[Question]) -> None:
    """The demo's sources and the questions in BEIR layout; a question is judged relevant to the
    sources that hold one of its phrases."""
    sources = {path.stem: path.read_text(encoding="utf-8") for path in corpus_files()}
    (folder / "qrels").mkdir(parents=True)
    with (folder / "corpus.jsonl").open("w", encoding="utf-8") as corpus:
        for name, text in sources.items():
            document = {"_id": name, "title": "", "text": text, "format": "markdown"}
            corpus.write(json.dumps(document, ensure_ascii=False) + "\n")
    with (
        (folder / "queries.jsonl").open("w", encoding="utf-8") as queries,
        (folder / "qrels" / "test.tsv").open("w", encoding="utf-8") as qrels,
    ):
        qrels.write("query-id\tcorpus-id\tscore\n")
        for question in asked:
            query = {"_id": question.id, "text": question.text, "answers": list(question.says)}
            queries.write(json.dumps(query, ensure_ascii=False) + "\n")
            for name, text in sources.items():
                if question.said_by(text):
                    qrels.write(f"{question.id}\t{name}\t1\n")


async def contexts(
    settings: Settings, embedder: Embedder, asked: Sequence[Question], budgets: Sequence[int]
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "sourdough-demo"
        write_dataset(folder, asked)
        return await evaluate_context(folder, settings=settings, embedder=embedder, budgets=budgets)


@dataclass(slots=True)
class AnswerTally:
    asked: int = 0
    right: int = 0
    refused: int = 0
    flagged: int = 0
    flagged_right: int = 0
    wrong: int = 0
    wrong_flagged: int = 0

    def add(self, right: bool, refused: bool, flagged: bool) -> None:
        self.asked += 1
        self.right += right
        self.refused += refused
        self.flagged += flagged
        self.flagged_right += flagged and right
        self.wrong += not right
        self.wrong_flagged += flagged and not right

    def row(self) -> dict[str, float]:
        return {
            "right": self.right / max(self.asked, 1),
            "refused": self.refused / max(self.asked, 1),
            "flagged": self.flagged / max(self.asked, 1),
            "flagged holding the answer (of flagged)": self.flagged_right / max(self.flagged, 1),
            "wrong flagged (of wrong)": self.wrong_flagged / max(self.wrong, 1),
        }


async def answers(
    settings: Settings,
    embedder: Embedder,
    asked: Sequence[Question],
    models: Path,
    out: Path | None,
) -> AnswerTally:
    model = LocalModel(model_spec(settings.local_model), models)
    store = await open_store(settings)
    tally = AnswerTally()
    lines: list[str] = []
    try:
        notebook = await store.notebooks.create("Sourdough")
        ingestor = Ingestor(store, embedder, settings)
        texts = [path.read_text(encoding="utf-8") for path in corpus_files()]
        prepared = await ingestor.prepare_many(
            [
                Extracted(
                    text.splitlines()[0].removeprefix("# ").strip(), text, SourceFormat.MARKDOWN
                )
                for text in texts
            ]
        )
        await ingestor.commit_many(notebook.id, prepared)
        for question in asked:
            done = [
                event
                async for event in ask_notebook(
                    store,
                    embedder,
                    model,
                    settings,
                    notebook_id=notebook.id,
                    question=question.text,
                )
                if isinstance(event, DoneEvent)
            ][-1]
            right = not done.refused and question.said_by(done.answer)
            check = done.answer_check
            flagged = check is not None and not check.answers
            tally.add(right, done.refused, flagged)
            lines.append(
                json.dumps(
                    {
                        "id": question.id,
                        "question": question.text,
                        "answer": done.answer,
                        "right": right,
                        "refused": done.refused,
                        "flagged": flagged,
                        "context": done.context,
                    },
                    ensure_ascii=False,
                )
            )
    finally:
        model.close()
        await store.close()
    if out is not None:
        out.write_text("".join(f"{one}\n" for one in lines), encoding="utf-8")
    return tally


async def main(args: argparse.Namespace) -> None:
    asked = questions()
    budgets = [int(one) for one in args.budgets.split(",") if one]
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), database_url="mem://")
        embedder = create_embedder(settings)
        embedder.warm_up()
        report = await contexts(settings, embedder, asked, budgets)
        print(f"\ncontexts of the demo's {len(asked)} questions, answer_in (builder / packing)")
        print("| budget | builder | packing |")
        print("|---|---|---|")
        for row in report["budgets"]:
            builder, packing = row["builder"]["answer_in"], row["baseline"]["answer_in"]
            print(f"| {row['budget']} | {builder:.3f} | {packing:.3f} |")
            # Higher is better: the ratio is the builder's over packing's.
            ratio = builder / packing if packing else None
            record(
                NAME, f"answer_in @ {row['budget']}", ours=builder, reference=packing, ratio=ratio
            )
        if args.answers:
            models = Path(args.models_dir) if args.models_dir else Path(tmp) / "models"
            out = Path(args.out) if args.out else None
            tally = await answers(settings, embedder, asked, models, out)
            print(f"\nanswers of {settings.local_model} ({tally.asked} questions)")
            for measure, value in tally.row().items():
                print(f"- {measure}: {value:.3f}")
                record(NAME, measure, ours=round(value, 3))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budgets", default="150,300,600")
    parser.add_argument("--answers", action="store_true")
    parser.add_argument("--models-dir", default=None)
    parser.add_argument("--out", default=None, help="a file: every answer as a JSON line")
    asyncio.run(main(parser.parse_args()))
