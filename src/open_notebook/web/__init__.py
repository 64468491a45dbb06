"""The web page: static files (plain HTML, CSS and JavaScript modules, no build step) served by
the API process at ``/``; the page talks to the JSON API only.

    app.router.routes.extend(web_routes())
"""

from open_notebook.web._routes import STATIC_DIR, web_routes

__all__ = ["STATIC_DIR", "web_routes"]
