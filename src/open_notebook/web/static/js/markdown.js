// Markdown shown as text: headings, paragraphs, lists, emphasis and code become elements, their
// markers dropped; nothing is parsed as HTML (every piece of the source becomes a text node).
//
// Highlights are given in the source's character offsets (a cited passage, its supporting
// sentence) and survive the rendering: each text node is cut at their boundaries.

import { h } from "./dom.js";

const HEADING = /^(#{1,6})[ \t]+/;
const ITEM = /^[ \t]*([-*+]|\d{1,3}[.)])[ \t]+/;
const FENCE = /^[ \t]*```/;
// Inline spans: strong, emphasis, code, links (their text; the address is dropped).
const INLINE = /(\*\*|__)(?=\S)([\s\S]+?)(?<=\S)\1|(\*|_)(?=[^\s*_])([\s\S]+?)(?<=[^\s*_])\3(?![\w*])|`([^`\n]+)`|\[([^\]\n]+)\]\([^)\s]+\)/g;

/** The blocks of `text`: {kind, level, from, to} (offsets of their content within `text`). */
export function blocksOf(text) {
  const blocks = [];
  let paragraph = null;
  let fence = null;
  let offset = 0;
  const close = () => {
    if (paragraph) blocks.push(paragraph);
    paragraph = null;
  };
  for (const line of text.split("\n")) {
    const start = offset;
    const end = start + line.length;
    offset = end + 1;
    if (FENCE.test(line)) {
      close();
      if (fence) {
        blocks.push(fence);
        fence = null;
      } else fence = { kind: "code", from: end + 1, to: end + 1 };
      continue;
    }
    if (fence) {
      fence.to = end;
      continue;
    }
    const heading = HEADING.exec(line);
    const item = ITEM.exec(line);
    if (!line.trim()) close();
    else if (heading) {
      close();
      blocks.push({ kind: "heading", level: heading[1].length, from: start + heading[0].length, to: end });
    } else if (item) {
      close();
      blocks.push({ kind: /\d/.test(item[1]) ? "ordered" : "item", from: start + item[0].length, to: end });
    } else if (paragraph && paragraph.kind === "paragraph") paragraph.to = end;
    else if (blocks.length && ["item", "ordered"].includes(blocks[blocks.length - 1].kind) && /^[ \t]+/.test(line)) {
      blocks[blocks.length - 1].to = end; // a list item's continuation line
    } else {
      close();
      paragraph = { kind: "paragraph", from: start, to: end };
    }
  }
  close();
  if (fence) blocks.push(fence);
  return blocks;
}

/**
 * `text` (which starts at offset `base` of its record) rendered; `ranges`: [{start, end, class,
 * id}] in the record's offsets, drawn as <mark> (the id on its first piece only).
 */
export function renderMarkdown(text, base = 0, ranges = []) {
  const fragment = document.createDocumentFragment();
  const used = new Set();
  const emit = (parent, from, to) => emitText(parent, text, base, from, to, ranges, used);
  let list = null;
  for (const block of blocksOf(text)) {
    if (block.kind === "item" || block.kind === "ordered") {
      const tag = block.kind === "ordered" ? "ol" : "ul";
      if (!list || list.tagName.toLowerCase() !== tag) {
        list = h(tag, {});
        fragment.appendChild(list);
      }
      const li = h("li", {});
      inline(li, text, block.from, block.to, emit);
      list.appendChild(li);
      continue;
    }
    list = null;
    if (block.kind === "code") {
      const pre = h("pre", {});
      emit(pre, block.from, block.to);
      fragment.appendChild(pre);
    } else {
      const node = h(block.kind === "heading" ? `h${Math.min(6, block.level + 2)}` : "p", {});
      inline(node, text, block.from, block.to, emit);
      fragment.appendChild(node);
    }
  }
  return fragment;
}

function inline(parent, text, from, to, emit) {
  const slice = text.slice(from, to);
  INLINE.lastIndex = 0;
  let cursor = 0;
  for (let match = INLINE.exec(slice); match; match = INLINE.exec(slice)) {
    if (match.index > cursor) emit(parent, from + cursor, from + match.index);
    const [whole, strongMark, strongText, emMark, emText, code, link] = match;
    const inner = strongText ?? emText ?? code ?? link;
    const lead = strongMark ? strongMark.length : emMark ? 1 : code !== undefined ? 1 : 1;
    const tag = strongMark ? "strong" : emMark ? "em" : code !== undefined ? "code" : "span";
    const node = h(tag, {});
    const start = from + match.index + lead;
    emit(node, start, start + inner.length);
    parent.appendChild(node);
    cursor = match.index + whole.length;
  }
  if (cursor < slice.length) emit(parent, from + cursor, to);
}

function emitText(parent, text, base, from, to, ranges, used) {
  const cuts = new Set([from, to]);
  for (const range of ranges) {
    for (const at of [range.start - base, range.end - base]) if (at > from && at < to) cuts.add(at);
  }
  const points = [...cuts].sort((a, b) => a - b);
  for (let i = 0; i + 1 < points.length; i++) {
    const [a, b] = [points[i], points[i + 1]];
    const piece = text.slice(a, b);
    // The innermost range covering the piece (the shortest): a sentence inside its passage.
    const covering = ranges.filter((one) => one.start - base <= a && one.end - base >= b).sort((x, y) => x.end - x.start - (y.end - y.start));
    if (!covering.length) {
      parent.appendChild(document.createTextNode(piece));
      continue;
    }
    const range = covering[0];
    const attrs = { class: range.class };
    if (range.id && !used.has(range.id)) {
      attrs.id = range.id;
      used.add(range.id);
    }
    parent.appendChild(h("mark", attrs, piece));
  }
}

/** A passage quoted on its own: its text without the heading lines its title already gives. */
export function quoteText(text) {
  return plainText(String(text).replace(/(^|\n)[ \t]*#{1,6}[ \t]+[^\n]*(?=\n|$)/g, "$1"));
}

/** `text` with its Markdown markers dropped, on one line (snippets, titles). */
export function plainText(text) {
  return String(text)
    .replace(/^[ \t]*#{1,6}[ \t]+/gm, "")
    .replace(/^[ \t]*([-*+])[ \t]+/gm, "")
    .replace(/(\*\*|__)(\S[\s\S]*?\S|\S)\1/g, "$2")
    .replace(/(^|[^\w*])[*_](\S[^*_]*?\S|\S)[*_](?![\w*])/g, "$1$2")
    .replace(/`([^`]+)`/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}

const WORD = /[\p{L}\p{N}]+/gu;
const wordsOf = (text) => new Set((String(text).toLowerCase().match(WORD) || []).filter((word) => word.length > 2 || /\d/.test(word)));

/** Sentence spans [start, end) of `text` (ends of sentences and of lines). */
export function sentenceSpans(text) {
  const spans = [];
  // A line break inside a paragraph is a space (hard-wrapped text); one before a blank line, a
  // heading or a list item ends the sentence. Same length: offsets stay those of `text`.
  const flowing = text.replace(/\n(?![ \t]*(?:\n|#{1,6}[ \t]|[-*+][ \t]|\d{1,3}[.)][ \t]))/g, " ");
  const pattern = /[^.!?。！？\n]+(?:[.!?。！？]+["'”’)]*|$)/gm;
  for (let match = pattern.exec(flowing); match; match = pattern.exec(flowing)) {
    if (!match[0].trim()) {
      if (match[0].length === 0) pattern.lastIndex++;
      continue;
    }
    const lead = match[0].length - match[0].trimStart().length;
    spans.push([match.index + lead, match.index + match[0].trimEnd().length]);
  }
  return spans;
}

/**
 * The sentence of `text` that shares most words with `claim` ([start, end) in `text`; only
 * sentences overlapping `within` = [start, end) when given), or null when none shares any: what
 * the page highlights as the supporting sentence.
 */
export function supportingSentence(text, claim, within = null) {
  const wanted = wordsOf(claim);
  let best = null;
  let bestScore = 0;
  for (const [start, end] of sentenceSpans(text)) {
    // Whole sentences that overlap the passage: a passage can start or end mid-sentence.
    if (within && (end <= within[0] || start >= within[1])) continue;
    const words = wordsOf(text.slice(start, end));
    let shared = 0;
    for (const word of words) if (wanted.has(word)) shared += 1;
    const score = shared / Math.sqrt(Math.max(words.size, 1));
    if (score > bestScore) {
      best = [start, end];
      bestScore = score;
    }
  }
  return best;
}
