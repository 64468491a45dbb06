"""Sentences of a text as char spans: one rule for chunking and for choosing passages.

A sentence ends:

* after Latin/Arabic end marks, the danda of Indic scripts (।, ॥) and the full stops of
  Armenian (։), Myanmar (။) and Ethiopic (።), followed by space, unless the period closes an
  abbreviation the sentence goes on after:

  - any abbreviation or an ellipsis followed by a lowercase word (``i.e. the``, ``U.S. history``,
    ``D.C. with``, ``3 ft. tall``, ``.... now``: letters joined by periods, a single letter, or
    one of the titles and reference words below, before the mark);
  - an initial before a name (``Henry A. Walsh``, ``J. R. R. Tolkien``: one capital letter);
  - a title before a name or a number (``Dr. Smith``, ``St. Louis``, ``Mt. Everest``), and a
    reference word before a number (``Fig. 3``, ``No. 5``, ``pp. 12``): words that end a
    sentence so rarely that the next capital or digit is far more likely to continue it;

* after CJK end marks (。！？．, with or without a space after them, closing quotes included),
  except a full-width period after one Latin letter (an initial: ``A．Ｌ．纳戴``);
* at a line break, unless the next line starts with a lowercase letter after a line that does
  not end a sentence (``cold will\nsimply need``): hard-wrapped prose goes on there, while a
  heading, a list item or a line of its own starts with a capital, a marker or a digit. Markup
  opening the next line's first word (``developed the\n*levain*, a firmer``: emphasis, code,
  a bracket or a quote, with no space after it) is read past: the word decides. A capital or a
  digit goes on too after a line of wrapped prose (``now called\n*Fructilactobacillus*``,
  ``flour\n10 to 12 percent``): a line at least :data:`WRAP_SHARE` of the text's widest, in a
  text wrapped at :data:`WRAP_MIN` characters or more, that is no heading, table row or quote,
  before a word that is no list number. A heading or a label of its own is a short line.

Spans are whitespace-trimmed and never empty.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

_SENTENCE_END: Final = re.compile(
    r"[.!?\u2026\u061f\u06d4\u0964\u0965\u0589\u104b\u1362]+[\"'\u201d\u2019)\]]*(?=\s)"
    r"|[\u3002\uff01\uff1f\uff0e]+[\u300d\u300f\uff09\"'\u201d\u2019)]*"
    r"|\n"
)
# Letters joined by periods ("U.S", "i.e", "D.C") or a single letter: an abbreviation's end.
_ABBREVIATION: Final = re.compile(r"[^\W\d_](?:\.[^\W\d_])*")
# One capital letter: an initial (a name follows).
_INITIAL: Final = re.compile(r"[^\W\d_]")
# Prose is hard-wrapped at 60-120 characters: a text whose lines are all shorter is lines of
# their own (a list, verse, a form), each a unit.
WRAP_MIN: Final = 40
# A line at least this share of the text's widest is wrapped prose; a heading or a label is
# shorter.
WRAP_SHARE: Final = 0.6
# A list item's number, alone as the first word of its line.
_LIST_NUMBER: Final = re.compile(r"\d{1,3}[.)]")
# Marks that open a word with no space after them (Markdown emphasis and code, brackets,
# quotes): a wrapped line starting with one goes on if the word after it does.
_OPENING_MARKS: Final = frozenset("*_`([{\"'\u201c\u2018\u00ab")
# Titles written before a name.
_TITLES: Final = frozenset(
    "mr mrs ms messrs dr prof st mt ft gen col lt sgt capt cmdr adm rev hon gov sen rep pres"  # noqa: SIM905
    " fr sr sra sig".split()
)
# Words written before a number (figure, equation, number, volume, page, chapter, section ...).
_REFERENCES: Final = frozenset(
    "fig figs eq eqs no nos nr vol vols p pp ch chap sec art ref refs tab approx ca cf vs".split()  # noqa: SIM905
)


def sentences(text: str, start: int = 0, end: int | None = None) -> Iterator[tuple[int, int]]:
    """Spans of sentences (and lines) in ``text[start:end]``, whitespace trimmed."""
    stop = len(text) if end is None else end
    position = start
    width = max(len(line.rstrip()) for line in text[start:stop].split("\n"))
    for mark in _SENTENCE_END.finditer(text, start, stop):
        if _continues(text, mark, stop, width):
            continue
        yield from trimmed(text, position, mark.end())
        position = mark.end()
    yield from trimmed(text, position, stop)


def _continues(text: str, mark: re.Match[str], stop: int, width: int) -> bool:
    """An abbreviation, an ellipsis or a wrapped line the sentence goes on after (``width``:
    the text's widest line)."""
    if mark.group() == "\uff0e":
        # A full-width period after one Latin letter is an initial (A．Ｌ．纳戴), not an end.
        before = text[mark.start() - 2 : mark.start()]
        return len(before) == 2 and _latin_letter(before[1]) and not before[0].isalpha()
    index = mark.end()
    if mark.group() == "\n":
        # A list item's next line is indented under its text: the sentence goes on there too.
        while index < stop and text[index] in " \t":
            index += 1
        first = index
        while index + 1 < stop and text[index] in _OPENING_MARKS and not text[index + 1].isspace():
            index += 1
        if index >= stop or not _line_goes_on(text, mark.start()):
            return False
        return text[index].islower() or _wrapped(text, mark.start(), first, index, stop, width)
    while index < stop and text[index] in " \t":
        index += 1
    if not (index < stop and index > mark.end()):
        return False
    following = text[index]
    ending = mark.group()
    if following.islower():
        if ending.startswith(("..", "\u2026")):
            return True
        word = _word_before(text, mark.start())
        known = word.casefold() in _TITLES or word.casefold() in _REFERENCES
        return known or _ABBREVIATION.fullmatch(word) is not None
    if ending != ".":
        return False
    word = _word_before(text, mark.start())
    if _enumerator(text, mark.start()):
        return True
    if following.isupper() and _INITIAL.fullmatch(word) is not None and word.isupper():
        return True
    folded = word.casefold()
    if folded in _TITLES and (following.isupper() or following.isdigit()):
        return True
    return folded in _REFERENCES and (following.isdigit() or following == "(")


def _wrapped(text: str, end: int, first: int, word: int, stop: int, width: int) -> bool:
    """The line ending at ``end`` is wrapped prose that goes on in the next line's first word
    (it starts at ``first``, its letters at ``word``); see the module docstring."""
    if width < WRAP_MIN or not text[word].isalnum():
        return False
    line = text[text.rfind("\n", 0, end) + 1 : end].rstrip()
    if line.lstrip().startswith(("#", "|", ">")):
        return False
    after = first
    while after < stop and not text[after].isspace():
        after += 1
    if _LIST_NUMBER.fullmatch(text[first:after]):
        return False
    return len(line) >= WRAP_SHARE * width


def _enumerator(text: str, end: int) -> bool:
    """A numbered list item's number (``1.`` opening its line): the item's text follows."""
    number = text[text.rfind("\n", 0, end) + 1 : end].strip()
    return number.isdigit() and len(number) <= 3


def _line_goes_on(text: str, end: int) -> bool:
    """The line ending at ``end`` stops mid-sentence: its last character is no end mark."""
    line = text[text.rfind("\n", 0, end) + 1 : end].rstrip()
    return bool(line) and _SENTENCE_END.search(line + " ", len(line) - 1) is None


def _latin_letter(char: str) -> bool:
    return (char.isascii() and char.isalpha()) or "\uff21" <= char <= "\uff5a"


def _word_before(text: str, end: int) -> str:
    """The word that ends at ``end`` (after the last space; opening brackets and quotes off)."""
    word = text[text.rfind(" ", 0, end) + 1 : end]
    return word.lstrip("([{\"'\u201c\u2018")


def trimmed(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The span without its leading and trailing whitespace, if anything is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        yield start, end
