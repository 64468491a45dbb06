"""Utilities named as in the seed (``open_notebook.utils.context_builder``, ``token_utils``)."""
