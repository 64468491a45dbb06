"""A folder of synthetic documents for the crash and load benchmarks, and what each must become.

Texts are sentences of words drawn from the demo corpus (shipped in the package, so no data
download is needed); every file has a title and a marker word of its own, so a search finds it
and nothing else. Every tenth file is long (~80 chunks): it is staged in small transactions
before the one that creates its source (``store/_chunks.py``), the path where a crash can leave
rows behind. What each file must become is what an uninterrupted ``add`` of the folder made.
"""

from __future__ import annotations

import random
import re
from importlib import resources
from pathlib import Path


def vocabulary() -> list[str]:
    folder = resources.files("open_notebook") / "demo_corpus"
    found: set[str] = set()
    for entry in folder.iterdir():
        if entry.name.endswith(".md"):
            found.update(re.findall(r"[a-z]{3,}", entry.read_text("utf-8").lower()))
    return sorted(found)


def sentences() -> list[str]:
    """The demo corpus's sentences (real English prose, for texts with natural word counts)."""
    folder = resources.files("open_notebook") / "demo_corpus"
    found: list[str] = []
    for entry in sorted(folder.iterdir(), key=lambda one: one.name):
        if entry.name.endswith(".md") and entry.name != "README.md":
            text = re.sub(r"\s+", " ", entry.read_text("utf-8"))
            found.extend(one.strip() for one in re.split(r"(?<=[.!?]) ", text) if len(one) > 40)
    return found


def marker(index: int) -> str:
    return f"zqmarker{index:04d}"


def title(index: int) -> str:
    return f"Report {index:04d}"


def write_corpus(folder: Path, count: int, seed: int, *, long_every: int = 10) -> list[Path]:
    """``count`` files (.md, .txt, .html in turn); every ``long_every``-th one is long."""
    rng = random.Random(seed)
    words = vocabulary()
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(count):
        paragraphs = (
            140 if long_every and index % long_every == long_every - 1 else rng.randint(1, 4)
        )
        body = [_paragraph(rng, words) for _ in range(paragraphs)]
        body[0] = f"{marker(index)} {body[0]}"
        suffix = (".md", ".txt", ".html")[index % 3]
        path = folder / f"doc{index:04d}{suffix}"
        path.write_text(_render(suffix, title(index), body), encoding="utf-8")
        paths.append(path)
    return paths


def _paragraph(rng: random.Random, words: list[str]) -> str:
    sentences = []
    for _ in range(rng.randint(3, 7)):
        sentence = " ".join(rng.choices(words, k=rng.randint(8, 20)))
        sentences.append(sentence.capitalize() + ".")
    return " ".join(sentences)


def _render(suffix: str, heading: str, body: list[str]) -> str:
    if suffix == ".md":
        return f"# {heading}\n\n" + "\n\n".join(body) + "\n"
    if suffix == ".html":
        paragraphs = "".join(f"<p>{one}</p>" for one in body)
        head = f"<head><title>{heading}</title></head>"
        return f"<html>{head}<body><h1>{heading}</h1>{paragraphs}</body></html>"
    return f"{heading}\n\n" + "\n\n".join(body) + "\n"
