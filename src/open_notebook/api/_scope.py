"""Keep a context request inside its notebook: foreign or unknown ids are refused."""

from __future__ import annotations

from collections.abc import Sequence

from open_notebook.errors import ConflictError, NotFoundError
from open_notebook.store import Store

_SHOWN = 10


def _listing(ids: Sequence[str]) -> str:
    more = f" and {len(ids) - _SHOWN} more" if len(ids) > _SHOWN else ""
    return ", ".join(ids[:_SHOWN]) + more


async def check_scope(
    store: Store, notebook_id: str | None, source_ids: Sequence[str], note_ids: Sequence[str]
) -> None:
    """Check that every id exists and, with a notebook, belongs to it (three batched reads).

    Raises:
        NotFoundError: the notebook or one of the ids does not exist (names the first).
        ConflictError: ids that belong to another notebook (names them all).
    """
    notebook = (await store.notebooks.get(notebook_id)).id if notebook_id else None
    sources = await store.sources.get_many(source_ids) if source_ids else {}
    notes = await store.notes.get_many(note_ids) if note_ids else {}
    missing = [one for one in source_ids if one not in sources]
    missing += [one for one in note_ids if one not in notes]
    if missing:
        raise NotFoundError(
            missing[0], f"not found: {_listing(missing)} (ids must exist to enter a context)"
        )
    if notebook is None:
        return
    memberships = await store.sources.notebooks_of(list(sources)) if sources else {}
    foreign = [one for one, nbs in memberships.items() if notebook not in nbs]
    foreign += [one for one, note in notes.items() if note.notebook != notebook]
    if foreign:
        raise ConflictError(
            f"these ids do not belong to {notebook}: {_listing(foreign)}; "
            "remove them or link the sources to the notebook first"
        )
