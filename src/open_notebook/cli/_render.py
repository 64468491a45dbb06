"""Rich views shared by several commands: search hits and the context manifest."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from open_notebook.search import SearchHit

_BAR_WIDTH = 12
# Why a question's context ends where it does (the manifest's "stopped").
_STOPPED = {
    "budget": "stopped: the budget is full",
    "relevance_floor": "stopped: the rest is far below the best passages' relevance",
    "candidates_exhausted": "stopped: every candidate is in",
}


def token_bar(tokens: int, scale: int, *, style: str = "green") -> Text:
    """A bar of ``tokens`` against ``scale`` (the budget), with the number after it."""
    filled = 0 if scale <= 0 else round(_BAR_WIDTH * min(tokens, scale) / scale)
    if tokens > 0 and filled == 0:
        filled = 1  # a small item is still visible
    bar = Text("█" * filled, style=style)
    bar.append("░" * (_BAR_WIDTH - filled), style="dim")
    bar.append(f" {tokens}")
    return bar


def _snippet(text: str, width: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _score(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def hits_table(hits: Sequence[SearchHit]) -> Table:
    """Ranked hits: where each comes from, its score components and a snippet."""
    table = Table("#", "from", "scores", "text", show_lines=True)
    for hit in hits:
        source = Text(hit.parent_title or "(untitled)", style="bold")
        source.append(f"\n{hit.kind} {hit.parent_id}", style="dim")
        scores = f"fused {_score(hit.scores.fused)}"
        if hit.scores.vector is not None:
            scores += f"\nvector {_score(hit.scores.vector)}"
        if hit.scores.bm25 is not None:
            scores += f"\nbm25 {_score(hit.scores.bm25)}"
        if hit.scores.sentence is not None:
            scores += f"\nsentence {_score(hit.scores.sentence)}"
        if hit.scores.weights is not None:
            weights = hit.scores.weights
            scores += f"\nweights {weights.vector:.2f}/{weights.bm25:.2f}"
            scores += " +fb" if weights.feedback else ""
        table.add_row(str(hit.rank), source, scores, _snippet(hit.text, 120))
    return table


def manifest_table(manifest: Mapping[str, Any], budget: int | None) -> Table:
    """Every candidate once: included ones with their token bars, dropped ones with the reason
    (with a question: passages, and the chunks left out)."""
    included = list(manifest.get("included", []))
    dropped = list(manifest.get("dropped", []))
    scale = budget or max([_used(entry) for entry in included] + [1])
    table = Table("", "item", "tokens", "priority", "decision")
    for entry in included:
        decision = "truncated" if entry.get("truncated") else "included"
        if entry.get("duplicates"):
            decision += f" (+{len(entry['duplicates'])} duplicates)"
        table.add_row(
            Text("✓", style="green"),
            _item(entry, dim=False),
            token_bar(_used(entry), scale, style="yellow" if entry.get("truncated") else "green"),
            _priority(entry),
            decision,
        )
    for entry in dropped:
        original = (entry.get("tokens") or {}).get("original")
        table.add_row(
            Text("✗", style="red"),
            _item(entry, dim=True),
            Text("not counted", style="dim")
            if original is None
            else token_bar(int(original), scale, style="red"),
            _priority(entry),
            Text(str(entry.get("reason", "")), style="red"),
        )
    return table


def _item(entry: Mapping[str, Any], *, dim: bool) -> Text:
    label = Text(_snippet(str(entry.get("title") or "(untitled)"), 40), style="dim" if dim else "")
    # A passage (or a chunk left out) is named by its citation handle, a record by its id.
    label.append(f"\n{entry.get('handle') or entry['id']}", style="dim")
    return label


def _used(entry: Mapping[str, Any]) -> int:
    return int((entry.get("tokens") or {}).get("used") or 0)


def _priority(entry: Mapping[str, Any]) -> str:
    priority = (entry.get("scores") or {}).get("priority")
    return "" if priority is None else f"{float(priority):.3f}"


def print_manifest(console: Console, payload: Mapping[str, Any], budget: int | None) -> None:
    """The manifest table and a one-line summary of the budget use."""
    manifest = payload.get("manifest") or {}
    console.print(manifest_table(manifest, budget))
    total = int(payload.get("total_tokens") or 0)
    kept, left = len(manifest.get("included", [])), len(manifest.get("dropped", []))
    share = f" = {100 * total / budget:.0f}% of {budget}" if budget else ""
    what = "passages" if payload.get("passages") else "included"
    stopped = (payload.get("metadata") or {}).get("stopped")
    why = f"; {_STOPPED.get(str(stopped), str(stopped))}" if stopped else ""
    console.print(f"{kept} {what}, {left} dropped; {total} tokens{share}{why}", highlight=False)
