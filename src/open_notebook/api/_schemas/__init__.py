"""Request and response schemas of the HTTP API."""
