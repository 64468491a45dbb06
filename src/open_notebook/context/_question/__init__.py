"""The question build: a question's hits become passages chosen by expected evidence per token.

Its walk goes down this folder: ``build`` reads what the request and the hits name, ``offer``
makes them ranked chunks, and ``assemble`` makes the context that is sent: ``sentences`` cuts the
chunks into sentences and finds the question's terms in each, ``value`` gives each its worth,
``choose`` picks sentences for the budget (``repeats`` tells what adds nothing), ``passages``
renders the chosen ones under their records and counts them (``cut`` when not one whole sentence
fits), and ``manifest`` lists every offered chunk's fate. Nothing here imports the record build
(``tests/test_architecture.py``).
"""
