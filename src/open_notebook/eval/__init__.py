"""Retrieval evaluation on BEIR-layout datasets through the real ingest and search path.

result = await evaluate(Path("data/cranfield"), SearchMode.HYBRID, settings=s, embedder=e)
result["ndcg@10"], result["recall@100"], result["mrr@10"], result["latency_ms_p50"]
"""

from open_notebook.eval._beir import Dataset, Document, load_dataset
from open_notebook.eval._evaluate import EVAL_MODES, evaluate, evaluate_modes, fusion_summary

__all__ = [
    "EVAL_MODES",
    "Dataset",
    "Document",
    "evaluate",
    "evaluate_modes",
    "fusion_summary",
    "load_dataset",
]
