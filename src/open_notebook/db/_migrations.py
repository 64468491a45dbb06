"""Versioned, idempotent schema migrations: ``schema/NNNN_name.surql`` applied in order.

Each applied migration is recorded in the ``migration`` table in the same transaction as its
statements, so a crash leaves either the whole migration or none of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

from open_notebook.db._connection import Database
from open_notebook.errors import DatabaseError


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


def load_migrations() -> list[Migration]:
    """Read the packaged migration files, ordered by version."""
    folder = resources.files("open_notebook.db") / "schema"
    found: list[Migration] = []
    for entry in folder.iterdir():
        if not entry.name.endswith(".surql"):
            continue
        number, _, rest = entry.name.partition("_")
        found.append(Migration(int(number), rest.removesuffix(".surql"), entry.read_text("utf-8")))
    found.sort(key=lambda migration: migration.version)
    versions = [migration.version for migration in found]
    if len(set(versions)) != len(versions):
        raise DatabaseError(f"duplicate migration versions: {versions}")
    return found


async def applied_versions(database: Database) -> set[int]:
    """Versions recorded as applied."""
    rows = await database.query_one(
        "DEFINE TABLE IF NOT EXISTS migration SCHEMAFULL;"
        "DEFINE FIELD IF NOT EXISTS version ON migration TYPE int;"
        "DEFINE FIELD IF NOT EXISTS name ON migration TYPE string;"
        "DEFINE FIELD IF NOT EXISTS applied ON migration TYPE datetime DEFAULT time::now();"
        "SELECT VALUE version FROM migration;"
    )
    return {int(version) for version in rows or []}


async def apply_migrations(database: Database) -> list[int]:
    """Apply every migration not yet recorded; return the versions applied now."""
    done = await applied_versions(database)
    applied: list[int] = []
    for migration in load_migrations():
        if migration.version in done:
            continue
        # One transaction per migration (statements + record); the loop is sequential on purpose:
        # each migration may depend on the previous one.
        await database.query(
            f"BEGIN;\n{migration.sql}\n"
            "CREATE type::record('migration', $version) SET version = $version, name = $name;\n"
            "COMMIT;",
            {"version": migration.version, "name": migration.name},
        )
        applied.append(migration.version)
    return applied
