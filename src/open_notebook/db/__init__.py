"""Database access: one shared SurrealDB connection per process and its schema migrations."""

from open_notebook.db.connection import Database, open_database

__all__ = ["Database", "open_database"]
