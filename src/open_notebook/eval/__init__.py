"""Retrieval evaluation on BEIR-layout datasets through the real ingest and search path.

result = await evaluate(Path("data/cranfield"), SearchMode.HYBRID, settings=s, embedder=e)
result["ndcg@10"], result["recall@100"], result["mrr@10"], result["latency_ms_p50"]
"""

from open_notebook.eval._beir import Dataset, Document, load_dataset
from open_notebook.eval._evaluate import evaluate, evaluate_modes

__all__ = ["Dataset", "Document", "evaluate", "evaluate_modes", "load_dataset"]
