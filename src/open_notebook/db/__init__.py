"""Database access: a SurrealDB connection with our errors, and its schema migrations.

``record`` and ``records`` turn validated id strings into the driver's record ids, for the store's
query variables; nothing above the store sees a driver type.
"""

from open_notebook.db._connection import Database, record, records
from open_notebook.db._open import open_database

__all__ = ["Database", "open_database", "record", "records"]
