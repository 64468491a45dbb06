"""The seed's token helper, kept under its original name."""

from open_notebook.tokens import token_count

__all__ = ["token_count"]
