"""Retrieval evaluation on BEIR-layout datasets through the real ingest and search path.

result = await evaluate(Path("data/cranfield"), SearchMode.HYBRID, settings=s, embedder=e)
result["ndcg@10"], result["recall@100"], result["mrr@10"], result["latency_ms_p50"]

Context quality: the builder against plain chunk packing on the same hits, per budget.

report = await evaluate_context(Path("data/squad-long"), settings=s, embedder=e)
report["budgets"][0]["builder"]["evidence_in"], report["budgets"][0]["baseline"]["evidence_in"]
"""

from open_notebook.eval._beir import Dataset, Document, load_corpus, load_dataset
from open_notebook.eval._context import DEFAULT_BUDGETS, evaluate_context
from open_notebook.eval._evaluate import EVAL_MODES, evaluate, evaluate_modes, fusion_summary

__all__ = [
    "DEFAULT_BUDGETS",
    "EVAL_MODES",
    "Dataset",
    "Document",
    "evaluate",
    "evaluate_context",
    "evaluate_modes",
    "fusion_summary",
    "load_corpus",
    "load_dataset",
]
