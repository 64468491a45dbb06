"""The HTTP service: ``create_app(settings)`` builds the FastAPI app; ``serve`` runs it.

uvicorn open_notebook.api:app_from_environment --factory   # settings from OPEN_NOTEBOOK_*
"""

from open_notebook.api._app import create_app
from open_notebook.api._server import app_from_environment, serve

__all__ = ["app_from_environment", "create_app", "serve"]
