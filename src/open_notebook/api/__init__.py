"""The HTTP service: ``create_app(settings)`` builds the FastAPI app."""

from open_notebook.api.app import create_app

__all__ = ["create_app"]
