"""Processes that each open the embedded database, write, close and exit normally (no
os._exit). The imports are paid once, here; every child is a fork that opens its own database
and then runs its own whole interpreter exit, which is where the engine could abort. Prints one
exit code per child (a signal's as its negative number)."""

import asyncio
import os
import sys
from pathlib import Path

from open_notebook.config import Settings
from open_notebook.runtime import configure, get_store, shutdown

# Children alive at once: exits that overlap, as a machine running several commands has them.
AT_ONCE = 8


async def write_once(path: Path) -> None:
    configure(Settings(database_url=f"surrealkv://{path}"))
    store = await get_store()
    await store.notebooks.create("exit check")
    await shutdown()


def exit_codes(root: Path, count: int) -> list[int]:
    running: set[int] = set()
    codes: list[int] = []

    def reap() -> None:
        pid, status = os.wait()
        running.discard(pid)
        codes.append(os.waitstatus_to_exitcode(status))

    for index in range(count):
        if len(running) >= AT_ONCE:
            reap()
        pid = os.fork()
        if pid == 0:
            asyncio.run(write_once(root / f"db{index}"))
            # Leaves through the interpreter's normal exit, as a command does.
            raise SystemExit(0)
        running.add(pid)
    while running:
        reap()
    return codes


if __name__ == "__main__":
    codes = exit_codes(Path(sys.argv[1]), int(sys.argv[2]))
    sys.stdout.write(" ".join(str(one) for one in codes) + "\n")
