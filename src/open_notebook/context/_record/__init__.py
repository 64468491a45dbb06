"""The record build: a context without a question, made of records as the seed gathers them."""
