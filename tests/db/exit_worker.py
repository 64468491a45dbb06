"""A process that opens the embedded database, writes, closes and exits normally (no os._exit)."""

import asyncio
import sys

from open_notebook.config import Settings
from open_notebook.runtime import configure, get_store, shutdown


async def main(path: str) -> None:
    configure(Settings(database_url=f"surrealkv://{path}"))
    store = await get_store()
    await store.notebooks.create("exit check")
    await shutdown()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
