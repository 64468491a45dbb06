"""Database access: one shared SurrealDB connection per process and its schema migrations."""

from open_notebook.db._open import open_database
from open_notebook.db.connection import Database

__all__ = ["Database", "open_database"]
