"""The seed's token helper, kept under its original name."""

from open_notebook.runtime import get_token_counter

__all__ = ["token_count"]


def token_count(text: str, encoding_name: str = "o200k_base") -> int:
    """Count tokens of ``text`` (the seed's ``token_utils.token_count``) with the process's
    counter of ``encoding_name``."""
    return get_token_counter(encoding_name).count(text)
