"""Open Notebook context builder."""
