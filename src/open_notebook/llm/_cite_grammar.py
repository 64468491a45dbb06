"""Answers that cite as they write: a grammar that ends every sentence group with a passage mark.

Asked in the prompt to cite, a small model writes its mark on about half of its answers and
stops without one on the rest (bench/answers.py). A model that can constrain its output
(llama.cpp's GBNF grammars) is held to the answer's form instead: text, then ``[n]`` with ``n``
one of the numbers of the passages it was shown, once or twice. The model still chooses the
words and the number; the grammar only forbids stopping before a mark and citing a number that
was not shown. The attribution judges every mark afterwards, as it judges any other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

# An answer is one short sentence, two when the question asks two things: two marked parts.
MAX_PARTS: Final = 2
# A part's text is at most this many characters (two long sentences): a model that does not take
# to marking cannot write on without end, it is brought to its mark.
MAX_PART_CHARS: Final = 400
# A character of an answer's text: no bracket (a mark opens with one), no line break; the
# first one no space either.
_FIRST: Final = r"[^\[\]\n ]"
_TEXT: Final = r"[^\[\]\n]"


def cite_grammar(numbers: Sequence[int], *, max_parts: int = MAX_PARTS) -> str | None:
    """A GBNF grammar: up to ``max_parts`` parts, each some text without brackets or line
    breaks followed by `` [n]`` (or ``[n, m]``) citing ``numbers``; ``None`` without numbers."""
    shown = sorted({one for one in numbers if one > 0})
    if not shown:
        return None
    choices = " | ".join(f'"{one}"' for one in shown)
    optional = " ".join(["(part"] * (max_parts - 1)) + ")?" * (max_parts - 1)
    rules = [
        f"root ::= part {optional}" if max_parts > 1 else "root ::= part",
        f'part ::= " "? {_FIRST} {_TEXT}{{0,{MAX_PART_CHARS}}} mark "."?',
        'mark ::= "[" ref ("," " "? ref)* "]"',
        f"ref ::= {choices}",
    ]
    return "\n".join(rules) + "\n"
