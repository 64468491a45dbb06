"""Turn what a person types (an id, a bare key or a name) into a stored notebook."""

from __future__ import annotations

from open_notebook.domain.models import Notebook
from open_notebook.errors import InvalidInputError, NotFoundError
from open_notebook.ids import normalize_id
from open_notebook.store import Store


async def resolve_notebook(store: Store, reference: str) -> Notebook:
    """The notebook with this id, bare key, or exact (case-insensitive) name.

    Raises:
        NotFoundError: nothing matches.
        InvalidInputError: the reference is empty, or the name matches several notebooks.
    """
    text = reference.strip()
    if not text:
        raise InvalidInputError("the notebook is empty: pass an id or a name", field="notebook")
    by_id = await _by_id(store, text)
    if by_id is not None:
        return by_id
    wanted = text.casefold()
    named = [nb for nb in await store.notebooks.list_all() if nb.name.casefold() == wanted]
    if len(named) > 1:
        ids = ", ".join(nb.id for nb in named)
        raise InvalidInputError(
            f"{len(named)} notebooks are named {text!r} ({ids}): pass the id instead",
            field="notebook",
        )
    if not named:
        raise NotFoundError(
            text if text.startswith("notebook:") else f"notebook:{text}",
            f"no notebook has the id or name {text!r}",
        )
    return named[0]


async def _by_id(store: Store, text: str) -> Notebook | None:
    try:
        canonical = normalize_id(text, "notebook")
    except InvalidInputError:
        if text.startswith("notebook:"):
            raise
        return None  # not shaped like an id: it can only be a name
    found = await store.notebooks.get_many([canonical])
    return found.get(canonical)
