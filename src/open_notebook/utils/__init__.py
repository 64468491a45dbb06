"""The seed's module paths, kept as they are: ``open_notebook.utils.context_builder`` (the seed's
context builder names over :mod:`open_notebook.context`), ``open_notebook.utils.token_utils``,
and ``token_count`` here, where the reference also exports it.
"""

from open_notebook.utils.token_utils import token_count

__all__ = ["token_count"]
