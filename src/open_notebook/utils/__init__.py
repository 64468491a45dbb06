"""The seed's module paths, kept as they are: ``open_notebook.utils.context_builder`` (the seed's
context builder names over :mod:`open_notebook.context`) and ``open_notebook.utils.token_utils``.
"""

__all__: list[str] = []
