"""Schema migrations are versioned, recorded and idempotent."""

from __future__ import annotations

from open_notebook.db._migrations import applied_versions, apply_migrations, load_migrations
from open_notebook.store import Store


async def test_every_migration_is_recorded_once(store: Store) -> None:
    versions = [migration.version for migration in load_migrations()]
    assert versions == sorted(versions)
    assert await applied_versions(store.db) == set(versions)
    assert await apply_migrations(store.db) == []
    rows = await store.db.query_one("SELECT count() AS n FROM migration GROUP ALL")
    assert rows[0]["n"] == len(versions)


async def test_engine_is_the_3x_line(store: Store) -> None:
    assert (await store.db.version()).startswith("surrealdb-3.")
