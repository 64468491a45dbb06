"""The record build: a context without a question, made of records as the seed gathers them.

Its walk goes down this folder: ``build`` reads the catalogs and has ``gather`` make the
candidates; ``reading`` runs ``assemble`` round by round, reading the texts its decisions need;
``assemble`` has ``select`` decide what enters (``fit`` places or shrinks one candidate,
``unread`` judges one whose text is not read yet) and lists every decision in the manifest.
Nothing here imports the question build (``tests/test_architecture.py``).
"""
