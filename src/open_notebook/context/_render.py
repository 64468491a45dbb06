"""Rendering of context blocks in Markdown or XML tags.

A record build labels each block with its citation id; a question's build labels each record
with its title and each passage with its number in the context (see :func:`render_passages`).

Content is made inert: in Markdown a line of content cannot start a heading (so it cannot forge an
item label), and in XML every ``<``, ``>`` and ``&`` is escaped (so ``</source>`` in a document
cannot close the element) and attribute values are quoted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final
from xml.sax.saxutils import escape, quoteattr

from open_notebook.context._memo import ContextMemo
from open_notebook.context._model import Candidate, ItemType, RenderFormat

SEPARATOR: Final = "\n\n"
GAP: Final = " … "
TRUNCATED_NOTE: Final = " (truncated)"
_HEADING_START: Final = re.compile(r"^([ \t]*)(#)", re.MULTILINE)
# The escape as a copy of it reads: at a line's start, or after a space where the copy runs on
# from a citation mark or another sentence.
_ESCAPED_HEADING: Final = re.compile(r"(^|\s)\\(#)", re.MULTILINE)
_WHITESPACE: Final = re.compile(r"\s+")
# Characters XML 1.0 forbids even escaped.
_XML_FORBIDDEN: Final = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_TAGS: Final = {ItemType.SOURCE: "source", ItemType.INSIGHT: "insight", ItemType.NOTE: "note"}


def _inert_markdown(body: str) -> str:
    return _HEADING_START.sub(r"\1\\\2", body.strip())


def literal_markdown(text: str) -> str:
    """``text`` without the heading escapes a Markdown context adds: a model that copies a
    passage copies its escape too, and the reader is shown the source's own words."""
    return _ESCAPED_HEADING.sub(r"\1\2", text) if "\\#" in text else text


def _inert_xml(body: str) -> str:
    return escape(_XML_FORBIDDEN.sub("", body.strip()))


def _one_line(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


# The fields of a record's context dict that hold its text, in the order they are looked for;
# the label already shows the id and the title.
_TEXT_FIELDS: Final = ("full_text", "content")
_LABEL_FIELDS: Final = frozenset({"id", "title"})


def record_text(context: Mapping[str, object]) -> tuple[str, str]:
    """A record's context dict (the seed's ``source.get_context()``, ``note.get_context()``) as
    the title and the body its block sends, the same for equal dicts in any key order.

    The title is ``title``; the body is the record's text (``full_text`` or ``content``), then
    every other field but ``id`` as a ``key: value`` line in key order, a value that is not a
    string written as JSON with sorted keys. What is counted is this text, never ``str(dict)``.

    Raises:
        TypeError: a nested mapping mixes key types that cannot be sorted.
    """
    title = context.get("title")
    text_field = next((key for key in _TEXT_FIELDS if isinstance(context.get(key), str)), None)
    lines = [
        f"{key}: {_field_text(context[key])}"
        for key in sorted(context, key=str)
        if key not in _LABEL_FIELDS and key != text_field
    ]
    text = str(context[text_field]) if text_field is not None else ""
    body = SEPARATOR.join(part for part in (text, "\n".join(lines)) if part)
    return ("" if title is None else str(title)), body


def _field_text(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _markdown_header(candidate: Candidate, truncated: bool) -> str:
    title = _one_line(candidate.title).replace("[", "(").replace("]", ")")
    header = f"### [{candidate.id}] {title}".rstrip()
    if candidate.type is ItemType.INSIGHT and candidate.parent_id:
        header += f" (insight on [{candidate.parent_id}])"
    if truncated:
        header += TRUNCATED_NOTE
    return header


def _markdown(candidate: Candidate, body: str, truncated: bool, memo: ContextMemo | None) -> str:
    header = _markdown_header(candidate, truncated)
    inert = (
        _inert_markdown(body) if memo is None else memo.inert_markdown.get(body, _inert_markdown)
    )
    return f"{header}\n{inert}" if inert else header


def _xml_open(candidate: Candidate, truncated: bool, *, ids: bool = True) -> str:
    """The element that opens a record: with its id (and an insight's source) where the id is
    what cites it, without them under a question's passage numbers."""
    attributes = [f"id={quoteattr(candidate.id)}"] if ids else []
    title = _one_line(_XML_FORBIDDEN.sub("", candidate.title))
    if title:
        attributes.append(f"title={quoteattr(title)}")
    if ids and candidate.type is ItemType.INSIGHT and candidate.parent_id:
        attributes.append(f"source={quoteattr(candidate.parent_id)}")
    if truncated:
        attributes.append('truncated="true"')
    return f"<{' '.join([_TAGS[candidate.type], *attributes])}>"


def _xml(candidate: Candidate, body: str, truncated: bool, memo: ContextMemo | None) -> str:
    inner = _inert_xml(body) if memo is None else memo.inert_xml.get(body, _inert_xml)
    return f"{_xml_open(candidate, truncated)}\n{inner}\n</{_TAGS[candidate.type]}>"


def render_block(
    candidate: Candidate,
    body: str,
    *,
    truncated: bool,
    fmt: RenderFormat = RenderFormat.MARKDOWN,
    memo: ContextMemo | None = None,
) -> str:
    """One item as it is sent: label (citation id, title) and its body (its inert form is
    remembered in ``memo``: a long text is rendered again on every build that offers it)."""
    if fmt is RenderFormat.XML:
        return _xml(candidate, body, truncated, memo)
    return _markdown(candidate, body, truncated, memo)


def render_document(blocks: list[str]) -> str:
    """The whole context text: blocks in order, separated by a blank line."""
    return SEPARATOR.join(blocks)


# Passages of a question's context: one label per record (its title, and its type where it is not
# a source), then its passages in document order, each behind its number in the context (``[3]``),
# and a gap marker where text is left out between two of them. The label carries no record id: a
# context of short sources would pay one on nearly every passage, a number is what a model copies
# best, and the payload maps each number to its record, chunk, full handle and span.
PASSAGE_GAP_MARKDOWN: Final = "…"
PASSAGE_GAP_XML: Final = "<gap/>"


@dataclass(frozen=True, slots=True)
class RunText:
    """One passage as rendered: its number (``3``), text, and whether text of the record is
    left out right before it."""

    handle: str
    text: str
    gap_before: bool = False


def inert_text(text: str, fmt: RenderFormat) -> str:
    """``text`` as it is sent in ``fmt`` (Markdown headings escaped, XML escaped)."""
    if fmt is RenderFormat.XML:
        return _inert_xml(text)
    # Most sentences hold no "#": the heading pattern need not scan them.
    return _inert_markdown(text) if "#" in text else text.strip()


def passage_parts(fmt: RenderFormat) -> tuple[str, str, str]:
    """What a passage adds besides its text (before it with a handle ``{}``, after it), and
    what a gap marker adds: the pieces the selection charges before the final count."""
    if fmt is RenderFormat.XML:
        return '\n<passage n="{}">', "</passage>", "\n" + PASSAGE_GAP_XML
    return "\n[{}] ", "", "\n" + PASSAGE_GAP_MARKDOWN


_KINDS: Final = {ItemType.SOURCE: "Source", ItemType.INSIGHT: "Insight", ItemType.NOTE: "Note"}


def _markdown_label(candidate: Candidate, truncated: bool) -> str:
    title = _one_line(candidate.title).replace("[", "(").replace("]", ")")
    if candidate.type is ItemType.SOURCE:
        label = title or _KINDS[candidate.type]
    else:
        label = f"{_KINDS[candidate.type]}: {title}" if title else _KINDS[candidate.type]
    return f"### {label}{TRUNCATED_NOTE if truncated else ''}"


def record_frame(candidate: Candidate, fmt: RenderFormat, *, truncated: bool) -> tuple[str, str]:
    """The label a record's passages sit under (no record id: see above), and what closes the
    block."""
    if fmt is RenderFormat.XML:
        return _xml_open(candidate, truncated, ids=False), f"\n</{_TAGS[candidate.type]}>"
    return _markdown_label(candidate, truncated), ""


def label_of(candidate: Candidate, fmt: RenderFormat) -> str:
    """What a record's label reads in a question's context: records whose labels read the
    same share one (see :func:`shared_labels`)."""
    return record_frame(candidate, fmt, truncated=False)[0]


def shared_labels(labels: Sequence[str]) -> list[tuple[int, bool, bool]]:
    """Records (by their labels, in reading order) as rendered: each record whose label reads
    the same as an earlier one's moves up behind the last of them and shares its label (a
    notebook of paragraphs of one document pays the title once, not on every passage). Each
    entry is ``(index, opening, closing)``: whether the record opens its label, and closes it."""
    first_of: dict[str, int] = {}
    for place, label in enumerate(labels):
        first_of.setdefault(label, place)
    order = sorted(range(len(labels)), key=lambda place: (first_of[labels[place]], place))
    return [
        (
            place,
            position == 0 or labels[order[position - 1]] != labels[place],
            position == len(order) - 1 or labels[order[position + 1]] != labels[place],
        )
        for position, place in enumerate(order)
    ]


def render_passages(
    candidate: Candidate,
    runs: Sequence[RunText],
    *,
    truncated: bool,
    fmt: RenderFormat = RenderFormat.MARKDOWN,
    opening: bool = True,
    closing: bool = True,
) -> str:
    """One record's block: its label once, then its passages. A record that continues the
    label of the record before it (``opening`` false) starts with its first passage; one that
    the next record continues (``closing`` false) leaves the label's element open."""
    start, end = record_frame(candidate, fmt, truncated=truncated)
    before, after, gap = passage_parts(fmt)
    parts = [start] if opening else []
    for run in runs:
        if run.gap_before:
            parts.append(gap)
        parts.append(before.format(run.handle) + inert_text(run.text, fmt) + after)
    if closing:
        parts.append(end)
    text = "".join(parts)
    return text if opening else text.lstrip("\n")
