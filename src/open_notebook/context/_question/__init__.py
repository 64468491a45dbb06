"""The question build: a question's hits become passages chosen by expected evidence per token."""
